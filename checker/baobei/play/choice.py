"""How a person names a move at the terminal: a number from a list of the legal moves, or the move typed in
the scenario notation (`pluck target=p2.3 gift=p1.1`), with completion of every word from the legal moves.

The legal moves are those of the player's view (play/view.py): what the list offers, and the words it
uses for the cards, say nothing the player does not know. A kind of move with many legal moves (a double
pluck offers thousands) is chosen argument by argument: first the kind, then each argument from the values
some legal move still has, until few enough are left to list.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..engine.legality import CompiledMove
from ..engine.move import Move
from ..engine.notation import value_text
from .view import PlayerView

# A kind of move with more legal moves than this is chosen argument by argument.
LIST_AT_MOST = 12


@dataclass(frozen=True)
class Option:
    """One numbered line of a list: a whole move, or (move None) a kind or a value to narrow down to."""

    label: str
    move: Move | None = None
    kind: str = ""
    value: tuple[str, Any] | None = None  # an argument's name and value, when narrowing


@dataclass
class Chooser:
    """The legal moves of one player at one moment, from the player's view, and words for them."""

    view: PlayerView
    kinds: list[CompiledMove] = field(init=False)
    _moves: dict[str, list[Move]] = field(init=False, default_factory=dict)
    _texts: list[list[str]] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        eng, st, seat = self.view.engine, self.view.state, self.view.seat
        self.kinds = [cm for cm in eng.candidates(st, seat) if eng.first_legal(st, seat, cm) is not None]

    @property
    def name(self) -> str:
        return self.view.state.names[self.view.seat]

    def moves(self, kind: str) -> list[Move]:
        if kind not in self._moves:
            eng = self.view.engine
            self._moves[kind] = list(eng.moves_of(self.view.state, self.view.seat, eng.moves[kind]))
        return self._moves[kind]

    def _lazy(self, kind: str) -> Iterator[Move]:
        if kind in self._moves:
            return iter(self._moves[kind])
        eng = self.view.engine
        return eng.moves_of(self.view.state, self.view.seat, eng.moves[kind])

    def count(self, kind: str, limit: int) -> int:
        """How many legal moves of the kind, counted up to limit + 1 (a double pluck may have thousands)."""
        return sum(1 for _ in itertools.islice(self._lazy(kind), limit + 1))

    def only(self) -> Move | None:
        """The one legal move, when there is exactly one."""
        if len(self.kinds) != 1 or self.count(self.kinds[0].name, 1) != 1:
            return None
        return self.moves(self.kinds[0].name)[0]

    # ------------------------------------------------------------ words
    def text(self, move: Move) -> str:
        """The move's canonical text without the player's name (the player is the one choosing)."""
        return self.view.engine.describe(self.view.state, move).partition(" ")[2]

    def card_words(self, card: int | None) -> str:
        """A card as the player knows it: its label and value, or ? when the player has not seen it."""
        st = self.view.state
        if card is None:
            return "empty"
        if not st.known[card] >> self.view.seat & 1:
            return "?"
        facts = st.facts
        return f"{facts.label(card)} ({facts.value[card]})"

    def value_words(self, kind: str, value: Any) -> str:
        st = self.view.state
        if value is None:
            return "none (leave it out)"
        text = value_text(st, kind, value)
        if kind in ("slot", "own_slot", "free_slot") and isinstance(value, tuple):
            return f"{text}: {self.card_words(st.tableaux[value[0]][value[1] - 1])}" \
                if value[1] - 1 < len(st.tableaux[value[0]]) else f"{text}: a new slot"
        if kind == "held_card" and isinstance(value, int):
            return self.card_words(value)
        return text

    def move_words(self, move: Move) -> str:
        """The move's text, then the cards its slots and held cards name, as the player knows them."""
        decl = self.view.engine.rules.moves[move.name]
        notes = [self.value_words(p.kind, move.arg(p.name)) for p in decl.params
                 if move.arg(p.name) is not None and p.kind in ("slot", "own_slot", "held_card")]
        return self.text(move) + (f"    ({'; '.join(notes)})" if notes else "")

    def kind_words(self, cm: CompiledMove) -> str:
        decl = cm.decl
        return f"{cm.name}: {decl.text} ({decl.cite})"

    # ------------------------------------------------------------ lists
    def options(self) -> list[Option]:
        """The first list: every legal move of a kind with few, one line for a kind with many."""
        out: list[Option] = []
        for cm in self.kinds:
            n = self.count(cm.name, LIST_AT_MOST)
            if n <= LIST_AT_MOST:
                out += [Option(self.move_words(m), m, cm.name) for m in self.moves(cm.name)]
            else:
                out.append(Option(f"{cm.name} ... (more than {LIST_AT_MOST} moves: choose its arguments one by one)",
                                  None, cm.name))
        return out

    def narrow(self, kind: str, fixed: dict[str, Any]) -> list[Option]:
        """The next list for a kind of move, some of its arguments chosen: the moves left when they are few,
        else the values of the next argument that some legal move has (an argument with one value is taken)."""
        moves = [m for m in self.moves(kind) if all(m.arg(k) == v for k, v in fixed.items())]
        if len(moves) <= LIST_AT_MOST:
            return [Option(self.move_words(m), m, kind) for m in moves]
        for param in self.view.engine.rules.moves[kind].params:
            if param.name in fixed:
                continue
            values = list(dict.fromkeys(m.arg(param.name) for m in moves))
            if len(values) == 1:
                fixed[param.name] = values[0]
                continue
            return [Option(f"{param.name} = {self.value_words(param.kind, v)}", None, kind, (param.name, v))
                    for v in values]
        return [Option(self.move_words(m), m, kind) for m in moves]

    # ------------------------------------------------------------ completion
    def texts(self) -> list[list[str]]:
        """Every legal move's text as words (made once, on the first completion)."""
        if self._texts is None:
            self._texts = [self.text(m).split() for cm in self.kinds for m in self.moves(cm.name)]
        return self._texts

    def complete(self, line: str) -> list[str]:
        """The words that may follow what is typed so far, the last word as begun."""
        *done, current = line.split(" ") if line else [""]
        done = [w for w in done if w]
        if done and done[0] == self.name:
            done = done[1:]
        found = {t[len(done)] for t in self.texts() if t[:len(done)] == done and len(t) > len(done)
                 and t[len(done)].startswith(current)}
        return sorted(found)

