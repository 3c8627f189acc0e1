"""The decisive rule (issue 28): a refused move names the reason a judge accepts first, and keeps the others.

Lasting reasons (the move's own rules: who may make it, its requirements, an ability nobody has) come
before the passing one (an ability waits first, which ends by itself); a halt comes before everything.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.notation import parse_move_text
from baobei.engine.state import State
from conftest import table_state

TABLE = """\
scenario "units"
cites § 6.10 [P146]

table
  players alice bob carol
  alice: Spatz, Amsel, Kranich, Star
  bob: Weisspelikan, Specht, Rotkehlchen, Kranich
  carol: Meise, Star, Spatz, Amsel
  draw: Weisspelikan, Star
  discard: Rotkehlchen
  active alice

play
"""


def waiting_for_alice(eng: Engine) -> State:
    """alice drew and discarded a Weisspelikan: her peek waits for the window's calls."""
    st = table_state(eng, TABLE)
    for text in ("alice draw", "alice discard"):
        eng.push(st, parse_move_text(eng.rules.moves, st, text))
    assert [(w.ability, w.owner) for w in st.waiting] == [("peek", 0)]
    return st


def refused(eng: Engine, st: State, text: str) -> tuple[str, list[tuple[str, bool]]]:
    rejection = eng.check(st, parse_move_text(eng.rules.moves, st, text))
    assert rejection is not None, f"{text} is legal"
    return rejection.rule, [(r.rule, r.passing) for r in rejection.all()]


def test_a_lasting_reason_outranks_the_waiting_rule(default_engine: Engine) -> None:
    """bob calls BAO while alice's ability waits: not his turn (the move's own rule) decides; that
    something waits is kept after it, marked as passing."""
    st = waiting_for_alice(default_engine)
    top, every = refused(default_engine, st, "bob bao")
    assert top == "bao"
    assert every[0] == ("bao", False) and every[-1] == ("waiting", True)


def test_the_passing_reason_decides_when_it_is_the_only_one(default_engine: Engine) -> None:
    """alice ends her turn while her own ability waits: nothing else is wrong, so the waiting rule decides."""
    st = waiting_for_alice(default_engine)
    top, every = refused(default_engine, st, "alice end_turn")
    assert (top, every) == ("waiting", [("waiting", True)])


def test_an_ability_nobody_has_is_refused_by_its_own_rule(default_engine: Engine) -> None:
    st = waiting_for_alice(default_engine)
    rejection = default_engine.check(st, parse_move_text(default_engine.rules.moves, st, "bob peek target=alice.1"))
    assert rejection is not None and rejection.rule == "peek" and not rejection.passing
    # The card's history says why: alice's discard triggered it for her (the rules' untriggered rule cited).
    assert rejection.reason.startswith("no 'peek' waits for bob: discard triggered the ability of Weisspelikan")
    assert rejection.reason.endswith("for alice, who is to carry it out")
    untriggered = default_engine.rules.untriggered
    assert untriggered is not None and set(untriggered.cite.paras) <= set(rejection.cite.paras)
    assert [r.rule for r in rejection.others] == ["waiting"]


def test_every_reason_is_kept_in_rank_order(default_engine: Engine) -> None:
    """A move with several failing rules reports them all, its own ones in the rules' order."""
    st = waiting_for_alice(default_engine)
    rejection = default_engine.check(st, Move(2, "draw"))  # carol: not her turn, wrong phase, something waits
    assert rejection is not None
    rules = [r.rule for r in rejection.all()]
    assert rules[0] == "draw" and rules[-1] == "waiting" and len(rules) >= 2
    assert len(set(map(str, rejection.all()))) == len(rejection.all())  # no reason twice


def test_a_legal_move_has_no_reasons(default_engine: Engine) -> None:
    st = waiting_for_alice(default_engine)
    assert default_engine.check(st, parse_move_text(default_engine.rules.moves, st, "bob pluck target=bob.1")) \
        is None


def test_a_halt_comes_before_the_moves_own_rules(default_engine: Engine) -> None:
    """Once the match is over nothing may be played: that decides, whatever else the move breaks."""
    st = table_state(default_engine, TABLE)
    st.phase = "match_over"
    halt = default_engine.halt(st)
    assert halt is not None, "the rules halt play once the match is over"
    rejection = default_engine.check(st, Move(1, "draw"))  # bob: not his turn either
    assert rejection is not None and rejection.rule == f"halt {halt.name}"
    assert any(r.rule == "draw" for r in rejection.others)


def test_a_scenario_citing_a_lower_reason_is_told_so(default_engine: Engine) -> None:
    """A `reject ... by` line that cites a further reason, not the decisive one, fails and says where its
    rule ranks, so that the writer sees the decisive rule at once."""
    from baobei.scenarios.parser import parse_scenario_text
    from baobei.scenarios.runner import run_scenario

    text = TABLE + "  alice draw\n  alice discard\n  reject bob bao by § 6.10 [P146]\n"
    result = run_scenario(parse_scenario_text(text, "lower.scenario"), default_engine)
    assert result.failure is not None
    assert "actual § 4.1" in result.failure.message
    assert "the rule cited is a further reason, ranked below the decisive one: § 6.10" in result.failure.message


def test_explain_shows_the_further_reasons(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from baobei.cli import main

    path = tmp_path / "further.scenario"
    path.write_text(TABLE + "  alice draw\n  alice discard\n  reject bob bao by § 4.1 [P87]\n", encoding="utf-8")
    assert main(["explain", str(path)]) == 0
    out = capsys.readouterr().out
    assert "reject bob bao: § 4.1" in out and "also refused by § 6.10 [P146, P152] (waiting, passing)" in out


def test_a_reason_names_only_cards_the_player_knows(capsys: pytest.CaptureFixture[str]) -> None:
    """carol received bob's Ara face down without seeing it: her refusal names the card by its place only,
    bob's (who knows it) by name. A refusal must not tell a player what the table hides from them."""
    from baobei.cli import main
    from baobei.language.paths import default_scenarios_dir

    path = default_scenarios_dir() / "untriggered" / "gift_after_offensive_pluck.scenario"
    line = path.read_text(encoding="utf-8").splitlines().index("  expect nothing pending") + 1
    assert main(["why", f"{path}:{line}", "carol swap_blind a=carol.2 b=alice.1"]) == 1
    decisive = next(line for line in capsys.readouterr().out.splitlines() if "1. decisive" in line)
    assert "the card on carol.2 came there by give" in decisive and "Ara#" not in decisive
    assert main(["why", f"{path}:{line}", "bob swap_blind a=carol.2 b=alice.1"]) == 1
    assert "Ara#1 came to carol.2 by give" in capsys.readouterr().out
