"""Where the project's data lives: grammars and the default rules."""

from __future__ import annotations

import os
from pathlib import Path

# The package lives in checker/baobei (this file in language/); grammar/ and rules/ sit at the project root.
PROJECT_ROOT = Path(__file__).resolve().parents[3]


def grammar_dir() -> Path:
    return Path(os.environ.get("BAOBEI_GRAMMAR", PROJECT_ROOT / "grammar"))


def default_rules_dir() -> Path:
    return PROJECT_ROOT / "rules"


def default_scenarios_dir() -> Path:
    return PROJECT_ROOT / "scenarios"


def shown_path(file: str) -> str:
    """A file relative to the project, when it lies in it (reports read the same on every machine)."""
    try:
        return str(Path(file).resolve().relative_to(PROJECT_ROOT))
    except ValueError:
        return file
