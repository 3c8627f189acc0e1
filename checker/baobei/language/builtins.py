"""The builtin registry: every primitive of the expression language, defined once.

An entry gives the builtin's argument kinds, the kind of its value, its engine
implementation, its Z3 translation (or why it has none) and a one-line
description. The kind checker, the engine's compiler, the provers and the docs
all read the entry, so they cannot drift apart; `tests/test_semantics.py` fails
if an entry lacks a part.

Implementations are written against two protocols, so that this module needs
neither the engine nor Z3: `Table` is the concrete state the engine passes,
`Symbolic` the symbolic state a prover passes. Both name generic things only
(cards, slots, piles, seats, knowledge, marks), nothing of BAO BEI.

Every implementation is total: given `none` where a card, slot or player is
expected it answers `none_value` (none, false, 0 or the empty list), so a guard
can test a missing card and an impossible part of an effect is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from .source import Pos

Slot = tuple[int, int]


class Table(Protocol):
    """What a concrete state offers the builtins (engine/state.py implements it)."""

    active: int
    names: list[str]
    phase: str
    round: int
    turn: int

    def card_at(self, slot: Slot) -> int | None: ...
    def cards_of(self, player: int) -> list[int]: ...
    def occupied_slots(self, player: int) -> list[Slot]: ...
    def free_slots(self, player: int) -> list[Slot]: ...
    def slot_for_added(self, player: int, preferred: Slot | None) -> Slot: ...
    def pile_cards(self, place: Any) -> list[int] | None: ...
    def hand_place(self, player: int) -> Any: ...
    def hand_cards(self, player: int) -> list[int]: ...
    def knows(self, player: int, card: int | None) -> bool: ...
    def seats_from(self, player: int) -> list[int]: ...
    def seated(self) -> list[int]: ...
    def deck(self) -> list[int]: ...
    def count_places(self, card: int) -> int: ...
    def place_counts(self) -> Mapping[int, int]: ...
    def card_fact(self, card: int, fact: str) -> Any: ...
    def is_marked(self, card: int, mark: str) -> bool: ...
    def is_protected(self, player: int) -> bool: ...
    def window_value(self, attr: str) -> Any: ...
    def waiting_count(self) -> int: ...


class Symbolic(Protocol):
    """What a symbolic state offers the builtins' Z3 translations (proofs/ implements it).

    A method a model cannot express raises the prover's `Unsupported` with the reason,
    which makes a proof `unknown`, never `proved`.
    """

    def card_fact(self, card: Any, fact: str, pos: Pos) -> Any: ...
    def card_at(self, slot: Any, pos: Pos) -> Any: ...
    def owner(self, slot: Any, pos: Pos) -> Any: ...
    def slot_no(self, slot: Any, pos: Pos) -> Any: ...
    def occupied(self, slot: Any, pos: Pos) -> Any: ...
    def make_slot(self, player: Any, number: Any, pos: Pos) -> Any: ...
    def cards(self, player: Any, pos: Pos) -> Any: ...
    def slots(self, player: Any, free: bool, pos: Pos) -> Any: ...
    def added_slot(self, player: Any, preferred: Any, pos: Pos) -> Any: ...
    def size(self, value: Any, pos: Pos) -> Any: ...
    def top(self, place: Any, pos: Pos) -> Any: ...
    def hand(self, player: Any, pos: Pos) -> Any: ...
    def held(self, player: Any, pos: Pos) -> Any: ...
    def seats(self, player: Any, include_self: bool, pos: Pos) -> Any: ...
    def knows(self, player: Any, card: Any, pos: Pos) -> Any: ...
    def marked(self, card: Any, mark: Any, pos: Pos) -> Any: ...
    def protected(self, player: Any, pos: Pos) -> Any: ...
    def places(self, card: Any, pos: Pos) -> Any: ...
    def minmax(self, a: Any, b: Any, smaller: bool, pos: Pos) -> Any: ...
    def absolute(self, a: Any, pos: Pos) -> Any: ...
    def players(self, pos: Pos) -> Any: ...
    def deck(self, pos: Pos) -> Any: ...
    def player_count(self, pos: Pos) -> Any: ...
    def seat_count(self, pos: Pos) -> Any: ...
    def state(self, name: str, kind: str, pos: Pos) -> Any: ...


@dataclass(frozen=True)
class NotProvable:
    """A builtin the provers do not translate, and why; a proof that meets it is `unknown`."""

    reason: str


@dataclass(frozen=True)
class Builtin:
    name: str
    args: tuple[str, ...]  # the kind of each argument
    result: str  # the kind of the value
    doc: str
    run: Callable[..., Any]  # (table, *args) -> value; called only with no argument none
    prove: Callable[..., Any] | NotProvable  # (symbolic, pos, *args) -> symbolic value
    none_value: Any = None  # the value when an argument is none (totality)
    enum: str = ""  # the declared names its string values come from ("phases", "window kinds", "marks")
    total: bool = False  # `run` itself handles none arguments
    attribute: str = ""  # a state name that is an attribute of the Table: the engine may read it directly
    fact: str = ""  # a fact of the deck by card (`card_fact(card, fact)`): the engine may index it directly
    # A Table method giving the value for every argument at once, as a mapping (an argument it lacks has
    # the none value): where one evaluation asks for many arguments, the engine may ask the table once.
    tally: str = ""
    # Its argument (of any kind of item) is counted or read through: a list, a pile or a hand, nothing else.
    collection: bool = False

    @property
    def arity(self) -> int:
        return len(self.args)


def _window(attr: str) -> Callable[[Table], Any]:
    return lambda t: t.window_value(attr)


def _state(name: str, kind: str) -> Callable[..., Any]:
    return lambda m, pos: m.state(name, kind, pos)


_EMPTY: list[Any] = []

BUILTINS: dict[str, Builtin] = {b.name: b for b in (
    # ---- card facts (from the deck declaration)
    Builtin("value", ("card",), "int", "The card's value in points.",
            lambda t, c: t.card_fact(c, "value"), lambda m, pos, c: m.card_fact(c, "value", pos), 0, fact="value"),
    Builtin("family", ("card",), "str", "The card's pluck family (its species unless the deck says otherwise).",
            lambda t, c: t.card_fact(c, "family"), lambda m, pos, c: m.card_fact(c, "family", pos), fact="family"),
    Builtin("species", ("card",), "str", "The card's species.",
            lambda t, c: t.card_fact(c, "species"), lambda m, pos, c: m.card_fact(c, "species", pos),
            fact="species"),
    Builtin("has_ability", ("card",), "bool", "Whether the card's species has an ability.",
            lambda t, c: t.card_fact(c, "ability") is not None,
            lambda m, pos, c: m.card_fact(c, "has_ability", pos), False),
    # ---- slots and tableaux
    Builtin("card_at", ("slot",), "card", "The card lying on a slot (none when the slot is free).",
            lambda t, sl: t.card_at(sl), lambda m, pos, sl: m.card_at(sl, pos)),
    Builtin("owner", ("slot",), "player", "The player whose tableau the slot belongs to.",
            lambda t, sl: sl[0], lambda m, pos, sl: m.owner(sl, pos)),
    Builtin("slot_no", ("slot",), "int", "The slot's number in its tableau (from 1).",
            lambda t, sl: sl[1], lambda m, pos, sl: m.slot_no(sl, pos), 0),
    Builtin("occupied", ("slot",), "bool", "Whether a card lies on the slot.",
            lambda t, sl: t.card_at(sl) is not None, lambda m, pos, sl: m.occupied(sl, pos), False),
    Builtin("slot", ("player", "int"), "slot", "The slot with this number in the player's tableau.",
            lambda t, p, n: (p, n), lambda m, pos, p, n: m.make_slot(p, n, pos)),
    Builtin("cards", ("player",), "list card", "The cards in a player's tableau, slot by slot.",
            lambda t, p: t.cards_of(p), lambda m, pos, p: m.cards(p, pos), _EMPTY),
    Builtin("slots", ("player",), "list slot", "A player's occupied slots.",
            lambda t, p: t.occupied_slots(p), lambda m, pos, p: m.slots(p, False, pos), _EMPTY),
    Builtin("free_slots", ("player",), "list slot", "A player's free slots (left by removed cards).",
            lambda t, p: t.free_slots(p), lambda m, pos, p: m.slots(p, True, pos), _EMPTY),
    Builtin("free_slot", ("player", "slot"), "slot",
            "Where a card added to the player's tableau goes: the named free slot, else the lowest free one, "
            "else a new slot after the last.",
            lambda t, p, pref: None if p is None else t.slot_for_added(p, pref),
            lambda m, pos, p, pref: m.added_slot(p, pref, pos), total=True),
    # ---- piles and hands
    Builtin("size", ("",), "int", "How many cards a pile, a hand or a list holds (0 for none).",
            lambda t, x: _size(t, x), lambda m, pos, x: m.size(x, pos), 0, total=True, collection=True),
    Builtin("top", ("place",), "card", "The top card of a pile or the last card drawn into a hand.",
            lambda t, x: _top(t, x), lambda m, pos, x: m.top(x, pos), total=True),
    Builtin("hand", ("player",), "place", "The player's hand, as a place cards are drawn into.",
            lambda t, p: t.hand_place(p), lambda m, pos, p: m.hand(p, pos)),
    Builtin("held", ("player",), "list card", "The cards the player holds in hand, in the order drawn.",
            lambda t, p: t.hand_cards(p), lambda m, pos, p: m.held(p, pos), _EMPTY),
    # ---- seats
    Builtin("seats_from", ("player",), "list player",
            "The players of the round in seating order, starting with this one.",
            lambda t, p: t.seats_from(p), lambda m, pos, p: m.seats(p, True, pos), _EMPTY),
    Builtin("seats_after", ("player",), "list player",
            "The other players of the round in seating order, starting after this one.",
            lambda t, p: t.seats_from(p)[1:], lambda m, pos, p: m.seats(p, False, pos), _EMPTY),
    Builtin("others", ("player",), "list player", "Every other player of the round, in seating order after this one.",
            lambda t, p: t.seats_from(p)[1:], lambda m, pos, p: m.seats(p, False, pos), _EMPTY),
    # ---- knowledge and marks
    Builtin("knows", ("player", "card"), "bool", "Whether the player has seen the card and could follow it since.",
            lambda t, p, c: t.knows(p, c), lambda m, pos, p, c: m.knows(p, c, pos), False),
    Builtin("marked", ("card", "str"), "bool", "Whether the card carries the declared mark.",
            lambda t, c, k: t.is_marked(c, k), lambda m, pos, c, k: m.marked(c, k, pos), False, enum="marks"),
    Builtin("protected", ("player",), "bool",
            "Whether a protection of the rules holds the player's tableau now: nobody else may change it.",
            lambda t, p: t.is_protected(p), lambda m, pos, p: m.protected(p, pos), False),
    Builtin("places", ("card",), "int", "In how many places the card lies (1 whenever no rule lost or copied it).",
            lambda t, c: t.count_places(c), lambda m, pos, c: m.places(c, pos), 0, tally="place_counts"),
    # ---- numbers
    Builtin("max", ("int", "int"), "int", "The larger of two numbers.",
            lambda t, a, b: max(a, b), lambda m, pos, a, b: m.minmax(a, b, False, pos)),
    Builtin("min", ("int", "int"), "int", "The smaller of two numbers.",
            lambda t, a, b: min(a, b), lambda m, pos, a, b: m.minmax(a, b, True, pos)),
    Builtin("abs", ("int",), "int", "A number without its sign.",
            lambda t, a: abs(a), lambda m, pos, a: m.absolute(a, pos)),
)}

# Names of the state the rules may read: builtins without arguments.
STATE_NAMES: dict[str, Builtin] = {b.name: b for b in (
    Builtin("players", (), "list player", "The players of this round, in seating order.",
            lambda t: t.seated(), lambda m, pos: m.players(pos)),
    Builtin("deck", (), "list card", "Every card of the deck, in play or not.",
            lambda t: t.deck(), lambda m, pos: m.deck(pos)),
    Builtin("player_count", (), "int", "How many players take part in this round.",
            lambda t: len(t.seated()), lambda m, pos: m.player_count(pos)),
    Builtin("seat_count", (), "int", "How many players the match has: those of this round and, during a "
            "decision round, those who wait for its result.",
            lambda t: len(t.names), lambda m, pos: m.seat_count(pos)),
    Builtin("active", (), "player", "The active player: whose turn it is.",
            lambda t: t.active, _state("active", "player"), attribute="active"),
    Builtin("phase", (), "str", "The phase of the turn or the round (one of the declared phases).",
            lambda t: t.phase, _state("phase", "str"), enum="phases", attribute="phase"),
    Builtin("round", (), "int", "The number of the round in the match, from 1.",
            lambda t: t.round, _state("round", "int"), attribute="round"),
    Builtin("turn", (), "int", "How many turns have begun in the match.",
            lambda t: t.turn, _state("turn", "int"), attribute="turn"),
    Builtin("window_ref", (), "card", "The reference card of the open window (none when no window is open).",
            _window("ref"), _state("window_ref", "card")),
    Builtin("window_kind", (), "str", "The kind of the open window (one of the declared kinds).",
            _window("kind"), _state("window_kind", "str"), enum="window kinds"),
    Builtin("window_used", (), "bool", "Whether the open window's attempts are used up (false with no window).",
            _window("used"), _state("window_used", "bool"), False),
    Builtin("window_players", (), "list player", "The players who may call on the open window.",
            _window("players"), _state("window_players", "list player"), _EMPTY),
    Builtin("waiting", (), "int", "How many triggered abilities wait to be used or judged, first come first.",
            lambda t: t.waiting_count(), _state("waiting", "int")),
)}

# Names bound while a rule runs: the player making the move, the card whose ability it is.
ENGINE_NAMES = {"actor": "player", "source": "card"}
# Names bound while a transition invariant judges a move: the player who made it, whether the move was an
# ability or a step of one (what claims about cards an ability moved need), and the card whose ability it
# was (none for any other move: what a claim about one ability, not all of them, needs).
TRANSITION_NAMES = {"actor": ENGINE_NAMES["actor"], "by_ability": "bool", "source": ENGINE_NAMES["source"]}


def _size(t: Table, x: Any) -> int:
    if x is None:
        return 0
    cards = t.pile_cards(x)
    return len(cards) if cards is not None else len(x)


def _top(t: Table, x: Any) -> int | None:
    cards = t.pile_cards(x) if x is not None else None
    return cards[-1] if cards else None
