"""The game itself, pure (sans-I/O): state, decisions, commands, events, rules, dice, views."""

from skirmish.engine.codec import decode_event, encode_event, state_hash
from skirmish.engine.commands import Choose, Resign, Start
from skirmish.engine.decide import decide, default_option
from skirmish.engine.evolve import evolve, initial_state, replay
from skirmish.engine.view import view

__all__ = [
    "Choose", "Resign", "Start", "decide", "default_option", "evolve", "initial_state", "replay",
    "view", "state_hash", "encode_event", "decode_event",
]
