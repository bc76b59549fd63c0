"""Running the engine forward inside a bot's search, fast and on the bot's own copy.

``skirmish.engine.decide.decide`` is what the server runs: it validates the command, clones the state
(a MessagePack round trip) and returns events the caller must then apply with ``evolve`` --
so every rule's effect is applied twice. A search that owns its working state needs neither
the validation (it only ever plays an offered option) nor the clone, so ``step`` runs the very
same rules (the game's rule set: ``ctx.rules.answers`` and the core's ``advance``) on the state it
is given, in place, through the engine's own ``Context``. ``tests/bots/test_bot_simulate.py``
checks, over random playouts of every bundled mission, that ``step`` reaches exactly the state
(same hash) that ``decide`` + ``evolve`` reach.

Everything here works on a state the bot derived from its own view (see ``skirmish.bots.determinize``),
never on the server's.
"""

from __future__ import annotations

import msgspec

from skirmish.bots.policy import best_option
from skirmish.engine.codec import clone_state
from skirmish.engine.dice.base import Dice
from skirmish.engine.events import DiceRolled, OptionChosen
from skirmish.engine.model import Option, State
from skirmish.engine.rules import registry
from skirmish.engine.rules.context import Context

_encoder = msgspec.msgpack.Encoder(order="deterministic")
_decoder = msgspec.msgpack.Decoder(State)

encode = _encoder.encode
decode = _decoder.decode


def clone(state: State) -> State:
    """A deep copy (``skirmish.engine.codec.clone_state``)."""
    return clone_state(state)


def step(state: State, option: Option, dice: Dice) -> bool:
    """Answer ``state.pending`` with ``option`` and run the rules to the next decision, in place.

    ``option`` must be one of the pending decision's options (not checked: the search only
    plays offered options). Returns whether any dice were rolled on the way, i.e. whether the
    transition was random.
    """
    p = state.pending
    ctx = Context(state, dice)
    ctx.emit(OptionChosen(decision_id=p.id, side=p.side, option=option))
    ctx.rules.answers[p.kind](ctx, option)
    ctx.rules.core.advance(ctx)
    for e in ctx.events:
        if type(e) is DiceRolled:
            return True
    return False


# Decisions inside a procedure that a lookahead answers with the static policy instead of
# stopping at them: the attack (or task) the option started is not worth anything to an
# evaluation until its dice are rolled and its damage dealt.
PROCEDURE_KINDS = frozenset({"buy_dice", "aim", "avoid_injury", "melee_won", "bystander", "ready",
                             "recover_stress"}
                            ) | registry.CATALOG.all().bots.procedure_kinds  # the modules' (Module.bots)


def settle(state: State, dice: Dice, limit: int = 24) -> bool:
    """Play on, with ``skirmish.bots.policy.best_option``, through the procedure decisions above until
    a decision of another kind (or the end). Returns whether any dice were rolled."""
    rolled = False
    while limit and state.outcome is None:
        p = state.pending
        if p is None or p.kind not in PROCEDURE_KINDS:
            break
        rolled |= step(state, best_option(state, p), dice)
        limit -= 1
    return rolled
