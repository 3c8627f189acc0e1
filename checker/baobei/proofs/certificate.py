"""Induction's results kept beside the rules they are for: `verify --certify` writes them, every verify reads them.

Induction over every move of the rules takes minutes per player count, beyond the budget of a default
`verify` (and of the docs it writes). What it proved is kept in `induction.json` in the rules directory,
under a key: a digest of the rules' files, the grammar and the code that gives them their meaning and proves
them: every module of the package that induction runs, and the loader that reads the rules for it (the
import closure of proofs/induction.py and language/load.py: the language, the engine, the symbolic engine
and its store). A default run takes a count's results from there
only when the key is the current one; any edit of the rules or of that code makes the record stale, and the
run says so instead of using it (run `baobei verify --certify` again). So a result read from the file is one
this code proved for these rules, as the same run with `--induction` would. An edit of code induction does
not run (the bounded model checker, the reports, verify's own lines) leaves the record current.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from ..language.errors import BaoError
from ..language.output import write_output
from ..language.paths import grammar_dir
from ..language.words import plural
from .induction import InductionReport

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

FILE = "induction.json"
FORMAT = 1
SEAL = "seal"  # a count's digest of what induction asked Z3 (carry.py)
CARRIED = "carried_from"  # the keys a record was carried from, oldest first (carry.py)
# What a proof depends on, besides the rules and the grammar: the modules these run, and what they import:
# induction, and the loader that reads the rules into what induction is given (a parser's edit changes meaning).
ROOTS = ("proofs/induction.py", "language/load.py")
# Modules in that closure that change no proof: how Ctrl-C stops a run.
NO_MEANING = frozenset({"proofs/interrupts.py"})
PACKAGE = Path(__file__).resolve().parents[1]


def certificate_path(rules_dir: Path) -> Path:
    return rules_dir / FILE


def key(rules_dir: Path) -> str:
    """The digest of the rules' files and the code of their meaning, paths relative (any checkout agrees)."""
    digest = hashlib.sha256(f"format {FORMAT}".encode())
    _rules(digest, rules_dir)
    for name in meaning():
        digest.update(b"\0" + name.encode() + b"\0" + (PACKAGE / name).read_bytes())
    _grammar(digest)
    return digest.hexdigest()


def rules_digest(rules_dir: Path) -> str:
    """The digest of the rules' files and the grammar alone (a seal's: carry.py)."""
    digest = hashlib.sha256()
    _rules(digest, rules_dir)
    _grammar(digest)
    return digest.hexdigest()


def _rules(digest: Any, rules_dir: Path) -> None:
    for f in sorted(rules_dir.glob("*.bao")):
        digest.update(b"\0rules/" + f.name.encode() + b"\0" + f.read_bytes())


def _grammar(digest: Any) -> None:
    for f in sorted(grammar_dir().glob("*")):
        if f.is_file():
            digest.update(b"\0grammar/" + f.name.encode() + b"\0" + f.read_bytes())


def meaning() -> list[str]:
    """The package's modules a proof runs, as paths relative to the package: those the ROOTS import, at any
    depth and wherever in a module the import stands (but for the type checker's own), with the packages'
    `__init__.py` that importing them runs; NO_MEANING left out."""
    seen: set[str] = set()
    todo = list(ROOTS)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += _imported(name)
    return sorted(seen - NO_MEANING)


def _imported(name: str) -> list[str]:
    """The package's modules (and their packages' `__init__.py`) that module `name` imports."""
    here = Path(name).parent.parts
    out: list[str] = []
    for node in _run_at_import_or_call(ast.parse((PACKAGE / name).read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            dotted = tuple(node.module.split(".")) if node.module else ()
            if node.level:
                parts = (*here[:len(here) - (node.level - 1)], *dotted)
            elif dotted[:1] == (PACKAGE.name,):
                parts = dotted[1:]
            else:
                continue
            out += _module(parts) + [m for alias in node.names for m in _module((*parts, alias.name))]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE.name:
                    out += _module(tuple(alias.name.split(".")[1:]))
    return out


def _run_at_import_or_call(tree: ast.AST) -> list[ast.AST]:
    """Every node of the module but what only a type checker reads (`if TYPE_CHECKING:`): an import there never
    runs, so the package's `__init__.py`, which names the library's classes for the type checker and imports them
    on first use, does not put the library (game.py) into what a proof runs."""
    out: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, ast.If) and _type_checking(node.test):
            todo += node.orelse  # the `else` of such an `if` does run
            continue
        todo += ast.iter_child_nodes(node)
    return out


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _module(parts: tuple[str, ...]) -> list[str]:
    """The files importing the module `parts` (relative to the package) runs: the module, or the package's
    `__init__.py`, and the `__init__.py` of each package above it; nothing when there is no such module."""
    found = [f for f in ("/".join(parts) + ".py", "/".join((*parts, "__init__.py"))) if (PACKAGE / f).is_file()]
    if not found:
        return []
    return found + [f for i in range(len(parts)) if (PACKAGE / (f := "/".join((*parts[:i], "__init__.py")))).is_file()]


def _read(rules_dir: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(certificate_path(rules_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None  # none kept, or not a record this code can read: induction was not run for these rules
    return data if isinstance(data, dict) and data.get("format") == FORMAT else None


@dataclasses.dataclass
class Kept:
    """What the record holds for one rules directory: the counts proved under the current key, and the
    counts whose record is stale (made for other rules or other code)."""

    reports: dict[int, InductionReport]
    stale: list[int]
    unreadable: bool = False  # a record is there that this code cannot read (not JSON, another format)
    carried: int = 0  # edits of the code the current record was carried over (carry.py)


def kept(rules_dir: Path) -> Kept:
    data = _read(rules_dir)
    if data is None:
        return Kept({}, [], unreadable=certificate_path(rules_dir).exists())
    counts = {int(n): entry for n, entry in data.get("counts", {}).items()}
    if data.get("key") != key(rules_dir):
        return Kept({}, sorted(counts))
    return Kept({n: _report(entry) for n, entry in counts.items()}, [], carried=len(data.get(CARRIED, [])))


def _report(entry: dict[str, Any]) -> InductionReport:
    return InductionReport(inductive=set(entry["inductive"]), dropped=dict(entry["dropped"]),
                           ctis={k: list(v) for k, v in entry["ctis"].items()}, lemmas=list(entry["lemmas"]),
                           facts=list(entry.get("facts", [])), bounds=str(entry["bounds"]),
                           seconds=float(entry["seconds"]), kept=True)


def record(rules_dir: Path, reports: dict[int, InductionReport], current: str,
           seals: dict[int, dict[str, Any]] | None = None) -> Path:
    """Keep these counts' results under `current`, the key taken when the run began (an edit during the run
    must not pass for what was proved), with those of other counts kept under it before. Two certifications
    run side by side (one count per core) and may end together: the read, merge and write happen under a
    lock on the rules directory, so neither count's entry is lost."""
    with _locked(rules_dir):
        return _merge_and_write(rules_dir, reports, current, seals or {})


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    """An exclusive lock on the directory (flock on it: no lock file left behind), where the system has one."""
    if fcntl is None:  # no flock (Windows): runs side by side are a POSIX practice
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def _merge_and_write(rules_dir: Path, reports: dict[int, InductionReport], current: str,
                     seals: dict[int, dict[str, Any]]) -> Path:
    data = _read(rules_dir)
    same = data is not None and data.get("key") == current
    counts: dict[str, Any] = data.get("counts", {}) if data is not None and same else {}
    for n, report in sorted(reports.items()):
        counts[str(n)] = {"inductive": sorted(report.inductive), "dropped": dict(sorted(report.dropped.items())),
                          "ctis": dict(sorted(report.ctis.items())), "lemmas": sorted(report.lemmas),
                          "facts": sorted(report.facts), "bounds": report.bounds, "seconds": round(report.seconds, 1)}
    for n, seal in seals.items():
        counts[str(n)][SEAL] = dict(seal)
    carried = data.get(CARRIED, []) if data is not None and same else []
    return _write(rules_dir, current, counts, carried)


def _write(rules_dir: Path, current: str, counts: dict[str, Any], carried: list[str]) -> Path:
    path = certificate_path(rules_dir)
    ordered = dict(sorted(counts.items(), key=lambda item: int(item[0])))
    data: dict[str, Any] = {"format": FORMAT, "key": current, "counts": ordered}
    if carried:
        data[CARRIED] = carried
    write_output(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return path


def counts_text(counts: list[int]) -> str:
    """"2 player counts 3, 4": the counts a line about the record names."""
    return f"{plural(len(counts), 'player count')} {', '.join(map(str, counts))}"


def recorded(rules_dir: Path) -> tuple[str, dict[int, dict[str, Any]], list[str]] | None:
    """The record as it is: its key, each count's entry (with its seal, if any), the keys it was carried from."""
    data = _read(rules_dir)
    if data is None:
        return None
    return (str(data.get("key")), {int(n): entry for n, entry in data.get("counts", {}).items()},
            list(data.get(CARRIED, [])))


def add_seals(rules_dir: Path, seals: dict[int, dict[str, Any]], current: str) -> Path:
    """Seal these counts' entries of a record made under `current` (carry.py); refused if it changed."""
    with _unchanged(rules_dir, current, "nothing sealed") as data:
        counts = data.get("counts", {})
        for n, seal in seals.items():
            counts[str(n)][SEAL] = dict(seal)
        return _write(rules_dir, current, counts, data.get(CARRIED, []))


def carry_to(rules_dir: Path, old: str, new: str, updates: dict[int, dict[str, Any]]) -> Path:
    """The record made under `old`, now under `new`, each count's entry with its `updates` (a new seal, the facts
    assumed, the properties it tried since): carry.py found every question of the record the same, or proved
    again those that changed. With `new` the same as `old` the record stays where it is (properties added)."""
    with _unchanged(rules_dir, old, "not carried") as data:
        counts = data.get("counts", {})
        for n, fields in updates.items():
            counts[str(n)].update(fields)
        carried = data.get(CARRIED, [])
        return _write(rules_dir, new, counts, carried if old == new else [*carried, old])


@contextlib.contextmanager
def _unchanged(rules_dir: Path, expected: str, otherwise: str) -> Iterator[dict[str, Any]]:
    """The record, locked, while it is still the one made under `expected` (the key a run compared against)."""
    with _locked(rules_dir):
        data = _read(rules_dir)
        if data is None or data.get("key") != expected:
            raise BaoError(f"the record {certificate_path(rules_dir)} changed during the run: {otherwise}")
        yield data
