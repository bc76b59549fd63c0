"""The bundled mission `masquerade` (issue 15: impersonation and private Lieutenants), the seed's
Impersonation text accounted for in docs/rules.md, and what a marker's moves tell the other side
(docs/protocol.md, "Impersonation markers")."""

from __future__ import annotations

import re

import msgspec
import pytest
from skirmish.bots import determinize as det
from skirmish.engine.mission import game_created
from skirmish.engine.evolve import evolve, initial_state
from skirmish.engine.rules.skills import imp_events as iev
from skirmish.engine.rules.skills.events import LieutenantChosen, SecrecySalted
from skirmish.engine.view import hides, view
from skirmish.server import missions

from tests.engine.rules.skills.imp_scenario import imp_game, placed
from tests.engine.rules.skills.missions import play as play_match
from tests.engine.rules.skills.test_rules_doc_seed003 import SEED, norm, quoted, section, sentences
from tests.engine.test_views_hide_secrets import play as followed

MISSION = "masquerade"


def test_masquerade_has_two_impersonators_an_alien_flag_and_private_lieutenants():
    created = game_created("g-masq", missions.load(MISSION), "local", "")
    state = initial_state(created)
    imps = sorted(u.id for u in state.units.values() if any(s.startswith("impersonation ") for s in u.skills))
    assert imps == ["b3", "b4"] and state.alien_sides == ("a",)
    assert state.lt_candidates == {"a": ("a1", "a2"), "b": ("b1", "b2")}
    assert hides(state) and det.hidden(state)
    same = {k: v for k, v in msgspec.to_builtins(state.units["b3"]).items() if k not in ("id", "name", "x", "y")}
    other = {k: v for k, v in msgspec.to_builtins(state.units["b4"]).items() if k not in ("id", "name", "x", "y")}
    assert same["weapons"] == other["weapons"] and same["silhouette"] == other["silhouette"] and same != other


@pytest.mark.parametrize("seed", range(4))
def test_random_playouts_of_masquerade_hold_every_declared_secret_and_end(seed):
    f = followed(game_created(f"g-masq-{seed}", missions.load(MISSION), "local", ""), seed)
    assert not f.leaks and f.checked > 0


def test_bots_play_masquerade_to_the_end_and_verify():
    for names in (("greedy", "random"), ("random", "greedy"), ("mcts", "random")):
        for result, events, report in play_match(missions.load(MISSION), names, [2]):
            assert report.ok, report.problem
            assert any(isinstance(e, SecrecySalted) for e in events)
            assert sum(isinstance(e, LieutenantChosen) for e in events) >= 2
            assert [e.side for e in events if isinstance(e, iev.ImpersonatorsAssigned)] == ["b"]


def test_what_a_markers_moves_tell_is_its_cells_never_its_profile():
    """docs/protocol.md, "Impersonation markers": a marker's act decision shows the other side its
    covert moves (every cell its Movement reaches, not into base contact: the same for every
    impersonator without a Movement bonus) and one hidden option for everything that would cancel
    it; the profile behind it (WIP, CC, level) changes nothing the other side sees there."""
    seen = []
    for profile in ("fiday", "basic"):
        units = [("a1", "a", "fusilier", 2, 1), ("b1", "b", profile, 4, 7), ("b2", "b", "fusilier", 7, 7)]
        s = placed(imp_game(units=units), 4, 4)
        s.when("unit", "b1")
        shown = view(s.state, s.log[-1], "a")
        seen.append(msgspec.json.encode(shown))
        moves = {(o[1], o[2]) for o in shown.decision.options if o[0] == "move"}
        assert moves and all(max(abs(x - 4), abs(y - 4)) <= s.state.board.medium for x, y in moves)
        assert [o for o in shown.decision.options if o[0] == "reveal"] == [("reveal", msgspec.convert(
            {"type": "Hidden", "what": "option"}, type(shown.decision.options[1][1])))]
        assert b"b1" not in seen[-1]
    assert seen[0] == seen[1]


def _impersonation_text(seed: str) -> list[str]:
    body = seed[seed.index("\nIMPERSONATION\n"):seed.index("\nIMPERSONATION EXAMPLE: REGAINING")]
    skip = re.compile(r"^(?:[A-Z0-9 .:!\-\u2019'’()]+|\d+|»»|Optional.*|Obligatory.*)$")
    out = []
    for para in re.split(r"\n\s*\n", body):
        para = " ".join(para.split())
        if para and not skip.match(para):
            out += sentences(para)
    return out


def test_every_sentence_of_impersonation_is_quoted_in_docs_rules_md():
    if SEED is None:
        pytest.skip("the seed texts are not beside the checkout (../shared/seeds/003_*.txt): set SKIRMISH_SEEDS=/path/to/seeds")
    where = norm(section())
    missing = [s for s in _impersonation_text(SEED.read_text()) if not quoted(s, where)]
    assert not missing, f"{len(missing)} sentences of Impersonation are not in docs/rules.md:\n" + "\n".join(missing)


def _seen(log, viewer):
    from skirmish.client.narrate import describe
    from skirmish.engine.view import viewed
    state, lines = None, []
    for e in viewed(log, viewer):
        if e is None:
            continue
        if state is None:
            state = initial_state(e)
            continue
        line = describe(e, state)
        if line:
            lines.append(line)
        evolve(state, e)
    return state, lines


def test_the_terminal_client_shows_enemy_markers_as_markers_and_its_own_impersonators_as_its_own():
    from skirmish.client import render
    s = imp_game()
    s.when("impersonate", 4, 4, dice=(10, 1))
    s.when("first", "b")
    s.when("unit", "b1")
    a, told_a = _seen(s.log, "a")
    board, units, status = render.board(a, "a"), render.units(a, "a"), render.status(a, "a")
    assert " ?1" in board.splitlines()[5] and "B1" not in board  # row 4: the marker, not the unit
    assert "b-imp1 (a marker)" in units and "Impersonation marker (who is behind it is hidden)" in units
    assert "IMP-1 marker b-imp1 at (4,4): an enemy impersonator, unknown" in status
    assert any("a marker [b-imp1] takes a turn" in line for line in told_a)
    assert any("an impersonator (who is hidden) is on the table as the IMP-1 marker b-imp1" in line for line in told_a)
    assert render.label(a.pending.options[1], a, a.pending).startswith("an action that replaces the marker")
    b, _ = _seen(s.log, "b")
    assert "B1" in render.board(b, "b") and "?1" not in render.board(b, "b")
    assert "is behind your IMP-1 marker b-imp1 at (4,4), the enemy does not know who" in render.status(b, "b")
    assert render.label(("reveal", "aim"), b, b.pending) == "reveal the figure, then: aim (minor action)"


def test_verify_checks_the_hidden_parts_a_forged_pairing_of_markers_does_not_verify():
    """After the game the log opens and ``skirmish verify`` re-runs it: the pairing of markers and
    units follows from the revealed seed's salt, so a log that swaps it is caught."""
    from skirmish.engine.codec import encode_event
    from skirmish.engine.log import chain_hashes
    from skirmish.engine.verify import LoggedEvent, verify_log
    [(result, events, report)] = play_match(missions.load(MISSION), ("greedy", "greedy"), [1])
    assert report.ok and report.finished
    i = next(k for k, e in enumerate(events) if isinstance(e, iev.ImpersonatorsAssigned))
    forged = list(events)
    forged[i] = msgspec.structs.replace(events[i], units=tuple(reversed(events[i].units)))
    data = [encode_event(e) for e in forged]
    hashes = chain_hashes(result.game_id, data)
    bad = verify_log(result.game_id, [LoggedEvent(k + 1, d, h) for k, (d, h) in enumerate(zip(data, hashes))])
    assert not bad.ok and bad.bad_seq == i + 1


def test_impersonators_beside_the_morale_module_are_refused_with_a_clear_error():
    """A Command Token's re-roll (the morale module) of an impersonator's secret deployment roll has
    no redaction, so the combination is refused when the mission is read, naming the unit."""
    import re
    from pathlib import Path
    from skirmish.engine.errors import MissionError
    from skirmish.engine.mission import parse_mission
    text = Path(missions.__file__).with_name("masquerade.toml").read_text()
    parse_mission(text)  # as bundled: accepted
    text = re.sub(r'modules = \[([^\]]*)\]', lambda m: 'modules = [' + m.group(1) + ', "morale"]', text, count=1)
    text = re.sub(r'(\[profiles\.[^\]]+\]\n)', r'\1endurance = 3\nmorale = 7\n', text)  # what morale asks of profiles
    with pytest.raises(MissionError, match=r"units\[\d+\]\.profile: an impersonator that deploys cannot play beside the morale module"):
        parse_mission(text)
