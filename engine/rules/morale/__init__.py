"""The ``morale`` rules module: seed 004, *M.S. Wars* "Rules: Extras" (RULES-BRIEF "Modules").

One folder: its hooks (``module``: the ``Module``, and ``pilots``, ``tokens``, ``rolls``,
``courage``, ``fear``), its events (``events``), its procedure frames (``frames``) and their
evolve handlers (``evolve``). Importing the package does nothing: ``skirmish.engine.rules.registry``
loads what a game needs.
"""
