"""A desk's document and its replay: a scenario's `table` block and the steps after it, played into frames.

The document is what a scenario file holds, so the desk's state is always one a scenario can state: the
table lines as `scenarios/write.py` writes them, then moves (each with the cards it drew, so that a replay
draws the same ones whatever a shuffle did), refused moves with the rule that refuses them, and expectations.
Replaying a document gives one frame per step: the state after it, its events, the refusal or what failed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.notation import parse_move_text
from ..engine.runtime import Event
from ..engine.state import State
from ..language.errors import BaoError, Rejection
from ..scenarios.draws import forced
from ..scenarios.expectations import check_expectation
from ..scenarios.parser import parse_claim, parse_table_lines
from ..scenarios.setup import build_table
from ..scenarios.write import table_lines

MOVE, REJECT, EXPECT = "move", "reject", "expect"


class DeskError(BaoError):
    """Input the desk cannot use (a move that names nothing, a table that does not build): shown in the page."""


@dataclass(frozen=True)
class Step:
    """One step of the play: a move (`text` in scenario notation, `draws` the species it drew, in order), a
    refused move (`cite`: the rule that refuses it, as a scenario's `reject ... by` writes it) or an
    expectation (`text` as after `expect`)."""

    kind: str
    text: str
    draws: tuple[str, ...] = ()
    cite: str = ""
    decisive: bool = False

    def line(self) -> str:
        """The step as a line of a scenario's play (without its `draws` line)."""
        mark = "decisive " if self.decisive else ""
        if self.kind == REJECT:
            return f"{mark}reject {self.text} by {self.cite}"
        if self.kind == EXPECT:
            return f"expect {self.text}"
        return f"{mark}{self.text}"


@dataclass(frozen=True)
class Meta:
    """What a loaded scenario says about itself, kept for the export: title, citations, tags, the FAQ's
    questions and answers, and the FAQ paragraphs it answers."""

    title: str = ""
    source: str = ""  # the file it came from, as the person named it
    cites: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    assumes: tuple[str, ...] = ()
    questions: tuple[tuple[str, str], ...] = ()
    answers: tuple[tuple[str, str], ...] = ()
    faq: tuple[str, ...] = ()


@dataclass(frozen=True)
class Document:
    table: tuple[str, ...]  # the table block's lines, `table` first
    steps: tuple[Step, ...] = ()
    meta: Meta = Meta()

    def but(self, steps: tuple[Step, ...]) -> Document:
        return replace(self, steps=steps)


@dataclass
class Frame:
    """The table after a step (frame 0: the table itself), what the step did and what went wrong."""

    state: State
    step: Step | None = None
    events: list[Event] = field(default_factory=list)
    rejection: Rejection | None = None
    problem: str = ""  # a failed expectation, or a step the replay could not make


def start_state(eng: Engine, lines: tuple[str, ...], where: str = "desk table") -> State:
    """The state a table block builds (ScenarioError with the line and column of a bad line)."""
    return build_table(eng, parse_table_lines(list(lines[1:]), where))


def normal_table(eng: Engine, st: State) -> tuple[str, ...]:
    """The table block that builds `st` (each copy of a species as the table numbers it)."""
    return tuple(table_lines(eng, st))


def drawn_species(eng: Engine, events: list[Event]) -> tuple[str, ...]:
    """The species of the cards a move drew, in the order it drew them (its `draw` events name them)."""
    return tuple(eng.facts.species[eng.facts.by_label[label]] for e in events if e.kind == "draw"
                 for label, _ in e.cards)


def read_move(eng: Engine, st: State, text: str) -> Move:
    try:
        return parse_move_text(eng.rules.moves, st, text)
    except BaoError as err:
        raise DeskError(f"{text!r}: {err}") from None


def play_move(eng: Engine, st: State, move: Move, draws: tuple[str, ...] = ()) -> tuple[State, list[Event]]:
    """A legal move played on a copy, the named draws first (DrawUnavailable or EngineError when it cannot)."""
    after = st.copy()
    if draws:
        forced(after).name(list(draws))
    return after, eng.push(after, move)


def replay(eng: Engine, doc: Document) -> list[Frame]:
    """The frames of a document: the table, then one per step. A step the replay cannot make ends it, with
    what went wrong in its frame; a failed expectation is noted and the replay goes on."""
    frames = [Frame(start_state(eng, doc.table))]
    for step in doc.steps:
        frame = next_frame(eng, frames, step)
        frames.append(frame)
        if frame.problem and step.kind != EXPECT:
            break
    return frames


def next_frame(eng: Engine, frames: list[Frame], step: Step) -> Frame:
    st = frames[-1].state
    try:
        if step.kind == EXPECT:
            return Frame(st, step, problem=expectation_problem(eng, frames, step.text) or "")
        move = read_move(eng, st, step.text)
        rejection = eng.check(st, move)
        if step.kind == REJECT:
            return Frame(st, step, rejection=rejection,
                         problem="" if rejection is not None else "the move is legal here, not refused")
        if rejection is not None:
            return Frame(st, step, rejection=rejection, problem=f"the move is refused here: {rejection.cite}: "
                                                                 f"{rejection.reason}")
        after, events = play_move(eng, st, move, step.draws)
        return Frame(after, step, events)
    except BaoError as err:  # a draw that is not possible, rules that fail, a move that names nothing
        return Frame(st, step, problem=str(err))


def expectation_problem(eng: Engine, frames: list[Frame], text: str) -> str | None:
    """None when the expectation holds in the latest frame, else why not (a misspelt one says so)."""
    expect = parse_claim(text, "expectation")
    if expect.kind == "said":
        latest = next((f.events for f in reversed(frames) if f.events), [])
        said = [e.text for e in latest if e.kind == "say"]
        return None if expect.args[0] in said else f"the rules said {said or 'nothing'} at the latest move"
    return check_expectation(eng, frames[-1].state, expect)
