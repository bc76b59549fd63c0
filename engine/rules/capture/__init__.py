"""The capture module (seed 000, *Horizon Wars: Zero Dark* "Rule of the Month - Capture").

Its ``Module`` is in ``module``, its events, procedure frame and their evolve handlers in
``events``, ``frames`` and ``evolve``, its unit and state fields (and ``CaptureRules``) in
``fields``, its profile fields and ``[capture]`` table, their parsing and errors in ``mission``,
its narration for clients in ``narrate``, its units' flags and its options' labels in ``render``;
importing the package does nothing (``skirmish.engine.rules.registry`` loads what a game needs).
Its ``GameCreated.capture`` and ``Mission.capture`` fields (``skirmish.engine.mission`` calls
``mission.table``), its bonus actions' labels and packed bonus moves (``skirmish.client.render``)
and its bot terms still live in the shared files (issue 13 item 1, to move as the morale
module's did).
"""
