"""The capture module (seed 000, *Horizon Wars: Zero Dark* "Rule of the Month - Capture").

Its ``Module`` is in ``module``; importing the package does nothing (``engine.rules.registry``
loads what a game needs).
"""
