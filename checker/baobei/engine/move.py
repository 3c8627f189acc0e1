"""A move as a value: who makes it, which rule, and its arguments (text form in notation.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple


class Move(NamedTuple):
    """A player's move: the rule's name and its named arguments (slots are (seat, number), cards numbers).

    A named tuple rather than a frozen dataclass: the generated listers (enumeration.py) make thousands of
    moves for one state, and a tuple is made in one call (`made_move`), where a slotted object takes four
    (measured: about 115 ns against 195 ns a move). Equality and hash are those of the three fields, as
    before; a move also equals the plain tuple of its fields."""

    player: int
    name: str
    args: tuple[tuple[str, Any], ...] = ()

    def arg(self, name: str) -> Any:
        for key, value in self.args:
            if key == name:
                return value
        return None


# `made_move(Move, (player, name, args))`: the move, without the keyword handling of `Move(...)`.
made_move: Callable[[type[Move], tuple[int, str, tuple[tuple[str, Any], ...]]], Move] = tuple.__new__
