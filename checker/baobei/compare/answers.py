"""Answers that change: every scenario replayed under both versions of the rules, trace against trace.

A scenario's answer is its replay: whether it passes, and what happened step by step (each move's events
with the rules that caused them, the table after it, a refusal with its rule). Two replays are compared
entry by entry; the first entry that differs is the step at which the versions part, and each side is
described there by what it did and the rules (§, [P]) it cited. A scenario that no longer loads or
replays under one version (an unknown move or variable, a rule that fails) is listed with the reason.
The FAQ entries are scenarios with a question and an answer (`answers P...` for the rulebook's own FAQ).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..engine.engine import Engine
from ..engine.runtime import Event
from ..language.errors import BaoError, Rejection
from ..language.paths import shown_path
from ..scenarios import syntax as sc
from ..scenarios.parser import parse_scenario_file
from ..scenarios.runner import Replay, ScenarioResult, TraceEntry, run_scenario
from ..scenarios.setup import to_move
from ..scenarios.wellformed import without_undeclared

PASSED, FAILED, ERROR = "passed", "failed", "error"
REJECTED = "  -> REJECTED"  # how a replay's trace marks a move it expected legal and the rules refused
FAILED_MARK = "  -> FAILED"  # ... and an expectation that does not hold
EXPECT = "expect "
TABLE_ROWS = 3  # rows of the table shown when only the table differs


@dataclass(frozen=True)
class Outcome:
    """One version's replay of a scenario."""

    status: str  # passed | failed | error (it does not load or replay)
    message: str = ""  # the failure or the error, in words
    line: int = 0  # where it failed (0: nowhere, or unknown)
    trace: tuple[TraceEntry, ...] = ()
    # The decisions and assumptions the scenario `assumes` that these rules do not declare: the replay went
    # ahead without them (a version that drops an assumption is asked what its rules now answer).
    undeclared: tuple[str, ...] = ()


@dataclass(frozen=True)
class Side:
    """What one version does at the step where the replays part."""

    does: tuple[str, ...]  # the events (or the refusal, the failure) in words
    rules: tuple[str, ...]  # the rules cited there: name and citation


@dataclass(frozen=True)
class ChangedAnswer:
    path: str
    title: str
    faq: tuple[str, ...]  # the rulebook FAQ paragraphs it answers; ("",) for a clarification with a question
    old: Outcome
    new: Outcome
    line: int  # the scenario line of the first step that differs (0: the setup or none)
    step: str  # that step's text
    old_side: Side
    new_side: Side

    @property
    def answer_changed(self) -> bool:
        """Whether the verdict changed (pass, fail, error), or what it rests on, not only the way there."""
        return (self.old.status, self.old.message, self.old.undeclared) != \
            (self.new.status, self.new.message, self.new.undeclared)


@dataclass
class AnswerReport:
    scenarios: int = 0
    unreadable: list[str] = field(default_factory=list)  # files that do not parse (the same for both)
    changed: list[ChangedAnswer] = field(default_factory=list)


def compare_answers(files: list[Path], old: Engine, new: Engine,
                    advance: Callable[[int], None] = lambda n: None) -> AnswerReport:
    report = AnswerReport(len(files))
    for path in files:
        try:
            scenario = parse_scenario_file(path)
        except BaoError as err:
            report.unreadable.append(str(err).splitlines()[0])
            advance(1)
            continue
        changed = compare_one(scenario, old, new)
        if changed is not None:
            report.changed.append(changed)
        advance(1)
    return report


def compare_one(scenario: sc.Scenario, old: Engine, new: Engine) -> ChangedAnswer | None:
    a, b = replay(scenario, old), replay(scenario, new)
    index = first_difference(a, b)
    if index is None and a.undeclared == b.undeclared:
        return None
    if index is None:  # the same replay, resting on an assumption one version no longer declares
        return ChangedAnswer(shown_path(scenario.path), scenario.title, faq_of(scenario), a, b, 0, "",
                             _resting(a), _resting(b))
    entry = _entry(a, index) or _entry(b, index)
    if ERROR in (a.status, b.status) or entry is None:
        line, step = max(a.line, b.line), ""
    else:
        line, step = entry.pos.line, entry.text.removesuffix(REJECTED).removesuffix(FAILED_MARK)
    return ChangedAnswer(shown_path(scenario.path), scenario.title, faq_of(scenario), a, b, line, step,
                         side_at(a, b, index, refusal_at(scenario, old, a)),
                         side_at(b, a, index, refusal_at(scenario, new, b)))


def faq_of(scenario: sc.Scenario) -> tuple[str, ...]:
    if scenario.faq:
        return scenario.faq
    return ("",) if scenario.questions or scenario.answers else ()


def replay(scenario: sc.Scenario, eng: Engine) -> Outcome:
    """The scenario under these rules. One that `assumes` a decision they do not declare is replayed without
    it (outside `compare` it is refused: it rests on a decision of other rules), and the outcome names it."""
    scenario, undeclared = without_undeclared(scenario, eng.rules.assumptions)
    try:
        result = run_scenario(scenario, eng, snapshots=True)
    except BaoError as err:  # it does not load under these rules (a name they lack), or they fail on it
        return Outcome(ERROR, str(err).splitlines()[0], getattr(getattr(err, "pos", None), "line", 0),
                       undeclared=undeclared)
    return dataclasses.replace(_outcome(result), undeclared=undeclared)


def _resting(outcome: Outcome) -> Side:
    """What a version's replay rests on, where that is all that differs."""
    if not outcome.undeclared:
        return Side(("rests only on decisions these rules declare",), ())
    return Side((f"rests on {', '.join(outcome.undeclared)}, which these rules do not declare",), ())


def _outcome(result: ScenarioResult) -> Outcome:
    failure = result.failure
    if failure is None:
        return Outcome(PASSED, trace=tuple(result.trace))
    return Outcome(FAILED, failure.message, failure.pos.line, tuple(result.trace))


def _entry(outcome: Outcome, index: int) -> TraceEntry | None:
    return outcome.trace[index] if index < len(outcome.trace) else None


def entry_signature(entry: TraceEntry) -> tuple[object, ...]:
    """What a trace entry says: the step, each event with its rule, the table after it, a refusal."""
    refusal = entry.rejection
    return (entry.pos.line, entry.text, tuple(_event(e) for e in entry.events), tuple(entry.table),
            None if refusal is None else (refusal.rule, str(refusal.cite), refusal.reason))


def _event(e: Event) -> tuple[str, str, str, str]:
    return (e.kind, e.text, e.rule, str(e.cite))


def first_difference(a: Outcome, b: Outcome) -> int | None:
    """The index of the first trace entry that differs; past the shorter trace when only the verdicts do."""
    for i, (x, y) in enumerate(zip(a.trace, b.trace, strict=False)):
        if entry_signature(x) != entry_signature(y):
            return i
    if len(a.trace) != len(b.trace) or (a.status, a.message) != (b.status, b.message):
        # Every common entry alike: one version failed after the last of them (a property broken by its move).
        return max(0, min(len(a.trace), len(b.trace)) - 1)
    return None


def refusal_at(scenario: sc.Scenario, eng: Engine, outcome: Outcome) -> Rejection | None:
    """Why the move a failed replay expected to be legal was refused (its rule), by replaying up to it."""
    if outcome.status != FAILED or not outcome.trace or not outcome.trace[-1].text.endswith(REJECTED):
        return None
    replay = Replay(eng, scenario, False)
    for step in scenario.steps:
        if step.pos.line == outcome.line and isinstance(step, sc.DoMove):
            return eng.check(replay.st, to_move(eng, replay.st, step.player, step.move, step.args, step.pos))
        if replay.step(step) is not None:
            return None
    return None


def side_at(mine: Outcome, other: Outcome, index: int, refused: Rejection | None = None) -> Side:
    """What `mine` did at the differing entry, and its rules, where it differs from `other`."""
    entry, theirs = _entry(mine, index), _entry(other, index)
    does, rules = _doings(entry, theirs) if entry is not None else ([], [])
    if refused is not None:
        rules.insert(0, f"{refused.rule} {refused.cite}")
    last = entry is None or mine.line in (0, entry.pos.line) or index >= len(mine.trace) - 1
    if mine.status != PASSED and last:  # it stopped here: say why
        does.append(f"{mine.status}: {mine.message}")
    return Side(tuple(does) or ("the same as the other version",), tuple(dict.fromkeys(rules)))


def _doings(entry: TraceEntry, theirs: TraceEntry | None) -> tuple[list[str], list[str]]:
    """The events (or the refusal, the table, the expectation) of an entry the other version's lacks, with
    the rules they cite."""
    seen = {_event(e) for e in theirs.events} if theirs is not None else set()
    own = [e for e in entry.events if _event(e) not in seen]
    does, rules = [e.text for e in own], [f"{e.rule} {e.cite}" for e in own]
    if entry.rejection is not None:
        does.append(f"refused: {entry.rejection.reason}")
        rules.append(f"{entry.rejection.rule} {entry.rejection.cite}")
    if not does and theirs is not None and entry.table != theirs.table:
        does += [f"table: {row}" for row in entry.table if row not in theirs.table][:TABLE_ROWS]
    if not does and entry.text.startswith(EXPECT) and not entry.text.endswith(FAILED_MARK):
        does.append("the expectation holds")
    return does, rules
