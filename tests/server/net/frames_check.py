"""Checking every raw frame a connection received against the truth (issue 15: "checks every frame
each seat and a spectator receives ... once through a real server, for any hidden fact").

After the game, the stored log (the full log) is folded to know the truth at each point; then,
up to the game's end (when the whole log opens), each frame the connection received must be:

- an ``event`` (alone or inside ``updates``): byte for byte (``encode_event``) the event as
  ``skirmish.engine.view`` shows that viewer the stored event of its ``seq``: nothing more leaked;
- a ``decision``: the pending decision as ``skirmish.engine.view.pending`` shows it in the state
  of its ``seq``;
- and whatever the frame (an event, a decision, a reply, a summary), no ``token`` secret the
  game's modules declare for the viewer (an id hidden under a handle) appears in it anywhere,
  and the state the viewer folds from the events it received holds no declared secret
  (``tests.engine.views_check``).

``check_frames`` returns the problems found (an empty list: no leak) and how many frames it checked.
"""

from __future__ import annotations

import msgspec

from skirmish.engine import events as ev
from skirmish.engine.codec import clone_state, decode_event, encode_event
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.rules.registry import rules_of
from skirmish.engine.view import pending, viewed
from skirmish.protocol import messages as m

from tests.engine.views_check import MISSING, Knowledge, _leaves, _mentioned, at, revealed

_JSON = msgspec.json.Encoder()


def _parts(msg) -> list:
    """The pushes a message holds, in order (``updates`` holds several)."""
    if isinstance(msg, m.Updates):
        parts = [m.EventMsg(game_id=msg.game_id, seq=i.seq, event=i.event) for i in msg.events]
        return parts + [x for x in (msg.decision, msg.game_over) if x is not None]
    return [msg]


def _plain(frame) -> object:
    return msgspec.json.decode(frame) if isinstance(frame, str) else msgspec.msgpack.decode(frame)


def check_frames(stored: list[bytes], frames: list, decode, viewer: str, game_id: str) -> tuple[list, int]:
    """Check the raw ``frames`` a connection of ``viewer`` received (``decode``: its codec's
    ``decode_server``) against the stored log ``stored`` (each event's bytes, from seq 1)."""
    log = [decode_event(d) for d in stored]
    views = list(viewed(log, viewer))
    states, state = [None], initial_state(log[0])  # states[seq]: the full state after event seq
    states.append(clone_state(state))
    for e in log[1:]:
        evolve(state, e)
        states.append(clone_state(state))
    end = next((i + 1 for i, e in enumerate(log) if isinstance(e, ev.GameEnded)), len(log) + 1)
    problems, checked, known = [], 0, None
    for frame in frames:
        msg = decode(frame)
        parts = [p for p in _parts(msg) if getattr(p, "game_id", game_id) == game_id]
        seqs = [p.seq for p in parts if isinstance(p, (m.EventMsg, m.DecisionMsg))]
        if any(s >= end for s in seqs) or isinstance(msg, m.GameOverMsg):
            break  # the game is over: the whole log is open
        checked += 1
        for p in parts:
            if isinstance(p, m.EventMsg):
                want = views[p.seq - 1]
                if want is None or encode_event(p.event) != encode_event(want):
                    problems.append((viewer, p.seq, "event differs from its view", p.event, want))
                if isinstance(p.event, ev.GameCreated):
                    known = Knowledge(initial_state(p.event))
                elif known is not None:
                    known.learn(p.event)
            elif isinstance(p, m.DecisionMsg):
                want = pending(states[p.seq], viewer)
                if _JSON.encode(p.decision) != _JSON.encode(want):
                    problems.append((viewer, p.seq, "decision differs from its view", p.decision, want))
        seq = max(seqs, default=0)
        if seq:
            problems += _secrets(states[seq], known, _plain(frame), viewer, seq)
    return problems, checked


def _secrets(truth_state, known, plain, viewer: str, seq: int) -> list:
    truth = Knowledge(truth_state)
    leaves = _leaves(plain, set())
    out = []
    for s in rules_of(truth_state).secrets_of(truth_state, viewer):
        value = at(truth, s.path)
        if value is MISSING:
            continue
        if s.token and _mentioned(value, leaves):
            out.append((viewer, seq, s.what, "in a frame"))
        if known is not None and any(revealed(s, value, at(known, p)) for p in (s.path, s.seen_as) if p):
            out.append((viewer, seq, s.what, "in its state"))
    return out
