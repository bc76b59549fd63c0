"""Rule tests read *given events -> when command -> then events* (STYLE.md habit 9).

``Scenario`` builds a small mission, applies *given* events straight through ``evolve`` (the
log so far), sends *when* a command through ``decide`` with scripted dice, and hands back the
events so the test can check *then*.
"""

from __future__ import annotations

from skirmish.engine.codec import state_hash
from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import ScriptedDice
from skirmish.engine.events import Event
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.mission import game_created, parse_mission

BASE = """
[mission]
id = "test"
name = "test"
rounds = {rounds}
modules = {modules}

[board]
map = '''
{map}
'''

[sides.a]
name = "A"
[sides.b]
name = "B"

[weapons.phaser]
kind = "ranged"
damage = 3
[weapons.knife]
kind = "melee"
damage = 2

[weapons.rifle]
kind = "ranged"
damage = 4

[profiles.hero]
kind = "hero"
daring = 10
control = 10
fitness = 9
command = 2
security = 2
medicine = 2
weapons = ["phaser", "knife"]

[profiles.medic]
kind = "hero"
daring = 10
control = 10
fitness = 9
command = 1
security = 2
medicine = 3
focuses = ["first aid"]
weapons = ["phaser", "knife", "rifle"]
stowed = ["rifle"]

[profiles.boss]
kind = "bogey"
tier = "boss"
daring = 10
control = 10
fitness = 9
security = 2
weapons = ["phaser", "knife"]

[profiles.elite]
kind = "bogey"
tier = "elite"
daring = 10
control = 10
fitness = 9
security = 2
weapons = ["phaser", "knife"]

[profiles.grunt]
kind = "bogey"
tier = "grunt"
daring = 9
control = 9
fitness = 8
security = 1
weapons = ["phaser", "knife"]
"""

OPEN_MAP = "\n".join(["........"] * 8)


def mission_text(units, map: str = OPEN_MAP, rounds: int = 3, extra: str = "", modules=()) -> str:
    """``units``: (id, side, profile, x, y[, commander]) each; ``modules``: the rules modules on."""
    text = BASE.format(map=map, rounds=rounds, modules="[" + ", ".join(f'"{m}"' for m in modules) + "]")
    for uid, side, profile, x, y, *cmd in units:
        text += f'\n[[units]]\nid = "{uid}"\nside = "{side}"\nprofile = "{profile}"\nat = [{x}, {y}]\n'
        if cmd and cmd[0]:
            text += "commander = true\n"
    return text + extra


class Scenario:
    def __init__(self, units, map: str = OPEN_MAP, rounds: int = 3, extra: str = "", modules=()):
        self.mission = parse_mission(mission_text(units, map, rounds, extra, modules), "test")
        self.first = game_created("t", self.mission, "local", "")
        self.state = initial_state(self.first)
        self.log: list[Event] = [self.first]

    def given(self, *events: Event) -> "Scenario":
        for e in events:
            evolve(self.state, e)
            self.log.append(e)
        return self

    def start(self, *dice: int) -> list[Event]:
        """Start; ``dice`` default to side a winning the initiative (10 against 1)."""
        return self._apply(decide(self.state, Start(), ScriptedDice(dice or (10, 1))))

    def when(self, *option, dice=()) -> list[Event]:
        p = self.state.pending
        assert p is not None, "no decision is pending"
        before = state_hash(self.state)
        events = decide(self.state, Choose(p.id, tuple(option), p.side), ScriptedDice(dice))
        assert state_hash(self.state) == before, "decide mutated the state it was given"
        return self._apply(events)

    def _apply(self, events: list[Event]) -> list[Event]:
        for e in events:
            evolve(self.state, e)
        self.log.extend(events)
        return events

    def task(self, *option, dice=(), buy=("buy", 0)) -> list[Event]:
        """Choose a Task; answer the bonus-dice decision (if one comes) with ``buy``. The
        ``dice`` go to whichever command rolls."""
        events = self.when(*option, dice=dice)
        if self.pending is not None and self.pending.kind == "buy_dice":
            events += self.when(*buy, dice=dice)
        return events

    def play_to_turn(self, unit: str) -> "Scenario":
        """From the start: side a acts first, and activates ``unit``."""
        self.start()
        side = self.state.units[unit].side
        self.when("first", side)
        self.when("unit", unit)
        return self

    @property
    def pending(self):
        return self.state.pending

    def unit(self, uid):
        return self.state.units[uid]


def of_type(events, cls):
    return [e for e in events if isinstance(e, cls)]
