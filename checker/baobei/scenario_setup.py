"""Build a scenario's table and moves: players, cards by slot, piles, knowledge, variables.

Scenario text names species and players; this module turns them into the engine's
card numbers, seats and slots, with a positioned ScenarioError for anything unknown.
"""

from __future__ import annotations

from typing import Any

from . import scenario_syntax as sc
from .engine import SLOT_KINDS, Engine, Move
from .errors import BaoError, ScenarioError
from .state import State
from .syntax import Pos


class CardPool:
    """Hands out the deck's cards of a species in deck order, refusing more than the deck has."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        self.free: dict[str, list[int]] = {}
        for card, species in enumerate(eng.facts.species):
            self.free.setdefault(species, []).append(card)

    def take(self, species: str, pos: Pos) -> int:
        if species not in self.free:
            raise ScenarioError(pos, f"unknown species {species!r}; the deck has: {', '.join(self.free)}")
        if not self.free[species]:
            count = self.eng.rules.species[species].count
            raise ScenarioError(pos, f"more {species} than the deck has ({count})")
        return self.free[species].pop(0)

    def rest(self) -> list[int]:
        return sorted(c for cards in self.free.values() for c in cards)


def player_index(st: State, name: str, pos: Pos) -> int:
    if name not in st.names:
        raise ScenarioError(pos, f"unknown player {name!r}; the players are: {', '.join(st.names)}")
    return st.names.index(name)


def check_phase(eng: Engine, phase: str, pos: Pos) -> None:
    if phase not in eng.phases:
        raise ScenarioError(pos, f"unknown phase {phase!r}; the rules use: {', '.join(sorted(eng.phases))}")


# The name under which the rules declare the phase a turn begins in (a contract, like the hooks).
TURN_START = "turn_start_phase"


def table_phase(eng: Engine, st: State, table: sc.Table) -> str:
    """The table's phase as written, else the phase in which the rules begin a turn."""
    if table.phase is not None:
        check_phase(eng, table.phase, table.pos)
        return table.phase
    if TURN_START not in eng.rules.defines:
        raise ScenarioError(table.pos, f"the table names no phase and the rules define no {TURN_START}")
    return str(eng.define_value(st, TURN_START))


def build_table(eng: Engine, table: sc.Table) -> State:
    if not table.players:
        raise ScenarioError(table.pos, "the table names no players (players NAME NAME ...)")
    try:
        st = eng.blank_state(list(table.players), table.seed)
    except BaoError as err:
        raise ScenarioError(table.pos, str(err)) from None
    st.round, st.turn, st.phase = 1, 1, table_phase(eng, st, table)
    pool = CardPool(eng)
    _place_cards(eng, st, table, pool)
    st.box = pool.rest()
    if table.among is not None:
        names, pos = table.among
        st.seat_round([player_index(st, name, pos) for name in names])
        _check_seated(st, table)
    st.active = player_index(st, table.active[0], table.active[1]) if table.active else st.seats[0]
    for name, places, pos in table.knows:
        p = player_index(st, name, pos)
        for place in places:
            st.known[card_at_place(st, place)] |= 1 << p
    for name, index, value, pos in table.sets:
        set_variable(eng, st, name, index, value, pos)
    return st


def _place_cards(eng: Engine, st: State, table: sc.Table, pool: CardPool) -> None:
    for name, cards, pos in table.tableaux:
        p = player_index(st, name, pos)
        if st.tableaux[p]:
            raise ScenarioError(pos, f"{name}'s tableau is given twice")
        st.tableaux[p] = [None if s is None else pool.take(s, pos) for s in cards]
    for pile, cards, pos in table.piles:
        ids = [pool.take(s, pos) for s in cards if s is not None]
        if pile == "draw":
            st.draw = list(reversed(ids))  # written top first; the list's end is the top
        elif pile == "discard":
            st.discard = ids
        else:
            st.under = ids
        if f"{pile}_pile" in eng.rules.face_up:
            for c in ids:
                st.known[c] = st.everyone
    for name, species, pos in table.holds:
        p = player_index(st, name, pos)
        card = pool.take(species, pos)
        st.hands[p] = card
        st.known[card] |= 1 << p


def _check_seated(st: State, table: sc.Table) -> None:
    """Only the players of the round hold cards or act in it (a deal among them gathers every card)."""
    for name, cards, pos in table.tableaux:
        if not st.in_round >> player_index(st, name, pos) & 1 and any(c is not None for c in cards):
            raise ScenarioError(pos, f"{name} is not in this round (`among`) and can hold no cards")
    for name, _, pos in table.holds:
        if not st.in_round >> player_index(st, name, pos) & 1:
            raise ScenarioError(pos, f"{name} is not in this round (`among`) and can hold no card")
    if table.active is not None and not st.in_round >> player_index(st, *table.active) & 1:
        raise ScenarioError(table.active[1], f"{table.active[0]} is not in this round (`among`)")


def card_at_place(st: State, place: sc.Place) -> int:
    p = player_index(st, place.player, place.pos)
    card = st.card_at((p, place.slot))
    if card is None:
        raise ScenarioError(place.pos, f"{place} holds no card")
    return card


def convert(eng: Engine, st: State, value: sc.Value, vtype: str) -> Any:
    """A scenario literal as the engine's value of the given type."""
    if value.kind == "none":
        return None
    if vtype in SLOT_KINDS or vtype == "slot":
        if value.kind != "slot":
            raise ScenarioError(value.pos, f"expected a slot like alice.2, found {value}")
        place = value.data
        return (player_index(st, place.player, place.pos), place.slot)
    if vtype == "player":
        if value.kind != "name":
            raise ScenarioError(value.pos, f"expected a player name, found {value}")
        return player_index(st, value.data, value.pos)
    if vtype == "bool":
        if value.kind != "bool":
            raise ScenarioError(value.pos, f"expected true or false, found {value}")
        return value.data
    if vtype == "int":
        if value.kind != "int":
            raise ScenarioError(value.pos, f"expected a number, found {value}")
        return value.data
    if vtype == "card":
        # A species names no single card: a card value comes only from play.
        raise ScenarioError(value.pos, f"a card cannot be written in a scenario (found {value}); only none")
    if vtype in ("players", "cards"):
        if value.kind != "list":
            raise ScenarioError(value.pos, f"expected a list like [alice, bob], found {value}")
        return [convert(eng, st, item, vtype[:-1]) for item in value.data]
    if value.kind == "slot":
        place = value.data
        return (player_index(st, place.player, place.pos), place.slot)
    return value.data


def set_variable(eng: Engine, st: State, name: str, index: str | None, value: sc.Value, pos: Pos) -> None:
    var = eng.rules.variables.get(name)
    if var is None:
        raise ScenarioError(pos, f"unknown variable {name!r}; the rules declare: {', '.join(eng.rules.variables)}")
    if var.per_player != (index is not None):
        shape = f"per player: write {name}[player]" if var.per_player else "a single value"
        raise ScenarioError(pos, f"{name!r} is {shape}")
    converted = convert(eng, st, value, var.type)
    if index is not None:
        st.pvars[name][player_index(st, index, pos)] = converted
    else:
        st.vars[name] = converted


# ---------------------------------------------------------------- moves


def to_move(eng: Engine, st: State, player: str, name: str,
            args: tuple[tuple[str | None, sc.Value], ...], pos: Pos) -> Move:
    p = player_index(st, player, pos)
    cm = eng.moves.get(name)
    if cm is None:
        raise ScenarioError(pos, f"unknown move {name!r}; the rules define: {', '.join(eng.moves)}")
    params = list(cm.decl.params)
    values: dict[str, Any] = {}
    for i, (key, value) in enumerate(args):
        if key is None:
            if i >= len(params):
                raise ScenarioError(value.pos, f"{name} takes {len(params)} argument(s)")
            key = params[i].name
        param = next((q for q in params if q.name == key), None)
        if key in values:
            raise ScenarioError(value.pos, f"argument {key!r} of {name} is given twice")
        if param is None:
            raise ScenarioError(value.pos, f"{name} has no argument {key!r}; it takes: "
                                f"{', '.join(q.name for q in params) or 'none'}")
        values[key] = convert(eng, st, value, param.kind)
    return Move(p, name, tuple((q.name, values.get(q.name)) for q in params))
