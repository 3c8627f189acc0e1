"""Quoting a log's input in messages: never in full.

A log is written by another program and may hold anything, a claim of ten megabytes included. A
message that quotes it whole is as large as the input (twice, with a caret excerpt) and unreadable;
so every message of the referee quotes at most LIMIT characters of any input and says how long it was.
"""

from __future__ import annotations

import re

LIMIT = 200  # characters of an input quoted at most
MESSAGE_LIMIT = 10 * LIMIT  # a whole message at most: several quoted inputs and the referee's own words
EXCERPT_SIDE = 60  # characters shown on each side of a caret
_LONG_RUN = re.compile(r"[^\s'\";,]{" + str(LIMIT + 1) + ",}")  # a run without spaces, or the quotes around it


def clipped(text: str, limit: int = LIMIT) -> str:
    """The text, or its first `limit` characters and how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def quoted(text: str) -> str:
    """The text quoted as Python quotes it (odd characters escaped), clipped."""
    return repr(clipped(text))


def tamed(message: str) -> str:
    """A message made of lower layers' words (the claim parser's, the notation's) that may quote an
    input whole: each long run without spaces is clipped, and then the whole message."""
    return clipped(_LONG_RUN.sub(lambda m: clipped(m.group()), message), MESSAGE_LIMIT)


def tamed_excerpt(excerpt: str) -> str:
    """A caret excerpt (the source line, then a caret under the column) cut to a window around the caret:
    the line may be a whole claim of any length."""
    lines = excerpt.split("\n")
    if len(lines) != 2 or len(lines[0]) <= 2 * EXCERPT_SIDE + LIMIT:
        return clipped(excerpt, MESSAGE_LIMIT)
    source, caret = lines
    indent = source[:len(source) - len(source.lstrip(" "))]  # the excerpt's own indentation
    source, column = source[len(indent):], caret.find("^") - len(indent)
    start = max(column - EXCERPT_SIDE, 0)
    head = "…" if start > 0 else ""
    tail = "…" if column + EXCERPT_SIDE < len(source) else ""
    window = source[start:column + EXCERPT_SIDE]
    return f"{indent}{head}{window}{tail}\n{indent}{' ' * (len(head) + column - start)}^"
