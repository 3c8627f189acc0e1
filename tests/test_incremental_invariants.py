"""The incremental judge of the invariants (engine/incremental.py) gives the full judge's verdicts.

After every move of seeded matches (2, 4 and 6 players, played as `baobei simulate` plays them) and after
every step of every scenario, the invariants re-judged only where the move changed what they read must be
broken exactly where judging every invariant finds them broken. A planted bug of a rules variant is caught
by the incremental judge at the move the full judge catches it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.engine.incremental import IncrementalJudge
from baobei.engine.move import Move
from baobei.engine.reads import EVERYTHING, Reads, changed_parts, unknown_reads
from baobei.engine.state import State
from baobei.language.load import load_ruleset
from baobei.play import explore as explore_module
from baobei.play.dealer import Dealer, Match, MatchRecord
from baobei.play.explore import report_json
from baobei.scenarios.parser import parse_scenario_file
from baobei.scenarios.runner import run_scenario
from conftest import MakeVariant
from planted import ALL, NOTED_ROUND_VALUE

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"


Verdict = tuple[list[str], list[str]]  # the broken state invariants, the broken transition invariants


def full_verdicts(eng: Engine, before: State, after: State, move: Move | None) -> Verdict:
    return ([i.ident for i in eng.broken_invariants(after)],
            [i.ident for i in eng.broken_transitions(before, after, move)])


class Comparing(Match):
    """A match of the dealer that judges every move both ways and keeps both verdicts."""

    verdicts: list[Verdict]  # the incremental judge's, after each move
    fulls: list[Verdict]  # the full judge's
    twin: IncrementalJudge

    def _judge(self, before: State, move: Move) -> Iterator[tuple[str, str, str]]:
        # A judge of its own, beside the dealer's (incremental too, and what ends the match on a finding).
        incremental = self.twin.after(before, self.st, move)
        self.verdicts.append(([i.ident for i in incremental[0]], [i.ident for i in incremental[1]]))
        self.fulls.append(full_verdicts(self.eng, before, self.st, move))
        yield from super()._judge(before, move)

    def _judge_deal(self) -> bool:
        self.twin = IncrementalJudge(self.eng)
        self.twin.start(self.st)
        return super()._judge_deal()


def compared_match(dealer: Dealer, players: int, seed: int) -> Comparing:
    st, _ = dealer.eng.new_match([f"p{i + 1}" for i in range(players)], seed, log=False)
    match = Comparing(dealer, MatchRecord(0, seed), st, random.Random(f"policies/{seed}"))
    match.verdicts, match.fulls = [], []
    match.run()
    return match


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (2, 2), (4, 1), (4, 2), (6, 1)])
def test_incremental_and_full_agree_after_every_move(default_engine: Engine, players: int, seed: int) -> None:
    dealer = Dealer(default_engine, next(iter(default_engine.rules.policies), "random"))
    match = compared_match(dealer, players, seed)
    fulls = match.fulls
    assert len(match.verdicts) == len(fulls) > 50
    for i, (got, want) in enumerate(zip(match.verdicts, fulls, strict=True)):
        assert got == want, f"move {i + 1} ({match.history[i] if i < len(match.history) else '?'})"


def test_moves_skip_most_of_the_judging(default_engine: Engine) -> None:
    """The point of it: fewer invariants are judged than a full judge judges (which judges all of them after
    every move). With the default rules about two thirds are: those that read the cards in the tableaux or
    who knows which card (most moves change both) make most of it."""
    dealer = Dealer(default_engine, next(iter(default_engine.rules.policies), "random"))
    judge = dealer.judge
    before = judge.judged
    match = compared_match(dealer, 4, 3)
    every = len(default_engine.invariant_fns) + len(default_engine.transition_fns)
    assert judge.judged - before < 0.8 * every * len(match.verdicts)


def scenario_files() -> list[Path]:
    return sorted(SCENARIOS.rglob("*.scenario"))


def test_incremental_and_full_agree_on_every_scenario(default_engine: Engine) -> None:
    """Every step of every scenario, as its replay leaves the table (the move's player is not kept there:
    the transition invariants are judged as for a move of nobody, both ways alike)."""
    compared = 0
    for path in scenario_files():
        scenario = parse_scenario_file(path)
        states = [e.state for e in run_scenario(scenario, default_engine, snapshots=True).trace
                  if e.state is not None]
        judge = IncrementalJudge(default_engine)
        first = [i.ident for i in judge.start(states[0])]
        assert first == [i.ident for i in default_engine.broken_invariants(states[0])]
        for before, after in pairwise(states):
            got = judge.after(before, after, None)
            assert ([i.ident for i in got[0]], [i.ident for i in got[1]]) == \
                full_verdicts(default_engine, before, after, None), f"{path.name}"
            compared += 1
    assert compared > 1000


def test_a_planted_break_is_caught_incrementally(make_variant: MakeVariant) -> None:
    """A variant that notes the plain round value for everyone: the incremental judge of the dealer finds the
    broken invariant at the move where the full judge finds it."""
    eng = Engine(load_ruleset(make_variant(*NOTED_ROUND_VALUE.edits)))
    dealer = Dealer(eng, next(iter(eng.rules.policies), "random"))
    found = []
    for seed in range(1, 6):
        match = compared_match(dealer, 2, seed)
        assert match.verdicts == match.fulls
        found += [f.label for f in match.record.findings]
        if found:
            break
    assert found and found[0].startswith("invariant ")
    assert found[0].removeprefix("invariant ") in {"failed_bao_noted", "successful_bao_noted", "negative_caller_noted",
                                                   "caller_noted_lowest", "one_negative_noted"}


def test_every_builtin_states_what_it_reads() -> None:
    """A builtin without an entry would read everything (judged after every move): sound, but slow."""
    assert unknown_reads() == set()


def test_reads_follow_definitions_and_leave_out_constants(default_engine: Engine) -> None:
    reads = Reads(default_engine.rules)
    every = [reads.of_invariant(i) for i in default_engine.rules.invariants.values()]
    assert all(parts is not EVERYTHING for parts in every)
    assert any(parts <= {"seats"} for parts in every)  # of the tables and the player count alone: no card
    assert any("tableaux" in parts for parts in every)  # through a definition's body


def test_changed_parts_sees_every_kind_of_change(dealt: State) -> None:
    after = dealt.copy()
    assert changed_parts(dealt, after) == set()
    after.tableaux[0][0], after.known[3], after.phase = None, after.known[3] ^ 1, "elsewhere"
    name = next(iter(after.pvars))
    after.pvars[name] = [*after.pvars[name][:-1], "changed"]
    assert changed_parts(dealt, after) == {"tableaux", "known", "phase", f"var:{name}"}


class FullJudge(IncrementalJudge):
    """Judges every invariant after every move: every invariant reads everything."""

    def __init__(self, eng: Engine) -> None:
        super().__init__(eng)
        self.states = [(ident, when, holds, EVERYTHING) for ident, when, holds, _ in self.states]
        self.transitions = [(ident, when, holds, EVERYTHING) for ident, when, holds, _ in self.transitions]


def explored(rules: object, full: bool, monkeypatch: pytest.MonkeyPatch, *args: int, **options: object) -> object:
    """explore's report as JSON (its time left out), the invariants judged incrementally or in full."""
    with monkeypatch.context() as patch:
        if full:
            patch.setattr(explore_module, "IncrementalJudge", FullJudge)
        report = report_json(explore_module.explore(rules, *args, **options))  # type: ignore[arg-type]
    del report["seconds"]
    return report


@pytest.mark.parametrize("name", ["shield_one_turn", "totals_add_round_value", "gift_not_given",
                                  "other_player_calls_again", "own_draw_window_for_all"])
def test_explore_finds_the_same_failures_judging_incrementally(name: str, make_variant: MakeVariant,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The breadth-first search judges a state from its parent's verdicts, and a move's transition invariants
    from the verdicts over its parent's other moves: the same report as judging everything everywhere."""
    planted = ALL[name]
    rules = load_ruleset(make_variant(*planted.edits))
    args = (2, planted.depth, planted.deals, planted.seed)
    incremental = explored(rules, False, monkeypatch, *args)
    assert incremental == explored(rules, True, monkeypatch, *args)
    assert incremental["properties"]  # type: ignore[index]


def test_explore_of_the_default_rules_with_knowledge_agrees(default_engine: Engine,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    args = (2, 5, 2, 3)
    incremental = explored(default_engine.rules, False, monkeypatch, *args, knowledge=True)
    assert incremental == explored(default_engine.rules, True, monkeypatch, *args, knowledge=True)
