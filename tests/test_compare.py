"""`baobei compare`: two versions of the rules, compared by answers, properties, a distinguishing situation
and play.

Variants: five of tests/variants.py, and three that differ only in a rare situation (the shield also
stops looking, the three-player threshold one point higher, a turn cap for D9's endless rounds). For each:
the scenarios it should change are listed, and the situation found is a scenario that passes under one
version and fails under the other, replayed here independently of the command.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
from pathlib import Path

import pytest
from baobei.cli import main
from baobei.compare.changes import rule_changes
from baobei.compare.intervals import holm, mean, mean_test, share_test, wilson
from baobei.compare.perturb import perturbed_tables
from baobei.compare.properties import Budget, compare_properties
from baobei.compare.report import Comparison
from baobei.compare.revision import resolve
from baobei.compare.run import compare, request_of
from baobei.engine.engine import Engine
from baobei.language.errors import BaoError
from baobei.language.load import load_ruleset
from baobei.language.paths import PROJECT_ROOT, default_rules_dir, default_scenarios_dir
from baobei.scenarios import syntax as sc
from baobei.scenarios.parser import parse_scenario_file, parse_scenario_text, scenario_files
from baobei.scenarios.runner import run_scenario
from conftest import variant_rules
from jsonschema import Draft202012Validator
from variants import BAO_MIN_SEVEN, ONE_FAMILY, RENAMED_PHASE, SIX_CARDS, THRESHOLD_30, Edit

Capture = pytest.CaptureFixture[str]
SCHEMA = PROJECT_ROOT / "docs" / "compare.schema.json"

# ---------------------------------------------------------------- three variants that differ rarely

# The BAO shield stops the Weisspelikan's look at the caller's cards too (only while the shield is active).
SHIELD_STOPS_LOOKING: tuple[Edit, ...] = (
    ("05_abilities.bao",
     '  require occupied(target) else "choose a face-down card on the table" § 6.3 [P127]\n'
     "  do { peek actor card_at(target) }",
     '  require occupied(target) else "choose a face-down card on the table" § 6.3 [P127]\n'
     '  require owner(target) == actor or not protected(owner(target)) else "the BAO shield also stops looking" '
     "§ 4.2 [P99]\n"
     "  do { peek actor card_at(target) }"),
)

# Three players end the match at 91, not 90: only a total of exactly 90 plays differently.
THRESHOLD_ONE_HIGHER: tuple[Edit, ...] = (("07_scoring.bao", "  3: 90\n", "  3: 91\n"),)

# D9 changed: a round ends after its 200th turn (the rules set no cap; a round that long is rare).
TURN_CAP: tuple[Edit, ...] = (
    ("03_turn.bao", "  if last_turns and not any p in players: owed[p] {\n",
     "  if (last_turns and not any p in players: owed[p]) or turn - first_turn >= turn_cap {\n"),
    ("02_setup.bao", '  run choose_starter\n  set phase = "peek"\n',
     '  run choose_starter\n  set first_turn = turn\n  set phase = "peek"\n'),
    ("08_recycle.bao", 'assumption D9 "Rounds without end" § 4.1 [P86] {\n',
     'var first_turn: int = 0\n\n'
     'define turn_cap = 200 § 4.1 [P86] "A round ends once this many turns have begun in it (D9)."\n\n'
     'assumption D9 "Rounds without end" § 4.1 [P86] {\n'),
)

# name: (edits, scenarios whose answer must change, whether every other answer must stay)
CASES: dict[str, tuple[tuple[Edit, ...], set[str], bool]] = {
    "six_cards": (SIX_CARDS, {"setup/deal_two_players", "properties/deal_gives_hand_size"}, False),
    "bao_min_seven": (BAO_MIN_SEVEN, {"scoring/example_p110_minimum", "properties/failed_bao_noted"}, False),
    "one_family": (ONE_FAMILY, {"pluck/penalty_slot_choice"}, False),
    "threshold_30": (THRESHOLD_30, {"scoring/threshold_three_players_89"}, False),
    "renamed_phase": (RENAMED_PHASE, {"scoring/threshold_three_players_89", "bao/call_only_at_end_of_own_turn"},
                      False),
    "shield_stops_looking": (SHIELD_STOPS_LOOKING, {"shield/peek_protected_card"}, True),
    "threshold_one_higher": (THRESHOLD_ONE_HIGHER, {"scoring/reaching_threshold_can_win",
                                                    "scoring/threshold_three_players_90",
                                                    "scoring/failed_bao_with_goldtukan_at_the_minimum"}, True),
    "turn_cap": (TURN_CAP, set(), True),
}


def options(**given: object) -> argparse.Namespace:
    """The command's options with small budgets and no matches (the play part has a test of its own)."""
    values: dict[str, object] = {"players": 3, "seed": 1, "deals": 1, "depth": 6, "table_depth": 1,
                                 "max_states": 800, "matches": 0, "policy": None, "max_turns": 1000, "workers": 1,
                                 "bmc_depth": 0, "bmc_seconds": 60}
    values.update(given)
    return argparse.Namespace(**values)


def variant(root: Path, edits: tuple[Edit, ...]) -> Path:
    return variant_rules(root / "rules", edits)


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Comparison]]:
    """Each variant compared with the rules once (the tests below read the same comparison)."""
    from baobei.compare import answers
    from baobei.compare.revision import RulesSource

    files = scenario_files([default_scenarios_dir()])
    out: dict[str, tuple[Path, Comparison]] = {}
    # The old side is the default rules in every comparison: each scenario is replayed under them once, and
    # that replay is compared with each variant's (a replay depends on the scenario and the rules alone).
    replayed: dict[str, answers.Outcome] = {}
    real = answers.replay

    def replay(scenario: sc.Scenario, eng: Engine) -> answers.Outcome:
        if eng.rules.source != str(default_rules_dir()):
            return real(scenario, eng)
        if scenario.path not in replayed:
            replayed[scenario.path] = real(scenario, eng)
        return replayed[scenario.path]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(answers, "replay", replay)
        for name, (edits, _, _) in CASES.items():
            root = tmp_path_factory.mktemp(name)
            rules = variant(root, edits)
            out[name] = rules, compare(request_of(options(), RulesSource(default_rules_dir(), "rules"),
                                                  RulesSource(rules, name), files))
    assert len(replayed) == len(files)  # the old side was replayed once per scenario, not once per variant
    return out


def _listed(c: Comparison) -> set[str]:
    return {a.path.removeprefix("scenarios/").removesuffix(".scenario") for a in c.answers.changed
            if a.answer_changed}


@pytest.mark.parametrize("name", list(CASES))
def test_the_right_scenarios_are_listed(compared: dict[str, tuple[Path, Comparison]], name: str) -> None:
    _, c = compared[name]
    _, expected, only = CASES[name]
    listed = _listed(c)
    assert expected <= listed
    if only:
        assert listed == expected
    assert c.differs


@pytest.mark.parametrize("name", list(CASES))
def test_the_situation_found_replays_as_described(compared: dict[str, tuple[Path, Comparison]], name: str) -> None:
    rules, c = compared[name]
    s = c.search.situation
    assert s is not None, f"{name}: no situation found"
    scenario = parse_scenario_text(s.scenario, "situation.scenario")
    results = {"old": run_scenario(scenario, Engine(load_ruleset(default_rules_dir()))), "new": None}
    try:
        results["new"] = run_scenario(scenario, Engine(load_ruleset(rules)))
    except BaoError:  # it does not even load under NEW (a phase NEW no longer has): it fails there
        assert s.passes == "old"
    other = "new" if s.passes == "old" else "old"
    passing = results[s.passes]
    assert passing is not None and passing.passed
    failing = results[other]
    assert failing is None or not failing.passed
    assert "cites §" in s.scenario  # `baobei check` accepts it: it cites the rulebook


def test_the_rare_situations_are_the_changed_ones(compared: dict[str, tuple[Path, Comparison]]) -> None:
    shield = compared["shield_stops_looking"][1].search.situation
    assert shield is not None and shield.kind == "legal" and " peek " in f" {shield.move} "
    assert "§ 4.2 [P99]" in " ".join(shield.rules["new"])
    threshold = compared["threshold_one_higher"][1].search.situation
    # Scenarios sit on the boundary (three players end at exactly 90), so the search starts from such a table as
    # it is; the turn cap below still needs a table moved to it.
    boundary = ("scoring/threshold_three_players_90.scenario",
                "scoring/failed_bao_with_goldtukan_at_the_minimum.scenario")
    assert threshold is not None and threshold.start.endswith(boundary)
    assert "match_over" in threshold.scenario
    cap = compared["turn_cap"][1].search.situation
    assert cap is not None and ("turn 199" in cap.start or "turn 200" in cap.start)  # a table at the cap
    changes = compared["turn_cap"][1].changes
    assert {(ch.kind, ch.name, ch.status) for ch in changes.changes} >= {("define", "turn_cap", "added"),
                                                                          ("routine", "finish_turn", "changed")}


def test_faq_entries_are_marked(compared: dict[str, tuple[Path, Comparison]]) -> None:
    answer = next(a for a in compared["shield_stops_looking"][1].answers.changed)
    assert answer.faq == ("P200",)
    assert answer.new.status == "failed" and answer.line > 0 and "peek" in answer.step
    assert any("§ 4.2 [P99]" in rule for rule in answer.new_side.rules)


# ---------------------------------------------------------------- the command


def _run(capsys: Capture, *argv: str) -> tuple[int, dict[str, object], str]:
    code = main(["compare", *argv, "--json"])
    captured = capsys.readouterr()
    data = json.loads(captured.out) if captured.out.strip() else {}
    if data:
        Draft202012Validator(json.loads(SCHEMA.read_text())).validate(data)
    return code, data, captured.err


SMALL = ("--depth", "4", "--table-depth", "1", "--max-states", "300", "--bmc-depth", "1", "--players", "2")
# The seeded searches only: Z3 over the two relations has tests of its own (the last options given count).
NO_BMC = ("--bmc-depth", "0")


def test_identical_rules_give_exit_0_and_list_nothing(tmp_path: Path, capsys: Capture) -> None:
    copy = variant(tmp_path, ())
    # One folder of scenarios: every answer of the whole set is compared by the fixture's variants above.
    code, data, err = _run(capsys, "--rules", str(default_rules_dir()), "--rules", str(copy), *SMALL,
                           "--scenarios", str(PROJECT_ROOT / "scenarios" / "setup"), *NO_BMC,
                           "--matches", "2", "--workers", "1", "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert data["differs"] is False and data["rules"] == []
    assert data["answers"]["changed"] == [] and data["properties"]["changes"] == []  # type: ignore[index]
    assert data["situation"]["found"] is False  # type: ignore[index]
    play = data["play"]
    assert isinstance(play, dict) and play["moved"] == []
    assert all(f["old"] == f["new"] for f in play["figures"])  # the same seeds: the same matches
    assert (tmp_path / "out" / "compare.json").exists() and (tmp_path / "out" / "compare_shares.png").exists()
    assert "the two versions give the same answers" in err


def test_a_change_moves_play_and_gives_exit_1(tmp_path: Path, capsys: Capture) -> None:
    rules = variant(tmp_path, THRESHOLD_30)
    # The scoring scenarios: the threshold's answers change there, and their tables start the search.
    code, data, err = _run(capsys, "--rules", str(default_rules_dir()), "--rules", str(rules), *SMALL[:-2],
                           "--scenarios", str(PROJECT_ROOT / "scenarios" / "scoring"), *NO_BMC,
                           "--players", "3", "--matches", "16", "--workers", "1", "--out", str(tmp_path / "out"))
    assert code == 1
    play = data["play"]
    assert isinstance(play, dict) and "rounds per match" in play["moved"]  # a match ends at 30, not 90
    assert "1. Answers that change" in err and "4. What it does to play" in err and "rounds per match" in err
    situation = data["situation"]
    assert isinstance(situation, dict) and situation["found"]
    written = tmp_path / "out" / "situation.scenario"
    assert written.read_text(encoding="utf-8") == situation["scenario"]


def _head() -> str:
    done = subprocess.run(["git", "-C", str(PROJECT_ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        pytest.skip("the project is not a git checkout")
    return done.stdout.strip()


def test_git_revision_reads_the_rules_of_a_commit(tmp_path: Path) -> None:
    head = _head()
    with contextlib.ExitStack() as stack:
        source = resolve(f"git:{head}", stack)
        assert source.label == f"git:{head}"
        shown = subprocess.run(["git", "-C", str(PROJECT_ROOT), "show", f"{head}:rules/07_scoring.bao"],
                               capture_output=True, text=True, check=True).stdout
        assert (source.directory / "07_scoring.bao").read_text(encoding="utf-8") == shown
        folder = source.directory
    assert not folder.exists()  # the revision's folder goes with the comparison


def test_git_revisions_compare_on_this_repository(tmp_path: Path, capsys: Capture) -> None:
    head = _head()
    # One folder of scenarios is enough to show that a revision is read (the whole set replays elsewhere).
    few = ("--scenarios", str(PROJECT_ROOT / "scenarios" / "setup"), *NO_BMC)
    code, data, err = _run(capsys, "--rules", f"git:{head}", "--rules", f"git:{head}:rules", *SMALL, *few,
                           "--matches", "0", "--out", str(tmp_path))
    assert code == 0, err
    assert data["old"] == f"git:{head}" and data["situation"]["found"] is False  # type: ignore[index]
    clean = subprocess.run(["git", "-C", str(PROJECT_ROOT), "diff", "--quiet", head, "--", "rules"], check=False)
    if clean.returncode == 0:  # the working copy's rules are HEAD's: nothing differs from the folder either
        code, data, err = _run(capsys, "--rules", f"git:{head}", "--rules", str(default_rules_dir()), *SMALL,
                               *few, "--matches", "0", "--out", str(tmp_path))
        assert code == 0, err


@pytest.mark.parametrize("argv", [
    ["--rules", "rules"],
    ["--rules", "rules", "--rules", "no/such/folder"],
    ["--rules", "rules", "--rules", "git:no-such-revision-at-all"],
    ["--rules", "rules", "--rules", "git:HEAD:no/such/path"],
])
def test_bad_input_gives_exit_2(argv: list[str], tmp_path: Path, capsys: Capture) -> None:
    assert main(["compare", *[str(PROJECT_ROOT / a) if a == "rules" else a for a in argv],
                 "--out", str(tmp_path)]) == 2
    assert "error:" in capsys.readouterr().err


def test_a_player_count_no_version_allows_is_bad_input_naming_both_ranges(tmp_path: Path, capsys: Capture) -> None:
    rules = str(default_rules_dir())
    assert main(["compare", "--rules", rules, "--rules", rules, "--players", "99", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--players 99: no version allows it: old (" in err and "; new (" in err and "explore" not in err


def test_out_must_be_a_folder(tmp_path: Path, capsys: Capture) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    rules = str(default_rules_dir())
    assert main(["compare", "--rules", rules, "--rules", rules, "--out", str(tmp_path / "file")]) == 2
    assert "is a file" in capsys.readouterr().err


# ---------------------------------------------------------------- the parts


def test_a_rule_moved_elsewhere_is_no_change(tmp_path: Path) -> None:
    line = 'define initial_peek = 2 § 1.2 [P9] "How many own cards each player looks at once after the deal."\n'
    rules = variant(tmp_path, (("02_setup.bao", line, ""),))
    with (rules / "09_invariants.bao").open("a", encoding="utf-8") as moved:
        moved.write("\n" + line)
    assert rule_changes(load_ruleset(default_rules_dir()), load_ruleset(rules)).changes == ()


def test_boundary_tables_move_a_scenario_onto_the_changed_number(tmp_path: Path) -> None:
    old = load_ruleset(default_rules_dir())
    new = load_ruleset(variant(tmp_path, THRESHOLD_ONE_HIGHER))
    changes = rule_changes(old, new)
    assert [str(c) for c in changes.changes] == ["table threshold changed (§ 5.2 [P115])"]
    assert changes.shifts == (1,) and changes.numbers == (90, 91) and "total" in changes.targets
    scenario = parse_scenario_file(default_scenarios_dir() / "scoring" / "threshold_three_players_89.scenario")
    assert isinstance(scenario.setup, sc.Table)
    moved = [words for _, words in perturbed_tables(scenario.setup, changes, new)]
    assert "total[alice] = 86 (85 there)" in moved


def test_properties_added_removed_and_broken(tmp_path: Path) -> None:
    edits: tuple[Edit, ...] = (("*", "shield_stays_active", "shield_kept_active"),
                               ("09_invariants.bao", "  holds waiting <= 2\n", "  holds waiting <= -1\n"))
    new = load_ruleset(variant(tmp_path, edits))
    report = compare_properties(load_ruleset(default_rules_dir()), new, Budget(2, 1, 1, 1, 200))
    changes = {c.label: c for c in report.changes}
    assert changes["invariant shield_stays_active"].change == "removed"
    assert changes["invariant shield_kept_active"].change == "added"
    broken = changes["invariant two_wait_at_most"]
    assert (broken.change, broken.breaks_in, broken.old.status) == ("verdict", "new", "holds")
    assert broken.new.scenario.startswith("# Written by `baobei explore`") and "waiting <= -1" in broken.new.scenario


def test_intervals() -> None:
    none = wilson(0, 10)
    assert none.value == 0 and none.low == 0 and none.high is not None and abs(none.high - 0.2775) < 1e-3
    half = wilson(50, 100)
    assert half.low is not None and abs(half.low - 0.4038) < 1e-3
    assert share_test(wilson(50, 100), wilson(50, 100)) == 1.0
    assert share_test(wilson(10, 100), wilson(60, 100)) < 1e-6
    same = mean([1.0, 2.0, 3.0])
    assert same.value == 2.0 and mean_test(same, same) == 1.0
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])


# ---------------------------------------------------------------- Z3 over the two relations

# The initial peek may not look at a Goldtukan: only a deal that gives a player the Goldtukan tells the versions
# apart, and the seeded deal below gives it to nobody.
NO_LOOK_AT_GOLDTUKAN: tuple[Edit, ...] = (
    ("02_setup.bao", '  require not knows(actor, card_at(slot)) else "each card is looked at only once" § 1.2 [P9]\n',
     '  require not knows(actor, card_at(slot)) else "each card is looked at only once" § 1.2 [P9]\n'
     '  require species(card_at(slot)) != "Goldtukan" else "the Goldtukan is not looked at in the initial peek" '
     "§ 1.2 [P9]\n"),
)


def test_z3_over_the_two_relations_finds_what_the_seeded_searches_miss(tmp_path: Path, capsys: Capture) -> None:
    """The deal of seed 1 gives nobody the Goldtukan, the scenario's table is past the peek: the engines' searches
    find nothing; Z3 over every deal finds a look at the Goldtukan, and its scenario parts the versions."""
    rules = variant(tmp_path, NO_LOOK_AT_GOLDTUKAN)
    common = ("--rules", str(default_rules_dir()), "--rules", str(rules), "--players", "2", "--matches", "0",
              "--depth", "4", "--table-depth", "1", "--max-states", "300", "--scenarios",
              str(default_scenarios_dir() / "turn" / "take_the_discard.scenario"))
    code, data, _ = _run(capsys, *common, "--bmc-depth", "0", "--out", str(tmp_path / "engines"))
    assert code == 0 and data["situation"]["found"] is False  # type: ignore[index]
    code, data, err = _run(capsys, *common, "--out", str(tmp_path / "z3"))
    situation = data["situation"]
    assert code == 1 and isinstance(situation, dict) and situation["found"] is True, err
    assert situation["start"].startswith("a deal Z3 chose") and situation["depth"] == 0
    assert situation["search"]["bmc"]["found"] == 0 and situation["search"]["bmc"]["candidates"] >= 1
    assert situation["passes"] == "old" and "Goldtukan" in situation["scenario"]
    written = tmp_path / "z3" / "situation.scenario"
    old = run_scenario(parse_scenario_file(written), Engine(load_ruleset(default_rules_dir())))
    new = run_scenario(parse_scenario_file(written), Engine(load_ruleset(rules)))
    assert old.failure is None and new.failure is not None and "§ 1.2 [P9]" in new.failure.message


def test_z3_over_identical_rules_finds_no_parting_move(tmp_path: Path, capsys: Capture) -> None:
    copy = variant(tmp_path, ())
    code, data, _ = _run(capsys, "--rules", str(default_rules_dir()), "--rules", str(copy), *SMALL[:-4],
                         "--bmc-depth", "2", "--players", "2", "--matches", "0", "--out", str(tmp_path / "out"),
                         "--scenarios", str(PROJECT_ROOT / "scenarios" / "setup"))
    bmc = data["situation"]["search"]["bmc"]  # type: ignore[index]
    assert code == 0 and bmc["found"] == -1 and bmc["depth"] == 2 and not bmc["reason"]


DROP_D18: tuple[Edit, ...] = ((
    "03_turn.bao",
    'assumption D18 "The neutral first card may be taken" § 1.3 [P10] § FAQ [P192] {\n'
    '  choice "The card turned up at setup opens no pluck window and triggers nothing, but the starting player '
    'may take it like any top discard."\n'
    '  reason "Taking the discard is a normal action (§ 2.3) and § 1.3 only removes the card\'s special effects."\n'
    '}\n', ""),)


def test_a_version_that_drops_an_assumption_still_answers_and_says_what_the_answer_rested_on(
        tmp_path: Path) -> None:
    """A rules editor who drops a decision wants both: the scenarios that rest on it, and what the rules
    answer without it. The scenario is replayed under NEW without the assumption (outside `compare` it is
    refused), and the answer counts as changed: it no longer rests on a declared decision."""
    from baobei.compare.answers import PASSED, AnswerReport, compare_one
    from baobei.compare.report import _answers_json

    new = Engine(load_ruleset(variant(tmp_path, DROP_D18)))
    old = Engine(load_ruleset(default_rules_dir()))
    scenario = parse_scenario_file(PROJECT_ROOT / "scenarios/setup/neutral_first_card_may_be_taken.scenario")
    assert "D18" in scenario.assumes
    changed = compare_one(scenario, old, new)
    assert changed is not None and changed.answer_changed
    assert (changed.old.status, changed.old.undeclared) == (PASSED, ())
    assert (changed.new.status, changed.new.undeclared) == (PASSED, ("D18",))  # the rules answer as before
    assert changed.new_side.does == ("rests on D18, which these rules do not declare",)
    report = AnswerReport(1, changed=[changed])
    assert _answers_json(report)["changed"][0]["new"]["undeclared"] == ["D18"]
    with pytest.raises(BaoError, match="declare no decision or assumption"):  # outside compare: refused
        run_scenario(scenario, new)


@pytest.mark.parametrize("given", [["--policy", "nosuch"], ["--workers", "2"]])
def test_options_of_play_without_matches_are_refused(given: list[str], tmp_path: Path, capsys: Capture) -> None:
    """--matches 0 leaves play out: a policy (even one no version declares) or workers were ignored."""
    rules = str(default_rules_dir())
    assert main(["compare", "--rules", rules, "--rules", rules, "--matches", "0", *given, "--out", str(tmp_path)]) == 2
    assert "--matches 0 leaves play out" in capsys.readouterr().err
