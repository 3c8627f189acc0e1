"""The table: players, tableaux of stable numbered slots, piles, knowledge.

Generic: it knows cards by number, players by seat, and nothing of species.
Slots are numbered from 1 per player; an empty slot holds None and keeps its number.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

Card = int
Player = int
Slot = tuple[int, int]  # (player, slot number from 1)


@dataclass(frozen=True)
class PileLoc:
    """A pile as a place: the draw pile, the face-up discard pile, the face-down under-pile."""

    name: str


@dataclass(frozen=True)
class HandLoc:
    """The card a player holds after drawing, seen by that player only."""

    player: int


DRAW = PileLoc("draw_pile")
DISCARD = PileLoc("discard_pile")
UNDER = PileLoc("under_pile")
PILES = {p.name: p for p in (DRAW, DISCARD, UNDER)}


class Window:
    """An open pluck reference: who may use it, and whether its one attempt is used."""

    __slots__ = ("kind", "players", "ref", "used")

    def __init__(self, kind: str, ref: Card, players: int, used: bool = False) -> None:
        self.kind = kind
        self.ref = ref
        self.players = players  # bitmask of seats
        self.used = used

    def copy(self) -> Window:
        return Window(self.kind, self.ref, self.players, self.used)


class State:
    """Mutable game state; `copy()` gives an independent state (cheap: flat lists)."""

    __slots__ = (
        "active",
        "box",
        "discard",
        "draw",
        "hands",
        "in_round",
        "known",
        "names",
        "pending",
        "phase",
        "pvars",
        "rng",
        "round",
        "seats",
        "tableaux",
        "turn",
        "under",
        "vars",
        "window",
    )

    def __init__(self, names: list[str], n_cards: int, seed: int | None) -> None:
        self.names = names
        self.tableaux: list[list[Card | None]] = [[] for _ in names]
        self.draw: list[Card] = []  # top is the end of the list
        self.discard: list[Card] = []  # top is the end of the list
        self.under: list[Card] = []
        self.hands: list[Card | None] = [None for _ in names]
        self.active: Player = 0
        self.phase = ""
        self.round = 0
        self.turn = 0
        self.vars: dict[str, Any] = {}
        self.pvars: dict[str, list[Any]] = {}
        self.window: Window | None = None
        self.pending: list[tuple[str, Card, Player]] = []  # (ability, source card, owner)
        self.known: list[int] = [0] * n_cards  # per card: bitmask of players who know it
        self.rng = random.Random(seed)
        self.box: list[Card] = list(range(n_cards))  # cards out of play (not dealt in a scenario)
        self.in_round = (1 << len(names)) - 1  # bit mask of the seats taking part in this round
        self.seats = list(range(len(names)))  # the same seats as a list, in seating order

    @property
    def player_count(self) -> int:
        return len(self.names)

    def seated(self) -> list[Player]:
        """The seats taking part in this round, in seating order (all but in a round among a few)."""
        return list(self.seats)

    def seat_round(self, players: list[Player]) -> None:
        self.in_round = sum(1 << p for p in set(players))
        self.seats = [p for p in range(len(self.names)) if self.in_round >> p & 1]

    @property
    def everyone(self) -> int:
        return (1 << len(self.names)) - 1

    def copy(self) -> State:
        new = State.__new__(State)
        new.names = self.names
        new.tableaux = [list(t) for t in self.tableaux]
        new.draw = list(self.draw)
        new.discard = list(self.discard)
        new.under = list(self.under)
        new.hands = list(self.hands)
        new.active = self.active
        new.phase = self.phase
        new.round = self.round
        new.turn = self.turn
        new.vars = dict(self.vars)
        new.pvars = {k: list(v) for k, v in self.pvars.items()}
        new.window = self.window.copy() if self.window else None
        new.pending = list(self.pending)
        new.known = list(self.known)
        new.rng = random.Random()
        new.rng.setstate(self.rng.getstate())
        new.box = list(self.box)
        new.in_round = self.in_round
        new.seats = list(self.seats)
        return new

    # ------------------------------------------------------------ queries
    def card_at(self, slot: Slot) -> Card | None:
        player, number = slot
        row = self.tableaux[player]
        return row[number - 1] if 0 < number <= len(row) else None

    def cards_of(self, player: Player) -> list[Card]:
        return [c for c in self.tableaux[player] if c is not None]

    def occupied_slots(self, player: Player) -> list[Slot]:
        return [(player, i + 1) for i, c in enumerate(self.tableaux[player]) if c is not None]

    def free_slots(self, player: Player) -> list[Slot]:
        return [(player, i + 1) for i, c in enumerate(self.tableaux[player]) if c is None]

    def slot_for_added(self, player: Player, preferred: Slot | None) -> Slot:
        """Where an added card goes: the named free slot, else the lowest free, else a new one."""
        row = self.tableaux[player]
        if preferred is not None and preferred[0] == player and 0 < preferred[1] <= len(row) \
                and row[preferred[1] - 1] is None:
            return preferred
        for i, c in enumerate(row):
            if c is None:
                return (player, i + 1)
        return (player, len(row) + 1)

    def locate(self, card: Card) -> object:
        """Where a card is (slow; for reports and tests, not for play)."""
        for p, row in enumerate(self.tableaux):
            for i, c in enumerate(row):
                if c == card:
                    return (p, i + 1)
        for p, c in enumerate(self.hands):
            if c == card:
                return HandLoc(p)
        for pile, items in ((DRAW, self.draw), (DISCARD, self.discard), (UNDER, self.under)):
            if card in items:
                return pile
        return None

    def all_places(self) -> list[Card]:
        """Every card in play, once per place it occupies (for conservation checks)."""
        out: list[Card] = []
        for row in self.tableaux:
            out.extend(c for c in row if c is not None)
        out.extend(c for c in self.hands if c is not None)
        out.extend(self.draw)
        out.extend(self.discard)
        out.extend(self.under)
        out.extend(self.box)
        return out

    def knows(self, player: Player, card: Card | None) -> bool:
        return card is not None and bool(self.known[card] >> player & 1)
