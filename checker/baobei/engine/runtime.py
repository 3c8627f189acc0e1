"""What compiled rules run with: the context a compiled block sees, events, and the functions' types."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NoReturn

from ..language import syntax as s
from ..language.errors import EngineError
from .state import State

Fn = Callable[["Ctx"], Any]
Proc = Callable[["Ctx"], None]


class Ctx:
    """What compiled rules see while they run: the state, local names, the event log, the tableaux changed so far."""

    __slots__ = ("before", "blocked", "changed", "env", "log", "marking", "st")
    # Set only while a transition invariant judges a move: the context of the state before the move,
    # sharing this context's names, in which `old(...)` evaluates. Left unset otherwise (no cost).
    before: Ctx

    def __init__(self, st: State, env: dict[str, Any], log: list[Event] | None,
                 changed: set[int] | None = None) -> None:
        self.st = st
        self.env = env
        self.log = log
        self.changed = changed  # None where no move's changes are being recorded (guards, the deal)
        self.marking = 0  # marks every card this rule moves gets (the rules' `on ability moves` marks)
        self.blocked: list[Any] | None = None  # in a trial run: the protections that made a change impossible

    def derive(self, env: dict[str, Any]) -> Ctx:
        ctx = Ctx(self.st, env, self.log, self.changed)
        ctx.marking = self.marking
        ctx.blocked = self.blocked
        return ctx

    # The questions the primitive statements (effects.py) ask while they run, answered here for concrete
    # values; the prover's context (proofs/machine.py) answers them for Z3 terms under a path condition.
    @staticmethod
    def absent(value: Any) -> bool:
        """Whether a value is none (an impossible part of an effect is left out)."""
        return value is None

    @staticmethod
    def same(a: Any, b: Any) -> bool:
        return bool(a == b)

    @staticmethod
    def fail(message: str) -> NoReturn:
        """The rules ask for something impossible (a card covering another): an error of the rules."""
        raise EngineError(message)

    def active(self) -> Any:
        return self.st.active

    def holds(self, fn: Fn, node: s.Expr) -> bool:
        """Whether a compiled condition holds here (`node` is its expression, which the prover reads)."""
        return bool(fn(self))

    def touch(self, place: Any) -> None:
        """Note that a rule changed the tableau this place is a slot of (`on changed`)."""
        changed = self.changed
        if changed is not None and isinstance(place, tuple):
            changed.add(place[0])


# What an event is: a change of cards, windows or turns ("effect"), a card drawn ("draw", a random outcome a
# game log gives), a card shown to everyone ("show": people read several of one player's together), a
# variable given a value ("set": the rules' bookkeeping, shown to people only on request) or words the rules
# say to the players ("say").
EVENT_KINDS = ("effect", "draw", "show", "set", "say")


@dataclass(frozen=True)
class Event:
    """Something that happened, with the rule that made it happen.

    `cards` names the cards the text names, each with who knew it once the event had happened (a bit
    mask of players), so that the text can be told to one player without what that player does not know.
    A card shown names where it lay (`place`, e.g. `p2.3`) and the player it lay with (`owner`, "" for a
    pile), so that a reader can say whose cards were shown.
    """

    rule: str
    cite: s.Citation
    text: str
    kind: str = "effect"
    cards: tuple[tuple[str, int], ...] = ()
    place: str = ""
    owner: str = ""

    def __str__(self) -> str:
        return f"{self.text}  [{self.rule}, {self.cite}]"

    def seen_by(self, player: int | None, text: str | None = None) -> str:
        """The text (or `text`, words about the same cards) as `player` may read it: a card the player did
        not know is only "a card". None reads everything (the dealer)."""
        text = self.text if text is None else text
        for label, knowers in self.cards:
            if player is not None and not knowers >> player & 1:
                text = re.sub(re.escape(label) + r"(?![0-9])", "a card", text)
        return text


@dataclass(frozen=True)
class Origin:
    """The declaration a statement belongs to: named in events and rules errors."""

    rule: str
    cite: s.Citation


def items_of(st: State, value: Any) -> Any:
    """What a quantifier ranges over: a list, or a pile's or hand's cards (bottom to top); none is empty."""
    if value is None:
        return ()
    cards = st.pile_cards(value)
    return list(cards) if cards is not None else value
