"""Loading a scenario file or a game log into the desk: its table and its steps as a desk document.

A scenario is replayed by the scenario runner step by step; each move is noted in scenario notation with the
cards it drew. A game log is judged by the referee, whose engine notes every move it makes (the log's own and
the implicit ones it leaves out) with the cards drawn; the document ends before the log's first error, which
is said in words. Either way the table is written as `scenarios/write.py` writes it, so the desk replays the
document from a table that a scenario can state, drawing the same cards.
"""

from __future__ import annotations

from pathlib import Path

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.notation import scenario_move_text
from ..engine.runtime import Event
from ..engine.state import State
from ..language.errors import BaoError
from ..language.ruleset import Ruleset
from ..referee.judge import Referee
from ..referee.logfile import parse_log
from ..scenarios import syntax as sc
from ..scenarios.parser import parse_scenario_text
from ..scenarios.runner import Replay
from ..scenarios.setup import to_move
from .timeline import EXPECT, MOVE, REJECT, Document, Meta, Step, drawn_species, normal_table

# Where a drawn card lies after its move: (slot, seat, number), (pile, index, position) or (hand, seat, position).
Where = tuple[str, int, int]


class NotingEngine(Engine):
    """The desk's engine: the rules' own, which, while `notes` is a list, notes every move the referee makes
    (its scenario text and the species it drew).

    A move that deals a new round is noted with the cards the log deals, not the ones the engine drew: the
    referee exchanges the dealt cards for the log's right after the move, so the places the cards went to are
    read again at the next move or at the end of the line (`settle_deal`)."""

    def __init__(self, rules: Ruleset) -> None:
        super().__init__(rules)
        self.notes: list[Step] | None = None
        self._dealt: tuple[int, State, list[Where | None]] | None = None

    def push_checked(self, st: State, move: Move, log: bool = True) -> list[Event]:
        if self.notes is None:
            return super().push_checked(st, move, log)
        self.settle_deal()
        text = scenario_move_text(self.rules.moves, st, move)
        round_before = st.round
        events = super().push_checked(st, move, True)  # the draw events name the cards drawn
        self.notes.append(Step(MOVE, text, drawn_species(self, events)))
        if st.round != round_before:
            drawn = [self.facts.by_label[label] for e in events if e.kind == "draw" for label, _ in e.cards]
            self._dealt = (len(self.notes) - 1, st, [_where(st, c) for c in drawn])
        return events

    def settle_deal(self) -> None:
        """The noted deal's cards as they lie now (after the referee gave them the log's faces)."""
        if self._dealt is None or self.notes is None:
            return
        index, st, places = self._dealt
        self._dealt = None
        if index >= len(self.notes):
            return
        old = self.notes[index]
        species = [self.facts.species[c] if c is not None else sp
                   for c, sp in zip((_card_at(st, w) for w in places), old.draws, strict=True)]
        self.notes[index] = Step(old.kind, old.text, tuple(species), old.cite, old.decisive)


def _where(st: State, card: int) -> Where | None:
    for p, row in enumerate(st.tableaux):
        if card in row:
            return ("slot", p, row.index(card))
    for i, pile in enumerate(st.piles):
        if card in pile:
            return ("pile", i, pile.index(card))
    for p, hand in enumerate(st.hands):
        if card in hand:
            return ("hand", p, hand.index(card))
    return None


def _card_at(st: State, where: Where | None) -> int | None:
    if where is None:
        return None
    kind, a, b = where
    cards = st.tableaux[a] if kind == "slot" else st.piles[a] if kind == "pile" else st.hands[a]
    return cards[b] if b < len(cards) else None


def without_comment(line: str) -> str:
    """A scenario line without its trailing `# comment` (a `#` inside a quoted string stays)."""
    quoted = escaped = False
    for i, char in enumerate(line):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = quoted
        elif char == '"':
            quoted = not quoted
        elif char == "#" and not quoted:
            return line[:i].rstrip()
    return line.rstrip()


def citation_text(cite: object) -> str:
    """A citation as `reject ... by` writes it: its parts side by side."""
    return str(cite).replace("; ", " ")


def scenario_document(eng: Engine, text: str, name: str) -> tuple[Document, str]:
    """The scenario's table and steps; and, when its replay fails at a step, why (the steps before it are
    loaded). ScenarioError (file:line:col) for a scenario that does not parse."""
    scenario = parse_scenario_text(text, name)
    replay = Replay(eng, scenario, snapshots=False)
    table = normal_table(eng, replay.st)
    steps: list[Step] = []
    for step in scenario.steps:
        problem = _load_step(eng, replay, step, steps)
        if problem:
            return Document(table, tuple(steps), meta_of(scenario)), problem
    return Document(table, tuple(steps), meta_of(scenario)), ""


def _load_step(eng: Engine, replay: Replay, step: sc.Step, steps: list[Step]) -> str:
    if isinstance(step, sc.Draws):
        replay.step(step)  # the next draws are named: the moves that follow draw them and note them
        return ""
    if isinstance(step, sc.Expect):
        steps.append(Step(EXPECT, without_comment(step.text).removeprefix("expect ").strip()))
        return ""
    calls: list[sc.DoMove | sc.Reject] = []
    if isinstance(step, sc.Simultaneous):
        calls = list(step.calls)
    elif isinstance(step, sc.DoMove | sc.Reject):
        calls = [step]
    for call in _in_call_order(eng, replay.st, calls):
        move = to_move(eng, replay.st, call.player, call.move, call.args, call.pos)
        text = scenario_move_text(eng.rules.moves, replay.st, move)
        if isinstance(call, sc.Reject):
            steps.append(Step(REJECT, text, cite=citation_text(call.cite), decisive=call.decisive))
            continue
        rejection = eng.check(replay.st, move)
        if rejection is not None:
            if isinstance(step, sc.Simultaneous):  # a call whose turn comes too late: refused, as the rules say
                steps.append(Step(REJECT, text, cite=citation_text(rejection.cite)))
                continue
            return f"{call.pos}: {text} is refused: {rejection.cite}: {rejection.reason}"
        count = len(replay.trace)
        failure = replay.step(call)
        if failure is not None:
            return f"{failure.pos}: {failure.message}"
        events = [e for entry in replay.trace[count:] for e in entry.events]
        steps.append(Step(MOVE, text, drawn_species(eng, events), decisive=call.decisive))
    return ""


def _in_call_order(eng: Engine, st: State, calls: list[sc.DoMove | sc.Reject]) -> list[sc.DoMove | sc.Reject]:
    """Calls of one moment in the order the rules count them (as the runner replays them); one call as is."""
    if len(calls) < 2:
        return calls
    order = eng.call_order(st) or []
    rank = {p: i for i, p in enumerate(order)}
    return sorted(calls, key=lambda c: rank.get(st.names.index(c.player) if c.player in st.names else -1,
                                                 len(rank)))


def meta_of(scenario: sc.Scenario) -> Meta:
    return Meta(scenario.title, scenario.path, tuple(str(c) for c in scenario.cites), scenario.tags,
                scenario.assumes, tuple(scenario.questions.items()), tuple(scenario.answers.items()), scenario.faq)


def log_document(eng: NotingEngine, text: str, name: str, rules_dir: Path) -> tuple[Document, str]:
    """The game log's first table and every move the referee made of it; and the log's first error in words
    (the moves before it are loaded). LogError (file:line:col) for a malformed log."""
    log = parse_log(text, name)
    judge = Referee(eng, log, rules_dir)
    table = normal_table(eng, judge.st)
    by_line: list[tuple[int, list[Step]]] = []
    lines = iter(log.lines)
    eng.notes = []

    def advance(_: int) -> None:  # after each line: the moves the referee made for it
        assert eng.notes is not None
        eng.settle_deal()
        by_line.append((next(lines).number, list(eng.notes)))
        eng.notes.clear()

    try:
        verdict = judge.run(advance)
    finally:
        eng.notes = None
    if not verdict.findings:
        return Document(table, tuple(s for _, moves in by_line for s in moves), Meta(source=name)), ""
    found = verdict.findings[0]
    # A wrong claim leaves its line's move made; an illegal move or an impossible outcome leaves none.
    kept = [s for number, moves in by_line
            if number < found.line or (number == found.line and found.kind == "wrong claim") for s in moves]
    problem = (f"{name}:{found.line}: {found.kind}: {found.move}: {found.rule + ': ' if found.rule else ''}"
               f"{found.why} (the moves before it are loaded)")
    return Document(table, tuple(kept), Meta(source=name)), problem


def load_any(eng: NotingEngine, text: str, name: str, rules_dir: Path) -> tuple[Document, str]:
    """A scenario (by its name's suffix, or its first word) or a game log (JSON Lines)."""
    stripped = text.lstrip("\ufeff").lstrip()
    if name.endswith(".jsonl") or name.endswith(".json") or stripped.startswith("{"):
        return log_document(eng, text, name, rules_dir)
    if not stripped:
        raise BaoError(f"{name}: the file is empty")
    return scenario_document(eng, text, name)
