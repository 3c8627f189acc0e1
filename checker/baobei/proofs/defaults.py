"""The defaults of `baobei verify`, in a module of their own: the command line reads them for its options and
their help without importing Z3 (proofs/verify.py does), and verify reads the same.

Chosen so that a default run (every property, every allowed player count) stays within 120 s of CPU on the
project's two-core machine (README); deeper work is behind the options."""

from __future__ import annotations

DEFAULT_DEPTH = 12  # moves after each deal the engine's search follows at most
DEFAULT_DEALS = 1  # seeded deals the engine's search starts from
DEFAULT_STATES = 2_000  # per player count: the search reports the deepest depth it judged completely
DEFAULT_TABLE_DEPTH = 3  # moves the search follows from each scenario table (0: none)
BMC_WORK = 6  # the default bound of bounded model checking is BMC_WORK // players moves (at least 1)


def default_bmc_depth(players: int) -> int:
    """Each step of the relation grows with the players (their moves, their slots): fewer moves for more."""
    return max(1, BMC_WORK // players)
