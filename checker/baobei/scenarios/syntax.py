"""Typed AST of the scenario language."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..language.source import Citation, Pos


@dataclass(frozen=True)
class Place:
    player: str
    slot: int
    pos: Pos

    def __str__(self) -> str:
        return f"{self.player}.{self.slot}"


@dataclass(frozen=True)
class Ref:
    """A card named by where it lies, in a table: a slot (`alice.2`), a pile's top or Nth card as its table
    line lists it (`discard top`, `discard 3`; the draw pile top first), a player's Nth held card (`alice
    hand 1`, the first drawn) or the Nth copy of a species out of play (`box SPECIES 2`, in deck order)."""

    kind: str  # slot | pile | hand | box
    where: str  # the player (slot, hand), the pile or the species (box)
    index: int | None  # the slot, hand or copy number; a pile's position (None: its top)
    pos: Pos

    def __str__(self) -> str:
        if self.kind == "slot":
            return f"{self.where}.{self.index}"
        if self.kind == "pile":
            return f"{self.where} {'top' if self.index is None else self.index}"
        if self.kind == "hand":
            return f"{self.where} hand {self.index}"
        return f"box {self.where}" + ("" if self.index == 1 else f" {self.index}")


@dataclass(frozen=True)
class WindowLine:
    """`window KIND on REF for NAME, ... [attempts N]`: an open window of the table."""

    kind: str
    ref: Ref
    players: tuple[tuple[str, Pos], ...]  # `for nobody`: none
    attempts: int | None  # None: the number the rules' window declaration gives
    pos: Pos


@dataclass(frozen=True)
class WaitingLine:
    """`waiting ABILITY of REF for NAME [after window] [with VALUE, ...]`: a waiting ability of the table."""

    ability: str
    card: Ref
    owner: tuple[str, Pos]
    after_window: bool
    values: tuple[Value, ...]
    pos: Pos


@dataclass(frozen=True)
class Value:
    """A literal in a scenario: a slot, a name (player, species, phase), an int, a bool or none."""

    kind: str  # slot | name | int | bool | none | list | card (a Ref: a table's card named by where it lies)
    data: Any
    pos: Pos

    def __str__(self) -> str:
        if self.kind == "list":
            return "[" + ", ".join(str(v) for v in self.data) + "]"
        if self.kind == "none":
            return "none"
        if self.kind == "bool":
            return "true" if self.data else "false"
        return str(self.data)


@dataclass(frozen=True)
class Table:
    pos: Pos
    players: tuple[str, ...]
    lines: tuple[tuple[str, tuple[str | None, ...], Pos], ...]  # `NAME: cards`, a tableau or a pile
    active: tuple[str, Pos] | None
    phase: str | None
    seed: int
    # `NAME knows REF, ...` (True) and `NAME knows not REF, ...` (False), in order
    knows: tuple[tuple[str, tuple[Ref, ...], Pos, bool], ...]
    holds: tuple[tuple[str, str, Pos], ...]
    sets: tuple[tuple[str, str | None, Value, Pos], ...]
    among: tuple[tuple[str, ...], Pos] | None = None  # the players of this round, when not all
    round: tuple[int, Pos] | None = None  # None: the first round
    turn: tuple[int, Pos] | None = None  # None: the first turn
    marks: tuple[tuple[str, tuple[Ref, ...], Pos], ...] = ()  # `marked MARK REF, ...`
    windows: tuple[WindowLine, ...] = ()  # oldest first: the last is the open window
    waiting: tuple[WaitingLine, ...] = ()  # first in line first
    protected: tuple[tuple[str, Pos], ...] | None = None  # None: as the rules' protections say
    players_pos: tuple[Pos, ...] = ()  # where the `players` line names each of `players`, in the same order
    phase_pos: Pos | None = None  # where the `phase` line names the phase


@dataclass(frozen=True)
class Deal:
    pos: Pos
    seed: int
    players: tuple[str, ...]
    players_pos: tuple[Pos, ...] = ()  # where the `deal` line names each of `players`, in the same order


@dataclass(frozen=True)
class Step:
    pos: Pos


@dataclass(frozen=True)
class DoMove(Step):
    player: str
    move: str
    args: tuple[tuple[str | None, Value], ...]
    decisive: bool = False  # marked `decisive`: a step that carries the scenario's answer (the FAQ shows it)


@dataclass(frozen=True)
class Simultaneous(Step):
    """Calls made at the same moment: replayed clockwise from the active player (D6)."""

    calls: tuple[DoMove, ...]


@dataclass(frozen=True)
class Draws(Step):
    """The next draws from the draw pile give these species, in order (a shuffle's outcome, written down)."""

    cards: tuple[str, ...]


@dataclass(frozen=True)
class Reject(Step):
    player: str
    move: str
    args: tuple[tuple[str | None, Value], ...]
    cite: Citation
    decisive: bool = False


@dataclass(frozen=True)
class Expect(Step):
    kind: str
    args: tuple[Any, ...]
    text: str = ""


@dataclass(frozen=True)
class Scenario:
    path: str
    pos: Pos
    title: str
    cites: tuple[Citation, ...]
    tags: tuple[str, ...]
    assumes: tuple[str, ...]
    questions: dict[str, str] = field(hash=False)
    answers: dict[str, str] = field(hash=False)
    setup: Table | Deal = field(hash=False)
    steps: tuple[Step, ...] = ()
    faq: tuple[str, ...] = ()  # the rulebook FAQ paragraphs this scenario's answer answers
    assumes_pos: tuple[Pos, ...] = ()  # where the `assumes` lines name each of `assumes`, in the same order
