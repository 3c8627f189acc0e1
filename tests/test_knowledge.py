"""The properties about who knows which card (D12) and the planted mistakes that break them.

Knowledge-reading properties make knowledge part of every state of a search, so `explore` leaves them out unless
asked (`knowledge=True`, `--knowledge`) and `verify` judges them in a search of their own ("knowing"). Each
planted slip (tests/planted.py, KNOWLEDGE) is found by that search, from a deal or from the table of a scenario
(the default verify's table depth), and the scenario written for its property fails under it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from baobei.cli import main
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.play.explore import explore, failure_scenario, knowing_properties
from conftest import MakeVariant
from planted import KNOWLEDGE

Capture = pytest.CaptureFixture[str]
SCENARIOS = default_rules_dir().parent / "scenarios"
FROM_DEALS = [name for name, p in KNOWLEDGE.items() if not p.table]
FROM_TABLES = [name for name, p in KNOWLEDGE.items() if p.table]
# The scenario written for each property, which each slip must fail.
CATCHING = {"discard_face_down": "discard_top_known", "own_draw_shown": "drawn_cards_secret",
            "schuhschnabel_shows": "drawn_cards_secret", "ara_swap_forgets": "knowledge_kept_until_shuffled",
            "riesentukan_seen_by_receiver": "looks_stay_secret", "weisspelikan_shows": "abilities_teach_their_user",
            "under_pile_face_up": "birds/schuhschnabel_no_exchange_possible"}


def test_the_knowledge_properties_are_those_that_read_knows() -> None:
    rules = load_ruleset(default_rules_dir())
    assert set(knowing_properties(rules)) == {"discard_top_known", "draw_pile_unknown", "drawn_cards_secret",
                                              "abilities_teach_their_user", "knowledge_kept_until_shuffled",
                                              "looks_stay_secret", "added_card_unseen"}


def test_explore_leaves_them_out_unless_asked_and_they_hold() -> None:
    rules = load_ruleset(default_rules_dir())
    plain = explore(rules, 2, 5)
    # The report lists them in the order of its labels (state invariants first), each once.
    assert sorted(plain.left_out) == sorted(f"invariant {n}" for n in knowing_properties(rules))
    assert not set(plain.left_out) & set(plain.labels)
    knowing = explore(rules, 2, 5, knowledge=True)
    assert not knowing.left_out and set(plain.left_out) <= set(knowing.labels)
    assert not knowing.failures and knowing.complete == 5
    # Knowledge in every key: more states to the same depth.
    assert knowing.states > plain.states


@pytest.mark.parametrize("name", FROM_DEALS)
def test_a_knowledge_slip_is_found_from_the_deals_and_replays(name: str, make_variant: MakeVariant,
                                                               tmp_path: Path, capsys: Capture) -> None:
    planted = KNOWLEDGE[name]
    variant = make_variant(*planted.edits)
    assert not explore(load_ruleset(variant), 2, planted.depth).failures  # left out without knowledge
    report = explore(load_ruleset(variant), 2, planted.depth, knowledge=True)
    first = report.first_failure()
    assert first is not None and first.label == planted.expected and first.depth == planted.depth
    target = tmp_path / "found.scenario"
    target.write_text(failure_scenario(first, report.deck), encoding="utf-8")
    capsys.readouterr()
    assert main(["check", "--rules", str(variant), str(target)]) == 1
    assert planted.expected.split()[-1] in capsys.readouterr().out


@pytest.mark.parametrize("name", FROM_TABLES)
def test_a_knowledge_slip_is_found_from_its_table_and_replays(name: str, make_variant: MakeVariant,
                                                               tmp_path: Path, capsys: Capture) -> None:
    planted = KNOWLEDGE[name]
    variant = make_variant(*planted.edits)
    start = SCENARIOS / f"{planted.table}.scenario"
    target = tmp_path / "found.scenario"
    code = main(["explore", "--rules", str(variant), "--from", str(start), "--depth", str(planted.depth),
                 "--emit-scenario", str(target)])
    out = capsys.readouterr().out
    assert code == 1 and f"{planted.expected}: violated at depth {planted.depth}" in out, out
    assert main(["check", "--rules", str(variant), str(target)]) == 1
    assert planted.expected.split()[-1] in capsys.readouterr().out


@pytest.mark.parametrize("name", sorted(KNOWLEDGE))
def test_the_scenario_of_its_property_fails_under_each_slip(name: str, make_variant: MakeVariant,
                                                             capsys: Capture) -> None:
    where = CATCHING[name]
    path = SCENARIOS / (f"{where}.scenario" if "/" in where else f"properties/{where}.scenario")
    assert main(["check", str(path)]) == 0
    assert main(["check", "-q", "--rules", str(make_variant(*KNOWLEDGE[name].edits)), str(path)]) == 1
    assert "FAIL " in capsys.readouterr().out


def test_verify_judges_them_in_its_knowing_search(make_variant: MakeVariant, tmp_path: Path,
                                                  capsys: Capture) -> None:
    """verify's own search with knowledge finds a slip from the deals, and says how far it looked."""
    planted = KNOWLEDGE["own_draw_shown"]
    variant = make_variant(*planted.edits)
    target = tmp_path / "found.scenario"
    code = main(["verify", "--rules", str(variant), "--players", "2", "--bmc-depth", "0", "--table-depth", "0",
                 "--only", "drawn_cards_secret", "--only", "discard_top_known", "--emit-scenario", str(target)])
    out = capsys.readouterr().out
    assert code == 1 and re.search(r"^violated\s+drawn_cards_secret\s+2 players", out, re.M), out
    assert re.search(r"^bounded\s+discard_top_known\s+2 players.*bounded to 0 moves", out, re.M), out
    assert re.search(r"^knowing\s+2 players: explored to depth \d+", out, re.M), out
    assert main(["check", "--rules", str(variant), "-q", str(target)]) == 1
