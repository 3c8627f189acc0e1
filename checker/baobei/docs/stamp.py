"""The stamp on docs/invariants.md: a digest of what the page was judged from and of the page itself.

Judging every property at every player count (`baobei verify`) takes minutes of both cores, and most commits
change nothing the page reads. `baobei docs` (and `--check`) judge again only when the stamp differs: an edit
of the rules or their record, of a scenario (the search starts from their tables), of the package's code, the
grammar or the outline, another Z3, or of the page by hand. The stamp is a Markdown comment line, which no
renderer shows.
"""

from __future__ import annotations

import hashlib
import sys
from importlib import metadata
from pathlib import Path

from ..language.paths import grammar_dir, outline_dir

PACKAGE = Path(__file__).resolve().parent.parent
PREFIX = "[//]: # (judged from "
# The package's own files that can change a judgement: code, grammar and outline (not caches or the docs site's
# assets).
CODE_SUFFIXES = (".py", ".lark", ".toml")


def inputs_digest(rules: Path, scenarios: Path) -> str:
    """What the page is judged from: the rules folder (with its record), the scenarios, the package's code,
    the grammar, the outline, Python's and Z3's versions."""
    h = hashlib.sha256(f"{sys.version_info[:2]} z3 {metadata.version('z3-solver')}".encode())
    for root, suffixes in ((rules, None), (scenarios, None), (PACKAGE, CODE_SUFFIXES), (grammar_dir(), None),
                           (outline_dir(), None)):
        for path in _files(root, suffixes):
            h.update(f"\0{root.name}/{path.relative_to(root).as_posix()}\0".encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def _files(root: Path, suffixes: tuple[str, ...] | None) -> list[Path]:
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
                  and (suffixes is None or p.suffix in suffixes))


def _line(body: str, inputs: str) -> str:
    return f"{PREFIX}{hashlib.sha256((inputs + body).encode()).hexdigest()})\n"


def stamped(body: str, inputs: str) -> str:
    """The page with its stamp as the last line."""
    body = judged(body)
    return body + "\n" + _line(body, inputs)


def judged(body: str) -> str:
    """The page as judged, ending with a line end."""
    return body if body.endswith("\n") else body + "\n"


def unstamped(text: str) -> str:
    """The page as judged: without its stamp line and the blank line before it (a page with none as it is)."""
    head, sep, last = text[:-1].rpartition("\n") if text.endswith("\n") else ("", "", "")
    return head if sep and last.startswith(PREFIX) and head.endswith("\n") else text


def still_current(text: str | None, inputs: str) -> bool:
    """Whether the page's text (None: there is none) has a stamp saying it was judged from these inputs, and
    is unedited since."""
    if text is None:
        return False
    body = unstamped(text)
    return body != text and stamped(body, inputs) == text
