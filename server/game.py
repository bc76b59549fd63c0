"""A live game: the engine's state and dice bound to the event store.

``submit`` is DESIGN.md section 1's path of a command: decide (pure, may reject with a typed
error), append the events durably, and only then apply them to the cached state. When the game
ends the server seed is revealed in the log, so the game becomes verifiable by anyone.

The game's *secret* (kept beside its log by ``EventStore.create_game``, never in it) is either
the bare 32-byte server seed (local matches) or, for networked games, the MessagePack map
``{"seed": bytes, "token_key": bytes}``. Each seat's token is derived from the key
(``seat_token``): stored nowhere, yet a restarted server can still hand out a seat nobody took.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass

import msgspec

from skirmish.engine.codec import decode_event, encode_event
from skirmish.engine.commands import Command
from skirmish.engine.decide import decide
from skirmish.engine.dice import ProvablyFairDice
from skirmish.engine.dice.fair import check_client_seed
from skirmish.engine.events import ClientSeedAdded, Event, GameEnded, SeatTaken, SeedRevealed
from skirmish.engine.evolve import evolve, initial_state, replay
from skirmish.engine.mission import Mission, game_created
from skirmish.engine.model import State
from skirmish.engine.view import hides, views
from skirmish.server.store import EventStore


def new_game_id() -> str:
    return "g-" + secrets.token_hex(6)


def seed_from_int(seed: int) -> bytes:
    """A server seed made from a number, for reproducible local matches (not secret!)."""
    return hashlib.sha256(f"skirmish-match:{seed}".encode()).digest()


SEED_BYTES = 32


class Secret(msgspec.Struct, forbid_unknown_fields=False):
    seed: bytes
    token_key: bytes = b""  # seat tokens are derived from it (``seat_token``); b"": no seats


def seat_token(token_key: bytes, game_id: str, seat: str) -> str:
    """A seat's token: HMAC-SHA256(token_key, "game_id:seat"), base64url. Derived, so that a
    restarted server can still hand out a seat nobody took; stored nowhere."""
    mac = hmac.new(token_key, f"{game_id}:{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def encode_secret(seed: bytes, token_key: bytes) -> bytes:
    return msgspec.msgpack.encode(Secret(seed=seed, token_key=token_key))


def decode_secret(blob: bytes) -> Secret:
    """The stored secret: a bare seed (local matches) or the seed and the token key."""
    if len(blob) == SEED_BYTES:
        return Secret(seed=bytes(blob))
    return msgspec.msgpack.decode(blob, type=Secret)


@dataclass(frozen=True)
class Submitted:
    """What a command did: its events, stored as ``first_seq..last_seq``; ``duplicate`` for a
    retried command id (the events are then those stored the first time, already applied).

    ``views[i]`` is ``events[i]`` as each live viewer sees it (``skirmish.engine.view.views``, made
    with the state before the event, as it was applied), or None where every viewer sees it as
    it is; empty where every viewer sees every event as it is (a game whose modules hide
    nothing) and for a duplicate (nothing is published again)."""

    events: list[Event]
    first_seq: int
    last_seq: int
    duplicate: bool = False
    views: tuple = ()
    rules_s: float = 0.0  # seconds in the rules: decide, then evolve and the views


class LiveGame:
    def __init__(self, store: EventStore, state: State, dice: ProvablyFairDice, token_key: bytes = b"",
                 head_hash: bytes = b"", reserved: dict[str, str] | None = None):
        self.store = store
        # seat -> the only player name that may take it (create_game's reserve_for), kept in the
        # game's meta beside the log: a lobby matter, not a rule of the game
        self.reserved = dict(reserved or {})
        self.state = state
        self.dice = dice
        self.token_key = token_key
        self.head_hash = head_hash  # the chain hash of the last stored event (game_over announces it)

    def token_for(self, seat: str) -> str:
        if not self.token_key:
            raise ValueError(f"game {self.game_id} has no seats to hand out")
        return seat_token(self.token_key, self.game_id, seat)

    def seat_of_token(self, token: str) -> str | None:
        """The seat whose token this is, compared in constant time; None for any other string."""
        if not isinstance(token, str) or not token or not self.token_key:
            return None
        found = None
        for seat in ("a", "b"):
            if hmac.compare_digest(token.encode(), self.token_for(seat).encode()):
                found = seat
        return found

    @property
    def game_id(self) -> str:
        return self.state.game_id

    @classmethod
    async def create(cls, store: EventStore, mission: Mission, *, game_id: str | None = None,
                     server_seed: bytes | None = None, client_seeds: dict[str, str] | None = None,
                     token_key: bytes = b"", seat: tuple[str, str, str] | None = None,
                     command_id: str | None = None, reserved: dict[str, str] | None = None) -> "LiveGame":
        """A new game in the store. With a ``token_key`` the game has seats with tokens, and the
        secret kept beside the log holds the key with the seed (see the module docstring).

        The game, its ``GameCreated``, the ``client_seeds`` and, with ``seat`` (seat, name,
        client seed), that seat taken, are stored in ONE transaction (``EventStore.create_game``):
        a crash leaves the whole game or nothing. With a ``command_id`` the creation is
        idempotent: if a game was created with it already, :class:`AlreadyCreated` names it and
        nothing is stored. ValueError for a bad seat or client seed (nothing stored)."""
        dice = ProvablyFairDice(server_seed) if server_seed else ProvablyFairDice.new()
        game_id = game_id or new_game_id()
        info = {"mission": mission.id, "mission_name": mission.name, "created": time.time()}
        if reserved:
            info["reserved"] = dict(reserved)
        meta = json.dumps(info).encode()
        seed = bytes.fromhex(dice.server_seed_hex)
        secret = encode_secret(seed, token_key) if token_key else seed
        first = game_created(game_id, mission, "fair", dice.commitment)
        events: list[Event] = [first]
        for side, client_seed in sorted((client_seeds or {}).items()):
            dice = dice.with_client_seed(side, client_seed)
            events.append(ClientSeedAdded(seat=side, seed=client_seed))
        state = initial_state(first)
        for e in events[1:]:
            evolve(state, e)
        if seat is not None:
            taken, dice = _seat_events(state, dice, *seat)
            for e in taken:
                evolve(state, e)
            events += taken
        result = await store.create_game(game_id, meta, secret=secret, events=[encode_event(e) for e in events],
                                         command_id=command_id)
        if result.duplicate:
            raise AlreadyCreated(result.game_id)
        return cls(store, state, dice, token_key, result.last_hash, reserved)

    @staticmethod
    async def stored_request(store: EventStore, game_id: str, command_id: str) -> list[Event] | None:
        """The events the write carrying ``command_id`` stored in the game (a creation's or a
        seat's), or None if none carried it."""
        prior = await store.find_command(game_id, command_id)
        if prior is None:
            return None
        return [decode_event(s.data) for s in await store.read(game_id, prior.first_seq, prior.last_seq)]

    @classmethod
    async def load(cls, store: EventStore, game_id: str) -> "LiveGame":
        """Rebuild a game from its log and its stored seed (after a restart, say)."""
        stored = await store.read(game_id)
        state = replay(decode_event(s.data) for s in stored)
        blob = await store.load_secret(game_id)
        if not blob and state.revealed_seed:  # an imported game: over, its seed in the log, no seats
            blob = bytes.fromhex(state.revealed_seed)
        secret = decode_secret(blob)
        dice = ProvablyFairDice(secret.seed, state.client_seeds)
        if dice.commitment != state.commitment:
            raise ValueError(f"that server seed is not the one game {game_id} committed to")
        return cls(store, state, dice, secret.token_key, stored[-1].hash,
                   reserved_of((await store.game_info(game_id)).meta))

    def reserved_free(self) -> dict[str, str]:
        """The reservations of the seats still free (what ``list_games`` shows)."""
        return {s: n for s, n in self.reserved.items() if s not in self.state.seats}

    async def add_client_seed(self, seat: str, seed: str) -> Event:
        """A seat's client seed, mixed into every roll; only before the first roll."""
        dice = self.dice.with_client_seed(seat, seed)  # ValueError for a bad seed
        event = ClientSeedAdded(seat=seat, seed=seed)
        result = await self.store.append(self.game_id, self.state.seq, [encode_event(event)])
        evolve(self.state, event)
        self.dice = dice
        self.head_hash = result.last_hash
        return event

    async def take_seat(self, seat: str, name: str, client_seed: str = "", command_id: str | None = None) -> Submitted:
        """Record that ``seat`` is taken (``SeatTaken``) with its client seed, in one append (under
        ``command_id``, if given: the seat-taking request's id, see ``skirmish.server.lobby``).

        ValueError for a seat that is not free or a bad client seed; nothing is stored then.
        """
        events, dice = _seat_events(self.state, self.dice, seat, name, client_seed)
        result = await self.store.append(self.game_id, self.state.seq, [encode_event(e) for e in events], command_id)
        if result.duplicate:  # the actor looks a request id up before it takes a seat: not reached
            raise ValueError(f"request {command_id!r} already took a seat in game {self.game_id}")
        seen = self._apply(events)
        self.dice = dice
        self.head_hash = result.last_hash
        return Submitted(events, result.first_seq, result.last_seq, views=seen)

    async def submit(self, command: Command, command_id: str | None = None) -> list[Event]:
        """Run a command; its events are durable when this returns. Raises ``GameError``."""
        return (await self.run(command, command_id)).events

    async def run(self, command: Command, command_id: str | None = None) -> Submitted:
        """``submit``, saying where the events were stored and whether the command was a retry."""
        t0 = time.perf_counter()
        events = decide(self.state, command, self.dice)
        rules_s = time.perf_counter() - t0
        if self.state.outcome is None and events and _ends(events):
            events.append(SeedRevealed(server_seed=self.dice.server_seed_hex))
        result = await self.store.append(self.game_id, self.state.seq, [encode_event(e) for e in events], command_id)
        if result.duplicate:  # a retried command: hand back what it did the first time
            stored = await self.store.read(self.game_id, result.first_seq, result.last_seq)
            return Submitted([decode_event(s.data) for s in stored], result.first_seq, result.last_seq, True)
        t0 = time.perf_counter()
        seen = self._apply(events)
        rules_s += time.perf_counter() - t0
        self.head_hash = result.last_hash
        return Submitted(events, result.first_seq, result.last_seq, views=seen, rules_s=rules_s)

    def _apply(self, events: list[Event]) -> tuple:
        """Apply stored events to the state, each shown first to every live viewer in the state
        before it (what ``Submitted.views`` holds; empty for a game whose modules hide nothing)."""
        if not hides(self.state):
            for e in events:
                evolve(self.state, e)
            return ()
        seen = []
        for e in events:
            seen.append(views(self.state, e))
            evolve(self.state, e)
        return tuple(seen)


class AlreadyCreated(Exception):
    """``LiveGame.create``'s command id had created a game already: ``game_id`` (nothing stored)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"that request created game {game_id} already")
        self.game_id = game_id


def _seat_events(state: State, dice: ProvablyFairDice, seat: str, name: str,
                 client_seed: str) -> tuple[list[Event], ProvablyFairDice]:
    """The events that take ``seat`` (``SeatTaken``, then ``ClientSeedAdded`` with a client seed)
    and the dice after them; ValueError for a seat that is not free or a bad client seed."""
    if seat not in ("a", "b") or seat in state.seats:
        raise ValueError(f"seat {seat!r} is not free")
    if state.started:
        raise ValueError("the game has started")
    events: list[Event] = [SeatTaken(seat=seat, name=name)]
    if client_seed:
        check_client_seed(seat, client_seed)
        dice = dice.with_client_seed(seat, client_seed)
        events.append(ClientSeedAdded(seat=seat, seed=client_seed))
    return events, dice


def reserved_of(meta: bytes) -> dict[str, str]:
    """The seat reservations kept in a game's meta ({} for none, or meta that is not ours)."""
    try:
        info = json.loads(meta or b"{}")
    except ValueError:
        return {}
    got = info.get("reserved") if isinstance(info, dict) else None
    if not isinstance(got, dict):
        return {}
    return {s: n for s, n in got.items() if s in ("a", "b") and isinstance(n, str) and n}


def _ends(events: list[Event]) -> bool:
    return isinstance(events[-1], GameEnded)
