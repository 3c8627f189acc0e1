"""A move's arguments as fresh constants, each within the domain the engine's generation gives it.

The engine offers an argument of kind `slot` any occupied slot, `own_slot` an occupied slot of the
mover, `free_slot` a free slot of the mover, `player` any seat, `held_card` a card in the mover's
hand, `bool` either value; an optional argument may also be none. Here each argument is a fresh
constant (two for a slot) and the domain is a condition on it, so that "some choice is legal" is the
satisfiability of the legality with these constants, and a model names the choice.
"""

from __future__ import annotations

from typing import Any

import z3  # type: ignore[import-untyped]

from ..engine.legality import CompiledMove
from ..language import syntax as s
from . import terms as T
from .store import BOOL, INT, SymStore
from .translate import (
    FALSE,
    NONE_ID,
    TRUE,
    BoolV,
    CardV,
    PlayerV,
    SlotSetV,
    SlotV,
    SVal,
    Translator,
    Unsupported,
    Z,
    truth,
)

SLOT_KINDS = ("slot", "own_slot", "free_slot")


def fresh_args(eng: Any, st: SymStore, cm: CompiledMove, actor: SVal, label: str
               ) -> tuple[tuple[tuple[str, SVal], ...], Z]:
    """Fresh arguments for the move and the condition that each lies in its domain."""
    actor_term = actor.term if isinstance(actor, PlayerV) else T.num(NONE_ID)
    args: list[tuple[str, SVal]] = []
    domains: list[Z] = []
    for p in cm.decl.params:
        value, inside = _argument(st, p, actor_term, f"{label}.{cm.name}.{p.name}")
        args.append((p.name, value))
        domains.append(inside)
    return tuple(args), T.and_(TRUE, *domains)


def _argument(st: SymStore, p: s.Param, actor: Z, label: str) -> tuple[SVal, Z]:
    codes = st.codes
    given = st.fresh(label + ".given", BOOL) if p.optional else TRUE
    if p.kind in SLOT_KINDS:
        a, b = st.fresh(label + ".p", INT), st.fresh(label + ".n", INT)
        slot = SlotV(a, b)
        if p.kind == "free_slot":
            free = st.slots(PlayerV(actor), True, s.NOWHERE)
            inside = free.member(slot) if isinstance(free, SlotSetV) else FALSE
        else:
            occupied = truth(st.occupied(slot, s.NOWHERE), s.NOWHERE)
            seat = T.and_(T.ge(a, 0), T.lt(a, codes.n))
            inside = T.and_(occupied, T.eq(a, actor)) if p.kind == "own_slot" else T.and_(seat, occupied)
        value: SVal = SlotV(T.ite(given, a, NONE_ID), b)
    elif p.kind == "player":
        x = st.fresh(label, INT)
        inside, value = T.and_(T.ge(x, 0), T.lt(x, codes.n)), PlayerV(T.ite(given, x, NONE_ID))
    elif p.kind == "held_card":
        x = st.fresh(label, INT)
        held = st.held(PlayerV(actor), s.NOWHERE)
        inside = T.and_(T.ge(x, 0), T.lt(x, codes.N), Translator(codes.rules, st)._member(CardV(x), held, s.NOWHERE))
        value = CardV(T.ite(given, x, NONE_ID))
    elif p.kind == "bool" and not p.optional:
        b = st.fresh(label, BOOL)
        inside, value = TRUE, BoolV(b)
    else:
        raise Unsupported(s.NOWHERE, f"{p.name}: an argument of kind {p.kind}{' (optional)' if p.optional else ''}")
    return value, T.or_(T.not_(given), inside)


def concrete_args(cm: CompiledMove, args: tuple[tuple[str, Any], ...]) -> tuple[tuple[str, SVal], ...]:
    """A move's arguments as the engine gives them (seats, slots as pairs, cards, booleans), as terms."""
    given = dict(args)
    out: list[tuple[str, SVal]] = []
    for p in cm.decl.params:
        value = given.get(p.name)
        if value is None:
            out.append((p.name, _none(p.kind)))
        elif p.kind in SLOT_KINDS:
            out.append((p.name, SlotV(T.num(int(value[0])), T.num(int(value[1])))))
        elif p.kind == "player":
            out.append((p.name, PlayerV(T.num(int(value)))))
        elif p.kind == "held_card":
            out.append((p.name, CardV(T.num(int(value)))))
        else:
            out.append((p.name, BoolV(T.boolean(bool(value)))))
    return tuple(out)


def _none(kind: str) -> SVal:
    if kind in SLOT_KINDS:
        return SlotV(T.num(NONE_ID), T.num(0))
    if kind == "held_card":
        return CardV(T.num(NONE_ID))
    if kind == "bool":
        return BoolV(FALSE, TRUE)
    return PlayerV(T.num(NONE_ID))


def fresh_maker(prefix: str) -> Any:
    """A maker of fresh constants named after `prefix` and a counter (one per relation)."""
    count = [0]

    def fresh(name: str, sort: Any) -> Z:
        count[0] += 1
        return z3.Const(f"{prefix}!{name}#{count[0]}", sort)

    return fresh
