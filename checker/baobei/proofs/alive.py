"""Ids that name one term, or one value, for the whole run: the keys of caches and of fresh answers.

A cache keyed by a Z3 term's id must not outlive the term. Z3 gives a freed term's id to the next term it
makes, and the cache would answer the new term with the old one's entry: a path taken as possible because
another condition was, one fresh answer for two different questions. A Python object's `id` is its address,
reused the same way. Every id taken here keeps its term (or value) alive for the rest of the run, so it
names that one term. Z3 hash-conses terms: a term built again while the first is alive is the first one,
with its id, so a question asked twice still gets one answer.
"""

from __future__ import annotations

from typing import Any

_TERMS: dict[int, Any] = {}
_VALUES: dict[int, Any] = {}


def term_id(term: Any) -> int:
    """The term's id, the term kept alive (a key of a cache or of a fresh answer)."""
    ident: int = term.get_id()
    _TERMS.setdefault(ident, term)
    return ident


def value_id(value: object) -> int:
    """The value's identity, the value kept alive (a key naming one Python value)."""
    ident = id(value)
    _VALUES.setdefault(ident, value)
    return ident
