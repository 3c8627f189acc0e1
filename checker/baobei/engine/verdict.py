"""Generated code that says a move is legal, for a move shaped as generation makes it: one function per move.

Checking a move (`Legality.check`) walks layers that exist to explain a refusal: names bound in a dictionary,
a context, each guard asked through `Ctx.holds`, the reasons ranked. A legal move needs none of that. The
verdict function decides, with the sampler's own guards (sampling.py), whether the move's generator would
make this move in this state: every argument in its domain, and every guard of its level holding. A move
the generator makes is legal, so a true verdict lets a checked apply skip the check. False says that a
requirement of the rules (or a protection) refuses the arguments: the move is illegal, whatever else the
check would say first. None says nothing (an argument outside the generator's domains, or not named as
generation names it): the full check decides. A refused move always goes the full way, which gives the
rejection with its rule, paragraph and reason.

The functions read the concrete state only. The prover (proofs/machine.py) never calls them: it judges a
move with `admits` and `judge`, which stay the definition of a legal move.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import codegen
from .codegen import Unit
from .sampling import Level, WhenProtected, refusal

# (state, the values of the move's names before any argument is chosen, the move's arguments) -> True when
# generation would make the move, False when a requirement refuses it, None when it cannot tell (the caller
# checks that there are as many arguments as the move has).
Verdict = Callable[[Any, tuple[Any, ...], tuple[tuple[str, Any], ...]], bool | None]


def in_slots(st: Any, actor: int, value: Any) -> bool:
    """`value` is a slot of the `slot` domain: a card lies there (any player's tableau)."""
    return value.__class__ is tuple and len(value) == 2 and value[0].__class__ is int \
        and 0 <= value[0] < len(st.names) and value[1].__class__ is int and st.card_at(value) is not None


def in_own_slots(st: Any, actor: int, value: Any) -> bool:
    """`value` is one of the actor's occupied slots (the `own_slot` domain)."""
    return in_slots(st, actor, value) and value[0] == actor


def in_free_slots(st: Any, actor: int, value: Any) -> bool:
    """`value` is one of the actor's free slots (the `free_slot` domain)."""
    if not (value.__class__ is tuple and len(value) == 2 and value[0] == actor and value[1].__class__ is int):
        return False
    row = st.tableaux[actor]
    return 0 < value[1] <= len(row) and row[value[1] - 1] is None


def in_players(st: Any, actor: int, value: Any) -> bool:
    return value.__class__ is int and 0 <= value < len(st.names)


def in_hand(st: Any, actor: int, value: Any) -> bool:
    return value.__class__ is int and value in st.hands[actor]


def in_bools(st: Any, actor: int, value: Any) -> bool:
    return value is True or value is False


# Membership in each kind's domain (`Legality.domain`), strict about types as the domains' values are: a
# `True` where a player belongs equals 1 but is no value the generator makes.
IN_DOMAIN: dict[str, Callable[[Any, int, Any], bool]] = {
    "slot": in_slots, "own_slot": in_own_slots, "free_slot": in_free_slots, "player": in_players,
    "held_card": in_hand,
}


def verdict(unit: Unit, names: tuple[str, ...], params: tuple[str, ...], kinds: list[tuple[str, int]],
            levels: list[Level], present: frozenset[str] = frozenset()) -> Verdict:
    """The verdict function of a move: `names` its names without repeats, `kinds` (kind, 1 if optional) per
    argument, `levels[i]` the guards decided once the arguments up to `params[i]` are chosen, `present` the
    names never none when a guard reads them (as `sampling.sampler` takes them: an argument is tested for
    its domain before its guards)."""
    local = {n: unit.fresh("v") for n in names}
    frame = codegen.Frame(local, ("st", *local.values()), present=frozenset(local[n] for n in present))
    exprs = codegen.ExprSource(unit, checked=False)
    given = [unit.fresh("n") for _ in params]
    lines = [f"{''.join(v + ', ' for v in local.values())}= drawn"]
    if params:
        lines.append(f"{''.join(f'({n}, {local[p]}), ' for n, p in zip(given, params, strict=True))}= args")
        lines += [f"if {' or '.join(f'{n} != {p!r}' for n, p in zip(given, params, strict=True))}:",
                  "    return None"]
    actor = local["actor"]
    for param, (kind, optional), level in zip(params, kinds, levels, strict=True):
        value = local[param]
        test = f"{unit.const(IN_DOMAIN.get(kind, in_bools))}(st, {actor}, {value})"
        lines += [f"if not ({value} is None or {test}):" if optional else f"if not {test}:", "    return None"]
        for guard in level:
            # The engine's own guard of generation (held cards named in the order held) is no requirement of
            # the check: a move it refuses may still be legal.
            engine_only = callable(guard) and not isinstance(guard, WhenProtected)
            lines += refusal(unit, exprs, frame, names, guard, "return None" if engine_only else "return False")
    lines.append("return True")
    fn = unit.fresh("j")
    head = f"def {fn}(st, drawn, args):\n"
    return unit.define("".join(exprs.helpers) + head + "".join(f"    {line}\n" for line in lines), fn)

