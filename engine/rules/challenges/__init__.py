"""The ``challenges`` rules module: seed 002 (*Armageddon Empires*, p.28), as RULES-BRIEF maps it.

One folder: its hooks (``module``: the ``Module``, and ``procedure``, ``operations``, ``cards``,
``dice``), its events (``events``), its procedure frame (``frames``), its unit and state fields and
mission data (``fields``), their evolve handlers (``evolve``), its part of a mission file
(``mission``), its redactions (``hidden``), its narration and text views for clients
(``narrate``, ``render``) and its bot hooks and sampler (``bots``, ``sampler``). Importing the
package does nothing: ``skirmish.engine.rules.registry`` loads what a game needs.
"""
