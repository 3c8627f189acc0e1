"""Build a scenario's table and moves: players, cards by slot, piles, knowledge, variables.

Scenario text names species, players and piles; this module turns them into the engine's
card numbers, seats, slots and places, with a positioned ScenarioError for anything unknown.
A pile is named as the rules declare it (`draw_pile`) or without its `_pile` ending (`draw`).
"""

from __future__ import annotations

from typing import Any

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.notation import Literal, NotationError, build_move
from ..engine.state import State, Waiting, Window
from ..language.errors import BaoError, ScenarioError
from ..language.source import Pos
from . import syntax as sc

# The name under which the rules declare the phase a turn begins in (a contract, like the hooks).
TURN_START = "turn_start_phase"
# The pile a table writes top first (its line and its positions: `draw 1` is the top); every other pile is
# written bottom first (`discard 1` is the bottom, the last card of its line the top).
TOP_FIRST = "draw_pile"
# A table is the first turn of the first round unless its `round` and `turn` lines say otherwise.
TABLE_ROUND, TABLE_TURN = 1, 1


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


def pile_index(eng: Engine, name: str) -> int | None:
    """The declared pile a scenario names, by its full name or without `_pile`."""
    for candidate in (name, f"{name}_pile"):
        if candidate in eng.pile_index:
            return eng.pile_index[candidate]
    return None


def known_pile(eng: Engine, name: str, pos: Pos) -> int:
    index = pile_index(eng, name)
    if index is None:
        raise ScenarioError(pos, f"unknown pile {name!r}; the rules declare: {', '.join(eng.pile_names)}")
    return index


def check_phase(eng: Engine, phase: str, pos: Pos) -> None:
    if phase not in eng.phases:
        raise ScenarioError(pos, f"unknown phase {phase!r}; the rules declare: {', '.join(eng.rules.phase_names)}")


def table_phase(eng: Engine, st: State, table: sc.Table) -> str:
    """The table's phase as written, else the phase in which the rules begin a turn."""
    if table.phase is not None:
        check_phase(eng, table.phase, table.phase_pos or table.pos)
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
    st.round = table.round[0] if table.round is not None else TABLE_ROUND
    st.turn = table.turn[0] if table.turn is not None else TABLE_TURN
    st.phase = table_phase(eng, st, table)
    pool = CardPool(eng)
    _place_cards(eng, st, table, pool)
    st.box = pool.rest()
    if table.among is not None:
        names, pos = table.among
        st.seat_round([player_index(st, name, pos) for name in names])
        _check_seated(st, table)
    st.active = player_index(st, table.active[0], table.active[1]) if table.active else st.seats[0]
    for name, refs, pos, knows in table.knows:
        bit = 1 << player_index(st, name, pos)
        for ref in refs:
            card = card_at_ref(eng, st, ref)
            st.known[card] = st.known[card] | bit if knows else st.known[card] & ~bit
    for mark, refs, pos in table.marks:
        if mark not in eng.facts.mark_bits:
            raise ScenarioError(pos, f"unknown mark {mark!r}; " + _declared(eng.rules.marks))
        for ref in refs:
            st.marks[card_at_ref(eng, st, ref)] |= 1 << eng.facts.mark_bits[mark]
    st.windows = [_window(eng, st, line) for line in table.windows]
    st.waiting = [_waiting(eng, st, line) for line in table.waiting]
    for name, index, value, pos in table.sets:
        set_variable(eng, st, name, index, value, pos)
    eng.refresh_protection(st)  # the table's variables may already protect a tableau
    if table.protected is not None:
        st.protected = _seats(st, table.protected)
    return st


def _declared(names: Any) -> str:
    listed = ", ".join(names)
    return f"the rules declare: {listed}" if listed else "the rules declare none"


def _window(eng: Engine, st: State, line: sc.WindowLine) -> Window:
    """An open window of the table (its attempts as the rules' window declaration gives them, unless written)."""
    if line.kind not in eng.rules.window_kinds:
        raise ScenarioError(line.pos, f"unknown window kind {line.kind!r}; " + _declared(eng.rules.window_kinds))
    players = _seats(st, line.players)
    window = eng.rules.window
    assert window is not None  # it declares the kind
    attempts = window.attempts if line.attempts is None else line.attempts
    return Window(line.kind, card_at_ref(eng, st, line.ref), players, attempts)


def _waiting(eng: Engine, st: State, line: sc.WaitingLine) -> Waiting:
    """A waiting ability (or step) of the table, with its step's values in the order of its formals."""
    decl = eng.rules.moves.get(line.ability)
    if decl is None or not decl.is_ability:
        abilities = [name for name, m in eng.rules.moves.items() if m.is_ability]
        raise ScenarioError(line.pos, f"unknown ability {line.ability!r}; the rules' abilities and steps: "
                            + ", ".join(abilities))
    if len(line.values) != len(decl.formals):
        wanted = ", ".join(f"{f.name}: {f.type}" for f in decl.formals) or "none"
        raise ScenarioError(line.values[-1].pos if line.values else line.pos,
                            f"{line.ability} waits with {len(decl.formals)} value(s) ({wanted}), "
                            f"the table gives {len(line.values)}")
    args = tuple(convert(eng, st, value, formal.type) for value, formal in zip(line.values, decl.formals,
                                                                                 strict=True))
    return Waiting(line.ability, card_at_ref(eng, st, line.card), player_index(st, *line.owner), args,
                   line.after_window)


def _seats(st: State, names: tuple[tuple[str, Pos], ...]) -> int:
    """The bit mask of the named players."""
    mask = 0
    for name, pos in names:
        mask |= 1 << player_index(st, name, pos)
    return mask


def _place_cards(eng: Engine, st: State, table: sc.Table, pool: CardPool) -> None:
    seen: set[str] = set()
    for name, cards, pos in table.lines:
        if name in seen:
            raise ScenarioError(pos, f"{name} is given twice")
        seen.add(name)
        if name in st.names:
            st.tableaux[st.names.index(name)] = [None if c is None else pool.take(c, pos) for c in cards]
            continue
        index = pile_index(eng, name)
        if index is None:
            raise ScenarioError(pos, f"{name!r} is neither a player ({', '.join(st.names)}) nor a pile "
                                f"({', '.join(eng.pile_names)})")
        if any(c is None for c in cards):
            raise ScenarioError(pos, "a pile has no free slots: '_' is allowed in tableaux only")
        ids = [pool.take(c, pos) for c in cards if c is not None]
        # The draw pile is written top first; other piles bottom first (the last is the top).
        st.piles[index] = list(reversed(ids)) if eng.pile_names[index] == TOP_FIRST else ids
        if index in eng.effects.face_up:
            for c in ids:
                st.known[c] = st.everyone
    for name, species, pos in table.holds:
        p = player_index(st, name, pos)
        if len(st.hands[p]) >= eng.effects.capacity:
            raise ScenarioError(pos, f"{name}'s hand holds at most {eng.effects.capacity} card(s)")
        card = pool.take(species, pos)
        st.hands[p].append(card)
        st.known[card] |= 1 << p


def _check_seated(st: State, table: sc.Table) -> None:
    """Only the players of the round hold cards or act in it (a deal among them gathers every card)."""
    for name, cards, pos in table.lines:
        if name in st.names and not st.in_round >> st.names.index(name) & 1 and any(c is not None for c in cards):
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


def card_at_ref(eng: Engine, st: State, ref: sc.Ref) -> int:
    """The card a table names by where it lies (see sc.Ref), with a positioned error where none lies."""
    assert ref.index is not None or ref.kind == "pile"
    if ref.kind == "slot":
        return card_at_place(st, sc.Place(ref.where, ref.index or 0, ref.pos))
    if ref.kind == "hand":
        hand = st.hands[player_index(st, ref.where, ref.pos)]
        return _nth(hand, ref, f"{ref.where} holds {_cards(len(hand))}", ref.index or 0)
    if ref.kind == "box":
        if ref.where not in eng.rules.species:
            raise ScenarioError(ref.pos, f"unknown species {ref.where!r}; the deck has: {', '.join(eng.rules.species)}")
        copies = [c for c in st.box if eng.facts.species[c] == ref.where]
        return _nth(copies, ref, f"the box holds {len(copies)} {ref.where}", ref.index or 0)
    if ref.where in st.names:
        raise ScenarioError(ref.pos, f"{ref.where} is a player, not a pile: a held card is `{ref.where} hand N`, "
                            f"a slot `{ref.where}.N`")
    index = known_pile(eng, ref.where, ref.pos)
    pile = st.piles[index]
    if ref.index is None:
        if not pile:
            raise ScenarioError(ref.pos, f"{ref.where} is empty: it has no top card")
        return pile[-1]
    return _nth(pile[::-1] if eng.pile_names[index] == TOP_FIRST else pile, ref,
                f"{ref.where} holds {_cards(len(pile))}", ref.index)


def _nth(cards: list[int], ref: sc.Ref, holds: str, number: int) -> int:
    if not 0 < number <= len(cards):
        raise ScenarioError(ref.pos, f"no card {ref}: {holds}")
    return cards[number - 1]


def _cards(n: int) -> str:
    return "no card" if n == 0 else "1 card" if n == 1 else f"{n} cards"


def convert(eng: Engine, st: State, value: sc.Value, vtype: str) -> Any:
    """A scenario literal as the engine's value of the given type."""
    if value.kind == "none":
        # A text variable's `none` is the word the rules write ("none": the shield before a call), not the
        # absent value: the rules' texts are words, and an absent text would be a state no rule makes.
        return "none" if vtype == "str" else None
    if vtype in ("slot", "own_slot", "free_slot"):
        if value.kind != "slot":
            raise ScenarioError(value.pos, f"expected a slot like alice.2, found {value}")
        return existing_slot(st, value.data)
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
        # A species names no single card: a table names a card by where it lies (a slot, a pile's position ...).
        if value.kind == "slot":
            return card_at_place(st, value.data)
        if value.kind != "card":
            raise ScenarioError(value.pos, "a card is named by where it lies (alice.2, discard top, discard 3, "
                                f"alice hand 1, box SPECIES), found {value}")
        return card_at_ref(eng, st, value.data)
    if value.kind == "card":
        raise ScenarioError(value.pos, f"expected a value of type {vtype}, found the card {value}")
    if vtype == "str" and value.kind != "name":
        raise ScenarioError(value.pos, f"expected a word (a text value such as those the rules set), found {value}")
    if vtype in ("players", "cards"):
        if value.kind != "list":
            raise ScenarioError(value.pos, f"expected a list like [alice, bob], found {value}")
        return [convert(eng, st, item, vtype[:-1]) for item in value.data]
    if value.kind == "slot":
        return existing_slot(st, value.data)
    return value.data


def existing_slot(st: State, place: sc.Place) -> tuple[int, int]:
    """A slot a tableau can have: numbered from 1, at most one per card of the deck. A number beyond that
    is a mistake in the scenario, not a move the rules refuse (a slot the tableau lacks now, such as a new
    one for a penalty card, is the rules' to judge)."""
    player = player_index(st, place.player, place.pos)
    problem = impossible_slot(st, place.player, place.slot)
    if problem is not None:
        raise ScenarioError(place.pos, problem)
    return (player, place.slot)


def impossible_slot(st: State, player: str, number: int) -> str | None:
    """Why no tableau can have this slot (None when one can): the scenarios' and the referee's words."""
    most = len(st.facts)
    if 1 <= number <= most:
        return None
    shown = str(number) if len(str(number)) <= 12 else f"{str(number)[:12]}…"
    return (f"{player}.{shown} cannot exist: slots are numbered from 1, and a tableau holds at most the {most} "
            "cards of the deck")


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


def literal(value: sc.Value) -> Literal:
    """A scenario value as the literal the move notation reads."""
    if value.kind == "slot":
        return ("slot", (value.data.player, value.data.slot))
    return (value.kind, value.data)


def to_move(eng: Engine, st: State, player: str, name: str,
            args: tuple[tuple[str | None, sc.Value], ...], pos: Pos) -> Move:
    for _, value in args:
        if value.kind == "slot":
            existing_slot(st, value.data)
        if value.kind == "list":  # no argument of a move is a list: say so in the scenario's own notation
            raise ScenarioError(value.pos, f"a move's argument is one value, found the list {value}")
    try:
        return build_move(eng.rules.moves, st, player, name, [(k, literal(v)) for k, v in args])
    except NotationError as err:
        raise ScenarioError(args[err.arg][1].pos if err.arg is not None else pos, str(err)) from None
