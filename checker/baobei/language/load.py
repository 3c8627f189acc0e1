"""Load a rules directory: parse every file, file the declarations, check the whole."""

from __future__ import annotations

from pathlib import Path

from . import syntax as s
from .cache import cached_ruleset
from .check import check_ruleset
from .parser import parse_rules_dir
from .ruleset import Ruleset, check_deck, check_required, file_declarations


def build_ruleset(files: list[s.RulesFile], source: str) -> Ruleset:
    rules = Ruleset(source=source, files=files)
    file_declarations(rules)
    check_required(rules)
    check_deck(rules)
    check_ruleset(rules)
    return rules


def load_ruleset(directory: Path | str) -> Ruleset:
    """The checked rules of a directory, from the cache of compiled rules when they are unchanged."""
    directory = Path(directory)
    return cached_ruleset(directory, lambda: build_ruleset(parse_rules_dir(directory), str(directory)))
