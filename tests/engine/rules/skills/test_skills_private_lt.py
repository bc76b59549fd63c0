"""The Lieutenant as Private Information (seed 003, issue 15; skills/private.py, skills/secrecy.py):
each side chooses its Lieutenant in private among the mission's candidates, the other side and
spectators never see which until a rule reveals it, and the bots draw it from their own view."""

from __future__ import annotations

import random
from collections import Counter

import msgspec
import pytest
from skirmish.bots import determinize as det
from skirmish.engine import events as ev
from skirmish.engine.base import Hidden
from skirmish.engine.codec import decode_event, encode_event, state_hash
from skirmish.engine.commands import Choose, Start
from skirmish.engine.decide import decide
from skirmish.engine.dice import LocalDice
from skirmish.engine.errors import (
    IllegalOption,
    InvalidEvent,
    MalformedCommand,
    MissionError,
    NotYourDecision,
)
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.mission import game_created, parse_mission
from skirmish.engine.rules.skills import command, private, secrecy
from skirmish.engine.rules.skills.events import (
    LieutenantChosen,
    LieutenantRevealed,
    SecrecySalted,
)
from skirmish.engine.view import hides, pending, viewed
from skirmish.server import missions

from tests.engine.rules.skills.missions import play as play_match
from tests.engine.test_views_hide_secrets import play as followed

MISSION = "cabal"
CANDIDATES = {"a": ("a1", "a2", "a4"), "b": ("b1", "b2", "b3")}


class Game:
    """A cabal game driven by hand: ``lt`` fixes each side's choice (else the first candidate),
    every other decision drawn with ``rng`` from the options."""

    def __init__(self, seed: int, lt: dict | None = None):
        self.created = game_created(f"g-private-{seed}", missions.load(MISSION), "local", "")
        self.state = initial_state(self.created)
        self.events: list = [self.created]
        self.dice, self.rng, self.lt = LocalDice(seed), random.Random(seed), lt or {}
        self._take(decide(self.state, Start(), self.dice))

    def _take(self, events) -> None:
        for e in events:
            evolve(self.state, e)
        self.events += events

    def step(self, option=None) -> None:
        p = self.state.pending
        if option is None:
            if p.kind == private.KIND and p.side in self.lt and (private.KIND, self.lt[p.side]) in p.options:
                option = (private.KIND, self.lt[p.side])
            else:
                option = p.options[self.rng.randrange(len(p.options))]
        self._take(decide(self.state, Choose(p.id, option, p.side), self.dice))

    def run(self, until=lambda g: False, limit: int = 5000) -> Game:
        for _ in range(limit):
            if self.state.pending is None or until(self):
                break
            self.step()
        return self


def frames(events, viewer: str) -> list[bytes]:
    return [encode_event(e) for e in viewed(events, viewer) if e is not None]


def first_reveal(events, side: str) -> int:
    return next((i for i, e in enumerate(events) if isinstance(e, LieutenantRevealed) and e.side == side), len(events))


def test_the_mission_names_candidates_and_each_side_chooses_before_deployment_in_private():
    g = Game(1)
    assert g.state.lt_candidates == CANDIDATES and hides(g.state) and det.hidden(g.state)
    p = g.state.pending
    assert (p.kind, p.side, p.options) == ("lieutenant", "a", tuple(("lieutenant", u) for u in CANDIDATES["a"]))
    assert g.state.phase == "deployment" and not any(isinstance(e, ev.RoundStarted) for e in g.events)
    assert pending(g.state, "a") == p
    for v in ("b", "spectator"):  # that a choice is asked, never among what (the candidates are public anyway)
        assert pending(g.state, v).options == (("lieutenant", Hidden("unit")),)
    g.step(("lieutenant", "a2"))
    assert g.state.pending.kind == "lieutenant" and g.state.pending.side == "b"
    g.step(("lieutenant", "b3"))
    assert g.state.lieutenants == {"a": "a2", "b": "b3"} and command.lieutenant(g.state, "b").id == "b3"
    assert g.state.pending.kind == "deploy"
    seen = {v: [e for e in viewed(g.events, v) if isinstance(e, (LieutenantChosen, ev.OptionChosen))] for v in ("a", "b", "spectator")}
    assert [e.unit for e in seen["a"] if isinstance(e, LieutenantChosen)] == ["a2", Hidden("unit")]
    assert [e.unit for e in seen["b"] if isinstance(e, LieutenantChosen)] == [Hidden("unit"), "b3"]
    assert [e.unit for e in seen["spectator"] if isinstance(e, LieutenantChosen)] == [Hidden("unit")] * 2
    assert [e.option for e in seen["spectator"] if isinstance(e, ev.OptionChosen)] == [("lieutenant", Hidden("unit"))] * 2
    assert all("a2" not in repr(e) for e in seen["b"] if isinstance(e, ev.OptionChosen))
    # the viewers' states hold the other side's Lieutenant as Hidden; the full view ("all") the truth
    for v, other in (("a", "b"), ("b", "a"), ("spectator", "a"), ("spectator", "b")):
        state = None
        for e in viewed(g.events, v):
            state = initial_state(e) if state is None else (evolve(state, e) or state)
        assert state.lieutenants[other] == Hidden("unit") and command.lieutenant(state, other) is None


def test_the_commander_stays_the_missions_public_unit_whoever_is_lieutenant():
    g = Game(2, {"a": "a4", "b": "b2"}).run(until=lambda g: g.state.round >= 1)
    assert [u.id for u in g.state.units.values() if u.commander] == ["a1", "b1"]
    assert command.lieutenant(g.state, "a").id == "a4" and command.lieutenant(g.state, "b").id == "b2"


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_two_games_differing_only_in_bs_choice_give_a_and_the_spectator_the_same_frames_until_the_reveal(seed):
    one = Game(seed, {"a": "a2", "b": "b2"}).run()
    two = Game(seed, {"a": "a2", "b": "b3"}).run()
    cut = min(first_reveal(one.events, "b"), first_reveal(two.events, "b"))
    assert cut > 40  # the secret held for a while: deployment and more
    for v in ("a", "spectator"):
        f1, f2 = (frames(g.events[:cut], v) for g in (one, two))
        # a Checkpoint's hash differs (it covers the truth) but is salted: blank it, compare the rest byte for byte
        f1, f2 = ([_blank(f) for f in fs] for fs in (f1, f2))
        assert f1 == f2
    assert frames(one.events[:cut], "b") != frames(two.events[:cut], "b")  # b itself sees its choice


def _blank(frame: bytes) -> bytes:
    e = decode_event(frame)
    return encode_event(msgspec.structs.replace(e, state_hash="")) if isinstance(e, ev.Checkpoint) else frame


def test_a_checkpoint_cannot_be_searched_for_the_lieutenant_the_salt_is_hidden_until_the_end():
    g = Game(6, {"b": "b2"}).run(until=lambda g: g.state.round >= 2)
    checkpoints = [(i, e) for i, e in enumerate(g.events) if isinstance(e, ev.Checkpoint)]
    assert checkpoints
    i, cp = checkpoints[-1]
    # side a's state at that checkpoint, with every candidate tried for b's Lieutenant: none hashes to it
    state = None
    for e in viewed(g.events[:i], "a"):
        state = initial_state(e) if state is None else (evolve(state, e) or state)
    assert isinstance(state.secrecy_salt, Hidden)
    tried = []
    for uid in CANDIDATES["b"]:
        s = msgspec.structs.replace(state, lieutenants={**state.lieutenants, "b": uid}, secrecy_salt=())
        tried.append(state_hash(s))
    assert cp.state_hash not in tried
    salted = [e for e in g.events if isinstance(e, SecrecySalted)]
    assert len(salted) == 1 and len(salted[0].salt) == 8  # 128 bits
    for v in ("a", "b", "spectator"):
        seen = [e for e in viewed(g.events, v) if isinstance(e, (SecrecySalted, ev.DiceRolled)) and
                (isinstance(e, SecrecySalted) or e.purpose == secrecy.SALT)]
        assert len(seen) == 2 and all(isinstance(getattr(e, "salt", getattr(e, "results", None)), Hidden) for e in seen)


def test_using_the_lieutenant_order_reveals_the_lieutenant_from_then_on():
    for seed in range(10, 30):
        g = Game(seed, {"a": "a2", "b": "b2"}).run()
        at = [i for i, e in enumerate(g.events) if isinstance(e, LieutenantRevealed) and e.why == "order"]
        if at:
            break
    else:
        pytest.fail("no Lieutenant Order in 20 games")
    i = at[0]
    e = g.events[i]
    assert isinstance(g.events[i + 1], command.LieutenantOrder) and g.events[i + 1].unit == e.unit
    other = "b" if e.side == "a" else "a"
    seen = list(viewed(g.events, other))
    assert seen[i] == e  # public
    state = None
    for x in seen[: i + 1]:
        state = initial_state(x) if state is None else (evolve(state, x) or state)
    assert state.lieutenants[e.side] == e.unit and e.side in state.lt_revealed
    # no LieutenantOrder of an unrevealed Lieutenant anywhere
    revealed = set()
    for x in g.events:
        if isinstance(x, LieutenantRevealed):
            revealed.add(x.unit)
        if isinstance(x, command.LieutenantOrder):
            assert x.unit in revealed


def test_loss_of_lieutenant_reveals_it_and_the_next_round_the_side_nominates_a_new_one_in_private():
    for seed in range(40, 120):
        g = Game(seed, {"a": "a2", "b": "b2"}).run()
        lost = [(i, e) for i, e in enumerate(g.events) if isinstance(e, LieutenantRevealed) and e.why == "lost"]
        renamed = [(i, e) for i, e in enumerate(g.events) if isinstance(e, LieutenantChosen) and lost and i > lost[0][0]
                   and e.side == lost[0][1].side]
        if renamed:
            break
    else:
        pytest.fail("no Loss of Lieutenant followed by a nomination in 80 games")
    (i, loss), (j, chosen) = lost[0], renamed[0]
    rounds = [e.round for e in g.events[:j] if isinstance(e, ev.RoundStarted)]
    lost_round = [e.round for e in g.events[:i] if isinstance(e, ev.RoundStarted)][-1]
    assert rounds[-1] == lost_round + 1  # the next round
    assert chosen.unit != loss.unit and chosen.unit in CANDIDATES[loss.side]
    other = "b" if loss.side == "a" else "a"
    seen = list(viewed(g.events, other))
    assert seen[i] == loss and seen[j].unit == Hidden("unit")
    assert [e for e in viewed(g.events, loss.side)][j].unit == chosen.unit


def test_a_forged_choice_naming_a_unit_that_is_not_a_candidate_is_refused():
    g = Game(7)
    p = g.state.pending
    for bad in (("lieutenant", "a3"), ("lieutenant", "b1"), ("lieutenant",), ("deploy", 5, 1)):
        with pytest.raises(IllegalOption):
            decide(g.state, Choose(p.id, bad, "a"), g.dice)
    with pytest.raises(MalformedCommand):  # a view's hidden option is no answer
        decide(g.state, Choose(p.id, ("lieutenant", Hidden("unit")), "a"), g.dice)
    with pytest.raises(NotYourDecision):
        decide(g.state, Choose(p.id, ("lieutenant", "b1"), "b"), g.dice)
    with pytest.raises(InvalidEvent):
        evolve(initial_state(g.created), LieutenantChosen(side="a", unit="a3"))


def test_the_sampler_draws_the_hidden_lieutenant_from_the_view_never_the_truth():
    g = Game(8, {"a": "a1", "b": "b3"}).run(until=lambda g: g.state.round >= 1 and g.state.pending.side == "a")
    view = None
    for e in viewed(g.events, "a"):
        view = initial_state(e) if view is None else (evolve(view, e) or view)
    assert view.lieutenants["b"] == Hidden("unit")  # the truth is not in the view at all
    possible = private.possible(view, "b")
    drawn = Counter(det.determinize(view, "a", random.Random(k)).lieutenants["b"] for k in range(300))
    assert set(drawn) <= set(possible) <= set(CANDIDATES["b"]) and len(drawn) >= 2
    assert view.lieutenants["b"] == Hidden("unit")  # the view itself is left as it was
    # the same view with another truth behind it samples the same: it reads only the view
    other = Game(8, {"a": "a1", "b": "b1"}).run(until=lambda g: g.state.round >= 1 and g.state.pending.side == "a")
    view2 = None
    for e in viewed(other.events, "a"):
        view2 = initial_state(e) if view2 is None else (evolve(view2, e) or view2)
    assert [det.determinize(view2, "a", random.Random(k)).lieutenants["b"] for k in range(50)] == \
           [det.determinize(view, "a", random.Random(k)).lieutenants["b"] for k in range(50)]


@pytest.mark.parametrize("seed", range(6))
def test_random_playouts_hold_every_declared_secret_and_end(seed):
    f = followed(game_created(f"g-cabal-{seed}", missions.load(MISSION), "local", ""), seed)
    assert not f.leaks and f.checked > 0


def test_bots_play_cabal_to_the_end_and_verify_with_the_salt():
    for names in (("greedy", "random"), ("mcts", "greedy")):
        for result, events, report in play_match(missions.load(MISSION), names, [1]):
            assert report.ok, report.problem
            assert any(isinstance(e, SecrecySalted) for e in events)
            assert sum(isinstance(e, LieutenantChosen) for e in events) >= 2


def test_existing_missions_hide_nothing_and_draw_no_salt():
    for mid in ("holdout", "dropzone", "breach"):
        created = game_created(f"g-{mid}", missions.load(mid), "local", "")
        state = initial_state(created)
        assert not hides(state) and not det.hidden(state)
        state2 = initial_state(created)
        out = decide(state2, Start(), LocalDice(1))
        assert not any(isinstance(e, (SecrecySalted, LieutenantChosen)) for e in out)


def _cabal_text() -> str:
    from importlib import resources
    return (resources.files("skirmish.server.missions") / f"{MISSION}.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("old, new, where", [
    ('a = ["a1", "a2", "a4"]', 'a = ["a1"]', "skills.lieutenant_candidates.a"),
    ('a = ["a1", "a2", "a4"]', 'a = ["a1", "a1"]', "skills.lieutenant_candidates.a"),
    ('b = ["b1", "b2", "b3"]', 'b = ["b1", "a2"]', "skills.lieutenant_candidates.b[1]"),
    ('skills = ["inspiring leadership"]', 'skills = ["lieutenant"]', "profiles.commander.skills"),
    ('a = ["a1", "a2", "a4"]', 'a = ["a2", "a4"]', "units[0].profile"),  # Inspiring Leadership on a non-candidate
])
def test_the_candidates_are_checked(old, new, where):
    text = _cabal_text()
    assert old in text
    with pytest.raises(MissionError) as err:
        parse_mission(text.replace(old, new), MISSION)
    assert where in str(err.value), str(err.value)


def test_a_timed_out_choice_is_not_told_to_the_other_side():
    g = Game(9)
    p = g.state.pending
    g._take(decide(g.state, Choose(p.id, p.options[0], "a", timeout=True), g.dice))
    chosen = [e for e in g.events if isinstance(e, ev.OptionChosen)][-1]
    assert chosen.timeout  # the full log keeps it
    for v in ("b", "spectator"):
        seen = [e for e in viewed(g.events, v) if isinstance(e, ev.OptionChosen)][-1]
        assert seen.option == ("lieutenant", Hidden("unit")) and seen.timeout is False
    assert [e for e in viewed(g.events, "a") if isinstance(e, ev.OptionChosen)][-1].timeout


def test_the_terminal_client_shows_its_own_lieutenant_and_the_enemys_as_unknown():
    from skirmish.client import narrate, render
    g = Game(10, {"a": "a2", "b": "b3"}).run(until=lambda g: g.state.round >= 1)
    for v, own, other, name in (("a", "a", "b", "Militia Oren"), ("b", "b", "a", "Old Tam")):
        state, lines = None, []
        for e in viewed(g.events, v):
            if state is None:
                state = initial_state(e)
                continue
            lines.append(narrate.describe(e, state))
            evolve(state, e)
        text = render.status(state, v)
        assert f"side {other}'s Lieutenant: unknown (Private Information)" in text
        assert f"side {own}'s Lieutenant: " in text and "(secret from the enemy)" in text
        assert f"  side {other} chooses its Lieutenant in secret (Private Information)" in lines
        assert not any(name in (x or "") for x in lines if x and "Lieutenant" in x and f"side {own}" not in x)
