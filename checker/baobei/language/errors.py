"""Errors a user can meet: every one names its input and its place."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass, field
from pathlib import Path

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
    """Why a move is illegal: the move, the rule it breaks (section and paragraphs) and why. `others`: the
    further reasons, ranked after this one (the engine reports the decisive reason first; `-v`, `why` and
    the referee's JSON show the rest). `passing`: the reason goes away by itself (an ability waits first)."""

    move: str
    rule: str
    cite: Citation
    reason: str
    passing: bool = False
    others: tuple[Rejection, ...] = field(default=(), compare=False)

    def all(self) -> tuple[Rejection, ...]:
        return (self, *self.others)

    def __str__(self) -> str:
        return f"{self.move} is illegal: {self.cite} ({self.rule}): {self.reason}"


class IllegalMove(BaoError):
    def __init__(self, rejection: Rejection) -> None:
        self.rejection = rejection
        super().__init__(str(rejection))


def caret_excerpt(text: str, line: int, column: int) -> str:
    """The source line with a caret under the column, as compilers show it."""
    lines = text.split("\n")  # the lines the parser counts: not splitlines(), which also breaks at U+2028 and \f
    if not 1 <= line <= len(lines):
        return ""
    source = lines[line - 1]
    return f"    {source}\n    {' ' * (column - 1)}^"


UTF8_BOM = b"\xef\xbb\xbf"


def read_source(path: Path, error: type[SourceError]) -> str:
    """A rules or scenario file as text: UTF-8, a leading byte order mark accepted (editors on Windows write
    one), every line end (LF, CR LF or a lone CR) read as LF. A file that is not UTF-8 (Latin-1 as some
    German editors save it, or no text at all) is bad input: `error` names the file, the line and column,
    and the first byte that is not UTF-8."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise error(Pos(str(path), 0, 0), f"cannot read: {err.strerror}") from None
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM):]
    # Every line end is read as one: Windows editors write CR LF, and old Mac ones a lone CR, which the
    # grammar would otherwise read as no line end at all (a comment line would swallow the whole file).
    # No byte of a UTF-8 character is CR or LF, so this cannot split one.
    data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        before = data[:err.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1  # in characters
        raise error(Pos(str(path), line, column), f"not UTF-8 text: byte 0x{data[err.start]:02x} cannot start or "
                    "continue a character here (save the file as UTF-8)") from None


def check_writable(path: Path) -> None:
    """Refuse an output path that cannot be written before the work that fills it starts (a long search
    should not end in "cannot write")."""
    if path.is_dir():
        raise BaoError(f"{path}: cannot write: is a directory")
    if not path.parent.is_dir():
        raise BaoError(f"{path}: cannot write: no directory {path.parent}")


def ignore_interrupts() -> None:
    """In a worker process: Ctrl-C is the parent's to handle (it stops the workers and says so once)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def check_directory(path: Path) -> None:
    """An output directory the user named (pictures, a site): made if missing; one that cannot be made or
    written into is bad input, found before any work is done."""
    if path.exists() and not path.is_dir():
        raise BaoError(f"{path}: exists and is not a directory")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise BaoError(f"{path}: cannot make the directory: {err.strerror}") from None
    if not os.access(path, os.W_OK):
        raise BaoError(f"{path}: the directory cannot be written into")


def write_output(path: Path, text: str) -> None:
    """Write a file the user named (a scenario, a report): a path that cannot be written is bad input."""
    # Written beside it, then renamed: an interrupt never leaves half a file under the user's name.
    part = path.with_name(f".{path.name}.part")
    try:
        part.write_text(text, encoding="utf-8")
        os.replace(part, path)
    except OSError as err:
        raise BaoError(f"{path}: cannot write: {err.strerror}") from None
    finally:
        part.unlink(missing_ok=True)
