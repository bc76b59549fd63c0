"""The ``challenges`` rules module: seed 002 (*Armageddon Empires*, p.28), as RULES-BRIEF maps it.

Its ``Module`` is in ``module``; importing the package does nothing (``skirmish.engine.rules.registry``
loads what a game needs).
"""
