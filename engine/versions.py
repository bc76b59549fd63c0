"""The rules' versions: every game is re-run, forever, with the rules it was played under.

``GameCreated.engine_version`` names the rules a game was played under. ``VERSIONS`` lists every
version this engine still plays, oldest first; the last is ``ENGINE_VERSION``, the one every new
game is played under. The rules branch on the version where they changed: ``initial_state``
sets ``State.rules_version`` (the version's index in ``VERSIONS``, an int so that a branch is one
comparison) from ``GameCreated``, and a rule that changed asks ``since(state, V0_2)``. The state
hash leaves ``rules_version`` out (``skirmish.engine.codec.state_hash``): it is fixed by ``GameCreated``,
which the hash chain already covers, and leaving it out keeps every recorded checkpoint valid.

Raising the version (docs/decisions.md "Old games verify forever"): append it here, give the
new rules a constant below and branch on it wherever they differ, and record its corpus
(``tests/corpus/record.py``); ``tests/corpus/test_corpus.py`` keeps every older corpus verifying.
"""

from __future__ import annotations

VERSIONS: tuple[str, ...] = (
    "0.1.0",  # the first release
    "0.2.0",  # issue 12's rules fixes (docs/decisions.md "Verification re-runs the rules")
    "0.3.0",  # the skills module's rules since its first release (docs/decisions.md "Old games verify forever")
    "0.4.0",  # Keep the Initiative offered only when a unit could take the action (docs/decisions.md "Engine 0.4.0")
)
ENGINE_VERSION = VERSIONS[-1]

V0_1 = 0
V0_2 = 1  # counter-blow as the winner's own declaration, 8-die salts, wounded(n) by whole quarters,
#           a captive no enemy in Reach, can_move / can_act vetoes, Command Token re-rolls of other
#           modules' rolls
V0_3 = 2  # the skills module (seed 003) grown since 0.2.0: Guts Rolls, reactions (Dodge, Change Facing,
#           Engage, Kinematika), Infiltrate, Mechanized Deployment, MetaChemistry, V: Dogged, Lieutenant Orders,
#           Retreat!, Heavyweight / Multiterrain gaits (skirmish.engine.rules.skills.since gates them)
V0_4 = 3  # Keep the Initiative is offered only if a unit of the side could be activated once it is kept
#           (an Irregular unit cannot: seed 003's Training, docs/rules.md row 67); before, a side whose only
#           ready units were Irregular paid two Momentum and the action passed all the same
CURRENT = len(VERSIONS) - 1


class UnknownVersion(ValueError):
    """A game recorded under rules this engine does not know (a newer engine's, or no engine's)."""

    def __init__(self, version: str):
        super().__init__(f"it was recorded by engine {version!r}, whose rules this skirmish does not know "
                         f"(it plays {', '.join(repr(v) for v in VERSIONS)}): verify it with that engine or a newer one")
        self.version = version


_NONE = object()


def level(version: str, unknown=_NONE) -> int:
    """The ``rules_version`` of games recorded by engine ``version``; for a version this engine
    does not know, ``unknown`` if given (a view only folds events: it needs no rules), else
    ``UnknownVersion`` (``skirmish.engine.verify`` refuses such a game at its first event)."""
    try:
        return VERSIONS.index(version)
    except ValueError:
        if unknown is not _NONE:
            return unknown
        raise UnknownVersion(version) from None


def since(state, version: int) -> bool:
    """Whether ``state``'s game is played under the rules of ``version`` or later."""
    return state.rules_version >= version
