"""`baobei verify`: the rules' invariants proved with Z3, and rules variants that break them.

Every variant is an edited copy of rules/ (no Python edit); the command must find
the broken invariant, print a counterexample and exit 1, while the default rules
prove every invariant for every allowed player count.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from baobei.cli import main
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.language.ruleset import Ruleset
from conftest import edit_file, rules_without_record
from planted import LOOK_WITHOUT_LIMIT

MakeVariant = Callable[..., Path]  # the make_variant fixture of conftest.py
Capture = pytest.CaptureFixture[str]

# A result's line: status, property, player count, its own time ("-": all of its work is shared), how it was decided.
LINE = re.compile(r"^(proved|inductive|bounded|explored|violated|unknown)\s+(\w+)\s+(\d+) players\s+"
                  r"(\d+\.\d+s|-)  \S.*$", re.M)

SECOND_GOLDTUKAN = ("01_deck.bao", "card Goldtukan     value -5 count 1", "card Goldtukan     value -5 count 2")
NEGATIVE_SPATZ = ("01_deck.bao", "card Spatz         value 1  count 5", "card Spatz         value -1 count 5")
FAILURE_MIN_ZERO = ("07_scoring.bao", "define bao_failure_min = 5 ", "define bao_failure_min = 0 ")
# `keep` sends the replaced card to a number instead of the discard pile.
LOSE_IN_KEEP = ("03_turn.bao", "    move old to discard_pile\n    move top(hand(actor)) to slot",
                "    move old to slot_no(slot)\n    move top(hand(actor)) to slot")
# A failed pluck's penalty card is drawn "into" a player instead of a free slot.
LOSE_IN_PENALTY = ("04_pluck.bao", "  draw into free_slot(actor, place)\n}\n\nassumption D6",
                   "  draw into actor\n}\n\nassumption D6")


# Most tests of this module are about Z3's proofs over every state. The properties after this line of
# 09_invariants.bao are claims about reached states and moves, which `verify` judges by the engine's
# search where Z3 cannot prove them (tens of seconds per run): these tests run `verify` on the rules
# without them; the tests at the end of the module run the search, on small budgets.
REACHABLE = "# Properties of the reachable states"


def single_state(directory: Path) -> Path:
    """Cut the invariants of reachable states and moves from a copy of the rules."""
    path = directory / "09_invariants.bao"
    text = path.read_text(encoding="utf-8")
    assert text.count(REACHABLE) == 1
    path.write_text(text[:text.index(REACHABLE)], encoding="utf-8")
    return directory


@functools.cache
def single_state_rules() -> Path:
    target = Path(tempfile.mkdtemp()) / "rules"
    shutil.copytree(default_rules_dir(), target)
    return single_state(target)


@pytest.fixture
def make_variant(make_variant: MakeVariant) -> MakeVariant:
    """conftest's variants, cut like single_state_rules()."""
    return lambda *edits: single_state(make_variant(*edits))


def verify(*argv: str) -> tuple[int, str, str]:
    if "--rules" not in argv:
        argv = ("--rules", str(single_state_rules()), *argv)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["verify", *argv])
    return code, out.getvalue(), err.getvalue()


def test_the_invariants_verify_leaves_out_are_those_of_reachable_states_and_moves() -> None:
    full, cut = load_ruleset(default_rules_dir()), load_ruleset(single_state_rules())
    assert set(cut.invariants) < set(full.invariants) and not cut.progress
    assert any(full.invariants[i].two_state for i in set(full.invariants) - set(cut.invariants))


def statuses(out: str) -> dict[tuple[str, int], str]:
    return {(m[2], int(m[3])): m[1] for m in LINE.finditer(out)}


def counts(rules: Ruleset) -> list[int]:
    return list(range(rules.min_players, rules.max_players + 1))


@pytest.fixture(scope="module")
def default_run() -> tuple[int, str, str]:
    return verify()


# ---------------------------------------------------------------- the default rules


def test_default_rules_prove_every_invariant_for_every_player_count(default_run: tuple[int, str, str]) -> None:
    code, out, err = default_run
    rules = load_ruleset(single_state_rules())
    assert code == 0, out + err
    expected = {(ident, n) for ident in rules.invariants for n in counts(rules)}
    got = statuses(out)
    assert set(got) == expected
    assert set(got.values()) == {"proved"}
    assert f"{len(expected)} proved, 0 inductive, 0 bounded, 0 explored, 0 violated, 0 unknown" in out


def test_the_rules_declare_the_issues_invariants() -> None:
    rules = load_ruleset(default_rules_dir())
    assert len(rules.invariants) >= 7
    for inv in rules.invariants.values():
        assert inv.text and inv.cite.section and inv.cite.paras, inv.ident


def test_check_does_not_import_z3() -> None:
    probe = subprocess.run([sys.executable, "-X", "importtime", "-c", "import baobei.cli"],
                           capture_output=True, text=True, check=True)
    imported = [line.rsplit("|", 1)[-1].strip() for line in probe.stderr.splitlines() if "|" in line]
    assert "baobei.cli" in imported
    assert not [m for m in imported if m.split(".")[0] == "z3"]


# ---------------------------------------------------------------- variants that break invariants


@pytest.mark.parametrize("edit", [SECOND_GOLDTUKAN, NEGATIVE_SPATZ], ids=["second_goldtukan", "negative_spatz"])
def test_a_second_negative_card_breaks_invariants_1_and_2(make_variant: MakeVariant,
                                                           edit: tuple[str, str, str]) -> None:
    code, out, _ = verify("--rules", str(make_variant(edit)), "--players", "3")
    assert code == 1
    got = statuses(out)
    broken = {ident for (ident, _), status in got.items() if status == "violated"}
    assert broken == {"single_negative", "negative_caller_succeeds"}
    # The counterexample table under the first violation: two players below zero.
    table = out.split("violated  single_negative", 1)[1].split("\nviolated", 1)[0].splitlines()[1:]
    header = re.split(r"\s{2,}", table[0].strip())
    rows = [re.split(r"\s{2,}", row.strip()) for row in table[2:5]]
    round_values = [int(row[header.index("round_value")]) for row in rows]
    assert [row[0] for row in rows] == ["alice", "bob", "carol"]
    assert sum(v < 0 for v in round_values) >= 2


def test_a_failure_minimum_of_zero_breaks_invariant_3(make_variant: MakeVariant) -> None:
    # Judged with a claim the variant keeps (card_conservation is the slow one, and unrelated).
    code, out, _ = verify("--rules", str(make_variant(FAILURE_MIN_ZERO)), "--only", "bao_score_bounds",
                          "--only", "single_negative")
    assert code == 1
    rules = load_ruleset(default_rules_dir())
    got = statuses(out)
    assert {k for k, v in got.items() if v == "violated"} == {("bao_score_bounds", n) for n in counts(rules)}
    assert {k for k, v in got.items() if v == "proved"} == {("single_negative", n) for n in counts(rules)}
    assert "bao_failure_min = 0" in out and "bao_success = false" in out


def test_a_deck_too_small_for_six_players_breaks_invariant_5(make_variant: MakeVariant) -> None:
    variant = make_variant()
    deck = variant / "01_deck.bao"
    text = deck.read_text(encoding="utf-8")
    assert text.count("count 5") > 5
    deck.write_text(text.replace("count 5", "count 1"), encoding="utf-8")  # 18 cards instead of 66
    rules = load_ruleset(variant)
    size = sum(sp.count for sp in rules.species.values())
    too_big = {n for n in counts(rules) if n * (rules.table_value("hand_size", n) or 0) + 1 > size}
    assert too_big and too_big != set(counts(rules))  # the variant is small for some counts only
    code, out, _ = verify("--rules", str(variant), "--only", "deal_fits_deck", "--only", "tables_defined")
    assert code == 1
    got = statuses(out)
    assert {n for (ident, n), v in got.items() if ident == "deal_fits_deck" and v == "violated"} == too_big
    assert {ident for (ident, _), v in got.items() if v == "violated"} == {"deal_fits_deck"}
    assert len(got) == 2 * len(counts(rules))


def test_a_table_row_of_zero_breaks_invariant_6(make_variant: MakeVariant) -> None:
    # A missing row is refused when the rules load (tests/test_rules_input.py); a row of 0 loads, and the
    # invariant that every table has a positive value finds it.
    variant = make_variant(("07_scoring.bao", "  5: 70\n", "  5: 0\n"))
    code, out, _ = verify("--rules", str(variant), "--players", "5")
    assert code == 1
    assert statuses(out)[("tables_defined", 5)] == "violated"


@pytest.mark.parametrize(("edit", "message"), [
    (LOSE_IN_KEEP, "the destination of `move` must be a slot or a place; this is an int"),
    (LOSE_IN_PENALTY, "the destination of `draw into` must be a slot or a place; this is a player"),
    (("04_pluck.bao", "run give(gift, target)", "run give(slot_no(gift), target)"),
     "argument 1 of 'give' is a slot; this is an int"),
], ids=["keep_to_a_number", "penalty_into_a_player", "a_routine_given_a_number_for_a_slot"])
def test_a_rule_that_would_lose_a_card_is_refused_when_loaded(make_variant: MakeVariant, edit: tuple[str, str, str],
                                                              message: str) -> None:
    """A destination that is no place would lose the card (invariant 7, card_conservation): the rules checker
    refuses it before anything runs, so no proof or search has to find it."""
    code, out, err = verify("--rules", str(make_variant(edit)), "--players", "2")
    assert code == 2, out
    assert message in err


@pytest.mark.parametrize(("edit", "message"), [
    (("03_turn.bao", "    move c to discard_pile\n", "    copy c to discard_pile\n"), "found 'copy'"),
    (("08_recycle.bao", "into draw_pile", "into box_pile"), "shuffled into a declared pile, not 'box_pile'"),
], ids=["copy_a_card", "shuffle_into_an_undeclared_pile"])
def test_rules_that_would_create_or_duplicate_cards_are_refused_when_loaded(
        make_variant: MakeVariant, edit: tuple[str, str, str], message: str) -> None:
    code, out, err = verify("--rules", str(make_variant(edit)))
    assert code == 2, out
    assert message in err


# ---------------------------------------------------------------- counterexample scenarios


def test_the_emitted_counterexample_replays_and_fails(make_variant: MakeVariant, tmp_path: Path,
                                                      capsys: Capture) -> None:
    variant = make_variant(SECOND_GOLDTUKAN)
    target = tmp_path / "counterexample.scenario"
    code, out, _ = verify("--rules", str(variant), "--players", "2", "--emit-scenario", str(target))
    assert code == 1 and f"wrote {target}" in out
    text = target.read_text(encoding="utf-8")
    assert "set bao_caller" in text and text.count("Goldtukan") >= 2
    assert main(["check", "--rules", str(variant), str(target)]) == 1
    replay = capsys.readouterr().out
    assert "invariant single_negative (§ 5.1" in replay and "is violated" in replay
    # The default deck has one Goldtukan only: the counterexample cannot even be set up there.
    assert main(["check", str(target)]) == 2
    # Beside it, the same counterexample in Apalache's Informal Trace Format.
    itf = json.loads((tmp_path / "counterexample.itf.json").read_text(encoding="utf-8"))
    assert itf["#meta"]["format"] == "ITF" and itf["states"]
    assert all(set(itf["vars"]) <= set(state) for state in itf["states"])
    assert "single_negative" in itf["#meta"]["failure"]
    assert "rng" not in itf["vars"] and "#unserializable" in json.dumps(itf)  # ITF has no none


def test_a_counterexample_passes_under_the_rules_that_prove_the_invariant(
        make_variant: MakeVariant, tmp_path: Path, capsys: Capture) -> None:
    variant = make_variant(FAILURE_MIN_ZERO)
    target = tmp_path / "failure_minimum.scenario"
    verify("--rules", str(variant), "--players", "3", "--emit-scenario", str(target))
    assert main(["check", "--rules", str(variant), str(target)]) == 1
    assert "invariant bao_score_bounds" in capsys.readouterr().out
    assert main(["check", str(target)]) == 0


def test_nothing_to_emit_when_everything_is_proved(tmp_path: Path) -> None:
    target = tmp_path / "none.scenario"
    code, out, _ = verify("--players", "2", "--emit-scenario", str(target))
    assert code == 0 and "no state counterexample" in out
    assert not target.exists()


# ---------------------------------------------------------------- options, unknown, docs


def test_one_player_count(default_run: tuple[int, str, str]) -> None:
    code, out, _ = verify("--players", "4")
    assert code == 0
    assert {n for _, n in statuses(out)} == {4}
    assert len(statuses(out)) == len(load_ruleset(single_state_rules()).invariants)


def test_a_player_count_the_rules_do_not_allow_is_bad_input() -> None:
    rules = load_ruleset(default_rules_dir())
    code, _, err = verify("--players", str(rules.max_players + 1))
    assert code == 2 and f"these rules allow {rules.min_players} to {rules.max_players}" in err


def test_an_invariant_outside_the_model_is_unknown(make_variant: MakeVariant) -> None:
    variant = make_variant()
    (variant / "10_extra.bao").write_text(
        'invariant nobody_knows_the_box "A probe the distribution model cannot express" § 1.5 [P17] {\n'
        "  holds all p in players: not knows(p, top(under_pile))\n}\n", encoding="utf-8")
    code, out, _ = verify("--rules", str(variant), "--players", "2")
    assert code == 1
    assert statuses(out)[("nobody_knows_the_box", 2)] == "unknown"
    assert "no primitive 'knows'" in out


def test_docs_are_generated(tmp_path: Path) -> None:
    target = tmp_path / "invariants.md"
    code, _, _ = verify("--players", "2", "--docs", str(target))
    assert code == 0
    text = target.read_text(encoding="utf-8")
    for inv in load_ruleset(single_state_rules()).invariants.values():
        assert f"## {inv.ident}" in text and inv.text in text and str(inv.cite) in text
    assert "How it is judged:" in text and "| 2 | proved |" in text
    assert not re.search(r"\d+\.\d+ ?s\b", text), "docs/invariants.md must not change from run to run (no timings)"


def test_without_a_breaking_move_the_scenario_expects_the_invariant(
        make_variant: MakeVariant, tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    """When no legal move shows the violation, the scenario evaluates the invariant itself."""
    import baobei.proofs.verify

    monkeypatch.setattr(baobei.proofs.verify, "breaking_move", lambda *args: None)
    variant = make_variant(SECOND_GOLDTUKAN)
    target = tmp_path / "expectation.scenario"
    verify("--rules", str(variant), "--players", "2", "--emit-scenario", str(target))
    text = target.read_text(encoding="utf-8")
    assert '  expect value "(count p in players: round_value(p) < 0) <= 1" = true' in text
    assert main(["check", "--rules", str(variant), str(target)]) == 1
    assert "actual false" in capsys.readouterr().out


def test_expressions_print_as_rules_text_that_parses_back() -> None:
    """Reports, docs and emitted scenarios show expressions as text; it must mean the same expression."""
    from baobei.language.parser import RulesBuilder, build, grammar
    from baobei.language.text import expr_text

    rules = load_ruleset(default_rules_dir())
    exprs = [d.body for d in rules.defines.values()]
    exprs += [e for inv in rules.invariants.values() for e in (inv.when, inv.holds) if e is not None]
    exprs += [req.cond for m in rules.moves.values() for req in m.requires]
    assert len(exprs) > 20
    for expr in exprs:
        text = expr_text(expr)
        assert build(grammar("rules_expr").parse(text), RulesBuilder("<text>")) == expr, text


# ---------------------------------------------------------------- statements, steps, hooks, hands


@pytest.mark.parametrize(("edit", "extra", "message"), [
    (None, 'step put_back(c: card) "Put the card back" § 6.3 [P127]\n  do { move c to value(c) }\n',
     "the destination of `move` must be a slot or a place; this is an int"),
    (("05_abilities.bao", "  close window\n", "  close window\n  move top(discard_pile) to owner\n"), "",
     "the destination of `move` must be a slot or a place; this is a player"),
], ids=["an_ability_step", "the_ability_start_hook"])
def test_ability_steps_and_hooks_that_would_lose_a_card_are_refused_when_loaded(
        make_variant: MakeVariant, edit: tuple[str, str, str] | None, extra: str, message: str) -> None:
    variant = make_variant(*([edit] if edit else []))
    if extra:
        (variant / "10_extra.bao").write_text(extra, encoding="utf-8")
    code, out, err = verify("--rules", str(variant), "--players", "2")
    assert code == 2, out
    assert message in err


GIVE = ("04_pluck.bao", "  move card_at(gift) to target\n", "  swap card_at(gift) with card_at(target)\n")


def test_a_swap_keeps_every_card_in_one_place(make_variant: MakeVariant) -> None:
    code, out, _ = verify("--rules", str(make_variant(GIVE)), "--players", "2")
    assert code == 0, out
    assert statuses(out)[("card_conservation", 2)] == "proved"


def test_a_swap_of_a_number_is_refused_when_loaded(make_variant: MakeVariant) -> None:
    edit = (GIVE[0], GIVE[1], "  swap slot_no(gift) with card_at(target)\n")
    code, out, err = verify("--rules", str(make_variant(edit)), "--players", "2")
    assert code == 2, out
    assert "the first card of `swap` must be a card; this is an int" in err


def test_a_shuffle_into_another_declared_pile_keeps_every_card_in_one_place(make_variant: MakeVariant) -> None:
    code, out, _ = verify("--rules", str(make_variant(("08_recycle.bao", "into draw_pile", "into under_pile"))),
                          "--players", "2")
    assert code == 0, out
    assert statuses(out)[("card_conservation", 2)] == "proved"


def test_a_statement_kind_without_a_declared_effect_is_never_proved() -> None:
    """Statements move cards as the statement registry says; one it does not know moves nothing unknown."""
    from baobei.language import statements
    from baobei.language import syntax as s

    # Loaded (and checked) before the entry goes: the load's checker names statements by their entries, so a
    # first load after it would fail there instead (this test alone, or first in its process).
    load_ruleset(single_state_rules())
    saved = dict(statements.STATEMENTS)
    del statements.STATEMENTS[s.MoveCard]
    try:
        code, out, _ = verify("--players", "2")
    finally:  # the registry as it was, in its order too: the language reference lists the statements in it
        statements.STATEMENTS.clear()
        statements.STATEMENTS.update(saved)
    assert code == 1
    assert statuses(out)[("card_conservation", 2)] == "unknown"
    assert "MoveCard has no entry in the statement registry" in out


def test_hands_of_several_cards_in_counterexamples_and_scenarios(make_variant: MakeVariant, tmp_path: Path,
                                                                   capsys: Capture) -> None:
    variant = make_variant()
    setup = variant / "02_setup.bao"
    text, edits = re.subn(r"^hand holds \d+ ", "hand holds 2 ", setup.read_text(encoding="utf-8"), flags=re.M)
    assert edits == 1
    setup.write_text(text, encoding="utf-8")
    (variant / "10_extra.bao").write_text(
        'invariant one_held "Nobody holds more than one drawn card" § 2.2 [P24] {\n'
        "  holds all p in players: size(held(p)) <= 1 and size(hand(p)) == size(held(p))\n}\n", encoding="utf-8")
    target = tmp_path / "held.scenario"
    code, out, _ = verify("--rules", str(variant), "--players", "2", "--emit-scenario", str(target))
    assert code == 1
    assert {k for k, v in statuses(out).items() if v != "proved"} == {("one_held", 2)}
    held = re.search(r"; holds (\w+), (\w+)", out)
    assert held is not None
    text = target.read_text(encoding="utf-8")
    assert re.search(rf"  (\w+) holds {held[1]}\n  \1 holds {held[2]}\n", text), text
    assert main(["check", "--rules", str(variant), str(target)]) == 1
    assert "invariant one_held (§ 2.2 [P24]) is violated" in capsys.readouterr().out


# ---------------------------------------------------------------- integer division


@pytest.mark.parametrize(("holds", "status"), [
    ("7 // (0-2) == 0-4 and 7 % (0-2) == 0-1", "proved"),  # floor division, as the engine computes it
    ("7 // (0-2) == 0-3", "violated"),
    ("seat_count // (seat_count - 2) >= 0", "violated"),  # two players divide by zero
    ("seat_count == 2 or seat_count // (seat_count - 2) >= 0", "proved"),  # never evaluated for two
])
def test_integer_division_means_what_it_means_in_the_engine(make_variant: MakeVariant, holds: str,
                                                            status: str) -> None:
    variant = make_variant()
    (variant / "10_extra.bao").write_text(
        f'invariant division "Integer division" § 5.1 [P102] {{\n  holds {holds}\n}}\n', encoding="utf-8")
    code, out, _ = verify("--rules", str(variant), "--players", "2")
    assert statuses(out)[("division", 2)] == status
    assert code == (0 if status == "proved" else 1)
    if "seat_count - 2" in holds and status == "violated":
        assert "the engine stops here: " in out and "division by zero" in out


# ---------------------------------------------------------------- the search, for what Z3 cannot prove


def verify_searched(*argv: str) -> tuple[int, str, str]:
    """verify on the whole rules (or the variant given), with a search small enough for a test."""
    small = ("--players", "2", "--depth", "6", "--states", "400", "--bmc-depth", "2", "--table-depth", "1")
    return verify("--rules", str(rules_without_record()), *small, *argv) if "--rules" not in argv else \
        verify(*small, *argv)


def test_properties_of_reached_states_are_explored_not_proved() -> None:
    code, out, err = verify_searched("-v")
    assert code == 0, out + err
    got = statuses(out)
    rules = load_ruleset(default_rules_dir())
    for ident, inv in rules.invariants.items():
        # A claim about reached states is judged by the relation (bounded to k moves) and the search; one the
        # relation cannot state (a face-down pile's top card) by the search alone, which says why. A lemma that
        # every state of the encoding satisfies (an int variable is never none in it) is proved over them all;
        # one about who plays a round is not: Z3 over every state also seats a few (distribution.py).
        everywhere = not inv.reachable or ident == "totals_are_numbers"
        expected = "proved" if everywhere else "explored" if ident == "draw_pile_unknown" else "bounded"
        assert got[(ident, 2)] == expected, ident
    assert "the transition relation cannot state it: the order of the face-down draw_pile" in out
    assert got[("no_deadlock", 2)] == "bounded"
    assert re.search(r"^relation  2 players: bounded model checking to \d+ moves", out, re.M)
    # Z3's counterexample over arbitrary states (peeked = 3, say) is no violation of a reachable claim.
    # With -v each explanation is said once, for the results it is about; the search's reach on its line.
    assert out.count("over arbitrary states Z3 finds a counterexample") == 1
    assert len(re.findall(r"^    bounded to \d+ moves \(Z3 over every deal of the small deck\)$", out, re.M)) == 1
    assert re.search(r"^search    2 players: explored to depth \d+ of 1 seeded deal", out, re.M)


def test_a_planted_bug_is_violated_with_the_moves_that_reach_it(tmp_path: Path) -> None:
    rules = tmp_path / "rules"  # the whole rules: this module's make_variant cuts the reachable properties
    shutil.copytree(default_rules_dir(), rules)
    for name, old, new in LOOK_WITHOUT_LIMIT.edits:  # the planted bug: the initial peek has no limit
        edit_file(rules / name, old, new)
    target = tmp_path / "found.scenario"
    # --only: the relation asks about this property alone (7 s instead of 26 s); the emitted scenario is
    # still checked against every property below.
    code, out, _ = verify("--rules", str(rules), "--players", "2", "--depth", "4", "--states", "2000",
                          "--bmc-depth", "3", "--table-depth", "0", "--only", "peek_limit",
                          "--emit-scenario", str(target))
    assert code == 1
    assert statuses(out) == {("peek_limit", 2): "violated"}, out
    assert "1 properties x" not in out and "1 property x 1 player count:" in out
    assert "invariant peek_limit" in out and "Z3 finds it 3 moves after a deal" in out
    assert out.count("look slot=") >= 3, out  # the trace in the engine's words
    text = target.read_text(encoding="utf-8")
    assert "play" in text
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        assert main(["check", "--rules", str(rules), str(target)]) == 1
    assert "peek_limit" in out.getvalue()


def test_only_names_properties_the_rules_declare() -> None:
    code, _, err = verify("--players", "2", "--only", "card_conservation", "--only", "no_such_thing")
    assert code == 2 and "no property named 'no_such_thing';" in err, err
    assert "card_conservation" in err.split(";")[1]  # what it may name
    code, _, err = verify("--players", "2", "--only", "card_conservation", "--docs", "x.md")
    assert code == 2 and "--docs documents every property" in err


def test_a_claim_about_every_state_is_not_rescued_by_the_search(make_variant: MakeVariant) -> None:
    # Without `reachable`, a Z3 counterexample over arbitrary states is a violation, as before.
    rules = make_variant(("07_scoring.bao", "define bao_failure_min = 5 ", "define bao_failure_min = 0 "))
    code, out, _ = verify("--rules", str(rules), "--players", "2")
    assert code == 1 and statuses(out)[("bao_score_bounds", 2)] == "violated"


def test_a_claim_about_reached_states_says_what_it_reads() -> None:
    # docs/invariants.md (kept current by `baobei docs --check`): a reached-state claim that reads the
    # table is not described as a fact of the tables alone because Z3 could not prove it over every state.
    text = (default_rules_dir().parent / "docs" / "invariants.md").read_text(encoding="utf-8")
    section = text.split("## deal_gives_hand_size", 1)[1].split("\n## ", 1)[0]
    assert "It reads no state" not in section and "the cards of the tableaux" in section


def test_json_results_follow_their_schema(tmp_path: Path) -> None:
    """--json FILE: every result printed is in the file, in the documented schema, with the same status."""
    from jsonschema import Draft202012Validator

    target = tmp_path / "verify.json"
    code, out, err = verify("--players", "2", "--json", str(target))
    assert code == 0, out + err
    data = json.loads(target.read_text(encoding="utf-8"))
    schema = json.loads((Path(__file__).resolve().parent.parent / "docs" / "verify.schema.json").read_text())
    Draft202012Validator(schema).validate(data)
    assert {(r["property"], r["players"]): r["status"] for r in data["results"]} == statuses(out)
    assert data["player_counts"] == [2] and sum(data["tally"].values()) == len(data["results"]) > 0
    # Every claim of these rules is about every state: proved by its own Z3 query, with its own time.
    assert {(r["method"], r["depth"]) for r in data["results"]} <= {("state", None), ("placement", None)}
    own = {r["property"]: r["seconds"] for r in data["results"]}
    assert all(isinstance(v, float) for v in own.values())
    assert {m[2]: m[4] for m in LINE.finditer(out)} == {k: f"{v:.3f}s" for k, v in own.items()}
    assert data["shared"] == {}  # nothing searched: no work shared


def test_over_every_state_a_round_may_be_played_by_a_few() -> None:
    """Z3 over every state lets any seats take part in the round: a claim that holds only while everybody
    plays (at least two players, say) is not proved there, and its counterexample names who plays."""
    from baobei.proofs.distribution import prove_state
    from baobei.proofs.report import scenario_table

    rules = load_ruleset(default_rules_dir())
    outcome = prove_state(rules, rules.invariants["two_players_at_least"], 3)
    assert outcome.status == "violated" and outcome.cex is not None
    assert len(outcome.cex.among) == 1
    assert any(line.startswith("  among ") for line in scenario_table(rules, outcome.cex))
    # A claim about every player of the round stays proved: fewer players, fewer to check.
    assert prove_state(rules, rules.invariants["single_negative"], 3).status == "proved"


@pytest.mark.parametrize(("holds", "status"), [
    ("player_count == seat_count", "violated"),  # a decision round is played by a few of the match's players
    ("player_count >= 1 and player_count <= seat_count and player_count == size(players)", "proved"),
])
def test_over_every_state_a_round_may_seat_a_few(make_variant: MakeVariant, holds: str, status: str) -> None:
    """Z3 over every state counts the players of the round, not the match's: a claim true of full tables
    only is not proved for every state (it was, when the round's player count was the match's)."""
    variant = make_variant()
    (variant / "10_extra.bao").write_text(
        f'invariant seated "Who plays a round" § 5.3 [P117] {{\n  holds {holds}\n}}\n', encoding="utf-8")
    code, out, _ = verify("--rules", str(variant), "--players", "3", "--only", "seated")
    assert (statuses(out)[("seated", 3)], code) == (status, 0 if status == "proved" else 1), out
