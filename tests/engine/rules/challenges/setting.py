"""A small mission with the challenges module on, for given/when/then tests with scripted dice.

Starting a game rolls the salt (8 dice) before the initiative (2 dice); ``CScenario.start``
scripts both (side a wins the initiative). The opening hands are empty (``hand = 0``): a test
gives cards with ``CardDrawn`` events.
"""

from __future__ import annotations


from tests.engine.rules.scenario import OPEN_MAP, Scenario, mission_text

PROFILES = """
[profiles.assassin]
kind = "hero"
weapons = ["phaser", "knife"]
fate = 2
abilities = { assassin = 4 }

[profiles.master]
kind = "hero"
weapons = ["phaser", "knife"]
fate = 1
abilities = { assassin = 4, master_assassin = 1 }

[profiles.slayer]
kind = "hero"
weapons = ["phaser", "knife"]
fate = 1
abilities = { assassin = 3, slayer = 1 }

[profiles.target]
kind = "hero"
weapons = ["phaser", "knife"]
fate = 2

[profiles.guard]
kind = "bogey"
tier = "elite"
weapons = ["phaser", "knife"]
abilities = { bodyguard = 2 }

[profiles.saboteur]
kind = "hero"
weapons = ["phaser", "knife"]
fate = 1
abilities = { saboteur = 4, bonus_damage = 0 }

[profiles.master_saboteur]
kind = "hero"
weapons = ["phaser", "knife"]
fate = 1
abilities = { saboteur = 4, master_saboteur = 1, bonus_damage = 1 }

[profiles.tactician]
kind = "hero"
weapons = ["phaser", "knife"]
fate = 1
abilities = { tactician = 3 }

[profiles.spotter]
kind = "bogey"
tier = "elite"
weapons = ["phaser", "knife"]
fate = 1
abilities = { detection = 2 }

[profiles.sneak]
kind = "hero"
weapons = ["phaser", "knife"]
fate = 1
stealthed = true
abilities = { assassin = 3, stealth = 1 }

[profiles.sneak_unit]
kind = "bogey"
tier = "elite"
weapons = ["phaser", "knife"]
stealthed = true
abilities = { saboteur = 3, stealth = 1 }
"""

CHALLENGES = """
[challenges]
action_points = 3
hand = 0
draw = 0
costs = { assassinate = 2, sabotage = 2, create = 1, stealth = 1 }

[challenges.cards.plus2]
name = "Reinforcements"
effect = "dice"
value = 2

[challenges.cards.jam]
name = "Jammed Weapon"
effect = "reroll"

[challenges.cards.luck]
name = "Stroke of Luck"
effect = "convert"
value = 2

[challenges.cards.omen]
name = "Good Omen"
effect = "fate"
value = 2

[challenges.decks]
a = ["jam", "luck", "omen", "plus2"]
b = ["jam", "luck", "omen", "plus2"]

[challenges.creates.tactician]
card = "plus2"
threshold = 2
"""

FACILITIES = """
[[challenges.facilities]]
id = "depot"
side = "b"
at = [3, 2]
defence = 2
structure = 2
points = 2

[[challenges.facilities]]
id = "radar"
side = "b"
at = [3, 4]
defence = 1
structure = 3
points = 1
"""

SALT = (7,) * 8  # 8 d65536: 128 bits (skirmish.engine.rules.salt)


def challenge_text(units, map: str = OPEN_MAP, rounds: int = 3, challenges: str = CHALLENGES + FACILITIES) -> str:
    return mission_text(units, map, rounds, extra=PROFILES + challenges, modules=("challenges",))


class CScenario(Scenario):
    def __init__(self, units, map: str = OPEN_MAP, rounds: int = 3, challenges: str = CHALLENGES + FACILITIES):
        super().__init__(units, map, rounds, extra=PROFILES + challenges, modules=("challenges",))

    def start(self, *dice: int):
        """Start; ``dice`` default to the salt then side a winning the initiative."""
        return super().start(*(dice or SALT + (10, 1)))


