"""A player's view of the table: the state with every card that player does not know taken out.

A simulated player (a policy) chooses from its view, never from the state. The view is built from the
state's JSON form (`State.to_json`, the one complete account of a state), with these changes:

- a card the player knows keeps its number, so its species, value and family can be read;
- a card it does not know is replaced by a blank: a card of no species whose value and family are none,
  numbered by where it lies (tableaux, hands, piles, the box, then windows, waiting abilities and
  variables, in that order), so two tables that differ only in cards the player has not seen give the
  same view, byte for byte. The hidden cards' own numbers appear nowhere in it;
- who else knows a card, the marks, windows, waiting abilities and variables are public and kept;
- the random generator is a fixed one: the view says nothing of the shuffles to come.

The view is a state of the *view engine*: the rules compiled over their deck plus one blank per card, so
that the rules' own expressions (a policy's conditions, the legality of a move) evaluate on it.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from ..engine.engine import Engine
from ..engine.state import State
from ..language.ruleset import Ruleset, Species

# The species of a blank: no species name of a deck can be spelled so (names are identifiers).
BLANK = "?"
# The generator every view carries, in the JSON form of a state (it says nothing of the state's own generator).
_FIXED_RNG = (lambda v, internal, g: [v, list(internal), g])(*random.Random(0).getstate())

CardMap = Callable[[int], int]


@dataclass(frozen=True)
class PlayerView:
    """What one player may know: a state of `engine` in which every card the player does not know is a
    blank. `forced`: nobody else acts now, so the player must choose a move (it may not wait)."""

    seat: int
    state: State
    engine: Engine
    forced: bool = False


def view_rules(rules: Ruleset) -> Ruleset:
    """The rules with one blank card per card of the deck: a blank's value and family are none (unknown)."""
    count = sum(sp.count for sp in rules.species.values())
    # None where the deck has numbers: a blank's value is unknown, and the rules' arithmetic and comparisons
    # are total on none (an unknown value is neither low nor high).
    blank = Species(BLANK, cast(int, None), count, cast(str, None), None)
    return dataclasses.replace(rules, species={**rules.species, BLANK: blank})


class ViewMaker:
    """Makes the views of one engine's states (the view engine is compiled once)."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        self.engine = Engine(view_rules(eng.rules))
        self.deck = len(eng.facts)
        # Per step and ability: the positions of its values that are cards (a step may carry one).
        self.card_args = {name: tuple(i for i, f in enumerate(m.formals) if f.type == "card")
                          for name, m in eng.rules.moves.items()}
        self.card_vars = {name: v.type for name, v in eng.rules.variables.items() if v.type in ("card", "cards")}

    def view(self, st: State, seat: int, forced: bool = False) -> PlayerView:
        return PlayerView(seat, State.from_json(self.view_json(st, seat), self.engine.facts, self.engine.pile_locs),
                          self.engine, forced)

    def view_json(self, st: State, seat: int) -> dict[str, Any]:
        """The view as the JSON form of a state of the view engine."""
        data = st.to_json()
        known: list[int] = data["known"]
        blanks: dict[int, int] = {}

        def see(card: int) -> int:
            if known[card] >> seat & 1:
                return card
            if card not in blanks:
                blanks[card] = self.deck + len(blanks)
            return blanks[card]

        out = map_cards(data, see, self.card_args, self.card_vars)
        out["known"], out["marks"] = self._ledger(data, blanks, seat)
        out["rng"] = _FIXED_RNG
        return out

    def _ledger(self, data: dict[str, Any], blanks: dict[int, int], seat: int) -> tuple[list[int], list[int]]:
        """Who knows each card and its marks: a blank carries those of the card it stands for (public: the
        table sees who looked at which card), a hidden card's own number carries nothing."""
        known, marks = [0] * (2 * self.deck), [0] * (2 * self.deck)
        for card in range(self.deck):
            if data["known"][card] >> seat & 1:
                known[card], marks[card] = data["known"][card], data["marks"][card]
        for card, blank in blanks.items():
            known[blank], marks[blank] = data["known"][card], data["marks"][card]
        return known, marks


def map_cards(data: dict[str, Any], fn: CardMap, card_args: dict[str, tuple[int, ...]],
              card_vars: dict[str, str]) -> dict[str, Any]:
    """A state's JSON form with `fn` applied to every card it names, place by place in a fixed order
    (tableaux, hands, piles, box, windows, waiting abilities, variables); `known` and `marks`, which are
    indexed by card, are the caller's to rebuild."""
    out = dict(data)
    out["tableaux"] = [[None if c is None else fn(c) for c in row] for row in data["tableaux"]]
    out["hands"] = [[fn(c) for c in hand] for hand in data["hands"]]
    out["piles"] = [[fn(c) for c in pile] for pile in data["piles"]]
    out["box"] = [fn(c) for c in data["box"]]
    out["windows"] = [[kind, fn(ref), players, attempts] for kind, ref, players, attempts in data["windows"]]
    out["waiting"] = [[ability, fn(card), owner, _card_values(args, card_args.get(ability, ()), fn), after]
                      for ability, card, owner, args, after in data["waiting"]]
    out["vars"] = {k: _var(v, card_vars.get(k), fn) for k, v in data["vars"].items()}
    out["pvars"] = {k: [_var(v, card_vars.get(k), fn) for v in vs] for k, vs in data["pvars"].items()}
    return out


def _card_values(args: list[Any], positions: tuple[int, ...], fn: CardMap) -> list[Any]:
    return [fn(a) if i in positions and isinstance(a, int) else a for i, a in enumerate(args)]


def _var(value: Any, vtype: str | None, fn: CardMap) -> Any:
    if value is None or vtype is None:
        return value
    return fn(value) if vtype == "card" else [fn(c) for c in value]
