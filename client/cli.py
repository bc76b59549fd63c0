"""The networked ``skirmish`` commands: ``play`` (a human at a terminal), ``spectate``, ``games``.

``skirmish.server.cli.build_parser`` registers them with ``add_commands``. Each prints a one-line error
and exits 2 when the server is not there or refuses; 0 otherwise (a game played or watched to
its end, or stdin closed: the seat stays yours, resume it later).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import threading

from skirmish.client import render
from skirmish.client.safe import safe
from skirmish.client.connection import (Client, ClientError, ConnectionLost, DecisionUpdate, EventUpdate,
                               GameOverUpdate, connect)

EXIT_OK, EXIT_USAGE = 0, 2
BOARD_KINDS = ("first", "activate", "act", "directed", "sprint", "melee_won", "ready")


def _server_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--server", required=True, metavar="URL",
                   help="the server's address, e.g. ws://127.0.0.1:8765 (what 'skirmish serve' printed)")
    p.add_argument("--codec", choices=["msgpack", "json"], default="msgpack",
                   help="the wire format (WebSocket subprotocol skirmish.v1.msgpack or skirmish.v1.json; "
                        "default: msgpack)")


def add_commands(sub) -> None:
    """Register ``play``, ``spectate`` and ``games`` on the ``skirmish`` command's subparsers."""
    p = sub.add_parser(
        "play", help="play a game on a server from this terminal",
        description="Play one seat of a game on a server: the board and units from your side's view, "
                    "the pending decision as numbered options, moves picked by their cell on the board "
                    "('m X Y'); every roll explained; your hand, pools and tokens; the time left on "
                    "your clock. Type a number (or 'm X Y') and Enter; '?' lists the commands. "
                    "'q' resigns (after you confirm); end of input (Ctrl-D) leaves the game, which "
                    "you can resume with the token printed when you took the seat.")
    _server_arg(p)
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--create", metavar="MISSION", help="create a game of MISSION (e.g. ridge) and take a seat")
    how.add_argument("--join", metavar="GAME", help="join the game GAME (see 'skirmish games')")
    how.add_argument("--resume", metavar="GAME", help="take up your seat in GAME again (needs --token)")
    p.add_argument("--seat", choices=["a", "b", "any"], default="any",
                   help="which side to play with --create or --join (default: any)")
    p.add_argument("--token", help="with --resume: the seat token printed when you took the seat (write --token=TOKEN: a token may start with -)")
    p.add_argument("--last-seq", type=int, default=0, metavar="N",
                   help="with --resume: the last event you saw; events up to N are not printed again "
                        "(the view is still rebuilt from the start)")
    p.add_argument("--client-seed", default=None, metavar="TEXT",
                   help="your client seed, mixed into every die roll (with --create or --join; up to 64 "
                        "printable ASCII characters, no ':' or ','; default: a random one)")
    p.set_defaults(run=cmd_play)

    p = sub.add_parser("spectate", help="watch a game on a server, event by event, until it ends",
                       description="Print the events of a game as a spectator sees them, narrated one "
                                   "per line, from its start until it ends.")
    _server_arg(p)
    p.add_argument("game", help="the game id (see 'skirmish games')")
    p.set_defaults(run=cmd_spectate)

    p = sub.add_parser("games", help="list the games on a server",
                       description="A table of the games a server has: id, mission, seats taken, "
                                   "state and the number of events; the newest --limit of them (newest "
                                   "last), --page 2 for the ones before, --status to see only open, live "
                                   "or finished games.")
    _server_arg(p)
    p.add_argument("--status", choices=["all", "open", "live", "finished"], default="all",
                   help="open: waiting for a player (join one), live: being played (spectate one), "
                        "finished (default: all)")
    p.add_argument("--limit", type=int, default=50, metavar="N", help="games per page (default: 50)")
    p.add_argument("--page", type=int, default=1, metavar="P", help="1: the newest games (default), 2: the "
                                                                    "ones before them, ...")
    p.set_defaults(run=cmd_games)


def _fail(command: str, exc: Exception | str) -> int:
    print(f"skirmish {command}: {safe(exc)}", file=sys.stderr)
    return EXIT_USAGE


# -- games ------------------------------------------------------------------------------------------


async def cmd_games(args) -> int:
    if args.limit < 1 or args.page < 1:
        return _fail("games", ValueError("--limit and --page are at least 1"))
    status = "" if args.status == "all" else args.status
    offset = (args.page - 1) * args.limit
    try:
        async with connect(args.server, codec=args.codec, name="skirmish games") as c:
            page = await c.games_page(status, offset=offset, limit=args.limit)
    except ClientError as exc:
        return _fail("games", exc)
    print(games_table(page.games, status))
    shown = len(page.games)
    if page.total > shown:
        older = f"; older: --page {args.page + 1}" if offset + shown < page.total else ""
        first = page.total - offset - shown + 1
        print(f"(games {first}-{first + shown - 1} of {page.total}, oldest first{older})" if shown else
              f"(no games on page {args.page}: there are {page.total})")
    return EXIT_OK


def games_table(games, status: str = "") -> str:
    if not games and status:
        return f"no {status} games on this server"
    if not games:
        return "no games on this server (create one: skirmish play --server URL --create ridge)"
    rows = [("GAME", "MISSION", "SEATS", "STATE", "EVENTS", "HEAD HASH (finished games)")]
    for g in games:
        state = "over" if g.over else ("playing" if g.started else "waiting for a player")
        rows.append((safe(g.game_id), safe(g.mission), safe(",".join(g.seats)) or "-", state, str(g.seq),
                     safe(g.head_hash) or "-"))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows)


# -- spectate ---------------------------------------------------------------------------------------


async def cmd_spectate(args) -> int:
    try:
        async with connect(args.server, codec=args.codec, name="skirmish spectate", auto_reconnect=True) as c:
            await c.spectate(args.game)
            async for update in c.updates(args.game):
                if isinstance(update, EventUpdate) and update.text:
                    print(f"{update.seq:5d}  {update.text}", flush=True)
                elif isinstance(update, GameOverUpdate):
                    print(_over_line(update), flush=True)
    except ClientError as exc:
        return _fail("spectate", exc)
    return EXIT_OK


def _over_line(update: GameOverUpdate) -> str:
    o = update.outcome
    who = f"side {safe(o.winner)} wins" if o.winner else "a draw"
    forfeit = f"; seat {safe(update.forfeit)} forfeited on time" if update.forfeit else ""
    return head_line(safe(update.head_hash)) + f"game over: {who} ({safe(o.reason)}){forfeit}"


def head_line(head_hash: str) -> str:
    """The log's head hash as the server announced it, and how to hold a replay file to it (a
    line of its own, ending in a newline; "" when the server sent none)."""
    if not head_hash:
        return ""
    return (f"head hash: {head_hash} (keep it: 'skirmish verify --file FILE --expect-head {head_hash}' "
            f"checks that a replay file is this game's log)\n")


# -- play -------------------------------------------------------------------------------------------


class StdinLines:
    """Lines of stdin, read by a daemon thread so that waiting for input never blocks the event
    loop nor the process's exit. ``get()`` returns a line without its newline, or None at EOF."""

    def __init__(self, stream=None):
        self._stream = stream or sys.stdin
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._loop = asyncio.get_running_loop()
        threading.Thread(target=self._pump, name="stdin", daemon=True).start()

    def _pump(self) -> None:
        while True:
            try:
                line = self._stream.readline()
            except (OSError, ValueError):
                line = ""
            self._loop.call_soon_threadsafe(self._queue.put_nowait, line.rstrip("\r\n") if line else None)
            if not line:
                return

    async def get(self) -> str | None:
        return await self._queue.get()


async def cmd_play(args) -> int:
    if args.resume and not args.token:
        return _fail("play", "--resume needs --token (printed when you took the seat)")
    if (args.token or args.last_seq) and not args.resume:
        return _fail("play", "--token and --last-seq go with --resume")
    try:
        async with connect(args.server, codec=args.codec, name="skirmish play", auto_reconnect=True) as c:
            return await Terminal(c, args).run()
    except ClientError as exc:
        return _fail("play", exc)


HELP = """\
How to play (type a command and Enter):
  1, 2, ...     choose the numbered option
  m X Y         move to the cell at column X, row Y (also: X,Y  or  X Y  or  move X Y);
                the board marks the cells you can reach with o. Sprints and fending off
                are picked the same way (sprint X Y, fend X Y, bonus X Y when offered)
  b, board      show the board and the units again
  s, status     the round, Momentum, Threat, tokens, Action Points, your hand of cards
  o, options    list the options of this decision again
  t, time       the time left on your clock (the prompt shows it too)
  ?, help       this text
  q, resign     resign the game (asks you to confirm)
  draw          offer a draw, or accept the other side's standing offer (playing on declines one)
  Ctrl-D        leave without resigning: your seat stays yours (resume with your token)
Each roll is explained on its line: a Task's d20 succeed at or under the target number (a 1,
or at or under the Discipline with a Focus, counts twice; a 20 is a Complication), successes
beyond the Difficulty are Momentum; Challenge Dice count 1, 2, 0, 0, 1 and 1 with an Effect."""

TICK = 1.0  # seconds between refreshes of the clock line on a terminal


class Terminal:
    """One human playing one seat: prints the game, reads commands (see ``HELP``).

    On a terminal (stdout a tty, TERM not "dumb") the line above the prompt is a clock that
    ticks every second while you think; elsewhere (a pipe, a test) the prompt shows the time
    left when it is printed and ``t`` prints it again."""

    def __init__(self, client: Client, args, out=None):
        self.c = client
        self.args = args
        self.gid = ""
        self.seat = ""
        self.show_after = 0
        self.prompted = 0  # the decision id the human was last asked
        self.asked = None  # ... and that decision
        self.menu: render.Menu | None = None  # ... and its options as the human picks them
        self.clock_shown = 0  # the decision whose clock was printed
        self.confirming = False  # 'q' was typed: the next line confirms the resignation
        self.out = out or sys.stdout
        self.shown_board = ""  # the board as last printed: not printed again unchanged
        self.shown_status = ""  # ... the round, pools and hands
        self.shown_places = ""  # ... the objectives, items and facilities
        self.waiting = False  # a prompt is on screen, waiting for a line
        isatty = getattr(self.out, "isatty", None)
        self.ticking = bool(isatty and isatty()) and os.environ.get("TERM", "") != "dumb"

    def say(self, text: str = "") -> None:
        self.waiting = False
        print(text, file=self.out, flush=True)

    async def take_seat(self) -> None:
        a, c = self.args, self.c
        if a.create:
            held = await c.create_game(a.create, seat=a.seat, client_seed=a.client_seed)
        elif a.join:
            held = await c.join(a.join, seat=a.seat, client_seed=a.client_seed)
        else:
            held = await c.resume(a.resume, a.token, 0)  # from 0: the view is rebuilt from the start
            self.show_after = a.last_seq
        self.gid, self.seat = safe(held.game_id), held.seat
        if a.resume:
            self.say(f"resumed seat {self.seat} of game {self.gid}")
        else:
            self.say(f"you hold seat {self.seat} of game {self.gid} on {a.server}")
            self.say(f"your seat token (keep it secret; it is how you resume): {held.token}")
            if a.create:
                self.say(f"your opponent joins with: skirmish play --server {a.server} --join {self.gid}")
        self.say("type ? for help")

    def resume_hint(self) -> str:
        return (f"resume with: skirmish play --server {self.args.server} --resume {self.gid} "
                f"--token=TOKEN --last-seq {self.c.last_seq(self.gid)}")

    async def run(self) -> int:
        await self.take_seat()
        lines = StdinLines()
        stream = self.c.updates(self.gid).__aiter__()
        next_update = asyncio.ensure_future(stream.__anext__())
        line_task: asyncio.Future | None = None
        ticker = asyncio.ensure_future(self.tick()) if self.ticking else None
        try:
            while True:
                decision = self.c.my_decision(self.gid)
                settled = not next_update.done() and not self.c.queued(self.gid)
                if decision is not None and decision.id != self.prompted and settled:
                    # every update received so far is printed: ask
                    self.show(decision)
                    self.prompted, self.asked, self.confirming = decision.id, decision, False
                    self.prompt()
                waits = {next_update}
                if decision is not None and decision.id == self.prompted:
                    if line_task is None:
                        line_task = asyncio.ensure_future(lines.get())
                    waits.add(line_task)
                done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
                if next_update in done:
                    try:
                        update = next_update.result()
                    except StopAsyncIteration:
                        return EXIT_OK
                    if self.on_update(update):
                        return EXIT_OK
                    next_update = asyncio.ensure_future(stream.__anext__())
                if line_task is not None and line_task in done:
                    line = line_task.result()
                    line_task = None
                    if line is None:
                        self.say()
                        self.say(f"input closed: you leave the game; your seat stays yours. {self.resume_hint()}")
                        return EXIT_OK
                    await self.on_line(line, self.asked)
        finally:
            for task in (next_update, line_task, ticker):
                if task is not None and not task.done():
                    task.cancel()

    async def tick(self) -> None:
        """On a terminal: rewrite the clock line above the prompt every second while a prompt
        waits (the cursor is saved and restored, so what is being typed stays where it is)."""
        while True:
            await asyncio.sleep(TICK)
            if self.waiting and not self.confirming:
                line = self.clock_line()
                if line:
                    self.out.write(f"\x1b7\x1b[1A\r\x1b[2K{line}\x1b8")
                    self.out.flush()

    def clock_line(self) -> str:
        left = self.c.clock_left(self.gid) if self.gid else None
        return f"time left: {render.clock_short(*left)}" if left else ""

    def on_update(self, update) -> bool:
        """Print an update; True when the game is over. Other updates are ignored."""
        if isinstance(update, EventUpdate):
            if update.text and update.seq > self.show_after:
                self.say(f"{update.seq:5d}  {update.text}")
        elif isinstance(update, DecisionUpdate):
            if update.decision.id == self.prompted and self.clock_shown != self.prompted:
                self.clock_shown = self.prompted  # the clock came after the question
                if not self.ticking:  # on a terminal the clock line above the prompt shows it at the next tick
                    self.say(render.clock_text(update.clock.move_ms, update.clock.reserve_ms, update.clock.timeouts))
                    self.prompt()
        elif isinstance(update, GameOverUpdate):
            self.say(_over_line(update))
            return True
        return False

    def show(self, decision, force: bool = False) -> None:
        """The board and the units when this decision moves something or picks a unit and they
        changed since printed (or ``force``), the status when it changed, then the options."""
        state = self.c.view(self.gid)
        self.menu = render.Menu(decision, state)
        self.say()
        if force or self.menu.cells or decision.kind in BOARD_KINDS:
            shown = render.board(state, self.seat, self.menu.reachable)
            if force or shown != self.shown_board:  # units moved, fell, or other cells to move to
                self.say(shown)
                self.say(render.units(state, self.seat))
                self.shown_board = shown
        head, places = render.status_parts(state, self.seat)
        if force or head != self.shown_status:
            self.say(head)
            self.shown_status = head
        if places and (force or places != self.shown_places):
            self.say(places)
            self.shown_places = places
        extra = render.procedure(state, self.seat)
        if extra:
            self.say(extra)
        self.say(self.menu.text())
        if self.c.clock_left(self.gid):
            self.clock_shown = decision.id

    def prompt(self) -> None:
        menu = self.menu
        usage = menu.usage() if menu is not None else "a number"
        if self.ticking:  # the line above the prompt is the clock, rewritten every second
            self.out.write((self.clock_line() or "time left: (the clock has not come yet)") + "\n")
            clock = ""
        else:
            left = self.c.clock_left(self.gid)
            clock = f"[{render.clock_short(*left)}] " if left else ""
        self.out.write(f"{clock}your choice ({usage}; ? help, q resign)> ")
        self.out.flush()
        self.waiting = True

    async def on_line(self, line: str, decision) -> None:
        text = line.strip().lower()
        self.waiting = False
        if self.confirming:
            self.confirming = False
            if text in ("y", "yes"):
                try:
                    await self.c.resign(self.gid)
                    self.say("you resigned")
                except ClientError as exc:
                    self.say(f"could not resign: {safe(exc)}")
                return
            self.say("not resigning")
            self.prompt()
            return
        if text == "draw":
            try:
                await self.c.offer_draw(self.gid)
                self.say("draw offered (or, if the other side had offered one, accepted)")
            except ClientError as exc:
                self.say(f"could not offer a draw: {safe(exc)}")
            self.prompt()
            return
        if text in ("q", "quit", "resign"):
            self.confirming = True
            self.out.write("resign the game? [y/N]> ")
            self.out.flush()
            return
        if text in ("", "?", "h", "help", "b", "board", "map", "s", "status", "hand", "o", "options",
                    "l", "list", "t", "time", "clock"):
            self.command(text, decision)
            self.prompt()
            return
        try:
            option = self.menu.pick(text)
        except ValueError as exc:
            self.say(str(exc))
            self.prompt()
            return
        self.say(f"-> {render.label(option, self.c.view(self.gid), decision)}")
        try:
            await self.c.choose(decision, option, game_id=self.gid)
        except ConnectionLost:
            raise  # reconnecting failed: the command says so and exits 2
        except ClientError as exc:
            if exc.code == "game.stale_decision":
                self.say("too late: that decision is gone (the clock ran out and the server chose)")
            else:
                self.say(f"refused: {safe(exc)}")
                self.prompted = 0  # ask again

    def command(self, text: str, decision) -> None:
        """The commands that answer nothing: help, board, status, options, time."""
        state = self.c.view(self.gid)
        if text in ("?", "h", "help"):
            self.say(HELP)
        elif text in ("b", "board", "map"):
            self.shown_board = render.board(state, self.seat, self.menu.reachable)
            self.say(self.shown_board)
            self.say(render.units(state, self.seat))
        elif text in ("s", "status", "hand"):
            self.shown_status, self.shown_places = render.status_parts(state, self.seat)
            self.say(render.status(state, self.seat))
        elif text in ("o", "options", "l", "list"):
            self.say(self.menu.text())
        elif text in ("t", "time", "clock"):
            left = self.c.clock_left(self.gid)
            self.say(render.clock_text(*left) if left else "no clock yet for this decision")
