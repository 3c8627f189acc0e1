"""Random outcomes taken from a game log: draws, shuffles and random picks.

The implementation's shuffles are not ours, so the referee never shuffles: each outcome the log
names is checked to be possible and then used. A card of a face-down pile nobody can follow may
be any of them, so making the logged card the drawn one is exchanging it with the top card; a
shuffle's logged order must be exactly the cards shuffled; a pick must be one of the choices.

Exchanging two cards (`exchange`) swaps everything that belongs to the place a card lies on:
who knows it and its marks stay with the place. It is the referee's only way to make its state
agree with the log, and it is used only between cards that nobody the log speaks for can tell
apart: for a full log, face-down cards of the draw pile that nobody knows; for a player's view,
any card that player does not know.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any

from ..engine.runtime import Event
from ..engine.state import Chance, State, Waiting
from ..language.errors import BaoError
from ..language.ruleset import Ruleset


class OutcomeError(BaoError):
    """A random outcome of the log that the state does not allow (the card is not in the pile, ...)."""


class MissingDraw(OutcomeError):
    """A draw of the move that the log does not name; `number` counts the move's draws from 1."""

    def __init__(self, number: int) -> None:
        super().__init__(f"the move draws a card (draw {number}) that the log does not name; list every draw of "
                         "the move in `draws` (null for a card not seen)")
        self.number = number


class MissingPick(OutcomeError):
    """A random pick of the rules that the log does not name: what was picked from (`choices`, as a log
    names them) and the kind of item, so that the message can say what the log should have given."""

    def __init__(self, kind: str, choices: list[str]) -> None:
        super().__init__(f"the rules pick a {kind} at random here ({some_of(choices)}), but the log names no pick: "
                         "give it in the line's `picks` (a new round's may be given in its `dealt.picks`)")
        self.kind = kind
        self.choices = choices


SHOWN_CHOICES = 6  # the choices of a pick a message lists (a card's pick may choose among dozens)


def some_of(choices: list[str]) -> str:
    """The first few choices of a pick, and how many more there are."""
    shown = ", ".join(choices[:SHOWN_CHOICES])
    return f"one of {shown}" + (f" and {len(choices) - SHOWN_CHOICES} more" if len(choices) > SHOWN_CHOICES else "")


def matches(st: State, card: int, wanted: str) -> bool:
    """Whether the card is the one the log names: by label (`Species#3`) or by its species alone."""
    return st.facts.label(card) == wanted or st.facts.species[card] == wanted


def unknown_card(st: State, wanted: str) -> str | None:
    """Why a name the log gives a card names none of the deck (a species of other rules, a misspelling, a
    number beyond the species' count), or None when some card has it."""
    if any(matches(st, c, wanted) for c in range(len(st.known))):
        return None
    species = list(dict.fromkeys(st.facts.species))
    return f"{wanted} is no card of these rules (a card is named by its species, such as {species[0]}, or by its " \
        f"label, such as {st.facts.label(0)}; the species are {', '.join(species)})"


def free_cards(state: Callable[[], State], viewer: int | None, draw_pile: int) -> Callable[[int], bool]:
    """Which cards a logged draw may be exchanged with: nobody the log speaks for can tell them apart. For
    a player's view, any card that player does not know; for a full log, the draw pile's cards nobody knows.
    `state` gives the state the chance works on now (the referee replaces it when it undoes a line)."""
    if viewer is not None:
        seat = viewer
        return lambda c: not state().known[c] >> seat & 1
    return lambda c: state().known[c] == 0 and c in state().piles[draw_pile]


def card_vars(rules: Ruleset) -> list[str]:
    """The rules' variables that hold cards: an exchange of two cards updates them too."""
    return [v.name for v in rules.variables.values() if v.type in ("card", "cards")]


def exchange(st: State, a: int, b: int, names: Iterable[str]) -> None:
    """Swap cards a and b everywhere: their places, and what belongs to a place (who knows the card
    there, its marks, a window on it, an ability waiting on it, a variable naming it)."""
    if a == b:
        return

    def swap(value: Any) -> Any:
        return b if value == a else a if value == b else value

    containers: list[MutableSequence[Any]] = [*st.tableaux, *st.piles, *st.hands, st.box]
    for items in containers:
        for i, value in enumerate(items):
            if value in (a, b):
                items[i] = swap(value)
    st.known[a], st.known[b] = st.known[b], st.known[a]
    st.marks[a], st.marks[b] = st.marks[b], st.marks[a]
    st.came[a], st.came[b] = st.came[b], st.came[a]  # how a card came to its place belongs to the place
    for window in st.windows:
        window.ref = swap(window.ref)
    st.waiting = [Waiting(w.ability, swap(w.card), w.owner, w.args, w.after_window) for w in st.waiting]
    for name in names:
        if name in st.vars:
            st.vars[name] = _swapped(st.vars[name], swap)
        if name in st.pvars:
            st.pvars[name] = [_swapped(v, swap) for v in st.pvars[name]]


def _swapped(value: Any, swap: Callable[[Any], Any]) -> Any:
    if isinstance(value, (list, tuple)):
        return type(value)(swap(v) for v in value)
    return swap(value)


def pick_text(st: State, item: Any, kind: str) -> str:
    """How a log names a random pick: a player by name, a card by label, anything else by its value."""
    if kind == "player" and isinstance(item, int):
        return st.names[item]
    if kind == "card" and isinstance(item, int):
        return st.facts.label(item)
    return str(item)


class LoggedChance(Chance):
    """The random outcomes of one logged move, in the order the move produces them.

    `free(card)` says which cards may be exchanged to make a logged draw come true (see the module).
    Outcomes the move did not use are reported by `leftovers` after it."""

    def __init__(self, st: State, rules: Ruleset, free: Callable[[int], bool]) -> None:
        super().__init__(0)
        self.st = st
        self.free = free
        self.card_vars = card_vars(rules)
        self.draws: deque[str | None] = deque()
        self.shuffles: deque[list[str]] = deque()
        self.picks: deque[str] = deque()
        self.deal_picks: deque[str] = deque()  # a new round's picks as its `dealt` gives them
        self.drawn = 0
        self.named: list[tuple[str, int]] = []  # the draws the log names, with the card each gave
        # Whether the draw pile's order is known (a logged shuffle, a table's draw line): its draws are then
        # its top cards, in order; otherwise any card nobody can follow may be the top one.
        self.ordered = False
        self.draw_index: int | None = None  # which of the state's piles draws come from
        # The round the logged move began in: a draw in a newer round is part of its deal, which the log
        # gives as a whole (`deal`), not draw by draw.
        self.round = st.round

    def expect(self, draws: Sequence[str | None], shuffles: Sequence[list[str]], picks: Sequence[str],
               deal_picks: Sequence[str] = ()) -> None:
        """The outcomes of the next logged move: `deal_picks` are those of a round it deals, when the log
        gives them with the deal (`dealt.picks`) rather than with the move (`picks`)."""
        self.draws, self.shuffles, self.picks = deque(draws), deque(shuffles), deque(picks)
        self.deal_picks = deque(deal_picks)
        self.drawn = 0
        self.named = []

    def leftovers(self) -> str | None:
        picks = len(self.picks) + len(self.deal_picks)
        unused = [(len(self.draws), "draw"), (len(self.shuffles), "shuffle"), (picks, "pick")]
        named = [f"{n} {what}{'' if n == 1 else 's'}" for n, what in unused if n]
        if not named:
            return None
        drew = f" (it drew {self.drawn} card{'' if self.drawn == 1 else 's'})" if self.draws else ""
        return f"the log names {', '.join(named)} more than the move made{drew}"

    # ------------------------------------------------------------ draws
    def before_draw(self, st: State, pile: list[int]) -> None:
        if st.round != self.round:
            return
        self.drawn += 1
        if not self.draws:
            self.missing_draw()
            return
        wanted = self.draws.popleft()
        if wanted is None:
            return
        if not matches(st, pile[-1], wanted):
            self._bring_to_top(st, pile, wanted)
        self.named.append((wanted, pile[-1]))

    def _bring_to_top(self, st: State, pile: list[int], wanted: str) -> None:
        unknown = unknown_card(st, wanted)  # asked only here: a draw that matches the top names a card
        if unknown is not None:
            raise OutcomeError(f"the log says the draw gave {wanted}, but {unknown}")
        top = pile[-1]
        if self.ordered:
            raise OutcomeError(f"the log says the draw gave {wanted}, but the draw pile's order is known (the log's "
                               f"deal, shuffle or table) and its top card is {st.facts.label(top)}")
        if not self.free(top):
            raise OutcomeError(f"the log says the draw gave {wanted}, but the top card of the draw pile is known "
                               f"to be {st.facts.label(top)}")
        found = self._candidate(st, pile, wanted)
        if found is None:
            raise OutcomeError(f"the log says the draw gave {wanted}, but no {wanted} can be in the draw pile "
                               f"({len(pile)} cards there)")
        exchange(st, top, found, self.card_vars)

    def _candidate(self, st: State, pile: list[int], wanted: str) -> int | None:
        exact = st.facts.by_label.get(wanted)
        if exact is not None:  # a label names one card: no search (a log written by `play --log`)
            return exact if self.free(exact) and exact not in st.box else None
        in_pile = [c for c in pile if matches(st, c, wanted) and self.free(c)]
        if in_pile:
            return in_pile[-1]
        anywhere = [c for c in range(len(st.known)) if matches(st, c, wanted) and self.free(c) and c not in st.box]
        return anywhere[-1] if anywhere else None

    def missing_draw(self) -> None:
        """A draw the log does not name: an error of the log (a rehearsal notes it instead)."""
        raise MissingDraw(self.drawn)

    def saved(self) -> SavedOutcomes:
        """The outcomes not used yet, and how draws are judged now: what a rehearsal of the move starts from."""
        return SavedOutcomes(tuple(self.draws), tuple(self.shuffles), tuple(self.picks), tuple(self.deal_picks),
                             self.drawn, self.ordered, self.round, self.draw_index)

    def restore(self, saved: SavedOutcomes) -> None:
        self.draws, self.shuffles = deque(saved.draws), deque(saved.shuffles)
        self.picks, self.deal_picks = deque(saved.picks), deque(saved.deal_picks)
        self.drawn, self.ordered, self.round = saved.drawn, saved.ordered, saved.round
        self.draw_index = saved.draw_index

    # ------------------------------------------------------------ shuffles and picks
    def shuffle(self, x: MutableSequence[Any], random: Any = None) -> None:
        is_draw_pile = self.draw_index is not None and x is self.st.piles[self.draw_index]
        if not self.shuffles:
            if is_draw_pile:
                self.ordered = False  # any order: every draw from the pile is named by the log
            return
        order = self.shuffles.popleft()
        if is_draw_pile:
            self.ordered = True
        rest = list(x)
        ordered: list[int] = []
        for wanted in order:
            card = next((c for c in rest if self.st.facts.label(c) == wanted), None)
            if card is None:
                card = next((c for c in rest if matches(self.st, c, wanted)), None)
            if card is None:
                raise OutcomeError(f"the log's shuffled pile names {wanted}, which is not among the "
                                   f"{len(x)} cards shuffled")
            rest.remove(card)
            ordered.append(card)
        if rest:
            raise OutcomeError(f"the log's shuffled pile leaves out {len(rest)} of the {len(x)} cards shuffled")
        x[:] = list(reversed(ordered))  # the log lists the top first; a pile's top is its end

    def pick(self, items: list[Any], kind: str) -> Any:
        # A pick made in a round the move deals (the starting player) is the deal's: from `dealt.picks`
        # when the log gives it there, else from the line's picks in their order.
        picks = self.deal_picks if self.st.round != self.round and self.deal_picks else self.picks
        if not picks:
            raise MissingPick(kind, [pick_text(self.st, item, kind) for item in items])
        wanted = picks.popleft()
        for item in items:
            if pick_text(self.st, item, kind) == wanted or (kind == "card" and matches(self.st, item, wanted)):
                return item
        raise OutcomeError(f"the log picks {wanted!r}, which is not one of the {len(items)} choices")



@dataclass(frozen=True)
class SavedOutcomes:
    """A LoggedChance's outcomes not used yet and its way of judging draws, at one moment (see `saved`)."""

    draws: tuple[str | None, ...]
    shuffles: tuple[list[str], ...]
    picks: tuple[str, ...]
    deal_picks: tuple[str, ...]
    drawn: int
    ordered: bool
    round: int
    draw_index: int | None


class Rehearsal(LoggedChance):
    """The outcomes of a move the referee refused for a draw the log leaves out, used again on a copy of the
    state to find which rule makes that draw: there the draw takes the top card, and `missing_at` notes how
    many events the move had logged before it (`events`, the list the rehearsed move logs into)."""

    def __init__(self, st: State, rules: Ruleset, free: Callable[[int], bool], events: list[Event]) -> None:
        super().__init__(st, rules, free)
        self.events = events
        self.missing_at: int | None = None

    def missing_draw(self) -> None:
        if self.missing_at is None:
            self.missing_at = len(self.events)
