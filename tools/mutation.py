#!/usr/bin/env python3
"""Mutation testing of the engine code: a small AST mutator (issue 11).

    python tools/mutation.py [--modules engine/state.py ...] [--workers N] [--tests all|scenarios]

Each mutant changes one spot of one module: a comparison flipped (`<` to `<=`, `==` to `!=`, `in` to
`not in`, ...), `and`/`or` swapped, a condition negated (`if`, `while`, `x if c else y`, a comprehension's
`if`), an integer +1 or -1, a boolean flipped, a returned value dropped (`return None`), a statement
replaced by `pass`. Not mutated: docstrings, imports, `def`/`class` statements themselves (their bodies
are), annotations and annotation-only declarations, `__slots__`, `if TYPE_CHECKING:` blocks and
`assert_never(...)` (static checks only).

Steps:
1. Coverage per test, collected once (coverage.py, one dynamic context per pytest item; the scenarios are
   pytest items too) and cached in .mutation/ until a module or a test changes. A module- or session-scoped
   fixture (the default engine, compiled once) gets a context of its own while it is made, and every test
   that asks for it is selected for the lines that making it runs (else only the first test to ask would be).
2. Each mutant runs in a forked child process: the mutated function gets the mutated code in place, or
   (for code that runs at import) the package and the tests are imported anew with the mutated module
   compiled from its tree (line numbers kept). Only the tests that execute the mutated lines run (code
   outside any function body: every test), those that killed other mutants of the
   module first, then those that run the most lines of the module per second, stopping at the first
   failure; the child replays the chosen scenarios directly, then runs the other chosen tests with
   pytest. A test that runs past its time limit (10 times its time in step 1, at least 20 s) ends the
   child: the mutant is killed by timeout.
3. The report: the score per module and in total, printed, and in .mutation/report.json with every
   mutant; the survivors in .mutation/survivors.txt. `--classified FILE` names the survivors that
   FILE (tools/mutation_survivors.md) does not classify.

`--resume --rerun-survivors` (after adding tests) runs the survivors again. A survivor that ran every
test of its lines (no budget) keeps the digests of the test files it ran (.mutation/bases.json): while
the package, the rules and the tests' helpers are unchanged, it runs again only against the tests of the
test files changed or added since; the tests it passed before would pass again (tests are deterministic
but for the randomness of a few Hypothesis tests).

A mutant is killed when a selected test fails (or errors, or the child dies), survives when all pass,
and is uncovered when no test executes its line (it survives without being run).
"""

from __future__ import annotations

import argparse
import ast
import copy
import dataclasses
import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Generator, Iterator, Sequence
from pathlib import Path
from types import CodeType, FrameType, FunctionType, ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "checker" / "baobei"
STATE_DIR = ROOT / ".mutation"
DEFAULT_MODULES = (*sorted(f"engine/{p.name}" for p in (PACKAGE / "engine").glob("*.py") if p.name != "__init__.py"),
                   "language/builtins.py", "language/arith.py")
MEMORY_LIMIT = 6 << 30  # bytes of address space per child: a mutant that hoards memory is killed, not the machine
SAMPLE_WHOLE = 50  # --sample takes every mutant of a module with this many or fewer
TIMEOUT_FACTOR, TIMEOUT_MIN = 10.0, 20.0  # a test's time limit in a child: factor x its time in step 1, at least
# How a mutant's tests are chosen, in the bases of survivors: a survivor judged under an earlier way is run
# against all its tests again by --rerun-survivors (2: the users of fixtures are chosen too; 3: a budget leaves
# no scenario out, and step 1 collects the scenarios again; 4: code at import selects every test).
SELECTION = 4
FIXTURE = "fixture:"  # the coverage context of a module- or session-scoped fixture being made: FIXTURE + its name
PYTEST_ARGS = ["-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly", "-o", "addopts=",
               "-p", "baobei.scenarios.pytest_plugin", "-q", "--no-header", "-W", "ignore"]

FLIPS: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}


# ---------------------------------------------------------------- mutants
@dataclasses.dataclass(frozen=True)
class Mutant:
    module: str  # relative to checker/baobei, e.g. "engine/state.py"
    site: int  # index among the module's mutants (stable while the module is unchanged)
    operator: str  # compare, boolop, negate, int, bool, return, pass
    line: int
    end_line: int
    in_function: bool  # inside a function or lambda body (else it runs at import)
    before: str
    after: str
    scope: tuple[int, int] = (0, 0)  # the lines of the body of the outermost function around it

    @property
    def ident(self) -> str:
        return f"{self.module}#{self.site}"

    @property
    def where(self) -> str:
        return f"{self.module}:{self.line}"

    @property
    def change(self) -> str:
        return f"{self.before} -> {self.after}"


Path_ = tuple[tuple[str, int | None], ...]  # from the module node: (field, index in a list field or None)


@dataclasses.dataclass(frozen=True)
class Site:
    path: Path_
    operator: str
    arg: int  # which comparison of a chain, the integer's delta, the comprehension's `if`
    node: ast.AST  # for lines and texts only (from the tree the sites were found in)
    in_function: bool


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _skipped_stmt(stmt: ast.stmt) -> bool:
    """Statements whose replacement by `pass` is no mutation of behaviour worth counting."""
    if isinstance(stmt, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                  | ast.Pass | ast.Global | ast.Nonlocal) or _is_docstring(stmt):
        return True
    if isinstance(stmt, ast.Return) and stmt.value is not None:  # `return None` is its mutant
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and stmt.value.value is Ellipsis:
        return True
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) \
        and stmt.value.func.id == "assert_never"


def _excluded(node: ast.AST) -> bool:
    """Subtrees never mutated: `if TYPE_CHECKING:` blocks, `__slots__`, `assert_never(...)`."""
    if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
        return True
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
        return True
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "assert_never"


def find_sites(tree: ast.Module) -> list[Site]:
    """Every mutation of a module, in a fixed order (a pre-order walk of the tree)."""
    out: list[Site] = []

    def walk(node: ast.AST, path: Path_, in_function: bool) -> None:
        if _excluded(node):
            return
        here = (node, in_function)
        if isinstance(node, ast.Compare):
            for i in range(len(node.ops)):
                out.append(Site(path, "compare", i, *here))
        elif isinstance(node, ast.BoolOp):
            out.append(Site(path, "boolop", 0, *here))
        elif isinstance(node, ast.If | ast.While | ast.IfExp):
            out.append(Site(path, "negate", 0, node.test, in_function))
        elif isinstance(node, ast.comprehension):
            for i, cond in enumerate(node.ifs):
                out.append(Site(path, "negate_if", i, cond, in_function))
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            out.append(Site(path, "bool", 0, *here))
        elif isinstance(node, ast.Constant) and isinstance(node.value, int):
            out.append(Site(path, "int", 1, *here))
            out.append(Site(path, "int", -1, *here))
        elif isinstance(node, ast.Return) and node.value is not None \
                and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            out.append(Site(path, "return", 0, *here))
        if isinstance(node, ast.stmt) and path and path[-1][1] is not None and not _skipped_stmt(node):
            out.append(Site(path, "pass", 0, *here))
        for field, value in ast.iter_fields(node):
            if field in ("annotation", "returns", "type_comment"):
                continue
            inner = in_function or (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
                                    and field == "body")
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        walk(item, (*path, (field, i)), inner)
            elif isinstance(value, ast.AST):
                walk(value, (*path, (field, None)), inner)

    walk(tree, (), False)
    return out


def _node_at(tree: ast.AST, path: Path_) -> ast.AST:
    node = tree
    for field, index in path:
        value = getattr(node, field)
        node = value[index] if index is not None else value
    return node


def apply_site(tree: ast.Module, site: Site) -> ast.Module:
    """A mutated copy of the tree."""
    tree = copy.deepcopy(tree)
    node = _node_at(tree, site.path)
    match site.operator:
        case "compare":
            assert isinstance(node, ast.Compare)
            node.ops[site.arg] = FLIPS[type(node.ops[site.arg])]()
        case "boolop":
            assert isinstance(node, ast.BoolOp)
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        case "negate":
            assert isinstance(node, ast.If | ast.While | ast.IfExp)
            node.test = ast.copy_location(ast.UnaryOp(ast.Not(), node.test), node.test)
        case "negate_if":
            assert isinstance(node, ast.comprehension)
            cond = node.ifs[site.arg]
            node.ifs[site.arg] = ast.copy_location(ast.UnaryOp(ast.Not(), cond), cond)
        case "bool" | "int":
            assert isinstance(node, ast.Constant)
            value = node.value
            assert isinstance(value, int)
            node.value = (not value) if site.operator == "bool" else value + site.arg
        case "return":
            assert isinstance(node, ast.Return)
            node.value = ast.copy_location(ast.Constant(None), node)
        case "pass":
            parent = _node_at(tree, site.path[:-1])
            field, index = site.path[-1]
            assert index is not None
            getattr(parent, field)[index] = ast.copy_location(ast.Pass(), node)
        case _:
            raise ValueError(site.operator)
    return ast.fix_missing_locations(tree)


def _texts(source: str, tree: ast.Module, site: Site) -> tuple[str, str]:
    node = site.node
    text = ast.get_source_segment(source, node) or ast.unparse(node)
    if site.operator == "pass":
        return _short(text.splitlines()[0]), "pass"
    if site.operator == "return":
        return _short(text), "return None"
    if site.operator in ("negate", "negate_if"):
        return _short(text), _short(f"not ({text})")
    mutated = _node_at(apply_site(tree, site), site.path)
    return _short(text), _short(ast.unparse(mutated))


def _bodies(tree: ast.AST) -> list[tuple[int, int]]:
    """The line spans of the bodies of the outermost functions and lambdas (their `def` lines run at import)."""
    out: list[tuple[int, int]] = []
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append((child.body[0].lineno, child.end_lineno or child.lineno))
        elif isinstance(child, ast.Lambda):
            out.append((child.body.lineno, child.body.end_lineno or child.body.lineno))
        else:
            out.extend(_bodies(child))
    return out


def module_mutants(module: str) -> list[Mutant]:
    source = (PACKAGE / module).read_text(encoding="utf-8")
    tree = ast.parse(source)
    bodies = _bodies(tree)
    out = []
    for i, site in enumerate(find_sites(tree)):
        if site.operator == "pass" and isinstance(site.node, ast.AnnAssign) and site.node.value is None:
            continue  # a declaration only (a protocol's or a class's attribute): no behaviour to remove
        before, after = _texts(source, tree, site)
        node = site.node
        line = getattr(node, "lineno", 0)
        end = getattr(node, "end_lineno", None) or line
        scope = next(((a, b) for a, b in bodies if a <= line and end <= b), (line, end))
        out.append(Mutant(module, i, site.operator, line, end, site.in_function, before, after, scope))
    return out


def mutated_code(module: str, site_index: int) -> CodeType:
    path = PACKAGE / module
    tree = ast.parse(path.read_text(encoding="utf-8"))
    site = find_sites(tree)[site_index]
    return compile(apply_site(tree, site), str(path), "exec", dont_inherit=True)


def module_name(module: str) -> str:
    return "baobei." + module.removesuffix(".py").replace("/", ".")


# ---------------------------------------------------------------- step 1: coverage per test
def _digest(files: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for f in files:
        digest.update(str(f.relative_to(ROOT)).encode())
        digest.update(f.read_bytes())
    return digest.hexdigest()[:16]


def _test_files() -> list[Path]:
    """The files that hold test items: tests/test_*.py and the scenarios."""
    return sorted((ROOT / "tests").glob("test_*.py")) + sorted((ROOT / "scenarios").rglob("*.scenario"))


def _shared_digest() -> str:
    """What every test depends on: the package, the rules, the tests' shared helpers."""
    helpers = [f for f in sorted((ROOT / "tests").rglob("*")) if f.is_file() and not f.name.startswith("test_")
               and "__pycache__" not in f.parts]
    return _digest([*sorted(PACKAGE.rglob("*.py")), *sorted((ROOT / "rules").glob("*.bao")), *helpers])


class CollectPlugin:
    """Runs in the coverage process: one coverage context per test item, and each item's time."""

    def __init__(self, cov: Any, shard: int, shards: int) -> None:
        self.cov = cov
        self.shard, self.shards = shard, shards
        self.durations: dict[str, float] = {}
        self.failed: set[str] = set()
        self.uses: dict[str, list[str]] = {}  # test -> the fixtures it asks for, made for it or before it
        self.contexts: list[str] = [""]

    def pytest_collection_modifyitems(self, items: list[Any]) -> None:
        items[:] = [item for i, item in enumerate(items) if i % self.shards == self.shard]

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: Any) -> Generator[None, object, object]:
        _forget_compiled_engines()  # each test compiles the rules itself: compile-time lines count for it
        self.uses[item.nodeid] = sorted(getattr(item, "fixturenames", ()))  # a scenario item asks for none
        self.contexts = [item.nodeid]
        self.cov.switch_context(item.nodeid)
        start = time.perf_counter()
        try:
            return (yield)
        finally:
            self.durations[item.nodeid] = time.perf_counter() - start
            self.contexts = [""]
            self.cov.switch_context("")

    @pytest.hookimpl(wrapper=True)
    def pytest_fixture_setup(self, fixturedef: Any, request: Any) -> Generator[None, object, object]:
        """A fixture made once for many tests (module or session scope, the default engine): what making it
        runs counts for a context of its own, not for the first test that asked for it; every test that
        uses the fixture is then selected with it (Coverage.tests_for)."""
        if fixturedef.scope == "function":
            return (yield)
        self.contexts.append(FIXTURE + fixturedef.argname)
        self.cov.switch_context(self.contexts[-1])
        try:
            return (yield)
        finally:
            self.contexts.pop()
            self.cov.switch_context(self.contexts[-1])

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.failed:
            self.failed.add(report.nodeid)


def _forget_compiled_engines() -> None:
    """Empty the package's caches of compiled engines (dicts of Engine values), so that the coverage of a
    test includes compiling the rules, which it depends on."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("baobei.") or module is None:
            continue
        for value in list(vars(module).values()):
            if isinstance(value, dict) and value and all(type(v).__name__ == "Engine" for v in value.values()):
                value.clear()


def collect_main(out: Path, shard: int, shards: int, modules: list[str], paths: list[str]) -> int:
    """The coverage process of one shard of the tests (run by `collect_coverage`)."""
    import coverage

    files = [str(PACKAGE / m) for m in modules]
    cov = coverage.Coverage(data_file=None, include=files, branch=False, config_file=False)
    plugin = CollectPlugin(cov, shard, shards)
    cov.start()
    rc = pytest.main([*PYTEST_ARGS, "-m", "not slow", *paths], plugins=[plugin])
    cov.stop()
    data = cov.get_data()
    lines: dict[str, dict[str, list[int]]] = {}  # test ("" for imports and collection) -> module -> lines
    for path in files:
        module = str(Path(path).relative_to(PACKAGE))
        for line, contexts in (data.contexts_by_lineno(path) or {}).items():
            for ctx in contexts:
                lines.setdefault(ctx, {}).setdefault(module, []).append(line)
    out.write_text(json.dumps({"rc": int(rc), "durations": plugin.durations, "failed": sorted(plugin.failed),
                               "uses": plugin.uses,
                               "lines": lines}), encoding="utf-8")
    return 0


@dataclasses.dataclass
class Coverage:
    durations: dict[str, float]
    lines: dict[str, dict[str, set[int]]]  # test (or FIXTURE + a fixture's name) -> module -> lines it executes
    uses: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # test -> the fixtures it asks for
    shared: str = ""  # the digest of the package, the rules and the tests' helpers (_shared_digest)
    files: dict[str, str] = dataclasses.field(default_factory=dict)  # test file -> its digest

    def basis(self) -> str:
        """An id of what the tests were (the shared digest and every test file's), kept in bases.json."""
        what = [self.shared, sorted(self.files.items()), SELECTION]
        return hashlib.sha256(json.dumps(what).encode()).hexdigest()[:16]

    def tests_for(self, mutant: Mutant, only: str) -> list[str]:
        """The tests that execute the mutant's lines (every test for code run at import), and the
        tests that use a fixture whose making executes them."""
        span = set(range(mutant.line, mutant.end_line + 1))
        # A line that only runs at import (a closure made then) counts as code at import.
        wide = not mutant.in_function or bool(span & self.lines.get("", {}).get(mutant.module, set())
                                               and not any(span & m.get(mutant.module, set())
                                                           for t, m in self.lines.items() if t))
        running = {ctx for ctx, modules in self.lines.items() if ctx and (lines := modules.get(mutant.module))
                   and (wide or lines & span)}
        fixtures = {ctx.removeprefix(FIXTURE) for ctx in running if ctx.startswith(FIXTURE)}
        # By a fixture's name: a name two modules define selects the users of both (time, never a miss).
        users = {test for test, names in self.uses.items() if fixtures.intersection(names)}
        tests = {ctx for ctx in running if not ctx.startswith(FIXTURE)} | users
        if wide:  # code at import can change what any test sees: a class made unfrozen is seen by a test that
            tests |= set(self.durations)  # only assigns to an instance, and runs no line of the package at all
        out = {t for t in tests if only == "all" or t.startswith("scenarios/")}
        return sorted(out, key=lambda t: (self.durations.get(t, 0.0), t))


def collect_coverage(workers: int, refresh: bool) -> Coverage:
    """The coverage of every test, from the cache where it is current: a change of the package, the rules
    or the tests' helpers collects everything again, a changed or new test file only its own tests."""
    STATE_DIR.mkdir(exist_ok=True)
    cache = STATE_DIR / "coverage.json"
    shared = _shared_digest()
    files = {str(f.relative_to(ROOT)): _digest([f]) for f in _test_files()}
    raw: dict[str, Any] = {"shared": shared, "files": {}, "durations": {}, "lines": {}, "uses": {}}
    if cache.exists() and not refresh:
        old = json.loads(cache.read_text(encoding="utf-8"))
        if old.get("shared") == shared and "uses" in old:  # a cache without fixture contexts is collected anew
            raw = old
    stale = [f for f, h in files.items() if raw["files"].get(f) != h]
    gone = set(raw["files"]) - set(files)
    if stale or gone or not raw["files"]:
        changed = set(stale) | gone
        for key in ("durations", "lines", "uses"):
            raw[key] = {t: v for t, v in raw[key].items() if t and t.split("::")[0] not in changed}
        start = time.time()
        every = len(stale) == len(files)
        print(f"step 1: coverage per test of {'every test file' if every else f'{len(stale)} test file(s)'} "
              f"in {workers} process(es) ...", flush=True)
        parts = [STATE_DIR / f"shard-{i}.json" for i in range(workers)]
        procs = [subprocess.Popen([sys.executable, __file__, "_collect", str(part), str(i), str(workers),
                                   ",".join(DEFAULT_MODULES), *([] if every else stale)],
                                  cwd=ROOT, stdout=subprocess.DEVNULL, preexec_fn=lambda: os.nice(19))
                 for i, part in enumerate(parts)]
        for p in procs:
            p.wait()
        failed: list[str] = []
        for part in parts:
            shard = json.loads(part.read_text(encoding="utf-8"))
            # 0: all passed, 1: some failed (named below). Anything else (an internal error of a plugin) ended
            # the session early: the tests after it would have no coverage and could never kill a mutant.
            if shard["rc"] not in (0, 1):
                sys.exit(f"step 1 stopped early (pytest exit code {shard['rc']}); collect again after fixing it")
            raw["durations"].update(shard["durations"])
            raw["uses"].update(shard["uses"])
            failed += shard["failed"]
            for test, mods in shard["lines"].items():
                into = raw["lines"].setdefault(test, {})
                for m, ls in mods.items():
                    into[m] = sorted(set(into.get(m, [])) | set(ls))
            part.unlink()
        if failed:
            sys.exit("these tests fail without any mutant; fix them first:\n  " + "\n  ".join(failed))
        raw["files"] = files
        cache.write_text(json.dumps(raw), encoding="utf-8")
        print(f"  {len(shard['durations']) if workers == 1 else 'the'} tests in {time.time() - start:.0f} s",
              flush=True)
    return Coverage(raw["durations"], {t: {m: set(ls) for m, ls in mods.items()} for t, mods in raw["lines"].items()},
                    raw["uses"],
                    raw["shared"], raw["files"])


# ---------------------------------------------------------------- step 2: one child process per mutant
class MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports the mutated module from its compiled tree instead of its file."""

    def __init__(self, name: str, path: Path, code: CodeType) -> None:
        self.name, self.path, self.code = name, path, code

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path, loader=self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        exec(self.code, module.__dict__)


class RunPlugin:
    """Runs in a mutant's child: the selected tests fastest first, each with a time limit; notes the
    first failing test in the result file."""

    def __init__(self, order: list[str], limits: dict[str, float], result: Path) -> None:
        self.rank = {t: i for i, t in enumerate(order)}
        self.limits, self.result = limits, result

    def pytest_collection_modifyitems(self, items: list[Any]) -> None:
        items.sort(key=lambda item: self.rank.get(item.nodeid, len(self.rank)))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: Any) -> Generator[None, object, object]:
        def timeout(signum: int, frame: FrameType | None) -> None:
            self.result.write_text(f"timeout {item.nodeid}", encoding="utf-8")
            os.killpg(0, signal.SIGKILL)  # the child and whatever its test started

        signal.signal(signal.SIGALRM, timeout)
        signal.setitimer(signal.ITIMER_REAL, self.limits.get(item.nodeid, TIMEOUT_MIN))
        try:
            return (yield)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.failed and not self.result.exists():
            self.result.write_text(f"killed {report.nodeid}", encoding="utf-8")


def preimport() -> set[str]:
    """Import the package and the test modules once, before any child is forked (each child would spend
    seconds on it); returns the names of the modules a child imports anew for a mutant it cannot patch."""
    import hypothesis  # noqa: F401
    import lark  # noqa: F401

    before = set(sys.modules)
    sys.path.insert(0, str(ROOT / "tests"))  # how pytest imports them (rootdir-relative, "prepend" mode)
    for info in sorted(PACKAGE.rglob("*.py")):
        name = "baobei." + ".".join(info.relative_to(PACKAGE).with_suffix("").parts)
        importlib.import_module(name.removesuffix(".__init__"))
    for path in [ROOT / "tests" / "conftest.py", *sorted((ROOT / "tests").glob("test_*.py"))]:
        importlib.import_module(path.stem)
    ours = []
    for name in set(sys.modules) - before:
        file = getattr(sys.modules[name], "__file__", None) or ""
        if name == "baobei" or name.startswith("baobei.") or file.startswith(str(ROOT / "tests")):
            ours.append(name)
    return set(ours)


def _functions(old: object, new: object) -> Iterator[tuple[FunctionType, object]]:
    """Pairs of an original function and its mutated twin, for a module attribute or a class member."""
    if isinstance(old, FunctionType):
        yield old, new
    elif isinstance(old, staticmethod | classmethod) and isinstance(old.__func__, FunctionType):
        yield old.__func__, getattr(new, "__func__", None)
    elif isinstance(old, property):
        for part in ("fget", "fset", "fdel"):
            if getattr(old, part) is not None:
                yield getattr(old, part), getattr(new, part, None)


def patch_module(module: ModuleType, code: CodeType) -> bool:
    """Give the module's functions and methods the mutated code in place, so that every reference to them
    (other modules, registries) runs the mutant; False when the mutant cannot be applied so."""
    ns: dict[str, Any] = {"__name__": module.__name__, "__file__": module.__file__,
                          "__package__": module.__package__, "__spec__": module.__spec__}
    exec(code, ns)
    pairs: list[tuple[FunctionType, object]] = []
    for name, old in vars(module).items():
        new = ns.get(name)
        if isinstance(old, FunctionType) and old.__module__ == module.__name__:
            pairs.extend(_functions(old, new))
        elif isinstance(old, type) and old.__module__ == module.__name__:
            if not isinstance(new, type):
                return False
            for attr, member in vars(old).items():
                pairs.extend(_functions(member, vars(new).get(attr)))
    for old_fn, new_fn in pairs:
        if not isinstance(new_fn, FunctionType) or len(old_fn.__code__.co_freevars) != len(new_fn.__code__.co_freevars):
            return False
    # A module may keep a function's code object itself (codegen's _STUB, the code every stub starts with):
    # that reference gets the mutated code too, or the mutant would not be run where it matters.
    codes = {id(old_fn.__code__): new_fn.__code__ for old_fn, new_fn in pairs if isinstance(new_fn, FunctionType)}
    for name, value in list(vars(module).items()):
        if isinstance(value, CodeType) and id(value) in codes:
            setattr(module, name, codes[id(value)])
    for old_fn, new_fn in pairs:
        assert isinstance(new_fn, FunctionType)
        old_fn.__code__ = new_fn.__code__
    return True


def _run_scenarios(tests: list[str], limits: dict[str, float], result: Path) -> bool:
    """Replay scenario items directly, as the pytest plugin's items do (without pytest's start-up cost);
    False at the first that fails."""
    from baobei.scenarios.parser import parse_scenario_file
    from baobei.scenarios.runner import engine_for, run_scenario

    for test in tests:
        _alarm(test, limits, result)
        try:
            passed = run_scenario(parse_scenario_file(ROOT / test.split("::")[0]), engine_for(None)).passed
        except Exception:
            passed = False
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if not passed:
            result.write_text(f"killed {test}", encoding="utf-8")
            return False
    return True


def _alarm(test: str, limits: dict[str, float], result: Path) -> None:
    """End the child (and what its test started) once the test runs past its time limit."""

    def timeout(signum: int, frame: FrameType | None) -> None:
        result.write_text(f"timeout {test}", encoding="utf-8")
        os.killpg(0, signal.SIGKILL)

    signal.signal(signal.SIGALRM, timeout)
    signal.setitimer(signal.ITIMER_REAL, limits.get(test, TIMEOUT_MIN))


def _child(mutant: Mutant | None, patch: bool, ours: set[str], tests: list[str], limits: dict[str, float],
           result: Path, basetemp: Path) -> int:
    os.setpgid(0, 0)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    if mutant is not None:
        try:
            code = mutated_code(mutant.module, mutant.site)
        except SyntaxError:
            result.write_text("error the mutant does not compile", encoding="utf-8")
            return 3
        name = module_name(mutant.module)
        if not (patch and patch_module(sys.modules[name], code)):
            for imported in ours:  # import the package and the tests anew, the mutated module from its tree
                sys.modules.pop(imported, None)
            sys.meta_path.insert(0, MutantFinder(name, PACKAGE / mutant.module, code))
    scenarios = [t for t in tests if t.startswith("scenarios/")]
    others = [t for t in tests if not t.startswith("scenarios/")]
    if not _run_scenarios(scenarios, limits, result):
        return 1
    if not others:
        return 0
    from hypothesis import settings

    settings.register_profile("mutation", database=None)  # no failing examples saved from a mutant's run
    settings.load_profile("mutation")
    plugin = RunPlugin(others, limits, result)
    return int(pytest.main([*PYTEST_ARGS, "-x", f"--basetemp={basetemp}", *others], plugins=[plugin]))


@dataclasses.dataclass
class Outcome:
    status: str  # killed, timeout, survived, uncovered, error (counted as killed), not run
    test: str = ""  # the test that killed it
    tests: int = 0  # how many tests were selected
    seconds: float = 0.0
    patched: bool = False  # applied to the imported module in place (else imported anew)
    budget: bool = False  # survived the tests run within the time budget; the others were not run
    # A survivor of every test that runs its lines (no budget, all tests): what those tests were, an id in
    # bases.json. `--rerun-survivors` then runs it only against the tests of files changed or added since.
    basis: str = ""


def _within(tests: list[str], cov: Coverage, budget: float | None) -> list[str]:
    """Every scenario, and the first other tests whose times in step 1 add up to at most `budget` seconds (all
    without a budget). The scenarios are not counted: the child replays them directly, a few milliseconds each
    once the rules are compiled, while their times in step 1 include compiling the rules under coverage (so a
    budget counting them would leave most of them out, and they are what kills most mutants)."""
    if budget is None:
        return tests
    out: list[str] = []
    spent, full = 0.0, False
    for t in tests:
        if t.startswith("scenarios/"):
            out.append(t)
        elif not full:
            spent += cov.durations.get(t, 0.0)
            full = spent > budget and bool(out)
            if not full:
                out.append(t)
    return out


def _file(test: str) -> str:
    return test.split("::")[0]


def run_mutants(mutants: list[Mutant], cov: Coverage, workers: int, only: str, fresh: bool = False,
                budget: float | None = None, journal: Path | None = None,
                passed: dict[str, set[str]] | None = None, first: frozenset[str] = frozenset()) -> dict[str, Outcome]:
    """Run the mutants, `workers` children at a time; each outcome is appended to `journal` as it comes.
    `passed`: by mutant, the test files whose tests it survived before, unchanged since (not run again).
    `first`: test files whose tests are tried before any other (new tests aimed at the survivors)."""
    ours = preimport()
    at_import = cov.lines.get("", {})  # lines run while importing and collecting, outside any test
    basis = cov.basis() if only == "all" else ""
    outcomes: dict[str, Outcome] = {}
    queue: list[tuple[Mutant, list[str]]] = []
    for m in mutants:
        tests = cov.tests_for(m, only)
        earlier = (passed or {}).get(m.ident, set())
        todo = [t for t in tests if _file(t) not in earlier]
        if todo:
            queue.append((m, todo))
        else:  # no test runs its lines, or it survived every one of them already
            outcomes[m.ident] = Outcome("survived" if tests else "uncovered", basis=basis if tests else "")
            _note(journal, m, outcomes[m.ident])
    queue.reverse()
    # Tests that killed a mutant of a module are tried first on the module's next mutants.
    kills: dict[str, dict[str, int]] = {}
    tmp = Path(tempfile.mkdtemp(prefix="baobei-mutation-"))
    running: dict[int, tuple[Mutant, list[str], float, float, Path, bool, bool]] = {}
    done, total, started = 0, len(queue), time.time()
    try:
        while queue or running:
            while queue and len(running) < workers:
                mutant, tests = queue.pop()
                seen = kills.get(mutant.module, {})
                # Then the tests that run the most of the module per second: the likeliest to notice a change.
                ordered = sorted(tests, key=lambda t: (_file(t) not in first, -seen.get(t, 0),
                                                       -len(cov.lines.get(t, {}).get(mutant.module, ()))
                                                       / (cov.durations.get(t, 0.0) + 0.1)))
                chosen = _within(ordered, cov, budget)
                limits = {t: max(TIMEOUT_MIN, TIMEOUT_FACTOR * cov.durations.get(t, 1.0)) for t in chosen}
                tag = f"{mutant.module.replace('/', '_')}-{mutant.site}"
                result, basetemp = tmp / f"{tag}.txt", tmp / f"basetemp-{tag}"
                # In place only when no closure of its outermost function was made at import (those keep
                # the old code); else the package is imported anew.
                patch = not fresh and mutant.in_function and not at_import.get(mutant.module, set()) & set(
                    range(mutant.scope[0], mutant.scope[1] + 1))
                pid = os.fork()
                if pid == 0:
                    code = 3
                    try:
                        code = _child(mutant, patch, ours, chosen, limits, result, basetemp)
                    finally:
                        os._exit(code)
                deadline = time.time() + sum(limits.values()) + 60
                running[pid] = (mutant, chosen, time.time(), deadline, result, patch, len(chosen) < len(tests))
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                now = time.time()
                for child, (_, _, _, deadline, result, _, _) in list(running.items()):
                    if now > deadline:
                        result.write_text("timeout (whole run)", encoding="utf-8")
                        os.killpg(child, signal.SIGKILL)
                time.sleep(0.01)
                continue
            if pid not in running:
                continue
            mutant, tests, begun, _, result, patch, cut = running.pop(pid)
            with_code = os.waitstatus_to_exitcode(status)
            note = result.read_text(encoding="utf-8") if result.exists() else ""
            kind, _, test = note.partition(" ")
            if kind == "timeout":
                outcome = Outcome("timeout", test)
            elif with_code == 0:
                outcome = Outcome("survived", budget=cut, basis="" if cut else basis)
            elif with_code in (1, 2) or kind == "killed":
                outcome = Outcome("killed", test or "(collection)")
                counts = kills.setdefault(mutant.module, {})
                counts[test] = counts.get(test, 0) + 1
            else:
                outcome = Outcome("error", note or f"exit {with_code}")
            outcome.tests, outcome.seconds, outcome.patched = len(tests), round(time.time() - begun, 2), patch
            outcomes[mutant.ident] = outcome
            _note(journal, mutant, outcome)
            shutil.rmtree(tmp / f"basetemp-{mutant.module.replace('/', '_')}-{mutant.site}", ignore_errors=True)
            done += 1
            if done % 50 == 0 or done == total:
                print(f"  {done}/{total} mutants run, {time.time() - started:.0f} s", flush=True)
    finally:
        for child in running:
            os.killpg(child, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
    return outcomes


def _journal_key(m: Mutant) -> str:
    return f"{m.ident} {survivor_key(m)}"


def _note(journal: Path | None, mutant: Mutant, outcome: Outcome) -> None:
    if journal is not None:
        with journal.open("a", encoding="utf-8") as f:
            f.write(json.dumps({"key": _journal_key(mutant), **dataclasses.asdict(outcome)}) + "\n")


def read_journal(journal: Path) -> dict[str, Outcome]:
    out = {}
    if journal.exists():
        for line in journal.read_text(encoding="utf-8").splitlines():
            if line.strip():
                entry = json.loads(line)
                key = entry.pop("key")
                out[key] = Outcome(**entry)
    return out


def read_bases(out: Path) -> dict[str, dict[str, Any]]:
    """The test files (and the shared digest) survivors were run against, by basis id (Outcome.basis)."""
    path = out / "bases.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def write_basis(out: Path, cov: Coverage) -> None:
    bases = read_bases(out)
    bases[cov.basis()] = {"shared": cov.shared, "files": cov.files}
    (out / "bases.json").write_text(json.dumps(bases), encoding="utf-8")


# ---------------------------------------------------------------- step 3: the report
KILLED = ("killed", "timeout", "error")


def score_lines(mutants: list[Mutant], outcomes: dict[str, Outcome],
                equivalent: frozenset[str] = frozenset()) -> list[str]:
    """The table of outcomes per module. `equivalent`: the survivors a classification names equivalent
    (survivor_key); with them, a second score leaves them out, as the usual definition of the mutation
    score does (killed / (mutants - equivalent)): no test can kill a mutant that behaves like the code."""
    rows = []
    modules = sorted({m.module for m in mutants}, key=lambda m: (m.startswith("language"), m))
    width = max(len(m) for m in modules)
    head = f"{'module':<{width}}  mutants  killed  timeout  survived  uncovered  not run   score"
    rows.append(head + ("  equivalent  score without them" if equivalent else ""))
    for module in [*modules, "total"]:
        ms = mutants if module == "total" else [m for m in mutants if m.module == module]
        st = [outcomes[m.ident].status for m in ms]
        counts = [len(ms), st.count("killed") + st.count("error"), st.count("timeout"), st.count("survived"),
                  st.count("uncovered"), st.count("not run")]
        run = counts[0] - counts[5]
        score = f"{100.0 * (counts[1] + counts[2]) / run:5.1f} %" if run else "      -"
        row = (f"{module:<{width}}  {counts[0]:7}  {counts[1]:6}  {counts[2]:7}  {counts[3]:8}  "
               f"{counts[4]:9}  {counts[5]:7}  {score}")
        if equivalent:
            same = sum(1 for m in ms if outcomes[m.ident].status in ("survived", "uncovered")
                       and survivor_key(m) in equivalent)
            judged = run - same
            rest = f"{100.0 * (counts[1] + counts[2]) / judged:5.1f} %" if judged else "      -"
            row += f"  {same:10}  {rest:>18}"
        rows.append(row)
    return rows


def survivor_key(m: Mutant) -> str:
    return f"{m.where} {m.operator}: {m.change}"


def classified_keys(path: Path) -> dict[str, str]:
    """The survivors a classification file names, with their class: table rows
    `| module:line | operator | `before -> after` | class | why |`."""
    keys: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if len(cells) >= 3 and re.fullmatch(r"[a-z_/]+\.py:\d+", cells[0]):
            keys[f"{cells[0]} {cells[1]}: {cells[2].strip('`')}"] = cells[3] if len(cells) > 3 else ""
    return keys


def sample_mutants(mutants: list[Mutant], fraction: float, seed: int) -> list[Mutant]:
    """A seeded sample of each module's mutants (all of a small module: a few mutants say little), shuffled
    with the same seed: the queue runs them in that order, so the mutants judged when a run is stopped are a
    random sample as well."""
    rng = random.Random(seed)
    chosen: list[Mutant] = []
    for module in dict.fromkeys(m.module for m in mutants):
        ms = [m for m in mutants if m.module == module]
        chosen += ms if len(ms) <= SAMPLE_WHOLE else rng.sample(ms, math.ceil(fraction * len(ms)))
    rng.shuffle(chosen)
    return chosen


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "_collect":
        return collect_main(Path(args[1]), int(args[2]), int(args[3]), args[4].split(","), args[5:])
    ap = argparse.ArgumentParser(description="Mutation testing of the engine modules (see the module's docstring).")
    ap.add_argument("--modules", nargs="+", default=list(DEFAULT_MODULES), metavar="MODULE", choices=DEFAULT_MODULES,
                    help="modules under checker/baobei/ (default: engine/*.py, language/builtins.py and arith.py)")
    ap.add_argument("--workers", type=int, default=2, help="child processes at once (default 2)")
    ap.add_argument("--tests", choices=("all", "scenarios"), default="all",
                    help="the tests that may kill a mutant: all (pytest and the scenarios) or the scenarios alone")
    ap.add_argument("--mutants", nargs="+", metavar="MODULE#SITE", help="run only these mutants")
    ap.add_argument("--sample", type=float, metavar="FRACTION",
                    help="run a seeded random sample of each module's mutants (every mutant of a module with "
                    f"{SAMPLE_WHOLE} or fewer), in a seeded random order, so that a run cut short is a sample too")
    ap.add_argument("--seed", type=int, default=0, help="the seed of --sample (default 0)")
    ap.add_argument("--list", action="store_true", help="list the mutants and run nothing")
    ap.add_argument("--fresh", action="store_true",
                    help="import the package anew for every mutant (slower; by default a mutant inside a function "
                    "that does not run at import is applied to the imported function in place)")
    ap.add_argument("--recollect", action="store_true", help="collect the coverage per test again")
    ap.add_argument("--classified", type=Path, metavar="FILE",
                    help="a classification of survivors (tools/mutation_survivors.md): name those it lacks")
    ap.add_argument("--out", type=Path, default=STATE_DIR,
                    help="where report.json, survivors.txt and the journal of outcomes go (default .mutation/)")
    ap.add_argument("--resume", action="store_true",
                    help="keep the outcomes the journal in --out holds for unchanged mutants; run the others")
    ap.add_argument("--rerun-survivors", action="store_true",
                    help="with --resume: run the survivors of the journal again (after adding tests): those "
                    "that survived every test before run only the tests of test files changed or added since")
    ap.add_argument("--report-only", action="store_true",
                    help="with --resume: only report the journal's outcomes (mutants it lacks are `not run`)")
    ap.add_argument("--first", nargs="+", default=[], metavar="TEST_FILE",
                    help="try the tests of these files (tests/test_x.py) before any other: with --budget, tests "
                    "written for the survivors then run within it")
    ap.add_argument("--budget", type=float, metavar="SECONDS",
                    help="run each mutant only against its first tests whose times in step 1 add up to SECONDS "
                    "(a survivor then is one within the budget; default: every selected test)")
    opts = ap.parse_args(args)
    if opts.workers < 1:
        ap.error("--workers must be at least 1")
    modules = [m if m.endswith(".py") else f"{m}.py" for m in opts.modules]
    for m in modules:
        if not (PACKAGE / m).is_file():
            ap.error(f"no module {m} under {PACKAGE.relative_to(ROOT)}")
    mutants = [mu for m in modules for mu in module_mutants(m)]
    if opts.mutants:
        wanted = set(opts.mutants)
        mutants = [m for m in mutants if m.ident in wanted]
    if opts.sample is not None:
        if not 0.0 < opts.sample <= 1.0:
            ap.error("--sample must be a fraction above 0 and at most 1")
        mutants = sample_mutants(mutants, opts.sample, opts.seed)
    if opts.list:
        for m in mutants:
            print(f"{m.ident:28} {m.where:28} {m.operator:9} {m.change}")
        print(f"{len(mutants)} mutants")
        return 0
    start = time.time()
    cov = Coverage({}, {}) if opts.report_only else collect_coverage(opts.workers, opts.recollect)
    opts.out.mkdir(parents=True, exist_ok=True)
    journal = opts.out / "journal.jsonl"
    kept: dict[str, Outcome] = {}
    passed: dict[str, set[str]] = {}
    if opts.resume:
        kept = read_journal(journal)
        if opts.rerun_survivors:  # the survivors among the mutants of this run (--modules, --mutants) run again
            bases = read_bases(opts.out)
            for m in mutants:
                old = kept.get(_journal_key(m))
                base = bases.get(old.basis) if old is not None and old.basis else None
                if base is not None and base["shared"] == cov.shared:  # the tests of unchanged files passed
                    passed[m.ident] = {f for f, digest in base["files"].items() if cov.files.get(f) == digest}
            chosen = {_journal_key(m) for m in mutants}
            kept = {k: o for k, o in kept.items() if k not in chosen or o.status not in ("survived", "uncovered")}
    else:
        journal.unlink(missing_ok=True)
        (opts.out / "bases.json").unlink(missing_ok=True)
    todo = [] if opts.report_only else [m for m in mutants if _journal_key(m) not in kept]
    for m in mutants:
        if opts.report_only and _journal_key(m) not in kept:
            kept[_journal_key(m)] = Outcome("not run")
    if kept:
        journal.write_text("".join(json.dumps({"key": k, **dataclasses.asdict(o)}) + "\n" for k, o in kept.items()
                                   if o.status != "not run"), encoding="utf-8")
    print(f"step 2: {len(todo)} of {len(mutants)} mutants to run, {opts.workers} worker(s), tests: {opts.tests}",
          flush=True)
    if not opts.report_only:
        write_basis(opts.out, cov)
    ran = run_mutants(todo, cov, opts.workers, opts.tests, opts.fresh, opts.budget, journal, passed,
                      frozenset(opts.first))
    outcomes = {m.ident: kept[_journal_key(m)] if _journal_key(m) in kept else ran[m.ident] for m in mutants}
    elapsed = time.time() - start
    known = classified_keys(opts.classified) if opts.classified is not None else {}
    rows = score_lines(mutants, outcomes, frozenset(k for k, kind in known.items() if kind == "equivalent"))
    survivors = [m for m in mutants if outcomes[m.ident].status in ("survived", "uncovered")]
    (opts.out / "report.json").write_text(json.dumps({
        "tests": opts.tests, "seconds": round(elapsed), "scores": rows,
        "mutants": [{**dataclasses.asdict(m), "ident": m.ident, **dataclasses.asdict(outcomes[m.ident])}
                    for m in mutants]}, indent=1), encoding="utf-8")
    (opts.out / "survivors.txt").write_text(
        "".join(f"{survivor_key(m)}  [{outcomes[m.ident].status}"
                f"{' within the budget' if outcomes[m.ident].budget else ''}, {m.ident}]\n" for m in survivors),
        encoding="utf-8")
    print("\n".join(rows))
    errors = [m for m in mutants if outcomes[m.ident].status == "error"]
    for m in errors:
        print(f"error (counted as killed): {survivor_key(m)}: {outcomes[m.ident].test}")
    print(f"{len(survivors)} survivors in {opts.out / 'survivors.txt'}; {elapsed:.0f} s in all")
    if opts.classified is not None:
        missing = [m for m in survivors if survivor_key(m) not in known]
        for m in missing:
            print(f"not classified: {survivor_key(m)}")
        print(f"{len(survivors) - len(missing)} of {len(survivors)} survivors classified in {opts.classified}")
        return 1 if missing else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
