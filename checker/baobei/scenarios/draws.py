"""Draws a replay names: the next cards a draw from the draw pile gives, whatever a shuffle did.

A scenario's `draws CARD, CARD` step, and a model checker's trace, say which cards the next
draws give. Nobody can follow a face-down card of a shuffled pile, so the named card is brought to
the top of the pile just before it is drawn (its position in the pile is all that changes); a
named card that is not in the pile then is an error of the replay, said in words.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from ..engine.state import Chance, State
from ..language.errors import BaoError


class DrawUnavailable(BaoError):
    """The draw a replay names is not possible: no such card lies in the draw pile."""


class ForcedDraws(Chance):
    """A state's random outcomes, with the next draws named: by card number or by species."""

    def __init__(self, seed: Any = None) -> None:
        super().__init__(seed)
        self.wanted: deque[int | str] = deque()
        self.drawn = 0  # draws from the draw pile since `count_from_here` (a replay's check of its named draws)

    def name(self, cards: list[int | str]) -> None:
        """The next draws give these cards, in this order (after any named before and not drawn yet)."""
        self.wanted.extend(cards)

    def count_from_here(self) -> None:
        """Count the draws from here on (a move's: whether it drew every card named for it)."""
        self.drawn = 0

    def before_draw(self, st: State, pile: list[int]) -> None:
        self.drawn += 1
        if not self.wanted:
            return
        want = self.wanted.popleft()
        # The top of the pile is its end; the first match from the top keeps a table's own order.
        for i in range(len(pile) - 1, -1, -1):
            card = pile[i]
            if card == want or (isinstance(want, str) and st.facts.species[card] == want):
                pile[i], pile[-1] = pile[-1], pile[i]
                return
        shown = st.facts.label(want) if isinstance(want, int) else want
        raise DrawUnavailable(f"the draw is to give {shown}, but no such card lies in the draw pile")


def named_draws(st: State) -> ForcedDraws | None:
    """The state's ForcedDraws when some draw has been named for it, else None (a generator of its own)."""
    chance = st.chance()
    return chance if isinstance(chance, ForcedDraws) else None


def forced(st: State) -> ForcedDraws:
    """The state's ForcedDraws, installed in place of its generator (seeded as the generator was)."""
    rng = st.rng
    if isinstance(rng, ForcedDraws):
        return rng
    chance = ForcedDraws()
    chance.setstate(rng.getstate())
    st.use_chance(chance)
    return chance
