"""BAO BEI: the rulebook as executable data, with a checker, scenarios and proofs.

The library (docs/library.md): `baobei.Game.load()` compiles the rules, `game.new_match(players, seed)`
deals a match, and the `MatchState` it gives lists legal moves, makes them and tells the outcome. The
names below are imported on first use, so that the command line starts without compiling anything.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .engine.runtime import Event
    from .game import Game, LegalMoves, MatchState, Move, Outcome
    from .language.errors import BaoError, IllegalMove, Rejection
    from .language.paths import default_rules_dir

# Each public name and the module it lives in.
_PUBLIC = {
    "Game": "game",
    "MatchState": "game",
    "LegalMoves": "game",
    "Outcome": "game",
    "Move": "engine.move",
    "Event": "engine.runtime",
    "Rejection": "language.errors",
    "IllegalMove": "language.errors",
    "BaoError": "language.errors",
    "default_rules_dir": "language.paths",
}

__all__ = [
    "BaoError",
    "Event",
    "Game",
    "IllegalMove",
    "LegalMoves",
    "MatchState",
    "Move",
    "Outcome",
    "Rejection",
    "__version__",
    "default_rules_dir",
]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'baobei' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
