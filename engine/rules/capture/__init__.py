"""The capture module (seed 000, *Horizon Wars: Zero Dark* "Rule of the Month - Capture").

Its ``Module`` is in ``module``, its events, procedure frame and their evolve handlers (and its
part of the initial state, ``evolve.initial``) in ``events``, ``frames`` and ``evolve``, its unit,
state and ``GameCreated`` fields (and ``CaptureRules``) in ``fields``, its profile fields and
``[capture]`` table, their parsing and errors in ``mission``, its narration for clients in
``narrate``, its units' flags, its options' labels and its bonus actions (``Shown.carriers``) in
``render``, its bot hooks (evaluation terms, the worth of its options, of activating a captive and
of a cell near a capture or the exit) in ``bots``; importing the package does nothing
(``skirmish.engine.rules.registry`` loads what a game needs).
"""
