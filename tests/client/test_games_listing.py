"""``skirmish games`` and the client library use list_games' filters and paging (issue 12, item 9)."""

from __future__ import annotations

from skirmish.client.connection import connect

from test_client_cli import run


async def _games(url: str) -> dict[str, list[str]]:
    """5 open games, 1 live, 1 finished; their ids by status, oldest first."""
    out: dict[str, list[str]] = {"open": [], "live": [], "finished": []}
    async with connect(url, name="maker") as c, connect(url, name="joiner") as d:
        for status in ("live", "finished"):
            seat = await c.create_game("ridge", seat="a")
            await d.join(seat.game_id)
            if status == "finished":
                await c.resign(seat.game_id)
            out[status].append(seat.game_id)
        for _ in range(5):
            out["open"].append((await c.create_game("outpost")).game_id)
        # the library: filters, paging, the total
        assert [g.game_id for g in await c.list_games("open")] == out["open"]
        assert [g.game_id for g in await c.list_games("live")] == out["live"]
        page = await c.games_page("open", offset=1, limit=2)
        assert [g.game_id for g in page.games] == out["open"][2:4] and page.total == 5
        assert [g.game_id for g in await c.list_games()] == out["live"] + out["finished"] + out["open"]
    return out


def test_games_filters_and_pages(capsys, server_thread):
    srv = server_thread
    made = srv.run(_games(srv.url))
    code, out, err = run(capsys, "games", "--server", srv.url, "--status", "live", server=srv)
    assert code == 0, err
    header, row = out.strip().splitlines()
    assert row.split()[0] == made["live"][0] and "playing" in row
    code, out, err = run(capsys, "games", "--server", srv.url, "--status", "open", "--limit", "2", server=srv)
    lines = out.strip().splitlines()
    assert [line.split()[0] for line in lines[1:3]] == made["open"][3:]
    assert lines[3] == "(games 4-5 of 5, oldest first; older: --page 2)"
    code, out, err = run(capsys, "games", "--server", srv.url, "--status", "open", "--limit", "2", "--page", "3",
                         server=srv)
    lines = out.strip().splitlines()
    assert [line.split()[0] for line in lines[1:2]] == made["open"][:1]
    assert lines[2] == "(games 1-1 of 5, oldest first)"
    code, out, err = run(capsys, "games", "--server", srv.url, "--status", "finished", server=srv)
    assert made["finished"][0] in out and "over" in out and "of" not in out.splitlines()[-1]
    code, out, err = run(capsys, "games", "--server", srv.url, "--limit", "0", server=srv)
    assert code == 2 and "--limit" in err


def test_games_says_when_no_game_has_that_status(capsys, server_thread):
    code, out, _ = run(capsys, "games", "--server", server_thread.url, "--status", "live", server=server_thread)
    assert code == 0 and out.strip() == "no live games on this server"
