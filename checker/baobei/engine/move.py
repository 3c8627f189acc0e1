"""A move as a value: who makes it, which rule, and its arguments (text form in notation.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any


@dataclasses.dataclass(frozen=True, slots=True)
class Move:
    """A player's move: the rule's name and its named arguments (slots are (seat, number), cards numbers)."""

    player: int
    name: str
    args: tuple[tuple[str, Any], ...] = ()

    def arg(self, name: str) -> Any:
        for key, value in self.args:
            if key == name:
                return value
        return None


def _slot_setter(field: str) -> Callable[[Move, Any], None]:
    setter: Callable[[Move, Any], None] = vars(Move)[field].__set__
    return setter


# A move made field by field through its slots, for the generated listers (enumeration.py), which make
# thousands of moves for one state: a frozen dataclass's own __init__ sets each field through
# object.__setattr__, about twice as slow. The move is the same value (equal, same hash).
new_move: Callable[[type[Move]], Move] = object.__new__
set_player, set_name, set_args = _slot_setter("player"), _slot_setter("name"), _slot_setter("args")
