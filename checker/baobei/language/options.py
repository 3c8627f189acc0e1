"""Argument types the commands share (argparse reports what does not fit)."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number no smaller than `minimum` (a count, a depth, a seed)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is less than {minimum}")
        return value

    return parse


def named(text: str) -> str:
    """An argparse type: a file, directory or name the user gives (an empty one names nothing, and would
    otherwise be passed over as if the option were not given, or taken for the current directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty value names nothing")
    return text
