"""A move as a value: who makes it, which rule, and its arguments (text form in notation.py)."""

from __future__ import annotations

import dataclasses
from typing import Any


@dataclasses.dataclass(frozen=True)
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
