"""What the skills module hides, whether a game hides anything, and the salt that guards its
Checkpoint hashes (issue 15; docs/rules.md, seed 003, "Private Information").

``hides(state)``: a game of the skills module hides something only when its mission asks for it
(today: ``[skills] lieutenant_candidates``, the Lieutenant as Private Information, ``private``).
Only such a game draws the salt, and only there do the server and the bots treat the game as one
with hidden information (``Module.hides``: ``skirmish.engine.view.hides``,
``skirmish.bots.determinize.hidden``), so every other skills game plays, logs and hashes as before.

The salt: a Checkpoint's state hash covers who each Lieutenant is; without a secret in the state,
a side could hash the few candidates its opponent might have chosen until one matched. At the
game's start, ``draw_salt`` rolls it (purpose ``SALT``: 128 secret bits) and ``SecrecySalted``
folds it into the state; the roll and the event are redacted for every live viewer until the game
is over (``skirmish verify`` recomputes it from the revealed seed like any other roll).
"""

from __future__ import annotations

import msgspec
from skirmish.engine.base import Hidden
from skirmish.engine.events import DiceRolled
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.registry import ROLLS, Secret
from skirmish.engine.rules.salt import draw_salt
from skirmish.engine.rules.skills.events import SecrecySalted

SALT = "skills:salt"
ROLL = Hidden("roll")


def hides(state) -> bool:
    """Whether this game hides anything of the skills module (its mission asked for it): a private
    Lieutenant, units in Hidden Deployment (``hidden_handles``, kept after they are revealed), Camouflage
    markers, or impersonators (skills/impersonation.py, markers.py)."""
    return bool(state.lt_candidates) or bool(state.hidden_handles) or _camouflaged(state) or any(
        s.startswith("impersonation ") for u in state.units.values() for s in u.skills)


def _camouflaged(state) -> bool:
    """A game with Camouflage markers (kept after they are Discovered: a unit flag from the mission)."""
    return any(u.camouflaged for u in state.units.values())


def on_game_start(ctx: Context) -> None:
    """The salt, first of all, in a game that hides something."""
    if hides(ctx.state):
        ctx.emit(SecrecySalted(salt=draw_salt(ctx, SALT)))


def dice_rolled(state, e: DiceRolled, viewer: str):
    return msgspec.structs.replace(e, results=ROLL) if e.purpose == SALT else e


def salted(state, e: SecrecySalted, viewer: str):
    return msgspec.structs.replace(e, salt=Hidden("salt"))


REDACTIONS = {DiceRolled: dice_rolled, SecrecySalted: salted}


def secrets(state, viewer: str):
    if hides(state):
        yield Secret("the skills salt", ("secrecy_salt",))
        yield Secret("the skills salt's dice", (ROLLS, SALT, ""))
