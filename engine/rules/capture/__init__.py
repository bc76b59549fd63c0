"""The capture module (seed 000, *Horizon Wars: Zero Dark* "Rule of the Month - Capture").

Its ``Module`` is in ``module``, its events, procedure frame and their evolve handlers in
``events``, ``frames`` and ``evolve``, its unit and state fields (and ``CaptureRules``) in
``fields``; importing the package does nothing (``skirmish.engine.rules.registry`` loads what a
game needs). Its ``GameCreated.capture``, mission fields, narration, text views and bot terms still live in marked sections of the shared files (issue 13 item 1, to move as the morale
module's did).
"""
