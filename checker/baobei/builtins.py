"""Generic primitives the rules' expressions may use: cards, slots, piles, seats.

Every function is total: given `none` where a card, slot or player is expected,
it answers none, false or 0 instead of failing, so a guard can test a missing
card without crashing: the rules leave out an impossible part of an effect.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .state import DISCARD, DRAW, PILES, UNDER, HandLoc, PileLoc, State

if TYPE_CHECKING:
    from .model import Ruleset


class CardFacts:
    """Per-card facts from the deck, as flat lists indexed by card number."""

    def __init__(self, rules: Ruleset) -> None:
        self.species: list[str] = []
        self.value: list[int] = []
        self.family: list[str] = []
        self.ability: list[str | None] = []
        self.ordinal: list[int] = []  # 1 for the first card of its species, 2 for the second ...
        for sp in rules.species.values():
            for i in range(sp.count):
                self.species.append(sp.name)
                self.value.append(sp.value)
                self.family.append(sp.family)
                self.ability.append(sp.ability)
                self.ordinal.append(i + 1)

    def __len__(self) -> int:
        return len(self.species)

    def label(self, card: int | None) -> str:
        if card is None:
            return "nothing"
        return f"{self.species[card]}#{self.ordinal[card]}"


def seats_from(st: State, p: int | None) -> list[int]:
    """The seats of this round in seating order, starting at p (or at the next seat of the round after p)."""
    if p is None:
        return []
    n = len(st.names)
    return [q for q in ((p + i) % n for i in range(n)) if st.in_round >> q & 1]


def _size(st: State, x: Any) -> int:
    if x is None:
        return 0
    if isinstance(x, PileLoc):
        return len(pile_list(st, x))
    return len(x)


def pile_list(st: State, pile: PileLoc) -> list[int]:
    if pile is DRAW:
        return st.draw
    if pile is DISCARD:
        return st.discard
    if pile is UNDER:
        return st.under
    raise KeyError(pile.name)


def _top(st: State, pile: Any) -> int | None:
    if not isinstance(pile, PileLoc):
        return None
    items = pile_list(st, pile)
    return items[-1] if items else None


def _opt(f: Callable[..., Any], default: Any = None) -> Callable[..., Any]:
    """Wrap a function so that any `none` argument gives `default` (totality)."""
    arity = f.__code__.co_argcount - 1

    def one(st: State, a: Any) -> Any:
        return default if a is None else f(st, a)

    def two(st: State, a: Any, b: Any) -> Any:
        return default if a is None or b is None else f(st, a, b)

    def wrapped(st: State, *args: Any) -> Any:
        return default if any(a is None for a in args) else f(st, *args)

    return one if arity == 1 else two if arity == 2 else wrapped


def make_functions(facts: CardFacts) -> dict[str, tuple[int, Callable[..., Any]]]:
    """name -> (arity, implementation taking the state first)."""
    return {
        "value": (1, _opt(lambda st, c: facts.value[c], 0)),
        "family": (1, _opt(lambda st, c: facts.family[c])),
        "species": (1, _opt(lambda st, c: facts.species[c])),
        "has_ability": (1, _opt(lambda st, c: facts.ability[c] is not None, False)),
        "card_at": (1, _opt(lambda st, sl: st.card_at(sl))),
        "owner": (1, _opt(lambda st, sl: sl[0])),
        "slot_no": (1, _opt(lambda st, sl: sl[1], 0)),
        "occupied": (1, _opt(lambda st, sl: st.card_at(sl) is not None, False)),
        "slot": (2, _opt(lambda st, p, n: (p, n))),
        "cards": (1, _opt(lambda st, p: st.cards_of(p), [])),
        "slots": (1, _opt(lambda st, p: st.occupied_slots(p), [])),
        "free_slots": (1, _opt(lambda st, p: st.free_slots(p), [])),
        "free_slot": (2, lambda st, p, pref: None if p is None else st.slot_for_added(p, pref)),
        "size": (1, _size),
        "top": (1, _top),
        "held": (1, _opt(lambda st, p: st.hands[p])),
        "hand": (1, _opt(lambda st, p: HandLoc(p))),
        "others": (1, _opt(lambda st, p: [q for q in seats_from(st, p) if q != p], [])),
        "seats_from": (1, seats_from),
        "seats_after": (1, lambda st, p: [q for q in seats_from(st, p) if q != p]),
        "knows": (2, lambda st, p, c: st.knows(p, c) if p is not None else False),
        # How many places hold card c: 1 whenever the rules kept every card in exactly one place.
        "places": (1, _opt(lambda st, c: st.all_places().count(c), 0)),
        "max": (2, _opt(lambda st, a, b: max(a, b))),
        "min": (2, _opt(lambda st, a, b: min(a, b))),
        "abs": (1, _opt(lambda st, a: abs(a))),
    }


def _window_attr(name: str) -> Callable[[State], Any]:
    def get(st: State) -> Any:
        w = st.window
        if w is None:
            return False if name == "used" else None
        if name == "players":
            return [p for p in range(len(st.names)) if w.players >> p & 1]
        return getattr(w, name)

    return get


GLOBALS: dict[str, Callable[[State], Any]] = {
    "players": lambda st: st.seated(),
    "deck": lambda st: list(range(len(st.known))),  # every card of the deck, in play or not
    "player_count": lambda st: len(st.seats),
    "active": lambda st: st.active,
    "phase": lambda st: st.phase,
    "round": lambda st: st.round,
    "turn": lambda st: st.turn,
    "window_ref": _window_attr("ref"),
    "window_kind": _window_attr("kind"),
    "window_used": _window_attr("used"),
    "window_players": _window_attr("players"),
}


def _constant(value: PileLoc) -> Callable[[State], Any]:
    return lambda st: value


GLOBALS.update({name: _constant(pile) for name, pile in PILES.items()})

# The kind of value each builtin gives (for reading a value back as a player, a card, a number ...).
RESULT_KINDS: dict[str, str] = {
    "value": "int", "family": "str", "species": "str", "has_ability": "bool", "card_at": "card",
    "owner": "player", "slot_no": "int", "occupied": "bool", "slot": "slot", "cards": "list card",
    "slots": "list slot", "free_slots": "list slot", "free_slot": "slot", "size": "int", "top": "card",
    "held": "card", "others": "list player", "seats_from": "list player", "seats_after": "list player",
    "knows": "bool", "places": "int", "max": "int", "min": "int", "abs": "int",
    "players": "list player", "deck": "list card", "player_count": "int", "active": "player", "phase": "str",
    "round": "int", "turn": "int", "window_ref": "card", "window_kind": "str", "window_used": "bool",
    "window_players": "list player", "draw_pile": "pile", "discard_pile": "pile", "under_pile": "pile",
}

# The kinds of the arguments of builtins whose arguments have one kind.
ARG_KINDS: dict[str, tuple[str, ...]] = {
    "value": ("card",), "family": ("card",), "species": ("card",), "has_ability": ("card",),
    "places": ("card",), "card_at": ("slot",), "owner": ("slot",), "slot_no": ("slot",),
    "occupied": ("slot",), "slot": ("player", "int"), "cards": ("player",), "slots": ("player",),
    "free_slots": ("player",), "free_slot": ("player", "slot"), "held": ("player",), "hand": ("player",),
    "others": ("player",), "seats_from": ("player",), "seats_after": ("player",), "knows": ("player", "card"),
    "max": ("int", "int"), "min": ("int", "int"), "abs": ("int",), "top": ("pile",),
}

# Sources a `shuffle ... into draw_pile` may gather.
SHUFFLE_SOURCES = ("all_cards", "discard_below_top", "discard_pile", "under_pile", "draw_pile")
