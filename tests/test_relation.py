"""The Z3 transition relation (proofs/relation.py): bounded model checking, induction, and the engine
and the prover checking each other.

- Engine to prover: every move of seeded random play is a step of the relation with the engine's
  state after it (proofs/agreement.py).
- Prover to engine: a path Z3 chooses, and every violation it finds, replays in the engine to the
  same states and the same violation (proofs/trace.py); their disagreements are counted, and must be 0.
- Planted bugs (tests/planted.py): the relation finds each within the depth the engine's search needs,
  and the scenario it writes fails the same way when `baobei check` replays it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import z3  # type: ignore[import-untyped]
from baobei.cli import main
from baobei.engine.engine import Engine
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.language.small_deck import small_deck
from baobei.proofs import terms as T
from baobei.proofs.agreement import agreement, check_step, engine_step
from baobei.proofs.bmc import RULES_RUN, Unrolling, bmc, search
from baobei.proofs.relation import Relation
from baobei.proofs.trace import read_trace, replay
from baobei.proofs.translate import Unsupported
from baobei.proofs.verify import finding_scenario
from conftest import MakeVariant, rules_without_record
from planted import ALL


def small(players: int, rules_dir: Path | None = None) -> object:
    return small_deck(load_ruleset(rules_dir or default_rules_dir()), players)


def test_every_engine_move_is_a_step_of_the_relation() -> None:
    assert agreement(small(2), 2, moves=12, seed=5) == []  # type: ignore[arg-type]


def test_the_agreement_check_names_a_state_the_relation_does_not_reach(make_variant: MakeVariant) -> None:
    # The engine plays a variant whose look counts two peeks; the relation follows the rules as they are.
    variant = small(2, make_variant(("02_setup.bao", "    set peeked[actor] = peeked[actor] + 1\n",
                                     "    set peeked[actor] = peeked[actor] + 2\n")))
    eng, rel = Engine(variant), Relation(small(2), 2)  # type: ignore[arg-type]
    st, _ = eng.new_match(["alice", "bob"], 5)
    move = next(eng.legal_moves(st))
    assert move.name == "look"
    after, drawn = engine_step(eng, st, move)
    assert after is not None
    problem = check_step(eng, rel, st, move, after, drawn, 0)
    assert problem.startswith("move 0, alice look slot=") and "peeked" in problem, problem
    # The same move of the rules as they are is a step of the relation.
    same = Engine(small(2))  # type: ignore[arg-type]
    st, _ = same.new_match(["alice", "bob"], 5)
    after, drawn = engine_step(same, st, move)
    assert after is not None and check_step(same, rel, st, move, after, drawn, 0) == ""


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_long_random_play_agrees_with_the_relation(players: int) -> None:
    assert agreement(small(players), players, moves=300, seed=players) == []  # type: ignore[arg-type]


def z3_path(moves: int, turn_ended: bool) -> None:
    """Z3 chooses `moves` moves from any deal, none a stutter (the four looks of the initial peek come
    first), the last ending the turn if asked: the engine replays the path to the same states."""
    rules = small(2)
    unrolling = Unrolling(rules, 2)  # type: ignore[arg-type]
    for _ in range(moves):
        unrolling.extend()
    solver = unrolling.solver
    solver.add(*[T.not_(step.stutter) for step in unrolling.steps])
    if turn_ended:
        solver.add(T.ne(unrolling.states[-1][("turn",)], unrolling.states[0][("turn",)]))
    assert solver.check() == z3.sat
    trace = read_trace(unrolling.eng, unrolling.layout, solver.model(), unrolling.states, unrolling.steps)
    assert len(trace.steps) == moves
    assert [step.move.name for step in trace.steps[:4]] == ["look"] * 4
    if turn_ended:
        assert trace.steps[-1].move.name in ("end_turn", "bao")
    replayed = replay(unrolling.eng, trace)
    assert replayed.disagreement == "" and replayed.failure == ""
    assert len(replayed.states) == moves + 1


# In CI, the traces of the planted bugs are the paths Z3 chooses that the engine replays (the trace of
# look_without_limit in test_verify.py is three looks of Z3's choice); these free paths go further, at Z3's pace.
@pytest.mark.slow
def test_a_path_z3_chooses_replays_in_the_engine() -> None:
    """The peek and the first action of a turn (about 45 s: each further move costs Z3 several times more)."""
    z3_path(5, turn_ended=False)


@pytest.mark.slow
def test_a_whole_turn_z3_chooses_replays_in_the_engine() -> None:
    """The peek and a whole turn, ended (about 160 s)."""
    z3_path(6, turn_ended=True)


def test_bounded_model_checking_of_the_rules_finds_nothing() -> None:
    """Two moves (the default run of verify, which `baobei docs --check` repeats, goes to four)."""
    report = bmc(small(2), 2, depth=2, seconds=600)  # type: ignore[arg-type]
    assert report.depth == 2
    assert report.findings == {} and report.disagreements == []


def test_a_bound_of_the_encoding_is_reported_not_skipped() -> None:
    """With fewer slots than the deal fills, the deal itself needs a slot the encoding lacks: the state is
    flagged beyond the bounds (bmc reports it as a bound reached), not silently cut."""
    rules = small(2)
    report = bmc(rules, 2, depth=2, seconds=60, slots=4)  # type: ignore[arg-type]
    assert report.bound_reached and report.depth == 0


def test_a_construct_the_relation_cannot_follow_is_named(make_variant: object, capsys: object) -> None:
    variant = make_variant(("04_pluck.bao", "attempts 1 open 1", "attempts 1 open 2"))  # type: ignore[operator]
    rules = small_deck(load_ruleset(variant), 2)
    with pytest.raises(Unsupported, match="more than one open window"):
        Relation(rules, 2).step(Unrolling(rules, 2).states[0], 0)
    main(["verify", "--rules", str(variant), "--players", "2", "--bmc-depth", "1", "--states", "50", "--depth", "1",
          "--table-depth", "0"])
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "the transition relation cannot follow these rules: " in out and "more than one open window" in out


# ---------------------------------------------------------------- planted bugs

# look_covers and look_without_limit go through the whole verify command (here and in test_verify.py), which
# runs the same search and replays its trace as a scenario.
FAST = ["deal_seven_more", "no_shuffle", "no_neutral_card"]
# Those found from a scenario's table lie a round after a deal: beyond BMC from a deal.
SLOW = [name for name in ALL if name not in FAST and ALL[name].depth <= 9 and not ALL[name].table]


def found(make_variant: object, name: str) -> tuple[object, object]:
    planted = ALL[name]
    rules = small_deck(load_ruleset(make_variant(*planted.edits)), 2)  # type: ignore[operator]
    report = search(rules, 2, planted.depth, {planted.expected})
    finding = report.findings.get(planted.expected)
    assert finding is not None, f"{name}: nothing found within {planted.depth} moves"
    assert finding.confirmed and report.disagreements == [], report.disagreements
    assert finding.depth <= planted.depth
    return finding, rules


def replays_to_the_same_failure(finding: object, rules_dir: Path, tmp_path: Path, capsys: object) -> None:
    target = tmp_path / "trace.scenario"
    target.write_text(finding_scenario(finding, 2), encoding="utf-8")  # type: ignore[arg-type]
    assert main(["check", "--rules", str(rules_dir), "-q", str(target)]) == 1
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    label = finding.prop.label  # type: ignore[attr-defined]
    # A violation in the deal itself is shown by an expectation evaluating the invariant (no move judges it).
    expected = "the rules failed" if label == RULES_RUN else "actual false" if finding.depth == 0 \
        else label.split()[-1]  # type: ignore[attr-defined]
    assert expected in out, out


@pytest.mark.parametrize("name", FAST)
def test_a_planted_bug_is_found_and_its_trace_replays(name: str, make_variant: object, tmp_path: Path,
                                                      capsys: object) -> None:
    finding, _ = found(make_variant, name)
    replays_to_the_same_failure(finding, make_variant(*ALL[name].edits), tmp_path, capsys)  # type: ignore[operator]


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_a_deeper_planted_bug_is_found_and_its_trace_replays(name: str, make_variant: object, tmp_path: Path,
                                                             capsys: object) -> None:
    finding, _ = found(make_variant, name)
    replays_to_the_same_failure(finding, make_variant(*ALL[name].edits), tmp_path, capsys)  # type: ignore[operator]


def test_verify_reports_the_relation(capsys: object) -> None:
    # One move: the depth 2 of the relation is judged above, without the command around it.
    assert main(["verify", "--rules", str(rules_without_record()), "--players", "2", "--bmc-depth", "1",
                 "--states", "200", "--depth", "4",
                 "--table-depth", "0"]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "relation  2 players: bounded model checking to 1 move " in out
    assert "bounded   peek_limit" in out and "bounded to 1 move (" in out


def verify_finds_failing_rule(variant: Path, depth: int, move: str, capsys: object, tmp_path: Path) -> None:
    """verify, the whole command, finds the failing rule by BMC at `depth` (below the engine's search),
    and the scenario it writes replays to the same failure."""
    target = tmp_path / "found.scenario"
    code = main(["verify", "--rules", str(variant), "--players", "2", "--bmc-depth", str(depth), "--states", "100",
                 "--depth", str(depth - 1), "--table-depth", "0", "--emit-scenario", str(target)])
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert code == 1
    assert f"a move the rules cannot carry out, {depth} moves after a deal" in out and f"{move} " in out
    assert main(["check", "--rules", str(variant), "-q", str(target)]) == 1
    assert "the rules failed" in capsys.readouterr().out  # type: ignore[attr-defined]


def test_verify_fails_on_a_rule_that_fails(make_variant: object, capsys: object, tmp_path: Path) -> None:
    """The first look of the initial peek covers a card: found one move after the deal."""
    variant = make_variant(*ALL["look_covers"].edits)  # type: ignore[operator]
    verify_finds_failing_rule(variant, 1, "look", capsys, tmp_path)


@pytest.mark.slow
def test_verify_fails_on_a_rule_that_fails_five_moves_deep(make_variant: object, capsys: object,
                                                           tmp_path: Path) -> None:
    """The planted take_covers bug: found at depth 5 (about 130 s)."""
    variant = make_variant(*ALL["take_covers"].edits)  # type: ignore[operator]
    verify_finds_failing_rule(variant, 5, "take", capsys, tmp_path)


def test_verify_fails_on_a_rule_the_engine_search_finds_failing(make_variant: object, capsys: object,
                                                                 tmp_path: Path) -> None:
    """Below the relation's bound, the engine's search finds the same failing rule; no property names it,
    it is listed apart, fails the run, and its scenario replays."""
    variant = make_variant(*ALL["take_covers"].edits)  # type: ignore[operator]
    target = tmp_path / "found.scenario"
    code = main(["verify", "--rules", str(variant), "--players", "2", "--bmc-depth", "1", "--states", "300",
                 "--depth", "6", "--table-depth", "0", "--emit-scenario", str(target)])
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    assert code == 1
    assert "violated  a move the rules cannot carry out with 2 players, reached 5 moves after the deal" in out
    assert "1 failure beyond the properties" in out
    assert main(["check", "--rules", str(variant), "-q", str(target)]) == 1
    assert "the rules failed" in capsys.readouterr().out  # type: ignore[attr-defined]


def test_the_engine_of_a_trace_is_the_small_deck() -> None:
    rules = small(2)
    assert len(Engine(rules).facts) == 15  # type: ignore[arg-type]  # one card of every species
