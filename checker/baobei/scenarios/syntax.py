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
class Value:
    """A literal in a scenario: a slot, a name (player, species, phase), an int, a bool or none."""

    kind: str  # slot | name | int | bool | none | list
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
    knows: tuple[tuple[str, tuple[Place, ...], Pos], ...]
    holds: tuple[tuple[str, str, Pos], ...]
    sets: tuple[tuple[str, str | None, Value, Pos], ...]
    among: tuple[tuple[str, ...], Pos] | None = None  # the players of this round, when not all


@dataclass(frozen=True)
class Deal:
    pos: Pos
    seed: int
    players: tuple[str, ...]


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
