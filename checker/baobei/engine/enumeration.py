"""Generated code for listing the legal moves of one kind: one function per move, made at load.

Listing is the sampler's work (sampling.py) done for every value instead of one drawn at random: the
arguments are chosen one at a time, in the order of their domains, and a guard is decided as soon as the
arguments it reads are chosen, so a failing guard cuts off every choice that would follow it. The guards
are the sampler's own (a condition of the rules written into the code, or a guard of the engine's), so
listing and sampling accept the same moves; the values are locals and the loops are nested loops, where a
general walk would bind every value in a dictionary of names and recurse once per argument.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from . import codegen
from .codegen import Unit
from .move import Move, new_move, set_args, set_name, set_player
from .sampling import Level, refusal

# (state, (the values of the move's names before any argument is chosen, then the domains of its
# arguments), player) -> the legal moves of that kind, in the order the domains list the values.
Enumerator = Callable[[Any, tuple[Any, ...], int], Iterator[Move]]


def enumerator(unit: Unit, name: str, names: tuple[str, ...], params: tuple[str, ...],
               levels: list[Level], present: frozenset[str] = frozenset()) -> Enumerator:
    """The enumerator of the move `name`: `names` are its names without repeats, `levels[i]` the guards
    decided once the arguments up to `params[i]` are chosen, `present` the names never none when a guard
    reads them (as `sampling.sampler` takes them)."""
    local = {n: unit.fresh("v") for n in names}
    frame = codegen.Frame(local, ("st", *local.values()), present=frozenset(local[n] for n in present))
    exprs = codegen.ExprSource(unit, checked=False)
    domains = [unit.fresh("d") for _ in params]
    pairs = {p: unit.fresh("q") for p in params}
    lines = [f"{''.join(v + ', ' for v in [*local.values(), *domains])}= drawn"]
    # Each argument's (name, value) pairs made once, not once per move: a state may have thousands of legal
    # moves, and the fewer objects each one allocates, the less the garbage collector has to visit.
    lines += [f"{pairs[p]}s = [({p!r}, v) for v in {d}]" for p, d in zip(params, domains, strict=True)]
    indent = ""
    for param, level in zip(params, levels, strict=True):
        lines += [f"{indent}for {pairs[param]} in {pairs[param]}s:", f"{indent}    {local[param]} = {pairs[param]}[1]"]
        indent += "    "
        for guard in level:
            lines += [indent + line for line in refusal(unit, exprs, frame, names, guard, "continue")]
    args = "".join(f"{pairs[p]}, " for p in params)
    # The move made through its slots (move.py's `new_move`): a state may have thousands of legal moves.
    made = unit.fresh("m")
    lines += [f"{indent}{made} = {unit.const(new_move)}({unit.const(Move)})",
              f"{indent}{unit.const(set_player)}({made}, player)", f"{indent}{unit.const(set_name)}({made}, {name!r})",
              f"{indent}{unit.const(set_args)}({made}, ({args}))", f"{indent}yield {made}"]
    fn = unit.fresh("e")
    head = f"def {fn}(st, drawn, player):\n"
    return unit.define("".join(exprs.helpers) + head + "".join(f"    {line}\n" for line in lines), fn)
