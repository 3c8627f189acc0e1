"""Where the project's data lives: grammars, the default rules and the rulebook's outline.

Installed from a wheel, the default rules, the grammars and the rulebook's outline are package data
(`baobei/rules/*.bao`, `baobei/grammar/*`, `baobei/outline/*.toml`; pyproject.toml maps the checkout's
`rules/`, `grammar/` and `docs/src/` there) and are read with `importlib.resources`. In a checkout, and
in an editable install (whose finder does not serve these folders, which have no `__init__.py`), they
are the checkout's own folders. `BAOBEI_GRAMMAR=DIR` names other grammars.
"""

from __future__ import annotations

import atexit
import os
import tempfile
from contextlib import ExitStack
from functools import cache
from importlib import resources
from pathlib import Path

# The package lives in checker/baobei (this file in language/); grammar/ and rules/ sit at the project root
# of a checkout. In an installed wheel this is some folder above site-packages, with no rules in it.
PROJECT_ROOT = Path(__file__).resolve().parents[3]

# The packages the data is installed as (pyproject.toml, [tool.setuptools] package-dir).
RULES_PACKAGE = "baobei.rules"
GRAMMAR_PACKAGE = "baobei.grammar"
OUTLINE_PACKAGE = "baobei.outline"  # docs/src: the rulebook's outline, against which citations are checked

# Files extracted from a zipped install live until the interpreter exits.
_EXTRACTED = ExitStack()
atexit.register(_EXTRACTED.close)


@cache
def package_data(package: str, pattern: str, checkout: Path) -> Path:
    """The folder of a data package: the installed one when it holds `pattern` files, else the checkout's
    (a checkout, or an editable install made before the data were packaged)."""
    try:
        folder = resources.files(package)
    except ModuleNotFoundError:
        return checkout
    suffix = pattern.lstrip("*")
    files = [entry for entry in folder.iterdir() if entry.name.endswith(suffix)]
    if not files:
        return checkout
    # A folder on disk, also when Python reads it as a namespace package (its entries are then paths).
    if isinstance(files[0], Path):
        return files[0].parent
    # A zipped install: the engine reads files by path, so the package's files are copied out once.
    target = Path(_EXTRACTED.enter_context(tempfile.TemporaryDirectory(prefix="baobei-")))
    for entry in folder.iterdir():
        if entry.is_file():
            (target / entry.name).write_bytes(entry.read_bytes())
    return target


def grammar_dir() -> Path:
    given = os.environ.get("BAOBEI_GRAMMAR")
    if given:
        return Path(given)
    return package_data(GRAMMAR_PACKAGE, "*.lark", PROJECT_ROOT / "grammar")


def default_rules_dir() -> Path:
    """The rules of the game as the rulebook and its decisions give them (a variant is another folder)."""
    return package_data(RULES_PACKAGE, "*.bao", PROJECT_ROOT / "rules")


def outline_dir() -> Path:
    """The rulebook's outline and FAQ data (the checkout's docs/src): every citation is checked against it."""
    return package_data(OUTLINE_PACKAGE, "*.toml", PROJECT_ROOT / "docs" / "src")


def default_scenarios_dir() -> Path:
    """The checkout's scenarios (they are the project's tests and do not ship with the package)."""
    return PROJECT_ROOT / "scenarios"


def shown_path(file: str) -> str:
    """A file relative to the project, when it lies in it (reports read the same on every machine)."""
    try:
        return str(Path(file).resolve().relative_to(PROJECT_ROOT))
    except ValueError:
        return file
