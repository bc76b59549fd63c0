"""All randomness of the engine: the ``Dice`` interface and its implementations."""

from engine.dice.base import Dice
from engine.dice.fair import ProvablyFairDice, fair_roll, verify_commitment
from engine.dice.local import LocalDice, ScriptedDice

__all__ = ["Dice", "LocalDice", "ProvablyFairDice", "ScriptedDice", "fair_roll", "verify_commitment"]
