"""The desk's session: the document, its frames, the position shown, and undo and redo.

Every change (a new table, a move, a refused move, an expectation, a loaded file) makes a new document; the
one before goes on the undo stack with the position then shown. Stepping forward and back only moves the
position. A move made at an earlier position replaces the steps after it (undo brings them back).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..engine.engine import Engine
from ..engine.notation import scenario_move_text
from ..engine.state import State
from ..language.errors import BaoError, Rejection
from ..scenarios.parser import parse_claim
from ..scenarios.write import table_lines
from .timeline import (
    EXPECT,
    MOVE,
    REJECT,
    DeskError,
    Document,
    Frame,
    Meta,
    Step,
    drawn_species,
    expectation_problem,
    normal_table,
    play_move,
    read_move,
    replay,
    start_state,
)

# How many changes undo reaches back.
UNDO_DEPTH = 500


@dataclass(frozen=True)
class Saved:
    """A document with its frames and the position shown: what undo and redo bring back."""

    doc: Document
    frames: tuple[Frame, ...]
    at: int


@dataclass
class Session:
    eng: Engine
    doc: Document
    frames: list[Frame]
    at: int = 0  # the frame shown: 0 the table, n after the n-th step
    undo_stack: list[Saved] = field(default_factory=list)
    redo_stack: list[Saved] = field(default_factory=list)
    notice: str = ""  # what the last action said (an error in words), shown once
    replay_problem: str = ""  # why a loaded document's replay stopped early

    @classmethod
    def start(cls, eng: Engine, lines: tuple[str, ...]) -> Session:
        doc = Document(normal_table(eng, start_state(eng, lines)))
        return cls(eng, doc, replay(eng, doc))

    # ------------------------------------------------------------ reading
    @property
    def state(self) -> State:
        return self.frames[self.at].state

    @property
    def frame(self) -> Frame:
        return self.frames[self.at]

    def current_table(self) -> tuple[str, ...]:
        """The table block of the position shown (BaoError when no table can state it)."""
        return tuple(table_lines(self.eng, self.state))

    # ------------------------------------------------------------ changes
    def _save(self) -> Saved:
        return Saved(self.doc, tuple(self.frames), self.at)

    def _restore(self, saved: Saved) -> None:
        self.doc, self.frames, self.at = saved.doc, list(saved.frames), saved.at

    def _change(self, doc: Document, frames: list[Frame], at: int) -> None:
        self.undo_stack = [*self.undo_stack, self._save()][-UNDO_DEPTH:]
        self.redo_stack = []
        self.doc, self.frames, self.at = doc, frames, at

    def set_table(self, lines: tuple[str, ...], meta: Meta | None = None) -> None:
        """A new table (validated and written as `table_lines` writes it); the play starts afresh."""
        doc = Document(normal_table(self.eng, start_state(self.eng, lines)), (), meta or self.doc.meta)
        self._change(doc, replay(self.eng, doc), 0)

    def load(self, doc: Document, problem: str = "") -> None:
        """A loaded scenario or game log, shown at its table; `problem`: why it is not loaded to its end."""
        frames = replay(self.eng, doc)
        self._change(doc, frames, 0)
        last = frames[-1]
        if len(frames) <= len(doc.steps) and last.problem:
            problem = problem or f"the replay stops at step {len(frames) - 1}: {last.problem}"
        self.replay_problem = problem

    def _append(self, frame: Frame) -> None:
        assert frame.step is not None
        steps = (*self.doc.steps[: self.at], frame.step)
        self._change(self.doc.but(steps), [*self.frames[: self.at + 1], frame], self.at + 1)

    def play(self, text: str) -> Rejection | None:
        """Play a move at the position shown; a refused move becomes a refusal step, and its rejection is
        returned. DeskError for a text that names no move."""
        st = self.state
        move = read_move(self.eng, st, text.strip())
        written = scenario_move_text(self.eng.rules.moves, st, move)
        rejection = self.eng.check(st, move)
        if rejection is not None:
            cite = str(rejection.cite).replace("; ", " ")  # `reject ... by` takes a citation's parts side by side
            self._append(Frame(st, Step(REJECT, written, cite=cite), rejection=rejection))
            return rejection
        try:
            after, events = play_move(self.eng, st, move)
        except BaoError as err:
            raise DeskError(f"the rules could not carry out {written}: {err}") from None
        self._append(Frame(after, Step(MOVE, written, drawn_species(self.eng, events)), events))
        return None

    def expect(self, text: str) -> None:
        """Add an expectation at the position shown (it may fail: the frame says so)."""
        text = text.strip().removeprefix("expect ").strip()
        try:
            parse_claim(text, "expectation")
        except BaoError as err:
            raise DeskError(f"expect {text}: {err}") from None
        frames = self.frames[: self.at + 1]
        problem = expectation_problem(self.eng, frames, text) or ""
        self._append(Frame(self.state, Step(EXPECT, text), problem=problem))

    def toggle_decisive(self, index: int) -> None:
        """Mark or unmark step `index` (from 1) as decisive: the FAQ shows the decisive steps."""
        if not 1 <= index <= len(self.doc.steps) or self.doc.steps[index - 1].kind == EXPECT:
            raise DeskError(f"step {index}: no move or refusal to mark")
        steps = list(self.doc.steps)
        steps[index - 1] = replace(steps[index - 1], decisive=not steps[index - 1].decisive)
        frames = list(self.frames)
        if index < len(frames):
            frames[index] = replace(frames[index], step=steps[index - 1])
        self._change(self.doc.but(tuple(steps)), frames, self.at)

    # ------------------------------------------------------------ moving about
    def goto(self, at: int) -> None:
        self.at = max(0, min(at, len(self.frames) - 1))

    def undo(self) -> bool:
        if not self.undo_stack:
            return False
        self.redo_stack.append(self._save())
        self._restore(self.undo_stack.pop())
        return True

    def redo(self) -> bool:
        if not self.redo_stack:
            return False
        self.undo_stack.append(self._save())
        self._restore(self.redo_stack.pop())
        return True
