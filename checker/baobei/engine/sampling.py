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
from dataclasses import dataclass
from itertools import repeat
from operator import sub
from typing import Any

from ..language import syntax as s
from . import codegen
from .codegen import Unit

# A guard as the sampler calls it: (state, *the values of the move's names) -> truthy when it holds.
Guard = Callable[..., Any]


@dataclass(frozen=True)
class WhenProtected:
    """A guard that holds whenever no tableau is protected: the sampler calls it only while one is."""

    guard: Guard
Sampler = Callable[..., "tuple[tuple[str, Any], ...] | None"]


Level = list[s.Expr | Guard | WhenProtected]  # the guards decided once an argument is drawn


def sampler(unit: Unit, names: tuple[str, ...], params: tuple[str, ...], levels: list[Level],
            present: frozenset[str] = frozenset()) -> Sampler:
    """(state, (the values of `names` before any argument is chosen, then the domains of `params`), random)
    -> the arguments drawn, as a move holds them ((name, value) pairs), or None as soon as a guard of
    the level just drawn fails.

    `names` are the move's names without repeats (an argument may repeat an engine name, which it then
    replaces); `levels[i]` are the guards decided once the arguments up to `params[i]` are drawn: a
    condition of the rules (its code is written into the sampler) or a guard of the engine's own.
    `present`: the names that are never none when a guard reads them (the actor, an argument that is not
    optional: its domain holds no none)."""
    local = {name: unit.fresh("v") for name in names}
    frame = codegen.Frame(local, ("st", *local.values()), present=frozenset(local[n] for n in present))
    exprs = codegen.ExprSource(unit, checked=False)
    domains = [unit.fresh("d") for _ in params]
    lines = [f"{''.join(v + ', ' for v in [*local.values(), *domains])}= drawn"]
    for param, domain, level in zip(params, domains, levels, strict=True):
        lines.append(f"{local[param]} = {domain}[int(rnd() * len({domain}))]")
        for guard in level:
            lines += _refuse(unit, exprs, frame, names, guard)
    lines.append(f"return ({''.join(f'({p!r}, {local[p]}), ' for p in params)})")
    name = unit.fresh("s")
    head = f"def {name}(st, drawn, rnd):\n"
    return unit.define("".join(exprs.helpers) + head + "".join(f"    {line}\n" for line in lines), name)


def _refuse(unit: Unit, exprs: codegen.ExprSource, frame: codegen.Frame, names: tuple[str, ...],
            guard: s.Expr | Guard | WhenProtected, refuse: str = "return None") -> list[str]:
    """Lines that run `refuse` when the guard fails (the sampler returns None, the enumeration of
    enumeration.py goes on with the next value); a condition's checked rendering runs when its code raises."""
    values = ", ".join(frame.params[: len(names) + 1])  # the state and the names: what a guard function takes
    if isinstance(guard, WhenProtected):
        return [f"if st.protected and not {unit.const(guard.guard)}({values}):", f"    {refuse}"]
    if callable(guard):
        return [f"if not {unit.const(guard)}({values}):", f"    {refuse}"]
    checked = unit.const(codegen.checked_function(unit, (guard,), names))
    return ["try:", f"    if not {exprs.code(guard, frame)}:", f"        {refuse}", "except _WRONG_KIND:",
            f"    if not {checked}({values}):", f"        {refuse}"]


def refusal(unit: Unit, exprs: codegen.ExprSource, frame: codegen.Frame, names: tuple[str, ...],
            guard: s.Expr | Guard | WhenProtected, refuse: str) -> list[str]:
    """The sampler's lines for one guard, with the statement to run when it fails (for enumeration.py)."""
    return _refuse(unit, exprs, frame, names, guard, refuse)


# How many values an argument of each kind may take, from the state's counts (see Sizes).
_SIZE_OF = {
    "slot": "z.occupied_total",
    "own_slot": "z.occupied[p]",
    "free_slot": "z.free[p]",
    "player": "z.players",
    "held_card": "z.held[p]",
}
ArgKinds = list[tuple[str, int]]  # (kind, 1 if optional) per argument of a move


def weight(unit: Unit, arg_kinds: ArgKinds) -> Callable[[Sizes, int], int]:
    """(sizes, player) -> how many argument tuples the move's domains allow (the product of their sizes,
    an optional argument counting `none` as one more value)."""
    factors = [f"({_SIZE_OF.get(kind, '2')} + {optional})" for kind, optional in arg_kinds]
    name = unit.fresh("w")
    return unit.define(f"def {name}(z, p):\n    return {' * '.join(factors) or '1'}\n", name)


def weigher(unit: Unit, options: list[tuple[int, ArgKinds]], players: int) -> Callable[[Any], list[int]]:
    """(state) -> the weight of each option (a player and the argument kinds of a move), as `weight`
    gives it, for states of `players` seats: the counts are taken once and the products written out.
    Random play weighs the same few lists of options again and again (one per phase and situation)."""
    size = {"slot": "occupied_total", "own_slot": "o{p}", "free_slot": "f{p}", "player": str(players),
            "held_card": "len(h[{p}])"}
    rows = range(players)
    total = " + ".join(f"o{i}" for i in rows) or "0"
    lines = ["t = st.tableaux", "h = st.hands", *(f"f{i} = t[{i}].count(None)" for i in rows),
             *(f"o{i} = len(t[{i}]) - f{i}" for i in rows), f"occupied_total = {total}"]
    weights = [" * ".join(f"({size.get(kind, '2').format(p=p)} + {optional})" for kind, optional in kinds) or "1"
               for p, kinds in options]
    name = unit.fresh("w")
    body = "".join(f"    {line}\n" for line in [*lines, f"return [{', '.join(weights)}]"])
    return unit.define(f"def {name}(st):\n" + body, name)


class Sizes:
    """The sizes of the argument domains in one state, counted once for all the moves weighed in it."""

    __slots__ = ("free", "held", "occupied", "occupied_total", "players")

    def __init__(self, tableaux: list[list[int | None]], hands: list[list[int]], players: int) -> None:
        self.free = list(map(list.count, tableaux, repeat(None)))
        self.occupied = list(map(sub, map(len, tableaux), self.free))
        self.occupied_total = sum(self.occupied)
        self.players = players
        self.held = list(map(len, hands))
