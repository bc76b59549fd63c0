"""Auditing a game's log: anyone can check that it is intact and that no die was fudged.

``verify_log`` takes the events as stored (sequence number, exact bytes, stored chain hash)
and checks, stopping at the first bad event and naming it:

1. **sequence**: seqs run 1, 2, 3, ... with none missing (a deleted event shows here);
2. **hash chain**: each stored hash is ``skirmish.engine.log.chain_hash`` of the previous one and the
   exact stored bytes (a changed byte, or reordered events, show here);
3. **decoding**: each event's bytes are a known event of the right shape;
4. **replay**: each event can follow the state before it (``evolve`` accepts it);
5. **checkpoints**: each ``Checkpoint`` holds the hash of the replayed state before it;
6. **seed**: the revealed server seed matches the commitment logged at creation;
7. **dice**: each roll equals the roll recomputed from the seed, the client seeds logged
   before it (a client seed applies only to later rolls) and its nonce;
8. **rules**: re-running ``decide`` -- with the rules of the engine version that recorded the game
   (``GameCreated.engine_version``, ``skirmish.engine.versions``; a version this engine does not know
   fails at event 1) -- on every logged command (start, each choice, resignation,
   the cancellation or expiry of a game nobody joined)
   with the revealed dice produces exactly the logged events, so the server could neither
   invent an outcome nor skip a rule.

Checks 1-3 run first; 4, 5, 7 and 8 run in one pass in log order, so the event named is the
first bad one. Check 7 needs the revealed seed, which exists once the game is over; before that
the report says the dice are not yet verifiable (the rules are still re-run, with the logged
rolls standing in for the dice, as they are for games on local dice).

A stored log never holds a viewer's redacted form (``skirmish.engine.base.Hidden``): in an event the
rules produce, or a roll, it fails checks 7 and 8 like any changed value; in ``GameCreated``,
which the rules do not produce, it fails at event 1.

A malformed event never raises: bytes that are not an event (or hold a string that is not
UTF-8) fail check 3, and anything the engine raises on an event that decodes fails that event.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Iterable, NamedTuple

from skirmish.engine import events as ev
from skirmish.engine.base import Hidden
from skirmish.engine.codec import DecodeError, decode_event, encode_event, state_hash
from skirmish.engine.commands import Cancel, Choose, Command, OfferDraw, Resign, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice.fair import ProvablyFairDice
from skirmish.engine.errors import GameError, InvalidEvent
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.log import GENESIS_HASH, chain_hash
from skirmish.engine.versions import ENGINE_VERSION, UnknownVersion
from skirmish.engine.versions import level as rules_level


class LoggedEvent(NamedTuple):
    seq: int
    data: bytes
    hash: bytes


@dataclass
class Report:
    game_id: str
    ok: bool = True
    events: int = 0
    rolls: int = 0
    rolls_checked: int = 0
    checkpoints: int = 0
    commands_rerun: int = 0
    finished: bool = False
    outcome: str = ""
    seed_verified: bool = False
    head_hash: str = ""
    bad_seq: int | None = None
    problem: str = ""
    notes: list[str] = field(default_factory=list)

    def fail(self, seq: int, problem: str) -> "Report":
        self.ok, self.bad_seq, self.problem = False, seq, problem
        return self

    def summary(self) -> str:
        if not self.ok:
            return f"FAILED at event {self.bad_seq}: {self.problem}"
        parts = [f"OK: {self.events} events", f"hash chain intact (head {self.head_hash[:16]}…)",
                 f"{self.checkpoints} state checkpoints reproduced"]
        if self.seed_verified:
            parts.append("server seed matches its commitment")
        if self.rolls_checked:
            parts.append(f"all {self.rolls_checked} dice rolls recomputed")
        if self.commands_rerun:
            parts.append(f"{self.commands_rerun} commands re-run through the rules")
        return "; ".join(parts) + "".join(f"\n  note: {n}" for n in self.notes)


class _LoggedDice:
    """Dice that answer with the logged rolls (for games whose seed is not revealed, or local).

    A roll the log does not hold gets a stand-in of ones: the events the rules then produce
    differ from the log's, and the comparison names the first event where they part.
    """

    def __init__(self, rolls: dict[int, tuple[int, ...]]):
        self.rolls = rolls

    def roll(self, nonce: int, sides: int, count: int) -> tuple[int, ...]:
        got = self.rolls.get(nonce)
        if got is None or len(got) != count or max(got) > sides:
            return (1,) * count
        return got


_COMMAND_MARKERS = (ev.GameStarted, ev.OptionChosen, ev.Resigned, ev.GameCancelled, ev.DrawOffered, ev.DrawAgreed)
_SERVER_EVENTS = (ev.ClientSeedAdded, ev.SeatTaken, ev.SeedRevealed)  # appended by the server, not by a command


def _command_of(event: ev.Event) -> Command:
    if isinstance(event, ev.GameStarted):
        return Start()
    if isinstance(event, ev.OptionChosen):
        return Choose(event.decision_id, event.option, event.side, timeout=event.timeout)
    if isinstance(event, ev.GameCancelled):
        return Cancel(reason=event.reason, seat=event.seat)
    if isinstance(event, (ev.DrawOffered, ev.DrawAgreed)):
        return OfferDraw(event.side)
    return Resign(event.side, reason=event.reason)


def verify_log(game_id: str, stored: Iterable[LoggedEvent]) -> Report:
    report = Report(game_id)
    decoded: list[tuple[int, ev.Event]] = []
    prev = GENESIS_HASH
    # 1-3: sequence, chain, decoding
    for expected_seq, item in enumerate(stored, start=1):
        if item.seq != expected_seq:
            return report.fail(expected_seq, f"event {expected_seq} is missing (next stored is {item.seq})")
        h = chain_hash(prev, game_id, item.seq, item.data)
        if h != item.hash:
            return report.fail(item.seq, "hash chain broken: the stored bytes or order of events changed")
        prev = h
        try:
            event = decode_event(item.data)
        except DecodeError as exc:
            return report.fail(item.seq, f"not a valid event: {exc}")
        decoded.append((item.seq, event))
    report.events = len(decoded)
    report.head_hash = prev.hex()
    if not decoded:
        return report.fail(1, "the log is empty")
    seq0, first = decoded[0]
    if not isinstance(first, ev.GameCreated) or first.game_id != game_id:
        return report.fail(seq0, "the first event must be GameCreated for this game")
    if any(isinstance(v, Hidden) for u in first.units for v in (u.name, u.x, u.y)):
        return report.fail(seq0, "GameCreated hides a unit's name or position: a viewer's view of the game, not its log")
    try:  # the game is re-run with the rules it was played under (skirmish.engine.versions)
        rules_level(first.engine_version)
    except UnknownVersion as exc:
        return report.fail(seq0, f"the rules cannot be re-run: {exc}")

    # 6: the seed, read ahead so that one pass can check every event in order
    rolls = {e.nonce: e.results for _, e in decoded if isinstance(e, ev.DiceRolled)}
    report.rolls = len(rolls)
    ended = next((s for s, e in decoded if isinstance(e, ev.GameEnded)), None)
    revealed = next(((s, e) for s, e in decoded if isinstance(e, ev.SeedRevealed)), None)
    seed: bytes | None = None  # the revealed server seed, once checked against the commitment
    if first.dice == "fair":
        if revealed is None and ended is not None:
            last = decoded[-1][0]
            return report.fail(last + 1, f"event {last + 1} is missing: a finished game ends by revealing its seed")
        if revealed is None:
            report.notes.append("the game is not over: its dice become verifiable when the seed is revealed")
        else:
            reveal_seq, reveal = revealed
            try:
                revealed_seed = bytes.fromhex(reveal.server_seed)
            except ValueError:
                return report.fail(reveal_seq, "the revealed seed is not hex")
            if len(revealed_seed) != 32:
                return report.fail(reveal_seq, f"the revealed seed is {len(revealed_seed)} bytes, not 32")
            if hashlib.sha256(revealed_seed).hexdigest() != first.commitment:
                return report.fail(reveal_seq, "the revealed server seed does not match the commitment")
            report.seed_verified = True
            seed = revealed_seed
    else:
        report.notes.append("local dice: rolls are not provably fair, only checked for consistency")

    # 4, 5, 7, 8 in one pass, so the first bad event is the one named
    try:
        bad = _one_pass(first, decoded, _LoggedDice(rolls), seed, report)
    except _Malformed as exc:
        bad = exc.seq, exc.problem
    if bad is not None:
        seq, problem = bad
        if first.engine_version != ENGINE_VERSION:  # say which rules re-ran it: the recorded version's
            problem += (f" (re-run with the rules of engine {first.engine_version!r}, which recorded it; "
                        f"this is engine {ENGINE_VERSION!r})")
        return report.fail(seq, problem)
    report.rolls_checked = len(rolls) if seed is not None else 0
    report.finished = ended is not None
    return report


def _differences(produced: ev.Event, logged: ev.Event) -> str:
    if type(produced) is not type(logged):
        return f"the rules give {type(produced).__name__} here, the log has {type(logged).__name__}"
    diffs = [f"{f}: rules {getattr(produced, f)!r}, log {getattr(logged, f)!r}"
             for f in produced.__struct_fields__ if getattr(produced, f) != getattr(logged, f)]
    return f"{type(logged).__name__} differs from what the rules give ({'; '.join(diffs)})"


class _Malformed(Exception):
    """An event the engine could not process at all (it raised something unexpected)."""

    def __init__(self, seq: int, problem: str):
        super().__init__(seq, problem)
        self.seq, self.problem = seq, problem


def _one_pass(first: ev.GameCreated, decoded, logged_dice, seed: bytes | None, report: Report) -> tuple[int, str] | None:
    """Checks 4, 5, 7 and 8 event by event. ``seed`` is the revealed server seed (None: the
    logged rolls stand in for the dice). Each roll is recomputed with the client seeds logged
    *before* it: a client seed applies only to the rolls after it."""
    try:
        state = initial_state(first)
    except Exception as exc:  # a GameCreated that decodes but describes no game
        raise _Malformed(1, f"not a game the engine can set up: {type(exc).__name__}: {exc}") from None
    check = _Pass(state, ProvablyFairDice(seed) if seed is not None else None, logged_dice, report)
    for seq, event in decoded[1:]:
        try:
            bad = check.event(seq, event)
        except Exception as exc:  # the engine met something it cannot handle: a malformed event
            raise _Malformed(seq, f"{type(event).__name__} cannot be processed: {type(exc).__name__}: {exc}") from None
        if bad is not None:
            return seq, bad
        if isinstance(event, ev.ClientSeedAdded) and seed is not None:
            try:
                check.fair = ProvablyFairDice(seed, state.client_seeds)
            except ValueError as exc:
                return seq, f"not a valid client seed: {exc}"
    if check.expected:
        return decoded[-1][0] + 1, f"the log stops in the middle of a command: {type(check.expected[0]).__name__} is missing"
    report.outcome = state.outcome.reason if state.outcome else ""
    return None


class _Pass:
    def __init__(self, state, fair: ProvablyFairDice | None, logged_dice: _LoggedDice, report: Report):
        self.state, self.fair, self.logged_dice, self.report = state, fair, logged_dice, report
        self.expected: list[ev.Event] = []  # what the rules produce for the command in progress

    def event(self, seq: int, event: ev.Event) -> str | None:
        """The problem with ``event`` (then the state is left as it was), or None once applied."""
        state, fair = self.state, self.fair
        if isinstance(event, _COMMAND_MARKERS):
            if self.expected:
                return f"the rules give {type(self.expected[0]).__name__} here, the log starts a new command"
            try:
                self.expected = decide(state, _command_of(event), fair or self.logged_dice)
            except (GameError, InvalidEvent) as exc:
                return f"the rules reject this command: {exc}"
            self.report.commands_rerun += 1
        if isinstance(event, ev.Checkpoint):
            self.report.checkpoints += 1
            if state_hash(state) != event.state_hash:
                return "checkpoint: the replayed state does not have the recorded hash"
        if isinstance(event, ev.DiceRolled) and fair is not None:
            try:
                recomputed = fair.roll(event.nonce, event.sides, len(event.results))
            except ValueError as exc:
                return f"roll {event.nonce} cannot be recomputed: {exc}"
            if recomputed != event.results:
                return f"roll {event.nonce} is {list(event.results)} but the committed seed gives {list(recomputed)}"
        if self.expected:
            produced = self.expected.pop(0)
            if encode_event(produced) != encode_event(event):
                return _differences(produced, event)
        elif not isinstance(event, _SERVER_EVENTS):
            return f"{type(event).__name__} here follows from no command"
        try:
            evolve(state, event)
        except InvalidEvent as exc:
            return f"cannot follow the events before it: {exc}"
        return None
