"""Write a state as a scenario's explicit table: the inverse of `setup.build_table`.

A model checker that finds a failure writes the state it started from this way, followed by the
moves in the engine's own text, so that `baobei check` replays the same failure. Cards are named by
species: the table's cards are taken from the deck in deck order, so a state of a smaller deck of
the same species (fewer copies) can be written and replayed with the full deck, whose further copies
stay out of play. What a table cannot say (an open window, a waiting ability, a mark, knowledge of a
face-down card outside a tableau) is refused with a BaoError naming it, rather than left out.
"""

from __future__ import annotations

import re
from typing import Any

from ..engine.engine import Engine
from ..engine.state import State
from ..language import syntax as s
from ..language.errors import BaoError
from ..language.text import expr_text
from .setup import TABLE_ROUND, TABLE_TURN, pile_index

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# The pile scenario tables write top first; every other pile is written bottom first.
_TOP_FIRST = "draw_pile"


def table_lines(eng: Engine, st: State, seed: int | None = None) -> list[str]:
    """The `table` block of a scenario that builds `st` (with `seed`, its generator as freshly seeded)."""
    _refuse_what_tables_cannot_say(eng, st)
    names = st.names
    lines = ["table", "  players " + " ".join(names)]
    if st.seats != list(range(len(names))):
        lines.append("  among " + " ".join(names[p] for p in st.seats))
    lines += _tableau_lines(eng, st) + _pile_lines(eng, st)
    lines.append(f"  active {names[st.active]}")
    lines.append(f"  phase {st.phase}")
    if seed is not None:
        lines.append(f"  seed {seed}")
    for p, hand in enumerate(st.hands):
        lines += [f"  {names[p]} holds {eng.facts.species[c]}" for c in hand]
    lines += _knowledge_lines(eng, st) + _variable_lines(eng, st)
    return lines


def _tableau_lines(eng: Engine, st: State) -> list[str]:
    species = eng.facts.species
    return [f"  {st.names[p]}: " + ", ".join("_" if c is None else species[c] for c in row)
            for p, row in enumerate(st.tableaux) if row]


def _pile_lines(eng: Engine, st: State) -> list[str]:
    out = []
    for name, cards in zip(eng.pile_names, st.piles, strict=True):
        if not cards:
            continue
        shown = reversed(cards) if name == _TOP_FIRST else cards
        short = name.removesuffix("_pile")
        label = short if pile_index(eng, short) == eng.pile_index[name] else name
        out.append(f"  {label}: " + ", ".join(eng.facts.species[c] for c in shown))
    return out


def _knowledge_lines(eng: Engine, st: State) -> list[str]:
    """Who knows which card of a tableau (cards in hand and face-up piles are known as the table says)."""
    out = []
    for p, name in enumerate(st.names):
        seen = [f"{st.names[q]}.{i + 1}" for q, row in enumerate(st.tableaux) for i, c in enumerate(row)
                if c is not None and st.known[c] >> p & 1]
        if seen:
            out.append(f"  {name} knows " + ", ".join(seen))
    return out


def _variable_lines(eng: Engine, st: State) -> list[str]:
    """`set` lines for the variables whose value differs from the one a table starts with."""
    blank = eng.blank_state(list(st.names), None)
    out = []
    for name, var in eng.rules.variables.items():
        if var.per_player:
            out += [f"  set {name}[{st.names[p]}] = {_value(eng, st, name, var.type, v)}"
                    for p, v in enumerate(st.pvars[name]) if v != blank.pvars[name][p]]
        elif st.vars[name] != blank.vars[name]:
            out.append(f"  set {name} = {_value(eng, st, name, var.type, st.vars[name])}")
    return out


def _value(eng: Engine, st: State, name: str, vtype: str, value: Any) -> str:
    if value is None:
        return "none"
    if vtype == "card":
        raise BaoError(f"a scenario table cannot name a card as the value of {name}")
    if vtype == "str" and not (isinstance(value, str) and _IDENTIFIER.fullmatch(value) and value != "none"):
        raise BaoError(f"a scenario table cannot write {value!r} as the value of {name}")
    return eng.format_value(st, vtype, value)


def _refuse_what_tables_cannot_say(eng: Engine, st: State) -> None:
    if st.windows or st.waiting or any(st.marks):
        raise BaoError("a scenario table cannot state an open window, a waiting ability or a mark")
    if (st.round, st.turn) != (TABLE_ROUND, TABLE_TURN):
        raise BaoError(f"a scenario table starts in round {TABLE_ROUND}, turn {TABLE_TURN}; this state is in "
                       f"round {st.round}, turn {st.turn}")
    in_tableau = {c for row in st.tableaux for c in row if c is not None}
    in_hand = {c: p for p, hand in enumerate(st.hands) for c in hand}
    face_up = {c for i in eng.effects.face_up for c in st.piles[i]}
    for card, known in enumerate(st.known):
        expected = st.everyone if card in face_up else (1 << in_hand[card]) if card in in_hand else 0
        if card not in in_tableau and known != expected:
            raise BaoError(f"a scenario table cannot state who knows {eng.facts.label(card)}, which lies "
                           "outside every tableau")


def invariant_expectation(inv: s.InvariantDecl) -> str:
    """A step that evaluates a state invariant where it stands (`expect value "..." = true`): how a
    scenario shows an invariant broken by its table, before any move judges it."""
    holds = expr_text(inv.holds)
    text = holds if inv.when is None else f"if {expr_text(inv.when)} then {holds} else true"
    return 'expect value "' + text.replace("\\", "\\\\").replace('"', '\\"') + '" = true'
