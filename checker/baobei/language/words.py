"""Counts in messages, read as English; a module of its own so that the command line starts quickly."""

from __future__ import annotations


def plural(n: int, word: str) -> str:
    """"1 card", "2 cards"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
