"""Errors a user can meet: every one names its input and its place."""

from __future__ import annotations

from dataclasses import dataclass

from .source import Citation, Pos


class BaoError(ValueError):
    """Base of all user-facing errors (bad files, bad moves, bad commands)."""


class SourceError(BaoError):
    """A malformed rules or scenario file: names file, line, column and what was expected."""

    def __init__(self, pos: Pos, message: str, excerpt: str = "") -> None:
        self.pos = pos
        self.message = message
        self.excerpt = excerpt
        text = f"{pos}: {message}"
        if excerpt:
            text += "\n" + excerpt
        super().__init__(text)


class RulesError(SourceError):
    """The rules files are malformed or inconsistent."""


class ScenarioError(SourceError):
    """A scenario file is malformed or names something that does not exist."""


class EngineError(BaoError):
    """The rules asked the engine for something impossible (a bug in the rules, not in a move)."""


@dataclass(frozen=True)
class Rejection:
    """Why a move is illegal: the move, the rule it breaks (section and paragraphs) and why."""

    move: str
    rule: str
    cite: Citation
    reason: str

    def __str__(self) -> str:
        return f"{self.move} is illegal: {self.cite} ({self.rule}): {self.reason}"


class IllegalMove(BaoError):
    def __init__(self, rejection: Rejection) -> None:
        self.rejection = rejection
        super().__init__(str(rejection))


def caret_excerpt(text: str, line: int, column: int) -> str:
    """The source line with a caret under the column, as compilers show it."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    source = lines[line - 1]
    return f"    {source}\n    {' ' * (column - 1)}^"
