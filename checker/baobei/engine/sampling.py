"""Generated code for random play: one argument sampler and one domain-size product per move, made at load.

A random move is chosen by rejection sampling (legality.py): the arguments of a move are drawn one
at a time, each uniformly from its domain, and the draw is refused as soon as a guard that reads only
the arguments drawn so far fails (the rest is not drawn: a rejected draw is thrown away whole, so an
accepted draw stays uniform). This runs for every random move, often several times, so each move gets
a function written for it: the values are locals and the guards are called with them directly, where
a general loop would bind every value in a dictionary of names and walk a list of levels.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .codegen import Unit

# A guard as the sampler calls it: (state, *the values of the move's names) -> truthy when it holds.
Guard = Callable[..., Any]
Sampler = Callable[..., "list[Any] | None"]


def sampler(unit: Unit, names: tuple[str, ...], params: tuple[str, ...], levels: list[list[Guard]]) -> Sampler:
    """(state, *the values of `names` before any argument is chosen, *the domains of `params`, random)
    -> the values drawn for `params`, or None as soon as a guard of the level just drawn fails.

    `names` are the move's names without repeats (an argument may repeat an engine name, which it then
    replaces); `levels[i]` are the guards decided once the arguments up to `params[i]` are drawn."""
    local = {name: unit.fresh("v") for name in names}
    values = ", ".join(local.values())
    domains = [unit.fresh("d") for _ in params]
    lines = []
    for param, domain, level in zip(params, domains, levels, strict=True):
        lines.append(f"{local[param]} = {domain}[int(rnd() * len({domain}))]")
        for guard in level:
            lines += [f"if not {unit.const(guard)}(st, {values}):", "    return None"]
    lines.append(f"return [{''.join(local[p] + ', ' for p in params)}]")
    name = unit.fresh("s")
    head = f"def {name}(st, {''.join(v + ', ' for v in local.values())}{''.join(d + ', ' for d in domains)}rnd):\n"
    return unit.define(head + "".join(f"    {line}\n" for line in lines), name)


# How many values an argument of each kind may take, from the state's counts (see Sizes).
_SIZE_OF = {
    "slot": "z.occupied_total",
    "own_slot": "z.occupied[p]",
    "free_slot": "z.free[p]",
    "player": "z.players",
    "held_card": "z.held[p]",
}


def weight(unit: Unit, arg_kinds: list[tuple[str, int]]) -> Callable[[Sizes, int], int]:
    """(sizes, player) -> how many argument tuples the move's domains allow (the product of their sizes,
    an optional argument counting `none` as one more value)."""
    factors = [f"({_SIZE_OF.get(kind, '2')} + {optional})" for kind, optional in arg_kinds]
    name = unit.fresh("w")
    return unit.define(f"def {name}(z, p):\n    return {' * '.join(factors) or '1'}\n", name)


class Sizes:
    """The sizes of the argument domains in one state, counted once for all the moves weighed in it."""

    __slots__ = ("free", "held", "occupied", "occupied_total", "players")

    def __init__(self, tableaux: list[list[int | None]], hands: list[list[int]], players: int) -> None:
        self.free = [row.count(None) for row in tableaux]
        self.occupied = [len(row) - free for row, free in zip(tableaux, self.free, strict=True)]
        self.occupied_total = sum(self.occupied)
        self.players = players
        self.held = [len(hand) for hand in hands]
