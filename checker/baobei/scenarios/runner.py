"""Replay a scenario: build its table, play its moves, check its expectations, and after every move
what the rules promise: the state invariants and progress in the state after it, the transition
invariants over the move.

A failed expectation is a result (the scenario fails, with expected against
actual and the trace so far); a malformed scenario is a ScenarioError.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..engine.engine import Engine, invariant_message, progress_message
from ..engine.move import Move
from ..engine.runtime import Event
from ..engine.state import State
from ..engine.table_view import render_table
from ..language.errors import BaoError, EngineError, Rejection, ScenarioError, caret_excerpt
from ..language.load import load_ruleset
from ..language.paths import default_rules_dir
from ..language.source import Citation, Pos
from . import syntax as sc
from .draws import DrawUnavailable, forced, named_draws
from .expectations import check_expectation
from .setup import build_table, to_move
from .wellformed import check_assumes

_ENGINES: dict[Path, Engine] = {}

# How a replay reports a move the rules could not carry out (an engine error: a bug in the rules).
RULES_FAILED = "the rules failed while applying the move"


def engine_for(rules_dir: Path | None = None) -> Engine:
    """One compiled engine per rules directory and process."""
    key = (rules_dir or default_rules_dir()).resolve()
    if key not in _ENGINES:
        _ENGINES[key] = Engine(load_ruleset(key))
    return _ENGINES[key]


@dataclass
class TraceEntry:
    pos: Pos
    text: str
    events: list[Event] = field(default_factory=list)
    table: list[str] = field(default_factory=list)
    state: State | None = None  # with snapshots: a copy of the state after the step (pictures of the table)
    rejection: Rejection | None = None  # a move the scenario expects refused: why (the docs show it in words)


@dataclass
class Failure:
    pos: Pos
    step: str
    message: str


@dataclass
class ScenarioResult:
    scenario: sc.Scenario
    failure: Failure | None
    trace: list[TraceEntry]
    state: State | None

    @property
    def passed(self) -> bool:
        return self.failure is None


def cite_matches(got: Citation, want: Citation) -> bool:
    parts = want.parts or ((want.section, want.paras),)
    return all(sec in got.sections and set(paras) <= set(got.paras_of(sec)) for sec, paras in parts)


def check_invariants(eng: Engine, st: State) -> str | None:
    """The first state invariant `st` breaks, in words."""
    inv = eng.broken_invariant(st)
    return None if inv is None else invariant_message(inv)


def check_progress(eng: Engine, st: State) -> str | None:
    """The first progress property `st` breaks (nobody can act), in words."""
    stuck = eng.deadlock(st)
    return None if stuck is None else progress_message(stuck)


def check_move(eng: Engine, before: State | None, move: Move, after: State) -> str | None:
    """What the rules promise after a move: every state invariant and progress in the state after it,
    every transition invariant over the states before and after it (`before` is None when the rules
    declare none, so that replays without them copy no state)."""
    broken = check_invariants(eng, after)
    if broken is None and before is not None:
        broken = eng.transition_failure(before, after, move)
    return broken if broken is not None else check_progress(eng, after)


class Replay:
    """Plays one scenario step by step, recording the trace."""

    def __init__(self, eng: Engine, scenario: sc.Scenario, snapshots: bool) -> None:
        self.eng = eng
        self.scenario = scenario
        self.snapshots = snapshots
        self.trace: list[TraceEntry] = []
        self.named: list[sc.Draws] = []  # the `draws` lines whose cards the next move is still to draw
        check_assumes(scenario, eng.rules.assumptions)
        self.st = self._setup()

    def _setup(self) -> State:
        setup = self.scenario.setup
        entry = TraceEntry(setup.pos, "setup")
        if isinstance(setup, sc.Deal):
            try:
                st, events = self.eng.new_match(list(setup.players), setup.seed)
            except BaoError as err:
                raise ScenarioError(setup.pos, str(err)) from None
            entry.events = events
        else:
            st = build_table(self.eng, setup)
        entry.table = render_table(self.eng, st)
        if self.snapshots:
            entry.state = st.copy()
        self.trace.append(entry)
        return st

    def run(self) -> Failure | None:
        for step in self.scenario.steps:
            failure = self.step(step)
            if failure is not None:
                return failure
        return self._undrawn(None)

    def step(self, step: sc.Step) -> Failure | None:
        if isinstance(step, sc.DoMove):
            return self._do(step)
        if isinstance(step, sc.Reject):
            return self._reject(step)
        if isinstance(step, sc.Simultaneous):
            return self._simultaneous(step)
        if isinstance(step, sc.Draws):
            return self._draws(step)
        assert isinstance(step, sc.Expect)
        message = self._said(step.args[0]) if step.kind == "said" else check_expectation(self.eng, self.st, step)
        self.trace.append(TraceEntry(step.pos, f"expect {step.text.removeprefix('expect ')}"
                                     + ("" if message is None else "  -> FAILED")))
        return None if message is None else Failure(step.pos, step.text, message)

    def _draws(self, step: sc.Draws) -> Failure | None:
        unknown = [c for c in step.cards if c not in self.eng.rules.species]
        if unknown:
            raise ScenarioError(step.pos, f"unknown species {', '.join(unknown)}; the deck has: "
                                f"{', '.join(self.eng.rules.species)}")
        forced(self.st).name(list(step.cards))
        self.named.append(step)
        self.trace.append(TraceEntry(step.pos, "draws " + ", ".join(step.cards)))
        return None

    def _undrawn(self, move: str | None) -> Failure | None:
        """The cards `draws` lines name for a move that the move (None: no move after them) did not draw: a
        `draws` line gives the cards of the next move's draws, and a card left over would silently be the
        card of some later draw."""
        chance = named_draws(self.st)
        if chance is None or not chance.wanted or not self.named:
            self.named.clear()
            return None
        line, left = self.named[-1], ", ".join(str(c) for c in chance.wanted)
        named = sum(len(d.cards) for d in self.named)
        if move is None:
            message = f"the `draws` line names {_cards(named)} but no move after it draws: {left} not drawn"
        else:
            message = (f"the `draws` line names {_cards(named)} for the move after it, {move}, but that move drew "
                       f"{_cards(chance.drawn)} from the draw pile: {left} not drawn; name only the cards it draws")
        return Failure(line.pos, "draws " + ", ".join(line.cards), message)

    def _said(self, words: str) -> str | None:
        """Whether the rules said these words (a `say` of the rules) at the latest move."""
        latest = next((entry.events for entry in reversed(self.trace) if entry.events), [])
        said = [e.text for e in latest if e.kind == "say"]
        if words in said:
            return None
        return (f"expected the rules to say {words!r} at the latest move; they said "
                + ("; ".join(repr(w) for w in said) if said else "nothing"))

    def _do(self, step: sc.DoMove) -> Failure | None:
        move = to_move(self.eng, self.st, step.player, step.move, step.args, step.pos)
        rejection = self.eng.check(self.st, move)
        if rejection is not None:
            self.trace.append(TraceEntry(step.pos, rejection.move + "  -> REJECTED"))
            return Failure(step.pos, rejection.move, f"expected the move to be legal, but it was rejected: "
                           f"{rejection.cite}: {rejection.reason}")
        return self._apply(step.pos, move)

    def _apply(self, pos: Pos, move: Move) -> Failure | None:
        """Play a legal move, record it, and check what the rules promise after it."""
        text = self.eng.describe(self.st, move)
        before = self.st.copy() if self.eng.transition_fns else None
        chance = named_draws(self.st)
        if chance is not None:
            chance.count_from_here()
        try:
            events = self.eng.push(self.st, move)
        except EngineError as err:
            return Failure(pos, text, f"{RULES_FAILED}: {err}")
        except DrawUnavailable as err:
            return Failure(pos, text, str(err))
        entry = TraceEntry(pos, text, events)
        if self.snapshots:
            entry.table = render_table(self.eng, self.st)
            entry.state = self.st.copy()
        self.trace.append(entry)
        broken = check_move(self.eng, before, move, self.st)
        return self._undrawn(text) if broken is None else Failure(pos, text, broken)

    def _simultaneous(self, step: sc.Simultaneous) -> Failure | None:
        """Calls marked simultaneous count in the order the rules' `simultaneous` declaration gives.
        Any call that is illegal when its turn comes (the reference used, or an illegal target: no
        attempt) is rejected and has no effect; that is the rule, not a failure, and the trace shows it."""
        order_of = self.eng.call_order(self.st)
        if order_of is None:
            raise ScenarioError(step.pos, "the rules declare no order for simultaneous calls (`simultaneous ...`)")
        moves = [to_move(self.eng, self.st, c.player, c.move, c.args, c.pos) for c in step.calls]
        rank = {p: i for i, p in enumerate(order_of)}
        order = sorted(zip(moves, step.calls, strict=True), key=lambda mc: rank.get(mc[0].player, len(rank)))
        for move, call in order:
            rejection = self.eng.check(self.st, move)
            if rejection is not None:
                self.trace.append(TraceEntry(call.pos, f"{rejection.move} (simultaneous): rejected, "
                                             f"{rejection.cite}: {rejection.reason}"))
                continue
            failure = self._apply(call.pos, move)
            if failure is not None:
                return failure
        return None

    def _reject(self, step: sc.Reject) -> Failure | None:
        move = to_move(self.eng, self.st, step.player, step.move, step.args, step.pos)
        text = self.eng.describe(self.st, move)
        rejection = self.eng.check(self.st, move)
        self.trace.append(TraceEntry(step.pos, f"reject {text}: "
                                     + (f"{rejection.cite}: {rejection.reason}" if rejection else "legal!"),
                                     rejection=rejection))
        if rejection is None:
            return Failure(step.pos, f"reject {text}", f"expected the move to be rejected citing {step.cite}, "
                           "but it is legal")
        if not cite_matches(rejection.cite, step.cite):
            lower = next((r for r in rejection.others if cite_matches(r.cite, step.cite)), None)
            further = "" if lower is None else (f" (the rule cited is a further reason, ranked below the decisive "
                                                f"one: {lower.cite}: {lower.reason})")
            return Failure(step.pos, f"reject {text}", f"expected a rejection citing {step.cite}, actual "
                           f"{rejection.cite}: {rejection.reason}{further}")
        return None


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def run_scenario(scenario: sc.Scenario, eng: Engine | None = None, snapshots: bool = False) -> ScenarioResult:
    """Replay a scenario; ScenarioError for malformed content, a Failure for a broken expectation."""
    engine = eng or engine_for(None)
    replay = Replay(engine, scenario, snapshots)
    failure = replay.run()
    return ScenarioResult(scenario, failure, replay.trace, replay.st)


def format_failure(result: ScenarioResult, source: str = "") -> str:
    failure = result.failure
    if failure is None:
        return "passed"
    lines = [f"{failure.pos}: {result.scenario.title}", f"  step: {failure.step}", f"  {failure.message}"]
    if source:
        excerpt = caret_excerpt(source, failure.pos.line, max(failure.pos.column, 1))
        if excerpt:
            lines.append(excerpt)
    lines.append("  trace up to here:")
    for entry in result.trace:
        lines.append(f"    line {entry.pos.line}: {entry.text}")
        lines.extend(f"      {ev}" for ev in entry.events)
    return "\n".join(lines)
