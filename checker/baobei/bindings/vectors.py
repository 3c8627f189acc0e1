"""A player's view of a `baobei.bindings.sequential.Table` as a vector of numbers in [0, 1], for learning
agents (the observation and information-state tensors of the OpenSpiel game, the PettingZoo observations).
Built from the rules as data: species, phases, piles, moves and variables are those the rules declare."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..engine.engine import Engine
from ..engine.state import State
from ..language import syntax as s
from ..language.ruleset import Ruleset
from ..language.walk import walk_stmts
from .sequential import Table


class Encoder:
    """The view of one player as a flat vector in [0, 1], built from the rules as data.

    Per slot of each seat (up to the deck size): empty or none, a face-down card the player does not know,
    or the species of a card it knows, then who knows it. Per pile: its size over the deck size and the
    species of its cards that the player knows; the player's own hand the same way. Then the phase, the
    active player, who is asked, the open window (its reference's species when known, who may call,
    whether its attempt is used), the first waiting ability and its owner, the move being chosen, and every
    variable of the rules: a number squashed into (0, 1) (0 is 0.5; scores can be negative and totals pass
    any fixed bound, so no value is clipped), yes or no, a player one-hot, a set of players one bit per
    seat, a text one-hot over the texts the rules give it."""

    def __init__(self, eng: Engine, players: int) -> None:
        self.n = players
        self.deck = len(eng.facts)
        self.species = list(eng.rules.species)
        self.species_index = {name: i for i, name in enumerate(self.species)}
        self.phases = sorted(eng.phases)
        self.moves = list(eng.rules.moves)
        self.piles = len(eng.pile_names)
        self.variables = list(eng.rules.variables.values())
        k = len(self.species)
        self.cell = 2 + k + self.n  # empty, unknown, species ..., who knows
        self.texts = texts_of(eng.rules)
        self.size = (self.n * self.deck * self.cell + (self.piles + 1) * (1 + k) + len(self.phases)
                     + 3 * self.n + (k + self.n + 1) + (len(self.moves) + self.n) + (len(self.moves) + 1)
                     + sum((self.n if v.per_player else 1) * self._width(v) for v in self.variables))

    def _width(self, v: s.VarDecl) -> int:
        """The entries of one value of the variable (a per-player variable has one value per seat)."""
        if v.type in ("int", "bool"):
            return 1
        if v.type in ("player", "players"):
            return self.n
        if v.type == "str":
            return len(self.texts.get(v.name, ()))
        return 0  # a card or a slot of the rules' state: the tableaux and piles above show the cards

    def encode(self, table: Table, seat: int) -> np.ndarray[Any, np.dtype[np.float32]]:
        out = np.zeros(self.size, np.float32)
        at = self._tableaux(out, table, seat, 0)
        at = self._piles(out, table, seat, at)
        at = self._turn(out, table, at)
        at = self._window(out, table, seat, at)
        at = self._waiting(out, table, at)
        self._variables(out, table, at)
        return out

    def _card(self, out: np.ndarray[Any, Any], at: int, st: State, card: int, seat: int) -> None:
        k = len(self.species)
        if st.known[card] >> seat & 1:
            out[at + 2 + self.species_index[st.facts.species[card]]] = 1
        else:
            out[at + 1] = 1
        for p in range(self.n):
            out[at + 2 + k + p] = st.known[card] >> p & 1

    def _tableaux(self, out: np.ndarray[Any, Any], table: Table, seat: int, at: int) -> int:
        st = table.st
        for p in range(self.n):
            row = st.tableaux[p]
            for i in range(self.deck):
                cell = at + (p * self.deck + i) * self.cell
                card = row[i] if i < len(row) else None
                if card is None:
                    out[cell] = 1
                else:
                    self._card(out, cell, st, card, seat)
        return at + self.n * self.deck * self.cell

    def _piles(self, out: np.ndarray[Any, Any], table: Table, seat: int, at: int) -> int:
        st, k = table.st, len(self.species)
        for cards in [*st.piles, st.hands[seat]]:
            out[at] = len(cards) / self.deck
            for card in cards:
                if st.known[card] >> seat & 1:
                    out[at + 1 + self.species_index[st.facts.species[card]]] += 1 / self.deck
            at += 1 + k
        return at

    def _turn(self, out: np.ndarray[Any, Any], table: Table, at: int) -> int:
        st = table.st
        if st.phase in self.phases:
            out[at + self.phases.index(st.phase)] = 1
        at += len(self.phases)
        out[at + st.active] = 1
        if table.current >= 0:
            out[at + self.n + table.current] = 1
        for p in table.order[table.index + 1:]:
            out[at + 2 * self.n + p] = 1  # asked after the current one
        return at + 3 * self.n

    def _window(self, out: np.ndarray[Any, Any], table: Table, seat: int, at: int) -> int:
        st, k = table.st, len(self.species)
        window = st.window
        if window is not None:
            if st.known[window.ref] >> seat & 1:
                out[at + self.species_index[st.facts.species[window.ref]]] = 1
            for p in range(self.n):
                out[at + k + p] = window.players >> p & 1
            out[at + k + self.n] = float(window.attempts <= 0)
        return at + k + self.n + 1

    def _waiting(self, out: np.ndarray[Any, Any], table: Table, at: int) -> int:
        st, m = table.st, len(self.moves)
        if st.waiting:
            first = st.waiting[0]
            out[at + self.moves.index(first.ability)] = 1
            out[at + m + first.owner] = 1
        at += m + self.n
        if table.partial is not None:
            _, name, prefix = table.partial
            out[at + self.moves.index(name)] = 1
            out[at + m] = len(prefix) / 8
        return at + m + 1

    def _variables(self, out: np.ndarray[Any, Any], table: Table, at: int) -> int:
        st = table.st
        for v in self.variables:
            values = st.pvars.get(v.name) if v.per_player else [st.vars.get(v.name)]
            width = self._width(v)
            for i, value in enumerate(values or []):
                self._value(out, at + i * width, v, value)
            at += (self.n if v.per_player else 1) * width
        return at

    def _value(self, out: np.ndarray[Any, Any], at: int, v: s.VarDecl, value: Any) -> None:
        if v.type in ("int", "bool"):
            out[at] = _number(value)
        elif v.type == "player" and isinstance(value, int) and 0 <= value < self.n:
            out[at + value] = 1
        elif v.type == "players":
            for seat in value or ():
                if 0 <= seat < self.n:
                    out[at + seat] = 1
        elif v.type == "str":
            texts = self.texts.get(v.name, ())
            if value in texts:
                out[at + texts.index(value)] = 1


def texts_of(rules: Ruleset) -> dict[str, tuple[str, ...]]:
    """For each text variable, the texts the rules give it (its initial value and every `set` of a literal),
    in a fixed order: the one-hot positions of its value."""
    bodies = [m.body for m in rules.moves.values()] + [r.body for r in (*rules.routines.values(),
                                                                      *rules.hooks.values())]
    out: dict[str, set[str]] = {}
    for v in rules.variables.values():
        if v.type == "str" and isinstance(v.init, s.Lit) and isinstance(v.init.value, str):
            out.setdefault(v.name, set()).add(v.init.value)
    for body in bodies:
        for stmt in walk_stmts(body):
            if isinstance(stmt, s.SetVar) and isinstance(stmt.value, s.Lit) and isinstance(stmt.value.value, str):
                out.setdefault(stmt.name, set()).add(stmt.value.value)
    texts = {v.name for v in rules.variables.values() if v.type == "str"}  # `set phase = ...` is no variable
    return {name: tuple(sorted(found)) for name, found in out.items() if name in texts}


def _number(value: Any) -> float:
    """A yes or no as 0 or 1; a number squashed into (0, 1), order kept, 0 at the middle."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int):
        return 0.5 + 0.5 * math.tanh(value / 100)
    return 0.0
