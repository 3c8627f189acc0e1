"""The table: players, tableaux of stable numbered slots, piles, hands, knowledge, marks, windows.

Generic: it knows cards by number, players by seat, the piles and marks the rules
declare, and nothing of species. Slots are numbered from 1 per player; an empty slot
holds None and keeps its number. A state serializes to JSON and back (`to_json`,
`State.from_json`), random generator included, so a replay can resume from it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from typing import Any, NamedTuple

from ..language.ruleset import Ruleset

Card = int
Player = int
Slot = tuple[int, int]  # (player, slot number from 1)


@dataclass(frozen=True)
class PileLoc:
    """A declared pile as a place (index in the rules' declaration order)."""

    index: int
    name: str


@dataclass(frozen=True)
class HandLoc:
    """A player's hand: the cards drawn and not yet placed, seen by that player only."""

    player: int


_HANDS: dict[int, HandLoc] = {}
_SEATS: dict[tuple[int, int, int], tuple[Player, ...]] = {}  # the seats_from orders met so far


def hand_of(player: Player) -> HandLoc:
    """A player's hand as a place: one value per player, made once (hands are named on every draw)."""
    try:
        hand = _HANDS.get(player)
    except TypeError:  # not a player at all: a value of its own, as HandLoc gives it
        return HandLoc(player)
    if hand is None:
        hand = _HANDS[player] = HandLoc(player)
    return hand


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
        self.by_label = {self.label(c): c for c in range(len(self.species))}
        self.mark_bits = {name: bit for bit, name in enumerate(rules.marks)}
        self.facts: dict[str, list[Any]] = {"value": self.value, "family": self.family,
                                            "species": self.species, "ability": self.ability}

    def __len__(self) -> int:
        return len(self.species)

    def label(self, card: int | None) -> str:
        if card is None:
            return "nothing"
        return f"{self.species[card]}#{self.ordinal[card]}"


class Window:
    """An open window: a reference card, who may call on it, and the attempts left."""

    __slots__ = ("attempts", "kind", "players", "ref")

    def __init__(self, kind: str, ref: Card, players: int, attempts: int) -> None:
        self.kind = kind
        self.ref = ref
        self.players = players  # bitmask of seats
        self.attempts = attempts

    def copy(self) -> Window:
        return Window(self.kind, self.ref, self.players, self.attempts)


class Waiting:
    """A triggered ability (or a step of one) that its owner must use, with the values it was queued with."""

    __slots__ = ("ability", "after_window", "args", "card", "owner")

    def __init__(self, ability: str, card: Card, owner: Player, args: tuple[Any, ...] = (),
                 after_window: bool = False) -> None:
        self.ability = ability
        self.card = card
        self.owner = owner
        self.args = args
        self.after_window = after_window


class Chance(random.Random):
    """Where a state's random outcomes come from when they are not the engine's own: shuffles and random
    picks (the `random.Random` methods) and which card a draw from a face-down pile gives. A referee
    replaying a game log subclasses it to take each outcome from the log."""

    def before_draw(self, st: State, pile: list[int]) -> None:
        """Called before the top card of a face-down pile is drawn; may arrange which card is on top."""

    def pick(self, items: list[Any], kind: str) -> Any:
        """A random choice of the rules (`pick`), with the kind of the items (player, card, ...)."""
        return self.choice(items)


class Came(NamedTuple):
    """How a card came where it is: the rule (declaration name and citation) whose statement moved it, in
    which round and turn, in what order among the moves of the game, the player whose move it was (None: no
    player's, a deal), and for whom that rule triggered its ability (None: for nobody). `shown`: the rule
    showed the card in its place rather than moving it; `lapsed`: the triggered ability had no legal choice
    and no effect. A tuple, never changed in place: states copied before share it. The effects make one for
    every card moved or shown, in one call (`came`)."""

    rule: str
    cite: Any
    round: int
    turn: int
    stamp: int
    actor: Player | None = None
    triggered_for: Player | None = None
    shown: bool = False
    lapsed: bool = False

    def but(self, **changes: Any) -> Came:
        return self._replace(**changes)


came = tuple.__new__  # came(Came, (rule, cite, round, turn, stamp, actor, triggered_for, shown, lapsed))


class State:
    """Mutable game state; `copy()` gives an independent state (cheap: flat lists)."""

    __slots__ = ("_rng", "_rng_state", "active", "box", "came", "facts", "hands", "in_round", "known", "marks",
                 "names",
                 "phase", "piles", "protected", "pvars", "round", "seats", "tableaux", "turn", "vars", "waiting",
                 "windows")

    def __init__(self, names: list[str], facts: CardFacts, piles: list[PileLoc], seed: int | None) -> None:
        self._blank(names, facts, piles)
        # The random generator (shuffles, random picks), or its saved state: a copy shares the saved state
        # and makes a generator of its own only when it uses one, since most states never do.
        self._rng: random.Random | None = random.Random(seed)
        self._rng_state: tuple[Any, ...] | None = None

    def _blank(self, names: list[str], facts: CardFacts, piles: list[PileLoc]) -> None:
        """Every part but the random generator: empty tableaux, hands and piles, every card in the box."""
        n_cards = len(facts)
        self.names = names
        self.facts = facts
        self.tableaux: list[list[Card | None]] = [[] for _ in names]
        self.piles: list[list[Card]] = [[] for _ in piles]  # per declared pile; the top is the end of the list
        self.hands: list[list[Card]] = [[] for _ in names]
        self.active: Player = 0
        self.phase = ""
        self.round = 0
        self.turn = 0
        self.vars: dict[str, Any] = {}
        self.pvars: dict[str, list[Any]] = {}
        self.windows: list[Window] = []
        self.waiting: list[Waiting] = []
        self.known: list[int] = [0] * n_cards  # per card: bitmask of players who know it
        self.marks: list[int] = [0] * n_cards  # per card: bitmask of the declared marks it carries
        # Per card, how it came where it is (None: dealt or built so): the rule that moved it last. Not part
        # of the game: a refusal reads it to say why a card's ability did not start.
        self.came: list[Came | None] = [None] * n_cards
        self.box: list[Card] = list(range(n_cards))  # cards out of play (not dealt in a scenario)
        self.in_round = (1 << len(names)) - 1  # bit mask of the seats taking part in this round
        self.seats = list(range(len(names)))  # the same seats as a list, in seating order
        # Bit mask of the tableaux the rules' protections hold now, against every player but the owner.
        # The engine refreshes it after every completed action, so an action under way is never cut off.
        self.protected = 0

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

    @property
    def rng(self) -> random.Random:
        """The state's random generator: every shuffle and random pick draws from it."""
        rng = self._rng
        if rng is None:
            saved = self._rng_state
            assert saved is not None, "a snapshot has no random generator: play on a copy"
            rng = self._rng = random.Random.__new__(random.Random)
            rng.setstate(saved)
            self._rng_state = None
        return rng

    def chance(self) -> Chance | None:
        """The Chance in use, if random outcomes come from elsewhere; reading it leaves a saved generator
        asleep (waking one for nothing makes every later copy pay for its state)."""
        rng = self._rng
        return rng if isinstance(rng, Chance) else None

    def random_choice(self, items: list[Any], kind: str) -> Any:
        """A random item (`pick`): from the generator, or from the Chance in use (a game log's outcome)."""
        rng = self.rng
        if isinstance(rng, Chance):
            return rng.pick(items, kind)
        return rng.choice(items)

    def use_chance(self, chance: Chance) -> None:
        """Take the random outcomes from here from now on (a copy of the state goes back to a generator)."""
        self._rng, self._rng_state = chance, None

    def rng_state(self) -> tuple[Any, ...]:
        """The generator's state, as `random.Random.getstate` gives it (a tuple, never changed in place)."""
        if self._rng is not None:
            return self._rng.getstate()  # a generator in use is read each time: it may have moved on
        assert self._rng_state is not None, "a snapshot has no random generator: play on a copy"
        return self._rng_state

    @property
    def window(self) -> Window | None:
        """The newest open window."""
        return self.windows[-1] if self.windows else None

    def copy(self) -> State:
        new = self.snapshot()
        new._rng, new._rng_state = None, self.rng_state()
        return new

    def snapshot(self) -> State:
        """A copy to read, not to play on: without the random generator, whose state is most of the cost of
        a copy (the state before a move, say, for the invariants that compare it with the state after)."""
        new = State.__new__(State)
        new.names = self.names
        new.facts = self.facts
        new.tableaux = [list(t) for t in self.tableaux]
        new.piles = [list(p) for p in self.piles]
        new.hands = [list(h) for h in self.hands]
        new.active = self.active
        new.phase = self.phase
        new.round = self.round
        new.turn = self.turn
        new.vars = dict(self.vars)
        new.pvars = {k: list(v) for k, v in self.pvars.items()}
        new.windows = [w.copy() for w in self.windows]
        new.waiting = list(self.waiting)  # entries are never changed in place
        new.known = list(self.known)
        new.marks = list(self.marks)
        new.came = list(self.came)
        new._rng = new._rng_state = None
        new.box = list(self.box)
        new.in_round = self.in_round
        new.seats = list(self.seats)
        new.protected = self.protected
        return new

    # ------------------------------------------------------------ queries (the builtins' Table protocol)
    def card_at(self, slot: Slot) -> Card | None:
        player, number = slot
        row = self.tableaux[player]
        return row[number - 1] if 0 < number <= len(row) else None

    def cards_of(self, player: Player) -> list[Card]:
        row = self.tableaux[player]
        if None in row:
            return [c for c in row if c is not None]
        return row[:]  # type: ignore[return-value]  # no free slot: a copy is quicker than a filter (no cast call)

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
        if None in row:
            return (player, row.index(None) + 1)
        return (player, len(row) + 1)

    def pile_cards(self, place: Any) -> list[Card] | None:
        """The cards of a pile or a hand (bottom first); None for anything that is not such a place."""
        if place.__class__ is list:
            return None  # the most frequent question, from a list of values
        if isinstance(place, PileLoc):
            return self.piles[place.index]
        if isinstance(place, HandLoc):
            return self.hands[place.player]
        return None

    def hand_place(self, player: Player) -> HandLoc:
        return hand_of(player)

    def hand_cards(self, player: Player) -> list[Card]:
        return list(self.hands[player])

    def knows(self, player: Player, card: Card | None) -> bool:
        return card is not None and bool(self.known[card] >> player & 1)

    def seats_from(self, player: Player) -> list[Player]:
        """The seats of this round in seating order, starting at p (or at the next seat of the round after p)."""
        n, in_round = len(self.names), self.in_round
        start = player % n  # (player + i) % n for i = 0, 1, ... counts start, start + 1, ..., n - 1, 0, ...
        key = (n, in_round, start)
        seats = _SEATS.get(key)
        if seats is None:  # a few dozen orders at most: each is worked out once
            seats = _SEATS[key] = tuple(q for q in chain(range(start, n), range(start)) if in_round >> q & 1)
        return list(seats)

    def deck(self) -> list[Card]:
        return list(range(len(self.known)))

    def card_fact(self, card: Card, fact: str) -> Any:
        return self.facts.facts[fact][card]

    def is_marked(self, card: Card, mark: str) -> bool:
        return bool(self.marks[card] >> self.facts.mark_bits[mark] & 1)

    def is_protected(self, player: Player) -> bool:
        return bool(self.protected >> player & 1)

    def waiting_count(self) -> int:
        return len(self.waiting)

    def window_value(self, attr: str) -> Any:
        windows = self.windows
        if not windows:
            return False if attr == "used" else [] if attr == "players" else None
        w = windows[-1]
        if attr == "ref":  # read by every pluck's guards: asked first, without getattr
            return w.ref
        if attr == "used":
            return w.attempts <= 0
        if attr == "players":
            return [p for p in range(len(self.names)) if w.players >> p & 1]
        return getattr(w, attr)

    def count_places(self, card: Card) -> int:
        """How many places hold the card: 1 whenever the rules kept every card in exactly one place."""
        return sum(items.count(card) for items in self._places())

    def place_counts(self) -> Counter[Card | None]:
        """`count_places` of every card at once, counted in one pass (a card in no place is missing)."""
        return Counter(chain.from_iterable(self._places()))

    def _places(self) -> Iterator[list[Card] | list[Card | None]]:
        """Every place that holds cards: the slots of each tableau, the hands, the piles and the box."""
        yield from self.tableaux
        yield from self.hands
        yield from self.piles
        yield self.box

    def locate(self, card: Card) -> object:
        """Where a card is: a slot, a hand, a pile, or None for the box (for reports, not for play)."""
        for p, row in enumerate(self.tableaux):
            if card in row:
                return (p, row.index(card) + 1)
        for p, hand in enumerate(self.hands):
            if card in hand:
                return hand_of(p)
        for i, pile in enumerate(self.piles):
            if card in pile:
                return i
        return None

    # ------------------------------------------------------------ JSON
    def to_json(self, rng: bool = True) -> dict[str, Any]:
        """Every part of the state as JSON values (slots as [player, number] lists); without `rng`, all but the
        random generator (a player's view carries a generator of its own)."""
        data: dict[str, Any] = {
            "names": self.names, "tableaux": self.tableaux, "piles": self.piles, "hands": self.hands,
            "active": self.active, "phase": self.phase, "round": self.round, "turn": self.turn,
            "vars": {k: _jsonable(v) for k, v in self.vars.items()},
            "pvars": {k: [_jsonable(v) for v in vs] for k, vs in self.pvars.items()},
            "windows": [[w.kind, w.ref, w.players, w.attempts] for w in self.windows],
            "waiting": [[w.ability, w.card, w.owner, [_jsonable(a) for a in w.args], w.after_window]
                        for w in self.waiting],
            "known": self.known, "marks": self.marks, "box": self.box,
            "in_round": self.in_round, "protected": self.protected,
        }
        if rng:
            version, internal, gauss = self.rng_state()
            data["rng"] = [version, list(internal), gauss]
        return data

    @staticmethod
    def from_json(data: dict[str, Any], facts: CardFacts, piles: list[PileLoc]) -> State:
        """The state `to_json` wrote (slots come back as tuples)."""
        version, internal, gauss = data["rng"]
        st = State.saved(list(data["names"]), facts, piles, (version, tuple(internal), gauss))
        st.tableaux = [list(row) for row in data["tableaux"]]
        st.piles = [list(p) for p in data["piles"]]
        st.hands = [list(h) for h in data["hands"]]
        st.active, st.phase, st.round, st.turn = data["active"], data["phase"], data["round"], data["turn"]
        st.vars = {k: _restore(v) for k, v in data["vars"].items()}
        st.pvars = {k: [_restore(v) for v in vs] for k, vs in data["pvars"].items()}
        st.windows = [Window(*w) for w in data["windows"]]
        st.waiting = [Waiting(a, c, o, tuple(_restore(x) for x in args), after)
                      for a, c, o, args, after in data["waiting"]]
        st.known, st.marks, st.box = list(data["known"]), list(data["marks"]), list(data["box"])
        st.seat_round([p for p in range(len(st.names)) if data["in_round"] >> p & 1])
        st.protected = data["protected"]
        return st

    @staticmethod
    def saved(names: list[str], facts: CardFacts, piles: list[PileLoc], rng_state: tuple[Any, ...]) -> State:
        """A state with every card in the box and the saved generator `rng_state` (as `random.Random.getstate`
        gives it, shared: never changed in place), for a state built part by part (`from_json`, a player's
        view): no generator is seeded, from the system, only to be replaced."""
        st = State.__new__(State)
        st._blank(names, facts, piles)
        st._rng, st._rng_state = None, rng_state
        return st


def round_trip(value: Any) -> Any:
    """A variable's value as it comes back from the JSON form (`from_json` of `to_json`): a copy."""
    if value is None or value.__class__ in _ATOMS:
        return value  # most values: a number, a flag, a word (a player's view copies every one of them)
    return _restore(_jsonable(value))


_ATOMS = (int, bool, str)


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return {"slot": list(value)}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


def _restore(value: Any) -> Any:
    if isinstance(value, dict) and "slot" in value:
        return tuple(value["slot"])
    if isinstance(value, list):
        return [_restore(v) for v in value]
    return value
