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

from ..language import syntax as s
from ..language.walk import free_names, walk_expr
from . import codegen
from .codegen import Unit
from .move import Move, made_move
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
    split = [_hoisted(level, params, i) for i, level in enumerate(levels)]
    kept = _kept_parts([rest for _, rest in split], params)
    known = {id(node): unit.fresh("p") for nodes in kept for node in nodes}
    inner = frame.knowing(known)
    lines = [f"{''.join(v + ', ' for v in [*local.values(), *domains])}= drawn"]
    # Each argument's (name, value) pairs made once, not once per move: a state may have thousands of legal
    # moves, and the fewer objects each one allocates, the less the garbage collector has to visit. A
    # value a guard of its own refuses is left out here, once, rather than once per choice before it.
    for i, param in enumerate(params):
        own = [known[id(node)] for node in kept[i]]
        lines += _pairs(unit, exprs, frame, names, (param, local[param], domains[i], pairs[param]), split[i][0],
                        list(zip(kept[i], own, strict=True)))
    indent = ""
    for i, param in enumerate(params):
        row = "".join(f", {v}" for v in [local[param], *(known[id(node)] for node in kept[i])])
        lines.append(f"{indent}for {pairs[param]}{row} in {pairs[param]}s:")
        indent += "    "
        for guard in split[i][1]:
            lines += [indent + line for line in refusal(unit, exprs, inner, names, guard, "continue")]
    args = "".join(f"{pairs[p]}, " for p in params)
    # The move made in one call (move.py's `made_move`): a state may have thousands of legal moves.
    lines.append(f"{indent}yield {unit.const(made_move)}({unit.const(Move)}, (player, {name!r}, ({args})))")
    fn = unit.fresh("e")
    head = f"def {fn}(st, drawn, player):\n"
    return unit.define("".join(exprs.helpers) + head + "".join(f"    {line}\n" for line in lines), fn)


def _conjuncts(guard: s.Expr) -> list[s.Expr]:
    """`a and b and ...` as its parts, in order: each is a guard of its own (expressions are total and
    free of effects, and a part is decided only when those before it held, as `and` decides it)."""
    if isinstance(guard, s.Binary) and guard.op == "and":
        return [*_conjuncts(guard.left), *_conjuncts(guard.right)]
    return [guard]


def _hoisted(level: Level, params: tuple[str, ...], i: int) -> tuple[Level, Level]:
    """The guards of argument `i` that read no argument chosen before it, from the first of the level
    on (so each is still decided only where the guards before it held), and the rest of the level."""
    if i == 0:
        return [], level  # the first argument's loop is the outermost: nothing to gain
    parts: Level = []
    for guard in level:
        parts += _conjuncts(guard) if isinstance(guard, s.Expr) else [guard]
    earlier = set(params[:i])
    cut = 0
    for part in parts:
        if not isinstance(part, s.Expr) or free_names(part) & earlier:
            break
        cut += 1
    return parts[:cut], parts[cut:] if cut else level


class Undecided:
    """A guard part worked out before its loop whose code failed there (a value of the wrong kind): the part
    is decided where the loop asks for it, by the guard's checked rendering (`bool` of this raises, as the
    part's own code would have raised there)."""

    __slots__ = ()

    def __bool__(self) -> bool:
        raise TypeError("decided by the guard's checked rendering")


UNDECIDED = Undecided()


def _pairs(unit: Unit, exprs: codegen.ExprSource, frame: codegen.Frame, names: tuple[str, ...],
           arg: tuple[str, str, str, str], alone: Level, parts: list[tuple[s.Expr, str]]) -> list[str]:
    """The lines that make the rows an argument's loop runs over: its (name, value) pair, its value and the
    value of each guard part of `parts` (reading this argument and no other), for every value of its
    domain that the guards `alone` (reading no earlier argument) accept. `arg`: the argument's name, its
    local, its domain and the name of its rows."""
    param, local, domain, out = arg
    if not alone and not parts:
        return [f"{out}s = [(({param!r}, v), v) for v in {domain}]"]
    lines = [f"{out}s = []", f"for {local} in {domain}:"]
    for guard in alone:
        lines += ["    " + line for line in refusal(unit, exprs, frame, names, guard, "continue")]
    for node, value in parts:
        # Worked out for every value, also where the loop would not have asked: expressions are total and
        # change nothing, and a failure is left to the place the loop asks (UNDECIDED).
        lines += ["    try:", f"        {value} = {exprs.code(node, frame)}", "    except Exception:",
                  f"        {value} = {unit.const(UNDECIDED)}"]
    row = "".join(f", {value}" for _, value in parts)
    return [*lines, f"    {out}s.append((({param!r}, {local}), {local}{row}))"]


def _kept_parts(levels: list[Level], params: tuple[str, ...]) -> list[list[s.Expr]]:
    """By argument, the parts of the guards worth working out once per value of it: a part in a condition's
    place (the guard itself, an operand of `and`, `or`, `not`) that reads that argument and no other and
    calls or indexes something, in a guard decided in a deeper loop (or in the argument's own, when a loop
    runs outside it)."""
    out: list[list[s.Expr]] = [[] for _ in params]

    def walk(node: s.Expr, level: int) -> None:
        read = [i for i, p in enumerate(params) if p in free_names(node)]
        if len(read) == 1 and (read[0] < level or read[0] > 0) and any(map(codegen.costly, walk_expr(node))):
            out[read[0]].append(node)
        elif isinstance(node, s.Binary) and node.op in ("and", "or"):
            walk(node.left, level)
            walk(node.right, level)
        elif isinstance(node, s.Unary) and node.op == "not":
            walk(node.operand, level)

    for level, guards in enumerate(levels):
        for guard in guards:
            if isinstance(guard, s.Expr):
                walk(guard, level)
    return out
