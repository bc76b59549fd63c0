"""skirmish.client.render: the board, the units and a label for every option the rules can offer."""

from __future__ import annotations

import re

import pytest

from skirmish.bots.base import Bot
from skirmish.client import render
from skirmish.engine.evolve import initial_state
from skirmish.engine.mission import game_created
from skirmish.engine.model import Decision
from skirmish.server import missions
from skirmish.server.match import play_match
from skirmish.server.store import MemoryStore


def fresh(mission="ridge"):
    m = missions.load(mission)
    return initial_state(game_created("g-test", m, "fair", ""))


def test_board_draws_terrain_and_units_by_coordinates():
    state = fresh()
    text = render.board(state, "a")
    lines = text.splitlines()
    assert lines[0].split() == [str(x) for x in range(state.board.width)]
    rows = lines[1:1 + state.board.height]
    for u in state.units.values():
        row = rows[u.y]
        assert row[4 + 3 * u.x: 4 + 3 * u.x + 2] == u.id.upper()
    assert rows[2][4 + 3 * 4] == "#"  # ridge: a rock at (4,2)
    state.units["a1"].injury = "lethal"
    assert "a1" in render.board(state, "a").splitlines()[1 + state.units["a1"].y]
    state.units["a1"].dead = True
    assert "a1" not in render.board(state, "a").lower().splitlines()[1 + state.units["a1"].y]


def test_units_list_this_sides_units_first_with_their_condition():
    state = fresh()
    state.units["b2"].stress = 4
    state.units["b2"].injury = "nonlethal"
    lines = render.units(state, "b").splitlines()
    assert lines[0].startswith("*b")
    b2 = next(line for line in lines if line[1:3] == "b2")
    assert "stress  4/13" in b2 and "injured (nonlethal)" in b2 and "Bat'leth" in b2


def test_labels():
    state = fresh()
    act = Decision(3, "a", "act", (("end",), ("move", 3, 4), ("attack", "b1", 0, 1), ("attack", "b1", -1, 0),
                                   ("assist", "a2")), unit="a1")
    labels = [render.label(o, state, act) for o in act.options]
    assert labels == ["end the turn", "move to (3,4)", "attack b1 with Type-2 phaser (lethal)",
                      "attack b1 with Unarmed Strike (non-lethal)", "assist a2 (Ens. Ruiz)"]
    assert render.label(("buy", 2, "threat"), state, Decision(4, "a", "buy_dice", ())) == "buy 2 bonus d20 with threat"
    assert render.label(("keep",), state, Decision(4, "a", "keep_initiative", ())) == "keep the initiative (2 Momentum)"
    assert render.label(("keep",), state, Decision(4, "a", "aim", ())) == "keep the dice"
    assert render.label(("brand-new", 1), state, act) == "brand-new 1"  # unknown options still show


def test_buying_dice_says_what_it_costs():
    from skirmish.engine.model import TaskFrame

    state = fresh()
    state.stack.append(TaskFrame(unit="a1", task="attack"))
    buy = Decision(4, "a", "buy_dice", (), unit="a1")
    assert render.label(("buy", 2, "momentum"), state, buy) == "buy 2 bonus d20 with momentum (costs 3 Momentum)"
    assert render.label(("buy", 1, "threat"), state, buy) == "buy 1 bonus d20 with threat (gives the other side 1 Threat)"


def test_decision_text_numbers_options_from_one_and_collapses_moves():
    state = fresh()
    d = Decision(9, "a", "act", (("end",),) + tuple(("move", x, 0) for x in range(8)) + (("guard",),), unit="a1")
    text = render.decision_text(d, state)
    assert text.splitlines()[0].startswith("decision 9: your unit's turn for a1 (")
    assert "   1) end the turn" in text and "   2) guard (task)" in text
    # the eight moves are one line, picked by their cell (the board marks them)
    assert "  m X Y) move to one of 8 cells marked o on the board (0,0 1,0 2,0 3,0 4,0 5,0 ...)" in text
    assert "move (" not in text
    menu = render.Menu(d, state)
    assert menu.usage() == "1-2, m X Y"
    for typed in ("m 3 0", "3,0", "3 0", "(3,0)", "move 3, 0"):
        assert menu.pick(typed) == ("move", 3, 0), typed
    assert menu.pick("2") == ("guard",)
    for bad, says in (("m 9 9", "not a cell you can move to"), ("7", "there is no option 7"),
                      ("fly 1 1", "'fly' is not a move here"), ("x", "type 1-2, m X Y")):
        with pytest.raises(ValueError, match=re.escape(says)):
            menu.pick(bad)
    marked = render.board(state, "a", menu.reachable).splitlines()
    assert marked[1].startswith("  0 .o ") and marked[1].count("o ") >= 6
    assert "o: you can move there (type m X Y)" in marked[-1]


def test_a_bonus_action_is_labelled_and_packed_by_the_action_it_carries():
    """The capture module's bonus actions (``Shown.carriers``): "bonus action: " and the label of
    the Minor Action bought; a bonus Movement is packed with the moves, picked by its cell."""
    state = fresh("snatch")
    oid = next(iter(state.objectives), None)
    d = Decision(5, "a", "act", (("end",), ("move", 1, 0), ("bonus", "move", 2, 0), ("bonus", "move", 3, 0),
                                 ("bonus", "stand")), unit="a1")
    assert render.label(("bonus", "move", 2, 0), state, d) == "bonus action: move to (2,0)"
    assert render.label(("bonus", "stand"), state, d) == "bonus action: stand up"
    if oid is not None:
        assert render.label(("bonus", "interact", oid), state, d).startswith("bonus action: secure ")
    assert render.cell_option(("bonus", "move", 2, 0)) == (2, 0) and render.cell_option(("bonus", "stand")) is None
    text = render.decision_text(d, state)
    assert "   1) end the turn" in text and "   2) bonus action: stand up" in text
    assert "  bonus X Y) bonus action: move to one of 2 cells marked o on the board (2,0 3,0)" in text
    menu = render.Menu(d, state)
    assert menu.usage() == "1-2, m X Y, bonus X Y"
    assert menu.pick("bonus 3 0") == ("bonus", "move", 3, 0) and menu.pick("m 1 0") == ("move", 1, 0)


class LabelChecker(Bot):
    """Plays randomly, and checks that every option it is offered has a proper label."""

    name = "label-checker"
    kinds: set = set()

    def choose(self, view, decision):
        for option in decision.options:
            label = render.label(option, view, decision)
            assert label and label != " ".join(map(str, option)), (decision.kind, option)
        self.kinds.add(decision.kind)
        render.decision_text(decision, view)
        render.board(view, self.side)
        render.units(view, self.side)
        render.status(view, self.side)
        return self.rng.choice(decision.options)


@pytest.mark.parametrize("mission,seed", [("ridge", 1), ("ridge", 2), ("outpost", 3), ("foundry", 4), ("foundry", 5),
                                          ("snatch", 6), ("knives", 7), ("knives", 8)])
async def test_every_option_of_a_random_game_has_a_label(mission, seed):
    bots = {"a": LabelChecker(seed), "b": LabelChecker(seed + 100)}
    await play_match(MemoryStore(), missions.load(mission), bots, seed=seed)
    assert {"activate", "act"} <= LabelChecker.kinds


def test_a_challenge_in_progress_shows_both_pools_and_your_hand():
    from skirmish.engine.rules.challenges.frames import ChallengeFrame

    state = fresh("knives")
    state.hands = {"a": ["jam", "luck"], "b": ["", "", ""]}
    state.stack.append(ChallengeFrame(op="assassinate", attacker="a2", target="b1", aside="a", dside="b",
                                      step="turn", apool=(6, 5, 2), dpool=(4, 1), afate=2, dfate=3, to_decide="b"))
    text = render.procedure(state, "a")
    assert "challenge: assassinate by a2 against b1" in text
    assert "attacker a2 (you): [6, 5, 2] = 2 successes, 2 fate to spend" in text
    assert "defender b1: [4, 1] = 1 success, 3 fate to spend" in text
    assert "as they stand: the attacker wins by 1" in text
    # a pool of no dice (a defender with none left to roll) is said, not printed empty
    state.stack[-1] = ChallengeFrame(op="capture_kill", attacker="a2", target="b1", aside="a", dside="b",
                                     step="turn", apool=(6, 5), dpool=(), afate=2, dfate=0, to_decide="a")
    text = render.procedure(state, "a")
    assert "defender b1: no dice, 0 successes, 0 fate to spend" in text and "[]" not in text
    assert "as they stand: the attacker wins by 2" in text
    state.stack[-1] = ChallengeFrame(op="assassinate", attacker="a2", target="b1", aside="a", dside="b",
                                     step="turn", apool=(6, 5, 2), dpool=(4, 1), afate=2, dfate=3, to_decide="b")
    status = render.status(state, "a")
    assert "your hand (2): jam (re-roll the opponent's successes), luck (turn up to 2 failed dice into successes)" in status
    assert "side b holds 3 cards (hidden)" in status
    respond = Decision(7, "a", "respond", (("accept",), ("fate", 1), ("card", "jam")), unit="a2")
    assert [render.label(o, state, respond) for o in respond.options] == [
        "accept the dice as they are", "spend 1 fate: re-roll your failed dice",
        "play jam (re-roll the opponent's successes)"]
