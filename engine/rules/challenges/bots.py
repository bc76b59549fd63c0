"""The challenges module's bot hooks (seed 002; ``skirmish.bots`` reads them through ``Module.bots``):
the decisions of its Defender's Prerogative loop, which a bot's lookahead settles with the static
policy rather than stopping at them. Its determinization sampler (the hidden hands) is
``skirmish.engine.rules.challenges.sampler``, named in ``Module.samplers``.
"""

from __future__ import annotations

from skirmish.engine.rules.challenges.procedure import KINDS
from skirmish.engine.rules.registry import BotHooks

HOOKS = BotHooks(procedure_kinds=frozenset(KINDS))  # prerogative, respond, threshold
