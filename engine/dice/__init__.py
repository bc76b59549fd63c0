"""All randomness of the engine: the ``Dice`` interface and its implementations."""

from skirmish.engine.dice.base import Dice
from skirmish.engine.dice.fair import ProvablyFairDice, fair_roll, verify_commitment
from skirmish.engine.dice.local import LocalDice, ScriptedDice

__all__ = ["Dice", "LocalDice", "ProvablyFairDice", "ScriptedDice", "fair_roll", "verify_commitment"]
