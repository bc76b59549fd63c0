"""Regaining IMP-1 against Hidden Deployment (seed 003, "IMPERSONATION EXAMPLE: REGAINING
IMPERSONATION VS HIDDEN DEPLOYMENT"; issue 15; docs/rules.md I32): the Entire Order that regains
IMP-1 (skills/impersonation.py) when the enemy has a trooper in Hidden Deployment
(skills/hidden_deployment.py).

- **The declaration**: the impersonator's side "confirms that there aren't any enemy figures or
  Markers with LoF to her trooper" (``impersonation.turn_options`` offers ``("impersonate",)`` only
  then) and declares the Order. A trooper in Hidden Deployment "is not on the table neither as a
  figure nor as a Marker": it "cannot disrupt the active trooper's declaration" (it is in no LoF
  computation while hidden).
- **The reveal window**: "once the Entire Order has been declared", if the enemy side has a placed
  hidden unit, the Order is held (``RegainFrame``) and the enemy gets Hidden Deployment's reveal
  window, whether or not one of its hidden units has LoF (the window tells nothing).
- **Disrupted**: a revealed trooper (it needs LoF to the impersonator to reveal) breaks the Order's
  Requirement (``impersonation.regain_complies``, in ``hidden_deployment.REQUIREMENTS``): "it cannot
  be carried out" -- ``OrderDisrupted``, the frame ends, no ``MarkerPlaced``: the impersonator
  stays a figure, "and making the active trooper lose his Order": its activation ends.
- **Its Attack**: "if the trooper in Hidden Deployment were to declare an Attack as his ARO, he
  would make a Normal Roll": the revealed unit's ``("reveal", unit, weapon, lethal)`` is a core
  attack at the impersonator after its Order was lost, a Task rolled unopposed (seed 001), which
  is how this engine makes a Normal Roll of an attack (*adapted*: there is no Face to Face Roll to
  drop, the core's Tasks have none).
- **Not disrupted** (the window answered ``stay``): the Order is carried out as without a hidden
  enemy (``impersonation.act_regain``).
"""

from __future__ import annotations

from skirmish.engine.events import ProcedureEnded, ProcedureStarted
from skirmish.engine.model import Option, Unit, other
from skirmish.engine.rules.context import Context
from skirmish.engine.rules.skills import hidden_deployment, impersonation
from skirmish.engine.rules.skills.frames import RegainFrame


def act(ctx: Context, unit: Unit, option: Option) -> None:
    """``("impersonate",)`` declared: against a placed enemy in Hidden Deployment, the Order held and
    the reveal window opened; else carried out at once (as before Hidden Deployment existed)."""
    if not hidden_deployment.placed(ctx.state, other(unit.side)):
        impersonation.act_regain(ctx, unit, option)
        return
    ctx.emit(ProcedureStarted(frame=RegainFrame(unit=unit.id)))
    hidden_deployment.window(ctx, unit.id)


def step(ctx: Context, f: RegainFrame) -> None:
    """The reveal window answered without disrupting the Order: it is carried out."""
    ctx.emit(ProcedureEnded())
    impersonation.act_regain(ctx, ctx.state.units[f.unit], ("impersonate",))
