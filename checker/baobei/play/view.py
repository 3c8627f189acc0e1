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
from ..engine.state import State, Waiting, Window, round_trip
from ..language.ruleset import Ruleset, Species

# The species of a blank: no species name of a deck can be spelled so (names are identifiers).
BLANK = "?"
# The generator every view carries, in the JSON form of a state (it says nothing of the state's own generator).
_FIXED_RNG = (lambda v, internal, g: [v, list(internal), g])(*random.Random(0).getstate())
_FIXED_RNG_STATE = random.Random(0).getstate()  # the same, as a state keeps it (`State.saved`)

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
        return PlayerView(seat, self.view_state(st, seat), self.engine, forced)

    def view_state(self, st: State, seat: int) -> State:
        """The view as a state of the view engine: the state `State.from_json(view_json(st, seat))` gives,
        built without the JSON form (a simulated player asks for a view before each of its moves).
        tests/test_speed_view.py compares the two. The cards are seen in `map_cards`' order, which numbers
        the blanks."""
        blanks: dict[int, int] = {}
        see = self._seer(st.known, seat, blanks)
        out = State.saved(list(st.names), self.engine.facts, self.engine.pile_locs, _FIXED_RNG_STATE)
        out.tableaux = [[None if c is None else see(c) for c in row] for row in st.tableaux]
        out.hands = [[see(c) for c in hand] for hand in st.hands]
        out.piles = [[see(c) for c in pile] for pile in st.piles]
        out.box = [see(c) for c in st.box]
        out.windows = [Window(w.kind, see(w.ref), w.players, w.attempts) for w in st.windows]
        out.waiting = [Waiting(w.ability, see(w.card), w.owner, self._waiting_values(w, see), w.after_window)
                       for w in st.waiting]
        out.vars = {k: round_trip(_var(v, self.card_vars.get(k), see)) for k, v in st.vars.items()}
        out.pvars = {k: [round_trip(_var(v, self.card_vars.get(k), see)) for v in vs] for k, vs in st.pvars.items()}
        out.active, out.phase, out.round, out.turn = st.active, st.phase, st.round, st.turn
        out.known, out.marks = self._ledger(st.known, st.marks, blanks, seat)
        out.seat_round([p for p in range(len(st.names)) if st.in_round >> p & 1])
        out.protected = st.protected
        return out

    def _waiting_values(self, waiting: Waiting, see: CardMap) -> tuple[Any, ...]:
        """A waiting step's values as the view holds them: its cards seen by the player."""
        return tuple(map(round_trip, _card_values(list(waiting.args), self.card_args.get(waiting.ability, ()), see)))

    def view_json(self, st: State, seat: int) -> dict[str, Any]:
        """The view as the JSON form of a state of the view engine."""
        data = st.to_json(rng=False)  # the view carries a generator of its own
        blanks: dict[int, int] = {}
        see = self._seer(data["known"], seat, blanks)
        out = map_cards(data, see, self.card_args, self.card_vars)
        out["known"], out["marks"] = self._ledger(data["known"], data["marks"], blanks, seat)
        out["rng"] = _FIXED_RNG
        return out

    def _seer(self, known: list[int], seat: int, blanks: dict[int, int]) -> CardMap:
        """A card as the player sees it: its own number if the player knows it, else a blank, numbered after
        the deck in the order the hidden cards are first seen (`blanks`: hidden card -> blank)."""
        deck = self.deck

        def see(card: int) -> int:
            if known[card] >> seat & 1:
                return card
            if card not in blanks:
                blanks[card] = deck + len(blanks)
            return blanks[card]

        return see

    def _ledger(self, known_by: list[int], marked: list[int], blanks: dict[int, int], seat: int
                ) -> tuple[list[int], list[int]]:
        """Who knows each card and its marks: a blank carries those of the card it stands for (public: the
        table sees who looked at which card), a hidden card's own number carries nothing."""
        hidden = [0] * self.deck  # the blanks' part, filled in below
        known = [k if k >> seat & 1 else 0 for k in known_by] + hidden
        marks = [m if k >> seat & 1 else 0 for k, m in zip(known_by, marked, strict=True)] + hidden
        for card, blank in blanks.items():
            known[blank], marks[blank] = known_by[card], marked[card]
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
