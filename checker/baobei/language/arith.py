"""Integer division and remainder: one meaning for the engine and the provers.

`a // b` rounds towards negative infinity and `a % b` takes the sign of `b`, as in
Python; a zero divisor is an error with the expression's position, never a value.
The provers translate the same definition (proofs/translate.py); tests/test_semantics.py
compares the engine and Z3 on random expressions. The docs and the proof report quote
`FLOOR_DIVISION_DOC`.
"""

from __future__ import annotations

FLOOR_DIVISION_DOC = ("a // b rounds towards negative infinity and a % b = a - b * (a // b) takes the sign of b; "
                      "b = 0 is an error")


class DivisionByZero(ArithmeticError):
    """A divisor evaluated to zero: the rules are wrong at that expression."""


def floor_div(a: int, b: int) -> int:
    if b == 0:
        raise DivisionByZero
    return a // b


def floor_mod(a: int, b: int) -> int:
    if b == 0:
        raise DivisionByZero
    return a % b
