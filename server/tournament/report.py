"""The tournament's report: a table in the terminal and six files in the output directory.

- ``results.json``: the config, the standings and every game (id, seed, dice seed, pairing, sides, bots,
  outcome, winner, reason, forfeit, error, events, duration, ...);
- ``games.csv``: one row per game; ``standings.csv``: one row per entrant;
- ``report.md``: standings, the win-rate matrix, win rates by side and by mission, the
  forfeits with their errors, and how to verify a game;
- ``report.html``: the same figures as one self-contained page (``html.py``), every game linked
  to its replay in the web client;
- ``ratings.svg``: every entrant's mu over the games in a band of mu +- sigma; report.md and
  results.json (``rating_pairs``) also give each pair's rating difference with its 95% interval
  (``uncertainty.py`` says how).

Every file is written to a temporary name and renamed, so a reader never sees half a file.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

from . import html, uncertainty
from .config import TournamentConfig
from .standings import Standings


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def table(st: Standings) -> str:
    """The standings as a fixed-width text table."""
    width = max([len("entrant")] + [len(ln.name) for ln in st.lines])
    head = (f"{'rank':>4}  {'entrant':<{width}}  {'rating':>7}  {'mu':>6}  {'sigma':>5}  "
            f"{'W':>4} {'D':>4} {'L':>4} {'F':>4}  {'games':>5}  {'win %':>6}")
    rows = [head, "-" * len(head)]
    for ln in st.lines:
        rows.append(f"{ln.rank:>4}  {ln.name:<{width}}  {ln.ordinal:>7.2f}  {ln.mu:>6.2f}  {ln.sigma:>5.2f}  "
                    f"{ln.wins:>4} {ln.draws:>4} {ln.losses:>4} {ln.forfeits:>4}  {ln.games:>5}  "
                    f"{pct(ln.win_rate):>6}")
    return "\n".join(rows)


def standings_json(st: Standings) -> list[dict]:
    return [{
        "rank": ln.rank, "entrant": ln.name, "bot": ln.bot, "rating": round(ln.ordinal, 4), "mu": round(ln.mu, 4),
        "sigma": round(ln.sigma, 4), "games": ln.games, "wins": ln.wins, "draws": ln.draws, "losses": ln.losses,
        "forfeits": ln.forfeits, "win_rate": ln.win_rate,
        "by_side": {s: {"games": t.games, "wins": t.wins, "draws": t.draws, "win_rate": t.rate}
                    for s, t in ln.by_side.items()},
        "by_mission": {m: {"games": t.games, "wins": t.wins, "draws": t.draws, "win_rate": t.rate}
                       for m, t in sorted(ln.by_mission.items())},
    } for ln in st.lines]


def write_all(out: Path, config: TournamentConfig, st: Standings, records: list[dict],
              rounds: list[dict] | None = None) -> list[Path]:
    """Write the report files into ``out`` (and the ratings plot, ``ratings.svg``); returns their paths."""
    records = sorted(records, key=lambda r: r["index"])
    paths = [out / "results.json", out / "games.csv", out / "standings.csv", out / "report.md"]
    doc = {
        "config": config.as_dict(),
        "fingerprint": config.fingerprint(),
        "games_total": st.games,
        "sides": st.sides,
        "missions": st.missions,
        "standings": standings_json(st),
        "rating_pairs": [p.as_dict() for p in rating_pairs(st)],
        "rounds": rounds or [],
        "games": records,
    }
    _write(paths[0], json.dumps(doc, indent=1, sort_keys=False) + "\n")
    _write(paths[1], games_csv(records))
    _write(paths[2], standings_csv(st))
    _write(paths[3], markdown(config, st, records, rounds))
    paths.append(out / "report.html")  # the same, as one self-contained page with figures (html.py)
    if config.server:
        base, hint = "http" + config.server.rstrip("/").removeprefix("ws"), ""
    else:
        base, hint = "http://127.0.0.1:8765", f" once the tournament's store is served: skirmish serve --db {out / 'games.sqlite'}"
    _write(paths[4], html.render(doc, base, hint))
    paths.append(out / "ratings.svg")  # mu +- sigma over the games (uncertainty.py)
    names = [e.name for e in config.entrants]
    _write(paths[5], uncertainty.ratings_svg(uncertainty.rating_history(names, records), names))
    return paths


def rating_pairs(st: Standings) -> list[uncertainty.PairDifference]:
    """Every pair of entrants' rating difference with its 95% interval, the better-ranked first."""
    return uncertainty.pair_differences([(ln.name, ln.mu, ln.sigma) for ln in st.lines])


def games_csv(records: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["index", "game_id", "round", "pairing", "game_in_pairing", "mission", "seed", "side_a", "side_b",
                "bot_a", "bot_b", "outcome", "winner", "reason", "forfeit_side", "forfeit_kind", "error",
                "events", "decisions", "duration_s"])
    for r in records:
        f = r.get("forfeit") or {}
        w.writerow([r["index"], r["id"], r["round"], " vs ".join(r["pairing"]), r["game_in_pairing"], r["mission"],
                    r["seed"], r["sides"]["a"], r["sides"]["b"], r["bots"]["a"], r["bots"]["b"], r["outcome"],
                    r["winner"] or "", r["reason"], f.get("side", ""), f.get("kind", ""), r.get("error") or "",
                    "" if r.get("events") is None else r["events"], r["decisions"], f"{r['duration']:.3f}"])
    return buf.getvalue()


def standings_csv(st: Standings) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["rank", "entrant", "bot", "rating", "mu", "sigma", "games", "wins", "draws", "losses", "forfeits",
                "win_pct", "win_pct_side_a", "win_pct_side_b"])
    for ln in st.lines:
        w.writerow([ln.rank, ln.name, ln.bot, f"{ln.ordinal:.4f}", f"{ln.mu:.4f}", f"{ln.sigma:.4f}", ln.games,
                    ln.wins, ln.draws, ln.losses, ln.forfeits, _num(ln.win_rate), _num(ln.by_side["a"].rate),
                    _num(ln.by_side["b"].rate)])
    return buf.getvalue()


def _num(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.2f}"


def _md_row(cells) -> str:
    return "| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |"


def markdown(config: TournamentConfig, st: Standings, records: list[dict], rounds: list[dict] | None = None) -> str:
    """The tournament's report (report.md): settings, standings, win rates, forfeits, games."""
    return "\n".join([*_md_summary(config, st), *uncertainty.pairs_markdown(rating_pairs(st)), "",
                      "The ratings over the games (mu, and the band mu +- sigma): `ratings.svg`.",
                      *_md_matrix(st), *_md_missions(config, st, rounds),
                      *_md_forfeits(st), *_md_games(config, records)])


def _md_summary(config: TournamentConfig, st: Standings) -> list[str]:
    """The title, the settings and the head of the standings table."""
    lines = [f"# Tournament: {config.format}, {len(config.entrants)} entrants", ""]
    c = config.as_dict()
    lines += [
        f"- entrants: {', '.join(f'`{e.name}` ({e.bot})' for e in config.entrants)}",
        f"- missions: {', '.join(config.missions)}",
        f"- games per pairing: {config.games} ({config.pairs} mirrored pairs: same mission and bot seeds, sides swapped, each game its own dice)"
        + (f"; {config.games_requested} were asked for, rounded up to keep the pairs whole"
           if config.games_requested else ""),
        *([f"- rounds: {config.rounds}"] if config.format == "swiss" else []),
        *([f"- champion: `{config.champion}`"] if config.format == "gauntlet" else []),
        f"- seed: {c['seed']}; decision time limit: "
        + (f"{config.decision_timeout_ms} ms" if config.decision_timeout_ms else "none"),
        f"- played {'through the server ' + config.server if config.server else 'in process'}; "
        f"{st.games} games recorded",
        "",
        "## Standings",
        "",
        "Rating = openskill (Plackett-Luce) mu - 3 sigma, updated game by game in game order. "
        "W/D/L/F = wins, draws, ordinary losses, forfeits (crash, illegal answer, time-out). "
        "Win % = (W + D/2) / games.",
        "",
        _md_row(["rank", "entrant", "bot", "rating", "mu", "sigma", "W", "D", "L", "F", "games", "win %"]),
        _md_row(["---:", ":---", ":---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]),
    ]
    for ln in st.lines:
        lines.append(_md_row([ln.rank, f"`{ln.name}`", f"`{ln.bot}`", f"{ln.ordinal:.2f}", f"{ln.mu:.2f}",
                              f"{ln.sigma:.2f}", ln.wins, ln.draws, ln.losses, ln.forfeits, ln.games,
                              pct(ln.win_rate)]))
    return lines


def _md_matrix(st: Standings) -> list[str]:
    """Each entrant's win rate against each other, then by side."""
    names = [ln.name for ln in st.lines]
    lines = ["", "## Win-rate matrix", "",
             "The row entrant's win % against the column entrant (draws count half), with the number of games.", "",
             _md_row(["", *names]), _md_row(["---", *["---:"] * len(names)])]
    for row in names:
        cells = []
        for col in names:
            t = st.matrix.get((row, col))
            cells.append("" if row == col else ("-" if t is None else f"{pct(t.rate)} ({t.games})"))
        lines.append(_md_row([f"**{row}**", *cells]))
    total = max(1, st.games)
    lines += ["", "## Win rates by side", "",
              f"Over all games: side a won {st.sides['a']} ({pct(st.sides['a'] / total)}), side b won "
              f"{st.sides['b']} ({pct(st.sides['b'] / total)}), {st.sides['draw']} draws "
              f"({pct(st.sides['draw'] / total)}).", "",
              _md_row(["entrant", "as side a", "games", "as side b", "games"]),
              _md_row([":---", "---:", "---:", "---:", "---:"])]
    for ln in st.lines:
        a, b = ln.by_side["a"], ln.by_side["b"]
        lines.append(_md_row([f"`{ln.name}`", pct(a.rate), a.games, pct(b.rate), b.games]))
    return lines


def _md_missions(config: TournamentConfig, st: Standings, rounds: list[dict] | None) -> list[str]:
    """Win rates by mission, and the Swiss rounds."""
    missions = list(config.missions)
    lines = ["", "## Win rates by mission", "",
             _md_row(["mission", "games", "side a won", "side b won", "draws"]),
             _md_row([":---", "---:", "---:", "---:", "---:"])]
    for m in missions:
        s = st.missions.get(m, {"a": 0, "b": 0, "draw": 0})
        n = sum(s.values())
        lines.append(_md_row([m, n, s["a"], s["b"], s["draw"]]))
    lines += ["", _md_row(["entrant", *missions]), _md_row([":---", *["---:"] * len(missions)])]
    for ln in st.lines:
        cells = []
        for m in missions:
            t = ln.by_mission.get(m)
            cells.append("-" if not t or not t.games else f"{pct(t.rate)} ({t.games})")
        lines.append(_md_row([f"`{ln.name}`", *cells]))
    if config.format == "swiss" and rounds:
        lines += ["", "## Rounds", "", "Each round paired by the standings after the rounds before it.", ""]
        for r in rounds:
            pairs = ", ".join(f"`{x}` v `{y}`" for x, y in r["pairings"])
            lines.append(f"- round {r['round'] + 1}: {pairs}" + (f"; bye: `{r['bye']}`" if r.get("bye") else ""))
    return lines


def _md_forfeits(st: Standings) -> list[str]:
    lines = ["", "## Forfeits", ""]
    if not st.forfeits:
        lines.append("None: every bot answered every decision legally and in time.")
    else:
        lines += [_md_row(["game", "entrant", "side", "kind", "error"]), _md_row([":---"] * 5)]
        for r in st.forfeits:
            f = r["forfeit"]
            lines.append(_md_row([f"`{r['id']}`", f"`{f['entrant']}`", f["side"], f["kind"], f["error"]]))
        for r in st.forfeits:
            f = r["forfeit"]
            if f.get("traceback") or f.get("log"):
                lines += ["", f"<details><summary>{r['id']}: {f['entrant']} ({f['kind']})</summary>", ""]
                if f.get("traceback"):
                    lines += ["```", f["traceback"].rstrip(), "```"]
                if f.get("log"):
                    lines += ["", "The bot's output (last lines):", "", "```", f["log"].rstrip(), "```"]
                lines += ["", "</details>"]
    return lines


def _md_games(config: TournamentConfig, records: list[dict]) -> list[str]:
    """Every game, and how to verify one."""
    db = config.out / "games.sqlite"
    lines = ["", "## Games", "", f"All {len(records)} games, in schedule order (the same rows as `games.csv`).", "",
             _md_row(["#", "game", "pairing", "mission", "side a", "side b", "winner", "reason", "events"]),
             _md_row([":---"] * 9)]
    for r in records:
        winner = f"`{r['winner']}` ({r['outcome']})" if r["winner"] else "draw"
        lines.append(_md_row([r["index"], f"`{r['id']}`", " vs ".join(r["pairing"]), r["mission"], f"`{r['sides']['a']}`",
                              f"`{r['sides']['b']}`", winner, r["reason"].replace("|", "/"),
                              "" if r.get("events") is None else r["events"]]))
    example = records[0]["id"] if records else "GAME"
    lines += ["", "## How to verify a game", ""]
    if config.server:
        lines += [f"The games were played through {config.server}; the server's store keeps their logs. "
                  "On the server's machine:", "", "```sh", f"skirmish verify {example} --db SERVER_DB", "```"]
    else:
        lines += ["Every game is stored, whole, in the tournament's event store. To audit one (hash chain, "
                  "seed commitment, every die roll, every rule):", "", "```sh",
                  f"skirmish verify {example} --db {db}", f"skirmish replay {example} --as all --db {db}", "```"]
    lines += ["", "Files: `results.json` (config and every game), `games.csv`, `standings.csv`, this report, "
              "and `games.sqlite`. Rerun the same command to resume an interrupted tournament.", ""]
    return lines
