"""Fast Z3 term constructors that fold constants as they build.

The provers build hundreds of thousands of terms per step of the transition relation;
z3's Python constructors check and coerce their arguments on every call (`If` costs
about 20 µs, `And` 40 µs) and never fold `And(True, x)` or `1 == 0`. These build the
same terms through the C API (a few µs) and decide what constants decide at once, so
a symbolic execution follows a constant condition down one branch without asking
`z3.simplify` (which walks the whole term every time).

Z3 hash-conses its terms: two equal terms are one AST with one id, so comparing ids
is comparing terms.
"""

from __future__ import annotations

from typing import Any

import z3  # type: ignore[import-untyped]
from z3 import z3core

from . import interrupts

Z = Any
_CTX = z3.main_ctx()
_REF = _CTX.ref()
TRUE: Z = z3.BoolVal(True)
FALSE: Z = z3.BoolVal(False)
_INTS: dict[int, Z] = {}
_VALUES: dict[int, int | None] = {}  # constants by AST address (the terms are kept alive: see _KEEP)
# Terms known never to be negative (a card drawn is a card, not none): a comparison with a negative
# constant is decided for them, so that what follows a draw is not a branch on "no card".
_NON_NEGATIVE: set[int] = set()
# The terms whose addresses the tables above hold: kept alive, so that no address is reused by another term.
_KEEP: list[Z] = []


def check(solver: Any, *assumptions: Z) -> Any:
    """`solver.check`, but an interrupt (Ctrl-C) during it, or one that came before, is raised as
    KeyboardInterrupt: never an answer. It is here, in the induction record's key, and not in interrupts.py:
    how a check's answer is read is part of every proof."""
    if interrupts.CTRL_C.is_set():
        raise KeyboardInterrupt
    answer = solver.check(*assumptions)
    if answer == z3.unknown and interrupts.interrupted(solver):
        raise KeyboardInterrupt
    return answer


def simplify(term: Z) -> Z:
    """`z3.simplify`, with Ctrl-C held back until it returns (interrupts.sigint_held)."""
    with interrupts.sigint_held():
        return z3.simplify(term)


def _addr(term: Z) -> int:
    """The term's AST address: one term, one address (Z3 hash-conses), cheaper than get_id."""
    return int(term.ast.value)


_TRUE_ADDR, _FALSE_ADDR = _addr(TRUE), _addr(FALSE)


def non_negative(term: Z) -> Z:
    """Note that `term` is never negative (the caller asserts it, as the draw's domain does); returns it."""
    _NON_NEGATIVE.add(_addr(term))
    _KEEP.append(term)
    return term


def _sign(term: Z) -> int | None:
    """0 when the term is known never to be negative, else its value when constant, else None."""
    v = value(term)
    if v is not None:
        return v
    return 0 if _addr(term) in _NON_NEGATIVE else None


def num(n: int) -> Z:
    """The integer constant n (cached: z3.IntVal parses a string each time)."""
    term = _INTS.get(n)
    if term is None:
        term = _INTS[n] = z3.IntVal(n)
        _VALUES[_addr(term)] = n
    return term


def value(term: Z) -> int | None:
    """The integer a term is, when it is a constant."""
    if not isinstance(term, z3.IntNumRef):
        return None
    addr = _addr(term)
    if addr not in _VALUES:
        _VALUES[addr] = int(term.as_long())
        _KEEP.append(term)
    return _VALUES[addr]


def is_true(term: Z) -> bool:
    return isinstance(term, z3.BoolRef) and _addr(term) == _TRUE_ADDR


def is_false(term: Z) -> bool:
    return isinstance(term, z3.BoolRef) and _addr(term) == _FALSE_ADDR


def same(a: Z, b: Z) -> bool:
    return a is b or _addr(a) == _addr(b)


def boolean(flag: bool) -> Z:
    return TRUE if flag else FALSE


def _wrap(ast: Any, like: Z) -> Z:
    if isinstance(like, z3.BoolRef):
        return z3.BoolRef(ast, _CTX)
    return z3.ArithRef(ast, _CTX)


def ite(cond: Z, a: Z, b: Z) -> Z:
    if isinstance(a, bool):
        a = boolean(a)
    if isinstance(b, bool):
        b = boolean(b)
    if isinstance(a, int):
        a = num(a)
    if isinstance(b, int):
        b = num(b)
    if is_true(cond):
        return a
    if is_false(cond):
        return b
    if same(a, b):
        return a
    if not isinstance(a, (z3.BoolRef, z3.ArithRef)) or not isinstance(b, (z3.BoolRef, z3.ArithRef)):
        return z3.If(cond, a, b)
    if isinstance(a, z3.BoolRef):
        if is_true(a) and is_false(b):
            return cond
        if is_false(a) and is_true(b):
            return not_(cond)
    out = _wrap(z3core.Z3_mk_ite(_REF, cond.as_ast(), a.as_ast(), b.as_ast()), a)
    sa, sb = _sign(a), _sign(b)
    if sa is not None and sb is not None and sa >= 0 and sb >= 0:
        non_negative(out)
    return out


def not_(x: Z) -> Z:
    if is_true(x):
        return FALSE
    if is_false(x):
        return TRUE
    return z3.BoolRef(z3core.Z3_mk_not(_REF, x.as_ast()), _CTX)


def _junction(items: tuple[Z, ...], unit: Z, zero: Z, mk: Any) -> Z:
    kept: list[Z] = []
    seen: set[int] = set()
    unit_addr, zero_addr = _addr(unit), _addr(zero)
    for x in items:
        if isinstance(x, bool):
            x = boolean(x)
        ident = _addr(x)
        if ident == unit_addr:
            continue
        if ident == zero_addr:
            return zero
        if ident not in seen:
            seen.add(ident)
            kept.append(x)
    if not kept:
        return unit
    if len(kept) == 1:
        return kept[0]
    array = (z3core.Ast * len(kept))(*[x.as_ast() for x in kept])
    return z3.BoolRef(mk(_REF, len(kept), array), _CTX)


def and_(*items: Z) -> Z:
    return _junction(items, TRUE, FALSE, z3core.Z3_mk_and)


def or_(*items: Z) -> Z:
    return _junction(items, FALSE, TRUE, z3core.Z3_mk_or)


def implies(a: Z, b: Z) -> Z:
    return or_(not_(a), b)


def eq(a: Z, b: Z | int) -> Z:
    if isinstance(b, int) and not isinstance(b, bool):
        b = num(b)
    if isinstance(a, int) and not isinstance(a, bool):
        a = num(a)
    va, vb = value(a), value(b)
    if va is not None and vb is not None:
        return boolean(va == vb)
    if (va is not None and va < 0 and _sign(b) == 0) or (vb is not None and vb < 0 and _sign(a) == 0):
        return FALSE
    if same(a, b):
        return TRUE
    if isinstance(a, z3.BoolRef) and isinstance(b, z3.BoolRef):
        if is_true(b):
            return a
        if is_true(a):
            return b
    if not isinstance(a, (z3.BoolRef, z3.ArithRef)) or not isinstance(b, (z3.BoolRef, z3.ArithRef)):
        return a == b
    return z3.BoolRef(z3core.Z3_mk_eq(_REF, a.as_ast(), b.as_ast()), _CTX)


def ne(a: Z, b: Z | int) -> Z:
    return not_(eq(a, b))


def _cmp(a: Z | int, b: Z | int, op: str) -> Z:
    va = a if isinstance(a, int) else value(a)
    vb = b if isinstance(b, int) else value(b)
    if va is not None and vb is not None:
        return boolean({"<": va < vb, "<=": va <= vb, ">": va > vb, ">=": va >= vb}[op])
    x = num(a) if isinstance(a, int) else a
    y = num(b) if isinstance(b, int) else b
    mk = {"<": z3core.Z3_mk_lt, "<=": z3core.Z3_mk_le, ">": z3core.Z3_mk_gt, ">=": z3core.Z3_mk_ge}[op]
    return z3.BoolRef(mk(_REF, x.as_ast(), y.as_ast()), _CTX)


def lt(a: Z | int, b: Z | int) -> Z:
    return _cmp(a, b, "<")


def le(a: Z | int, b: Z | int) -> Z:
    return _cmp(a, b, "<=")


def gt(a: Z | int, b: Z | int) -> Z:
    return _cmp(a, b, ">")


def ge(a: Z | int, b: Z | int) -> Z:
    return _cmp(a, b, ">=")


def add(a: Z | int, b: Z | int) -> Z:
    va = a if isinstance(a, int) else value(a)
    vb = b if isinstance(b, int) else value(b)
    if va is not None and vb is not None:
        return num(va + vb)
    if vb == 0:
        return a
    if va == 0:
        return b
    x = num(a) if isinstance(a, int) else a
    y = num(b) if isinstance(b, int) else b
    array = (z3core.Ast * 2)(x.as_ast(), y.as_ast())
    return z3.ArithRef(z3core.Z3_mk_add(_REF, 2, array), _CTX)


def total(items: list[Z]) -> Z:
    """The sum of integer terms, constants added up."""
    fixed = 0
    rest: list[Z] = []
    for x in items:
        v = value(x)
        if v is None:
            rest.append(x)
        else:
            fixed += v
    if not rest:
        return num(fixed)
    if fixed:
        rest.append(num(fixed))
    if len(rest) == 1:
        return rest[0]
    array = (z3core.Ast * len(rest))(*[x.as_ast() for x in rest])
    return z3.ArithRef(z3core.Z3_mk_add(_REF, len(rest), array), _CTX)


def count(conds: list[Z]) -> Z:
    """How many of the conditions hold."""
    return total([ite(c, num(1), num(0)) for c in conds])


def largest(term: Z) -> int | None:
    """The largest value an integer term can take when it is a constant or a choice (`If`) among
    constants (a table row looked up with an unknown index), else None."""
    v = value(term)
    if v is not None:
        return v
    if z3.is_app_of(term, z3.Z3_OP_ITE):
        a, b = largest(term.arg(1)), largest(term.arg(2))
        return None if a is None or b is None else max(a, b)
    return None
