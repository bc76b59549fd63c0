"""The ``skills`` rules module: seed 003, *Infinity* N3 Special Skills pp. 80-89 (RULES-BRIEF "Modules").

One folder: the skills and levels a profile may carry (``catalog``), seed 003's attributes
(``attributes``), the Normal and Face to Face Rolls (``rolls``), the deployment phase
(``deploy``), its events, frames, fields, evolve handlers and mission fields, its narration,
text views and bot hooks, and the ``Module`` (``module``) that joins them. Importing the
package does nothing: ``skirmish.engine.rules.registry`` loads what a game needs.
"""
