"""A leaderboard across tournaments, kept in a store of its own (a SQLite file).

``skirmish leaderboard --store BOARD add OUT [OUT ...]`` copies each finished tournament's results
(its ``OUT/games.sqlite``: the config and one record per game) into BOARD; ``skirmish leaderboard
--store BOARD`` shows the standings over every game of every tournament added. BOARD may be any
file, a tournament's own ``games.sqlite`` included (the tables below sit beside the event store's).

Tables::

    leaderboard_tournaments (id, ord, source, config, games, added_at)
    leaderboard_games       (tournament, idx, record)

``id`` is the tournament's fingerprint hash (what decides its games: entrants, missions, games,
format, seed, ...): adding the same tournament again (resumed with more games since, say)
replaces its games, it is never counted twice. ``ord`` keeps the order tournaments were first
added in.

**Who is who**: an entrant is its *name*: give a bot the same name in every tournament
(``--bots cautious=mybots:Cautious``) and its games count together; the bot specs it was entered
as are listed beside it.

**Ratings**: as in one tournament (openskill Plackett-Luce from the default rating, mu - 3 sigma
ranks), updated over every game of every tournament: tournaments in the order they were added,
each one's games in its game order. W/D/L/F, win %, the number of tournaments and each pair's
rating difference with its 95% interval (``uncertainty.py``) come with it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from skirmish.server.store.sqlite_schema import connect

from . import report, uncertainty
from .config import Entrant, TournamentError
from .standings import Standings, compute

SCHEMA = """
CREATE TABLE IF NOT EXISTS leaderboard_tournaments (
    id       TEXT    NOT NULL PRIMARY KEY,
    ord      INTEGER NOT NULL,
    source   TEXT    NOT NULL,
    config   TEXT    NOT NULL,
    games    INTEGER NOT NULL,
    added_at REAL    NOT NULL
);
CREATE TABLE IF NOT EXISTS leaderboard_games (
    tournament TEXT    NOT NULL,
    idx        INTEGER NOT NULL,
    record     TEXT    NOT NULL,
    PRIMARY KEY (tournament, idx)
);
"""


@dataclass
class Added:
    """What ``add`` did with one tournament."""

    id: str
    source: str
    games: int
    replaced: bool  # it was on the board already (its games were replaced)


@dataclass
class Board:
    standings: Standings
    tournaments: dict[str, int]  # entrant -> the number of tournaments it played in
    bots: dict[str, list[str]]  # entrant -> the bot specs it was entered as
    history: list[dict[str, tuple[float, float]]]  # (mu, sigma) before and after each game
    entrants: list[str]  # in order of first appearance
    total_tournaments: int


class Leaderboard:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = connect(self.path)
        try:
            self.conn.executescript(SCHEMA)
        except BaseException:
            self.conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Leaderboard":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def add(self, out: Path) -> Added:
        """Copy the tournament in folder ``out`` (or its ``games.sqlite``) onto the board, in one
        transaction; a tournament already there has its games replaced."""
        config, records = read_tournament(out)
        tid = _fingerprint_id(config["fingerprint"])
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            row = self.conn.execute("SELECT ord FROM leaderboard_tournaments WHERE id = ?", (tid,)).fetchone()
            if row is None:
                (last,) = self.conn.execute("SELECT COALESCE(MAX(ord), 0) FROM leaderboard_tournaments").fetchone()
                ord_ = last + 1
            else:
                ord_ = row[0]
            self.conn.execute("DELETE FROM leaderboard_games WHERE tournament = ?", (tid,))
            self.conn.execute(
                "INSERT INTO leaderboard_tournaments (id, ord, source, config, games, added_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET source = excluded.source, config = excluded.config, "
                "games = excluded.games, added_at = excluded.added_at",
                (tid, ord_, str(out), json.dumps(config, sort_keys=True), len(records), time.time()))
            self.conn.executemany("INSERT INTO leaderboard_games (tournament, idx, record) VALUES (?, ?, ?)",
                                  [(tid, r["index"], json.dumps(r, sort_keys=True)) for r in records])
            self.conn.execute("COMMIT")
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        return Added(tid, str(out), len(records), row is not None)

    def tournaments(self) -> list[dict]:
        return [{"id": tid, "source": src, "games": n, "config": json.loads(cfg)} for tid, src, n, cfg in
                self.conn.execute("SELECT id, source, games, config FROM leaderboard_tournaments ORDER BY ord")]

    def records(self) -> list[tuple[str, dict]]:
        """(tournament id, record) of every game on the board, in rating order."""
        return [(tid, json.loads(rec)) for tid, rec in self.conn.execute(
            "SELECT g.tournament, g.record FROM leaderboard_games g JOIN leaderboard_tournaments t "
            "ON t.id = g.tournament ORDER BY t.ord, g.idx")]

    def board(self) -> Board:
        """The standings over every game on the board."""
        entrants: dict[str, list[str]] = {}  # name -> bot specs
        played_in: dict[str, set[str]] = {}
        games = []
        for n, (tid, rec) in enumerate(self.records()):
            for side in ("a", "b"):
                name, bot = rec["sides"][side], rec["bots"][side]
                specs = entrants.setdefault(name, [])
                if bot not in specs:
                    specs.append(bot)
                played_in.setdefault(name, set()).add(tid)
            games.append({**rec, "index": n})  # one numbering across the board, in rating order
        names = list(entrants)
        st = compute([Entrant(name, " / ".join(entrants[name])) for name in names], games)
        return Board(st, {n: len(played_in[n]) for n in names}, entrants,
                     uncertainty.rating_history(names, games), names, len(self.tournaments()))


def read_tournament(out: Path) -> tuple[dict, list[dict]]:
    """A tournament's config (``fingerprint`` and ``config``) and its game records, read from its
    folder's ``games.sqlite`` (or that file itself) without writing to it."""
    db = Path(out)
    if db.is_dir():
        db = db / "games.sqlite"
    if not db.is_file():
        raise TournamentError(f"{out}: no tournament there (no {db})")
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            kv = {k: json.loads(v) for k, v in conn.execute("SELECT key, value FROM tournament")}
            records = [json.loads(r) for (r,) in conn.execute("SELECT record FROM tournament_results ORDER BY idx")]
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise TournamentError(f"{db} is not a tournament's store: {exc}") from None
    if "fingerprint" not in kv:
        raise TournamentError(f"{db} holds no tournament (no fingerprint recorded)")
    return {"fingerprint": kv["fingerprint"], "config": kv.get("config", {})}, records


def _fingerprint_id(fingerprint: dict) -> str:
    text = json.dumps(fingerprint, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def table(board: Board) -> str:
    """The leaderboard as a fixed-width text table, then each pair's rating difference."""
    st = board.standings
    width = max([len("entrant")] + [len(ln.name) for ln in st.lines])
    head = (f"{'rank':>4}  {'entrant':<{width}}  {'rating':>7}  {'mu':>6}  {'sigma':>5}  {'tourn':>5}  "
            f"{'W':>4} {'D':>4} {'L':>4} {'F':>4}  {'games':>5}  {'win %':>6}")
    rows = [f"leaderboard: {board.total_tournaments} tournaments, {st.games} games "
            "(rating = openskill mu - 3 sigma)", head, "-" * len(head)]
    for ln in st.lines:
        rows.append(f"{ln.rank:>4}  {ln.name:<{width}}  {ln.ordinal:>7.2f}  {ln.mu:>6.2f}  {ln.sigma:>5.2f}  "
                    f"{board.tournaments[ln.name]:>5}  {ln.wins:>4} {ln.draws:>4} {ln.losses:>4} {ln.forfeits:>4}  "
                    f"{ln.games:>5}  {report.pct(ln.win_rate):>6}")
    pairs = report.rating_pairs(st)
    if pairs:
        rows += ["", "rating differences (mu, 95% interval d +- 1.96 sqrt(sigma1^2 + sigma2^2)):"]
        rows += [f"  {p.first} - {p.second}: {p.diff:+.2f} [{p.low:+.2f}, {p.high:+.2f}]"
                 f"{'' if p.separated else '  (not separated)'}" for p in pairs]
    return "\n".join(rows)


def board_json(board: Board) -> dict:
    return {"tournaments": board.total_tournaments, "games": board.standings.games,
            "standings": [{**row, "tournaments": board.tournaments[row["entrant"]]}
                          for row in report.standings_json(board.standings)],
            "rating_pairs": [p.as_dict() for p in report.rating_pairs(board.standings)]}


# -- ``skirmish leaderboard`` ---------------------------------------------------------------------


def add_leaderboard(sub):
    p = sub.add_parser("leaderboard", help="a leaderboard across tournaments, kept in a store",
                       description="Keep a leaderboard across tournaments in the SQLite file --store: 'add OUT ...' "
                                   "copies finished tournaments (skirmish tournament --out OUT) onto it (the same "
                                   "tournament added again replaces its games); without 'add', show the "
                                   "standings over every game on the board: openskill ratings (mu, sigma, "
                                   "mu - 3 sigma) and each pair's rating difference with its 95% interval. An "
                                   "entrant is its name across tournaments.")
    p.add_argument("--store", required=True, type=Path, metavar="FILE", help="the leaderboard's SQLite file")
    p.add_argument("action", nargs="?", choices=["add", "show"], default="show",
                   help="add tournaments, or show the leaderboard (default)")
    p.add_argument("tournaments", nargs="*", type=Path, metavar="OUT",
                   help="with add: tournament output folders (or their games.sqlite)")
    p.add_argument("--json", action="store_true", help="show: print the leaderboard as JSON")
    p.add_argument("--plot", type=Path, default=None, metavar="FILE.svg",
                   help="show: also write the ratings over every game (mu +- sigma) as an SVG file")
    return p


async def cmd_leaderboard(args) -> int:
    import sys

    def fail(message: str) -> int:
        print(f"skirmish leaderboard: {message}", file=sys.stderr)
        return 2

    if args.action == "add" and not args.tournaments:
        return fail("add takes one or more tournament folders (skirmish tournament --out)")
    if args.action == "show" and args.tournaments:
        return fail("tournament folders go with add: skirmish leaderboard --store FILE add OUT ...")
    try:
        with Leaderboard(args.store) as lb:
            if args.action == "add":
                for out in args.tournaments:
                    added = lb.add(out)
                    print(f"{'replaced' if added.replaced else 'added'} tournament {added.id} from {out}: "
                          f"{added.games} games")
                return 0
            board = lb.board()
    except (TournamentError, sqlite3.Error, OSError) as exc:
        return fail(str(exc))
    if args.plot is not None:
        args.plot.write_text(uncertainty.ratings_svg(
            board.history, board.entrants, "leaderboard: ratings over every game, mu and mu +- sigma"))
    print(json.dumps(board_json(board), indent=1) if args.json else table(board))
    return 0
