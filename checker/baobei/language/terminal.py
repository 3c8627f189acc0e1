"""Terminal output: colours, tables and progress bars on a terminal; plain text everywhere else.

Every command prints through `emit`, so that a pipe, a file or a CI log gets exactly the
plain text (no escape codes, no wrapping), while a person at a terminal gets colours and, on
runs longer than about a second, a progress bar that disappears when the run is done. `rich`
decides what the terminal can do and respects NO_COLOR. Text is never read as rich markup:
a citation's square brackets are part of the rules' words.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # rich is imported only when a terminal is there to draw on: a start-up saves ~40 ms
    from rich.console import Console

# Styles by meaning, so that every command colours the same outcome the same way.
STYLES = {"pass": "green", "fail": "bold red", "error": "bold red", "warn": "yellow", "head": "bold",
          "dim": "dim"}


@cache
def _console(stderr: bool) -> Console:
    from rich.console import Console

    # No fixed file: rich looks up sys.stdout / sys.stderr at each print, so redirected streams (pytest's
    # capture, `contextlib.redirect_stdout`) get the text.
    return Console(stderr=stderr, highlight=False, emoji=False, markup=False)


def _maybe_terminal(stderr: bool) -> bool:
    """False when the stream is surely no terminal (a pipe, a file, a CI log): then rich is not needed.
    Otherwise rich decides (it honours FORCE_COLOR, TTY_COMPATIBLE and the like)."""
    stream = sys.stderr if stderr else sys.stdout
    forced = any(os.environ.get(name) for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"))
    isatty = getattr(stream, "isatty", None)
    return forced or (callable(isatty) and bool(isatty())) or not hasattr(stream, "fileno")


def _is_terminal(stderr: bool) -> bool:
    return _maybe_terminal(stderr) and _console(stderr).is_terminal


def emit(text: str = "", style: str | None = None, err: bool = False) -> None:
    """Print one line as it is; `style` (a key of STYLES) colours it on a terminal only."""
    # Text from input files can hold what no output encodes (a lone surrogate from JSON): shown escaped.
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if not _is_terminal(err):
        print(text, file=sys.stderr if err else sys.stdout, flush=True)
        return
    _console(err).print(text, style=STYLES.get(style or ""), soft_wrap=True)


def is_terminal() -> bool:
    return _is_terminal(False)


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Rows under a header: a drawn table on a terminal, aligned plain columns elsewhere."""
    if _is_terminal(False):
        from rich.table import Table

        console = _console(False)
        drawn = Table(*header, header_style=STYLES["head"])
        for row in rows:
            drawn.add_row(*row)
        console.print(drawn)
        return
    everything = [tuple(header), *map(tuple, rows)]
    widths = [max(len(r[i]) for r in everything) for i in range(len(header) - 1)]
    for row in everything:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)) + "  " + row[-1])


# A run shorter than this shows no progress bar: it would only flicker.
PROGRESS_DELAY = 1.0


@contextmanager
def progress(description: str, total: int, delay: float = PROGRESS_DELAY) -> Iterator[Callable[[int], None]]:
    """A progress bar over `total` steps on a terminal once the run has taken `delay` seconds, nothing
    elsewhere; yields `advance(steps)`. The bar goes away when the run ends, so that only the results stay."""
    run = Run(description, total)
    try:
        if not _is_terminal(True):
            yield run.advance
        else:
            with _bar(run, delay) as advance:
                yield advance
    except KeyboardInterrupt:
        global LAST_INTERRUPTED  # what `interrupted` reports after Ctrl-C cut this run short
        LAST_INTERRUPTED = run
        raise


@dataclass
class Run:
    """How far a run with a progress bar came: after Ctrl-C, the command says `N of M done`."""

    description: str
    total: int
    done: int = 0

    def advance(self, steps: int) -> None:
        self.done += steps

    def __str__(self) -> str:
        return f"{self.done:,} of {self.total:,} {self.description}"


LAST_INTERRUPTED: Run | None = None
# Set by a command that built large Z3 terms in this process (`verify --carry`, `--certify`): Z3 takes minutes
# to free them at exit (Z3_del_context), after everything is written, so the command leaves at once.
LEAVE_AT_ONCE = False


@contextmanager
def _bar(run: Run, delay: float) -> Iterator[Callable[[int], None]]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = _console(True)
    description, total = run.description, run.total
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    bar = Progress(*columns, console=console, transient=True)
    task = bar.add_task(description, total=total)
    began = time.monotonic()
    shown = False

    def advance(steps: int) -> None:
        nonlocal shown
        run.advance(steps)
        bar.advance(task, steps)
        if not shown and time.monotonic() - began >= delay:
            bar.start()
            shown = True

    try:
        yield advance
    finally:
        if shown:
            bar.stop()
