"""Terminal output: colours, tables and progress bars on a terminal; plain text everywhere else.

Every command prints through `emit`, so that a pipe, a file or a CI log gets exactly the
plain text (no escape codes, no wrapping), while a person at a terminal gets colours and, on
runs longer than about a second, a progress bar that disappears when the run is done. `rich`
decides what the terminal can do and respects NO_COLOR. Text is never read as rich markup:
a citation's square brackets are part of the rules' words.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

# Styles by meaning, so that every command colours the same outcome the same way.
STYLES = {"pass": "green", "fail": "bold red", "error": "bold red", "warn": "yellow", "head": "bold",
          "dim": "dim"}


@cache
def _console(stderr: bool) -> Console:
    # No fixed file: rich looks up sys.stdout / sys.stderr at each print, so redirected streams (pytest's
    # capture, `contextlib.redirect_stdout`) get the text.
    return Console(stderr=stderr, highlight=False, emoji=False, markup=False)


def emit(text: str = "", style: str | None = None, err: bool = False) -> None:
    """Print one line as it is; `style` (a key of STYLES) colours it on a terminal only."""
    console = _console(err)
    # Text from input files can hold what no output encodes (a lone surrogate from JSON): shown escaped.
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if not console.is_terminal:
        print(text, file=sys.stderr if err else sys.stdout, flush=True)
        return
    console.print(text, style=STYLES.get(style or ""), soft_wrap=True)


def is_terminal() -> bool:
    return _console(False).is_terminal


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """Rows under a header: a drawn table on a terminal, aligned plain columns elsewhere."""
    console = _console(False)
    if console.is_terminal:
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
    console = _console(True)
    if not console.is_terminal:
        yield lambda steps: None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    bar = Progress(*columns, console=console, transient=True)
    task = bar.add_task(description, total=total)
    began = time.monotonic()
    shown = False

    def advance(steps: int) -> None:
        nonlocal shown
        bar.advance(task, steps)
        if not shown and time.monotonic() - began >= delay:
            bar.start()
            shown = True

    try:
        yield advance
    finally:
        if shown:
            bar.stop()
