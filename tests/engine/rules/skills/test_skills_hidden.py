"""Hidden Deployment (seed 003, issue 15; skills/hidden_deployment.py, skills/hd_parts.py): a unit
placed in private off the table, that the other side and spectators never see -- not its id, its
name or where it is, through no event, option, dice or checkpoint -- until it reveals itself to
declare an ARO against an enemy Order, which it may disrupt; and the bots sample it from their view."""

from __future__ import annotations

import random
from collections import Counter

import msgspec
import pytest
from skirmish.bots import determinize as det
from skirmish.engine import events as ev
from skirmish.engine.base import Hidden
from skirmish.engine.codec import encode_event
from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.errors import IllegalOption, MissionError
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.mission import game_created, parse_mission
from skirmish.engine.rules.core import flow
from skirmish.engine.rules.skills import hidden_deployment as hd
from skirmish.engine.rules.skills.events import DeploymentEnded
from skirmish.engine.rules.skills.hd_parts import HiddenFrame, HiddenPlaced, HiddenRevealed, OrderDisrupted
from skirmish.engine.view import hides, pending, view, viewed
from skirmish.server import missions

from tests.engine.rules.skills.missions import play as play_match
from tests.engine.test_twins import renamed
from tests.engine.test_views_hide_secrets import play as followed
from tests.engine.twins import play_twins

MISSION = "ambush"
HIDDEN = {"a": "a4", "b": "b4"}


class Game:
    """An ambush game driven by hand: ``choose(state, decision) -> option or None`` picks where it
    wants (None: a random option)."""

    def __init__(self, seed: int, created=None, choose=lambda s, p: None):
        self.created = created or game_created(f"g-hd-{seed}", missions.load(MISSION), "local", "")
        self.state = initial_state(self.created)
        self.events: list = [self.created]
        self.dice, self.rng, self.choose = LocalDice(seed), random.Random(seed), choose
        self._take(decide(self.state, Start(), self.dice))

    def _take(self, events) -> None:
        for e in events:
            evolve(self.state, e)
        self.events += events

    def step(self, option=None) -> None:
        p = self.state.pending
        option = option or self.choose(self.state, p) or p.options[self.rng.randrange(len(p.options))]
        self._take(decide(self.state, Choose(p.id, option, p.side), self.dice))

    def run(self, until=lambda g: False, limit: int = 5000) -> Game:
        for _ in range(limit):
            if self.state.pending is None or until(self):
                break
            self.step()
        return self


def folded(events, viewer: str):
    state = None
    for e in viewed(events, viewer):
        if e is not None:
            state = initial_state(e) if state is None else (evolve(state, e) or state)
    return state


def never_reveal(state, p):
    return hd.STAY if p.kind == hd.REVEAL else None


def round_one(g: Game) -> bool:
    return g.state.round >= 1


def test_a_unit_in_hidden_deployment_starts_off_the_table_and_the_roster_shows_only_its_handle():
    g = Game(1)
    s = g.state
    assert set(s.hidden) == {"a4", "b4"} and "b4" not in s.units and hides(s) and det.hidden(s)
    assert s.hidden_handles == {"a4": "hidden-a1", "b4": "hidden-b1"}
    for v in ("a", "spectator"):
        seen = view(None, g.created, v)
        ids = [u.id for u in seen.units]
        tail = [i for i in ids if i.startswith(("hidden-", "camo-"))]
        assert "b4" not in ids and "hidden-b1" in tail and ids[-len(tail):] == tail  # last: its place would tell
        masked = seen.units[ids.index("hidden-b1")]
        assert (masked.name, masked.x, masked.y) == (Hidden("name"), Hidden("position"), Hidden("position"))
        assert masked.skills == ("hidden deployment",) and masked.side == "b"  # its profile is Open Information
        assert b"b4" not in encode_event(seen) and b"Ghost Ivo" not in encode_event(seen)
    own = view(None, g.created, "b")  # side b sees its own unit, and side a's under its handle
    assert own.units[-2].id == "hidden-a1" and next(u for u in own.units if u.id == "b4").name == "Ghost Ivo"


def test_each_side_places_its_hidden_unit_in_private_after_the_deployment_phase():
    g = Game(2).run(until=lambda g: g.state.pending.kind == hd.PLACE)
    s = g.state
    assert any(isinstance(e, DeploymentEnded) for e in g.events) and s.round == 0
    p = s.pending
    assert p.side == "a" and p.unit == "a4" and p.options[0] == (hd.PLACE, 2, 1)  # the mission's cell first
    assert all(s.board.cells[y * s.board.width + x] == "a" for _, x, y in p.options)
    assert pending(s, "b").options == (hd.PLACED,) and pending(s, "b").unit == "hidden-a1"
    g.step((hd.PLACE, 7, 0))
    assert s.hidden["a4"].x == 7 and s.hidden["a4"].deployed
    for v in ("b", "spectator"):
        placed = [e for e in viewed(g.events, v) if isinstance(e, HiddenPlaced)]
        assert placed == [HiddenPlaced(side="a", unit="hidden-a1", x=Hidden("position"), y=Hidden("position"))]
        chosen = [e for e in viewed(g.events, v) if isinstance(e, ev.OptionChosen)][-1]
        assert chosen.option == hd.PLACED and not chosen.timeout


def test_a_forged_placement_outside_the_zone_is_refused():
    g = Game(3).run(until=lambda g: g.state.pending.kind == hd.PLACE)
    p = g.state.pending
    with pytest.raises(IllegalOption):
        decide(g.state, Choose(p.id, (hd.PLACE, 5, 6), p.side), g.dice)


def test_a_hidden_position_does_not_leak_through_the_cores_move_options():
    """An enemy's move options are the same whether the hidden unit stands next to it or far away,
    and include its cell: it holds no cell (the house rule), so moving through or into it tells nothing."""
    g = Game(4, choose=never_reveal).run(until=lambda g: round_one(g) and g.state.pending.kind == "act"
                                          and g.state.pending.side == "a")
    s = g.state
    mover = s.units[g.state.pending.unit]
    near = next((x, y) for x, y in ((mover.x + dx, mover.y + dy) for dx, dy in ((0, 1), (1, 0), (-1, 0), (0, -1)))
                if 0 <= x < s.board.width and 0 <= y < s.board.height and hd.geo.terrain(s.board, x, y) not in hd.geo.BLOCKING
                and not any((u.x, u.y) == (x, y) for u in s.units.values()))
    options = {}
    for cell in (near, (11, 11)):
        copy = msgspec.structs.replace(s, hidden={k: msgspec.structs.replace(u) for k, u in s.hidden.items()})
        copy.hidden["b4"].x, copy.hidden["b4"].y = cell
        options[cell] = tuple(flow.turn_options(copy, copy.units[copy.pending.unit]))
    assert options[(11, 11)] == s.pending.options  # what the engine asked is what the core computes
    assert options[near] == options[(11, 11)]
    assert any(o[0] == "move" and (o[1], o[2]) == near for o in options[near])


def reveal_when_possible(state, p):
    if p.kind == hd.REVEAL:
        fire = [o for o in p.options if o[0] == hd.REVEAL and len(o) == 4]
        return fire[0] if fire else hd.STAY
    return None


def test_the_reveal_window_opens_on_every_enemy_order_and_shows_nothing_of_who_could_reveal():
    g = Game(5, choose=never_reveal).run(until=lambda g: round_one(g) and g.state.stack and
                                         isinstance(g.state.stack[-1], HiddenFrame))
    p = g.state.pending
    assert p.kind == hd.REVEAL and p.options[0] == hd.STAY and p.unit == g.state.turn.unit
    other = "a" if p.side == "b" else "b"
    assert pending(g.state, other).options == hd.SHOWN and pending(g.state, "spectator").options == hd.SHOWN
    # windows came whether or not the hidden unit could reveal (its options then only "stay")
    g2 = Game(6, choose=never_reveal).run()
    asked = [e.decision for e in g2.events if isinstance(e, ev.DecisionRequested) and e.decision.kind == hd.REVEAL]
    assert any(len(d.options) == 1 for d in asked) and any(len(d.options) > 1 for d in asked)
    assert not any(isinstance(e, HiddenRevealed) for e in g2.events)


def test_revealing_is_public_and_the_ARO_is_an_attack_at_the_acting_unit():
    for seed in range(10, 30):
        g = Game(seed, choose=reveal_when_possible).run(until=lambda g: any(isinstance(e, HiddenRevealed) for e in g.events))
        i = next((i for i, e in enumerate(g.events) if isinstance(e, HiddenRevealed)), None)
        if i is None:
            continue
        r = g.events[i]
        assert r.handle == g.state.hidden_handles[r.unit] and r.unit in g.state.units and r.unit not in g.state.hidden
        for v in ("a", "b", "spectator"):
            assert r in list(viewed(g.events, v))  # public, as it is
        started = g.events[i + 1]
        assert isinstance(started, ev.ProcedureStarted) and started.frame.task == "attack"
        assert started.frame.unit == r.unit and started.frame.target == g.state.turn.unit
        enemy = "a" if r.side == "b" else "b"
        assert r.unit in folded(g.events, enemy).units  # the other side's view has it on the table, by its id
        return
    pytest.fail("no hidden unit revealed itself in 20 games")


def test_a_revealed_enemy_disrupts_an_order_whose_requirements_it_breaks(monkeypatch):
    """The seed's example: an Order that requires no enemy in LoF (Impersonation's regaining IMP-1)
    cannot be carried out once a Hidden Deployment trooper with LoF reveals itself: it is lost."""
    monkeypatch.setattr(hd, "REQUIREMENTS", (lambda state, actor: not any(
        u.side != actor.side and hd.geo.line_of_fire(state.board, u.x, u.y, actor.x, actor.y)
        for u in state.units.values() if not u.dead),))
    for seed in range(10, 40):
        g = Game(seed, choose=lambda s, p: next((o for o in p.options if o[0] == hd.REVEAL and len(o) == 2), hd.STAY)
                 if p.kind == hd.REVEAL else None)
        g.run(until=lambda g: any(isinstance(e, OrderDisrupted) for e in g.events))
        i = next((i for i, e in enumerate(g.events) if isinstance(e, OrderDisrupted)), None)
        if i is None:
            continue
        d = g.events[i]
        assert isinstance(g.events[i - 1], HiddenRevealed) and g.events[i - 1].unit == d.by
        assert any(isinstance(e, ev.TurnEnded) and e.unit == d.unit for e in g.events[i:])
        return
    pytest.fail("no Order disrupted")


def test_twins_differing_in_which_unit_is_hidden_or_where_get_identical_frames_until_the_reveal():
    created = game_created("g-hd-twins", missions.load(MISSION), "local", "")

    def reveals(state, e) -> bool:
        p = state.pending
        return (isinstance(e, HiddenRevealed) and e.side == "b") or (
            isinstance(e, ev.OptionChosen) and p is not None and p.kind == hd.REVEAL and p.side == "b"
            and e.option[0] == hd.REVEAL)

    moved = 0
    for twin in (renamed(created, "b4", id="b0x", name="Someone Else"), renamed(created, "b4", x=3, y=11)):
        for seed in range(6):
            t = play_twins(created, twin, reveals, seed=seed)
            assert t.leak is None, (seed, t.leak)
            assert min(t.compared.values()) > 40 and (t.revealed or t.ended)
            where = [next(u for u in g.state.hidden.values() if u.side == "b") if any(
                u.side == "b" for u in g.state.hidden.values()) else None for g in t.games]
            moved += all(where) and (where[0].x, where[0].y) != (where[1].x, where[1].y)
    assert moved >= 2  # some twins stood elsewhere


@pytest.mark.parametrize("seed", range(4))
def test_random_playouts_hold_every_declared_secret_and_end(seed):
    f = followed(game_created(f"g-ambush-{seed}", missions.load(MISSION), "local", ""), seed)
    assert not f.leaks and f.checked > 0


def at_missions_cell(state, p):
    return p.options[0] if p.kind == hd.PLACE else never_reveal(state, p)


def test_the_sampler_places_hidden_enemies_from_the_view_never_the_truth():
    until = lambda g: round_one(g) and g.state.pending.side == "a" and g.state.pending.kind == "act"  # noqa: E731
    g = Game(8, choose=never_reveal).run(until=until)
    seen = folded(g.events, "a")
    assert set(seen.hidden) == {"a4", "hidden-b1"} and seen.hidden["hidden-b1"].x == Hidden("position")
    drawn = Counter()
    for k in range(200):
        d = det.determinize(seen, "a", random.Random(k))
        u = d.hidden["hidden-b1"]
        assert isinstance(u.x, int) and seen.board.cells[u.y * seen.board.width + u.x] == "b"
        drawn[(u.x, u.y)] += 1
    assert len(drawn) > 10 and seen.hidden["hidden-b1"].x == Hidden("position")  # the view is left as it was
    # another truth behind the same view samples the same worlds: only the view is read
    created = renamed(g.created, "b4", x=0, y=11)
    g2 = Game(8, created=created, choose=at_missions_cell).run(until=until)
    g = Game(8, choose=at_missions_cell).run(until=until)
    assert (g.state.hidden["b4"].x, g.state.hidden["b4"].y, g2.state.hidden["b4"].x) == (9, 10, 0)
    seen, seen2 = folded(g.events, "a"), folded(g2.events, "a")
    assert [e for e in viewed(g.events, "a")] == [e for e in viewed(g2.events, "a")]  # one view, two truths
    worlds = [[(w.hidden["hidden-b1"].x, w.hidden["hidden-b1"].y) for w in
               (det.determinize(v, "a", random.Random(k)) for k in range(40))] for v in (seen, seen2)]
    assert worlds[0] == worlds[1] and len(set(worlds[0])) > 5


def test_the_checkpoints_are_salted_and_the_salt_hidden_until_the_end():
    g = Game(9, choose=never_reveal).run()
    salted = [e for e in g.events if isinstance(e, ev.DiceRolled) and e.purpose == "skills:salt"]
    assert len(salted) == 1
    for v in ("a", "spectator"):
        shown = [e for e in viewed(g.events[:-3], v) if isinstance(e, ev.DiceRolled) and e.purpose == "skills:salt"]
        assert shown and all(isinstance(e.results, Hidden) for e in shown)


def test_bots_play_ambush_to_the_end_and_verify():
    for names in (("greedy", "random"), ("mcts", "greedy")):
        for result, events, report in play_match(missions.load(MISSION), names, [1]):
            assert report.ok, report.problem
            assert sum(isinstance(e, HiddenPlaced) for e in events) == 2


BAD = """
[mission]
id = "bad"
name = "Bad"
rounds = 1
modules = ["skills"]
[board]
map = \"\"\"
aaaa
....
bbbb
\"\"\"
[sides.a]
name = "A"
[sides.b]
name = "B"
[weapons.knife]
name = "Knife"
kind = "melee"
damage = 2
[profiles.p]
kind = "hero"
control = 9
daring = 9
fitness = 9
insight = 9
presence = 9
reason = 9
command = 1
security = 1
weapons = ["knife"]
skills = SKILLS
[[units]]
id = "a1"
side = "a"
profile = "p"
name = "A1"
at = [0, 0]
[[units]]
id = "a2"
side = "a"
profile = "p"
name = "A2"
at = [1, 0]
hidden = true
COMMANDER
[[units]]
id = "b1"
side = "b"
profile = "p"
name = "B1"
at = [0, 2]
"""


@pytest.mark.parametrize("skills, commander, problem", [
    ("[]", "", "the 'hidden deployment' skill"),
    ('["hidden deployment"]', "commander = true", "the commander is public"),
    ('["hidden deployment"]', "deploy = true", "placed in private after the deployment phase"),
])
def test_a_hidden_unit_needs_the_skill_and_is_not_the_commander_or_deployed(skills, commander, problem):
    with pytest.raises(MissionError) as err:
        parse_mission(BAD.replace("SKILLS", skills).replace("COMMANDER", commander), "bad.toml")
    assert "units[1].hidden" in str(err.value) and problem in str(err.value)


def test_the_terminal_client_shows_its_own_hidden_unit_as_its_own_and_the_enemys_as_unknown():
    from skirmish.client import narrate, render
    g = Game(12, choose=never_reveal).run(until=round_one)
    for v, mine, name, theirs in (("a", "a4", "Ghost Tarn", "hidden-b1"), ("b", "b4", "Ghost Ivo", "hidden-a1")):
        state, lines = None, []
        for e in viewed(g.events, v):
            if state is None:
                state = initial_state(e)
                continue
            lines.append(narrate.describe(e, state))
            evolve(state, e)
        text = render.status(state, v)
        u = g.state.hidden[mine]
        assert f"yours: {name} [{mine}] in Hidden Deployment at ({u.x},{u.y}) (hidden from the enemy)" in text
        assert f"{theirs} in Hidden Deployment, where and who unknown" in text
        enemy_name = "Ghost Ivo" if v == "a" else "Ghost Tarn"
        assert not any(enemy_name in (x or "") for x in lines) and enemy_name not in text
        assert any(f"places {theirs} in Hidden Deployment, in secret" in (x or "") for x in lines)
        assert enemy_name not in render.board(state, v) + render.units(state, v)
