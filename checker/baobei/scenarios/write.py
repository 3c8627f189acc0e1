"""Write a state as a scenario's explicit table: the inverse of `setup.build_table`.

A model checker that finds a failure writes the state it started from this way, followed by the
moves in the engine's own text, so that `baobei check` replays the same failure; a prover writes a
counterexample to induction (any state) the same way. Every part of a state has its line: tableaux,
piles, hands, the seats of the round, round and turn, active player and phase, who knows which card
(`knows` / `knows not` where the table's defaults differ), marks, open windows, waiting abilities with
their values, variables, and the protected tableaux where the rules' protections would say otherwise.
Cards are named by species, a card of a line by where it lies (`discard 3`, `alice hand 1`, `box SPECIES`).

The table's cards are taken from the deck in deck order, so the state it builds is `renumbered(eng, st)`:
the same state but for which copy of a species lies where (the rules cannot tell copies apart). A state of
a smaller deck of the same species (fewer copies) can be written and replayed with the full deck, whose
further copies stay out of play. What a table still cannot say (a card in two places or none, a hand
fuller than the rules allow, a phase the rules do not declare ...) is refused with a BaoError naming it,
rather than left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..engine.engine import Engine
from ..engine.state import HandLoc, State, Waiting, Window
from ..language import syntax as s
from ..language.errors import BaoError
from ..language.text import expr_text
from .setup import TABLE_ROUND, TABLE_TURN, TOP_FIRST, pile_index

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# Words a table reads as something else where a value stands: a string value cannot be written as one of them.
_RESERVED = frozenset({"none", "true", "false", "box"})


def table_lines(eng: Engine, st: State, seed: int | None = None) -> list[str]:
    """The `table` block of a scenario that builds `renumbered(eng, st)` (with `seed`, its generator as
    freshly seeded)."""
    _refuse_what_tables_cannot_say(eng, st)
    names = st.names
    refs = card_refs(eng, st)
    lines = ["table", "  players " + " ".join(names)]
    if st.seats != list(range(len(names))):
        lines.append("  among " + " ".join(names[p] for p in st.seats))
    if st.round != TABLE_ROUND:
        lines.append(f"  round {st.round}")
    if st.turn != TABLE_TURN:
        lines.append(f"  turn {st.turn}")
    lines += _tableau_lines(eng, st) + _pile_lines(eng, st)
    lines.append(f"  active {names[st.active]}")
    lines.append(f"  phase {st.phase}")
    if seed is not None:
        lines.append(f"  seed {seed}")
    for p, hand in enumerate(st.hands):
        lines += [f"  {names[p]} holds {eng.facts.species[c]}" for c in hand]
    lines += _knowledge_lines(eng, st, refs) + _mark_lines(eng, st, refs)
    lines += _window_lines(eng, st, refs) + _waiting_lines(eng, st, refs)
    lines += _variable_lines(eng, st, refs) + _protection_lines(eng, st)
    return lines


def _pile_label(eng: Engine, index: int) -> str:
    """A pile as a table names it: without `_pile` when that names no other pile."""
    name = eng.pile_names[index]
    short = name.removesuffix("_pile")
    return short if pile_index(eng, short) == index else name


def _as_written(eng: Engine, index: int, cards: list[int]) -> list[int]:
    """A pile's cards in the order of its table line (the draw pile top first, every other bottom first)."""
    return cards[::-1] if eng.pile_names[index] == TOP_FIRST else cards


def table_order(eng: Engine, st: State) -> list[int]:
    """The cards in the order a table of `st` names them (tableaux, piles as written, hands), then the box
    in deck order: the order in which `build_table` takes each species' copies from the deck."""
    order = [c for row in st.tableaux for c in row if c is not None]
    for i, pile in enumerate(st.piles):
        order += _as_written(eng, i, pile)
    order += [c for hand in st.hands for c in hand]
    return order + sorted(st.box)


def card_refs(eng: Engine, st: State) -> dict[int, str]:
    """Each card of the state as a table names it by where it lies (see scenarios/syntax.py `Ref`)."""
    names, species = st.names, eng.facts.species
    out: dict[int, str] = {}
    for p, row in enumerate(st.tableaux):
        out.update((c, f"{names[p]}.{i + 1}") for i, c in enumerate(row) if c is not None)
    for i, pile in enumerate(st.piles):
        label = _pile_label(eng, i)
        out.update((c, f"{label} {n}") for n, c in enumerate(_as_written(eng, i, pile), 1))
        if pile:
            out[pile[-1]] = f"{label} top"
    for p, hand in enumerate(st.hands):
        out.update((c, f"{names[p]} hand {n}") for n, c in enumerate(hand, 1))
    copies: dict[str, int] = {}
    for c in sorted(st.box):
        copies[species[c]] = n = copies.get(species[c], 0) + 1
        out[c] = f"box {species[c]}" + ("" if n == 1 else f" {n}")
    return out


def _tableau_lines(eng: Engine, st: State) -> list[str]:
    """A row for every tableau with slots and for every player of the round: a scenario refuses a table that
    leaves out a player of the round, whose empty tableau is an empty row (`bob:`)."""
    species = eng.facts.species
    rows = [(st.names[p], ", ".join("_" if c is None else species[c] for c in row))
            for p, row in enumerate(st.tableaux) if row or st.in_round >> p & 1]
    return [f"  {name}: {cards}" if cards else f"  {name}:" for name, cards in rows]


def _pile_lines(eng: Engine, st: State) -> list[str]:
    return [f"  {_pile_label(eng, i)}: " + ", ".join(eng.facts.species[c] for c in _as_written(eng, i, cards))
            for i, cards in enumerate(st.piles) if cards]


def _table_knows(eng: Engine, st: State, where: object) -> int:
    """Who knows a card that lies at `where` once the table has placed it, before its `knows` lines: everyone
    for a face-up pile's card, the holder for a held card, nobody otherwise."""
    if isinstance(where, int):
        return st.everyone if where in eng.effects.face_up else 0
    return 1 << where.player if isinstance(where, HandLoc) else 0


def _knowledge_lines(eng: Engine, st: State, refs: dict[int, str]) -> list[str]:
    """Who knows which card, where it differs from what the table's cards tell by where they lie."""
    order = table_order(eng, st)
    default = {c: _table_knows(eng, st, st.locate(c)) for c in order}
    out = []
    for p, name in enumerate(st.names):
        bit = 1 << p
        knows = [refs[c] for c in order if st.known[c] & bit and not default[c] & bit]
        knows_not = [refs[c] for c in order if default[c] & bit and not st.known[c] & bit]
        out += [f"  {name} knows " + ", ".join(knows)] if knows else []
        out += [f"  {name} knows not " + ", ".join(knows_not)] if knows_not else []
    return out


def _mark_lines(eng: Engine, st: State, refs: dict[int, str]) -> list[str]:
    order = table_order(eng, st)
    out = []
    for mark, bit in eng.facts.mark_bits.items():
        marked = [refs[c] for c in order if st.marks[c] >> bit & 1]
        if marked:
            out.append(f"  marked {mark} " + ", ".join(marked))
    return out


def _window_lines(eng: Engine, st: State, refs: dict[int, str]) -> list[str]:
    """The open windows, oldest first; attempts only where they differ from the rules' number."""
    out = []
    for w in st.windows:
        kind = w.kind if _IDENTIFIER.fullmatch(w.kind) else _quoted(w.kind)
        who = ", ".join(name for p, name in enumerate(st.names) if w.players >> p & 1) or "nobody"
        declared = eng.rules.window.attempts if eng.rules.window is not None else None
        attempts = "" if w.attempts == declared else f" attempts {w.attempts}"
        out.append(f"  window {kind} on {refs[w.ref]} for {who}{attempts}")
    return out


def _waiting_lines(eng: Engine, st: State, refs: dict[int, str]) -> list[str]:
    out = []
    for w in st.waiting:
        decl = eng.rules.moves[w.ability]
        line = f"  waiting {w.ability} of {refs[w.card]} for {st.names[w.owner]}"
        line += " after window" if w.after_window else ""
        if w.args:
            line += " with " + ", ".join(_literal(eng, st, refs, f"{w.ability}'s value {f.name}", f.type, v)
                                         for f, v in zip(decl.formals, w.args, strict=True))
        out.append(line)
    return out


def _variable_lines(eng: Engine, st: State, refs: dict[int, str]) -> list[str]:
    """`set` lines for the variables whose value differs from the one a table starts with."""
    blank = eng.blank_state(list(st.names), None)
    out = []
    for name, var in eng.rules.variables.items():
        if var.per_player:
            out += [f"  set {name}[{st.names[p]}] = {_literal(eng, st, refs, name, var.type, v)}"
                    for p, v in enumerate(st.pvars[name]) if v != blank.pvars[name][p]]
        elif st.vars[name] != blank.vars[name]:
            out.append(f"  set {name} = {_literal(eng, st, refs, name, var.type, st.vars[name])}")
    return out


def _protection_lines(eng: Engine, st: State) -> list[str]:
    """`protected` only where the state's protected tableaux are not those the rules' protections give (as the
    table builds them): a state whose protections the engine has not refreshed since they changed."""
    probe = st.snapshot()
    eng.refresh_protection(probe)
    if probe.protected == st.protected:
        return []
    return ["  protected " + (", ".join(n for p, n in enumerate(st.names) if st.protected >> p & 1) or "nobody")]


def _literal(eng: Engine, st: State, refs: dict[int, str], name: str, vtype: str, value: Any) -> str:
    """A value of a variable or of a waiting step as a table writes it (a card by where it lies)."""
    if vtype == "str" and value in (None, "none"):
        # A table's `none` for a text is the rules' word "none" (scenarios/setup.py): an absent text (a state
        # the prover may pose) has no way to be written, and writing it as `none` would show another state.
        if value is None:
            raise BaoError(f"a scenario table cannot write an absent text as the value of {name}")
        return "none"
    if value is None:
        return "none"
    if vtype == "card":
        return refs[value]
    if vtype == "cards":
        return "[" + ", ".join(refs[c] for c in value) + "]"
    if vtype == "str" and not (isinstance(value, str) and _IDENTIFIER.fullmatch(value) and value not in _RESERVED):
        raise BaoError(f"a scenario table cannot write {value!r} as the value of {name}")
    return eng.format_value(st, vtype, value)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _refuse_what_tables_cannot_say(eng: Engine, st: State) -> None:
    """A BaoError naming what no table can state: a table places each card once, fills hands no fuller
    than the rules allow, seats only the players of the round, and names declared phases and windows."""
    counts = st.place_counts()
    for card in range(len(eng.facts)):
        if counts[card] != 1:
            raise BaoError(f"a scenario table places each card once; {eng.facts.label(card)} is in "
                           f"{counts[card]} places")
    for p, hand in enumerate(st.hands):
        if len(hand) > eng.effects.capacity:
            raise BaoError(f"a scenario table cannot state {st.names[p]}'s hand of {len(hand)} cards: the rules' "
                           f"hand holds at most {eng.effects.capacity}")
    for p, name in enumerate(st.names):
        if not st.in_round >> p & 1 and (any(c is not None for c in st.tableaux[p]) or st.hands[p]
                                         or p == st.active):
            what = "is active" if p == st.active else "holds cards"
            raise BaoError(f"a scenario table cannot state that {name}, who is not in this round, {what}")
    if st.phase not in eng.phases:
        raise BaoError(f"a scenario table cannot state the phase {st.phase!r}, which the rules do not declare")
    if min(st.round, st.turn) < 0:
        raise BaoError(f"a scenario table cannot state round {st.round}, turn {st.turn}")
    for w in st.windows:
        if w.kind not in eng.rules.window_kinds:
            raise BaoError(f"a scenario table cannot state a window of kind {w.kind!r}: the rules declare the "
                           f"kinds {', '.join(eng.rules.window_kinds) or 'none'}")
    masks = [("who knows a card", m) for m in st.known] + [("a window's players", w.players) for w in st.windows]
    for what, mask in [*masks, ("the protected tableaux", st.protected)]:
        if mask & ~st.everyone:
            raise BaoError(f"a scenario table cannot state {what} for seats beyond the {len(st.names)} players")
    if any(m >> len(eng.facts.mark_bits) for m in st.marks):
        raise BaoError("a scenario table cannot state a mark the rules do not declare")
    for wait in st.waiting:
        decl = eng.rules.moves.get(wait.ability)
        if decl is None or not decl.is_ability or len(decl.formals) != len(wait.args):
            raise BaoError(f"a scenario table cannot state the waiting {wait.ability!r} with {len(wait.args)} "
                           "value(s): the rules declare no such ability or step")


def renumbered(eng: Engine, st: State) -> State:
    """The state a table of `st` builds (`build_table` of `table_lines(eng, st)`, but for its generator): a
    copy of `st` with the copies of each species renumbered in the order the table names them, the box
    in deck order. A table names cards by species, and takes each species' copies in deck order."""
    _refuse_what_tables_cannot_say(eng, st)
    species = eng.facts.species
    free: dict[str, list[int]] = {}
    for card, sp in enumerate(species):
        free.setdefault(sp, []).append(card)
    new_of = {c: free[species[c]].pop(0) for c in table_order(eng, st)}

    def to(c: int) -> int:
        return new_of[c]

    out = st.copy()
    out.tableaux = [[None if c is None else to(c) for c in row] for row in st.tableaux]
    out.piles = [[to(c) for c in pile] for pile in st.piles]
    out.hands = [[to(c) for c in hand] for hand in st.hands]
    out.box = sorted(to(c) for c in st.box)
    for c, n in new_of.items():
        out.known[n], out.marks[n] = st.known[c], st.marks[c]
    out.windows = [Window(w.kind, to(w.ref), w.players, w.attempts) for w in st.windows]
    out.waiting = [Waiting(w.ability, to(w.card), w.owner, tuple(_cards_renamed(to, f.type, v) for f, v in
                                                                zip(eng.rules.moves[w.ability].formals, w.args,
                                                                    strict=True)), w.after_window)
                   for w in st.waiting]
    for name, var in eng.rules.variables.items():
        if var.per_player:
            out.pvars[name] = [_cards_renamed(to, var.type, v) for v in st.pvars[name]]
        else:
            out.vars[name] = _cards_renamed(to, var.type, st.vars[name])
    return out


def _cards_renamed(to: Callable[[int], int], vtype: str, value: Any) -> Any:
    if value is None:
        return None
    if vtype == "card":
        return to(value)
    if vtype == "cards":
        return [to(c) for c in value]
    return value


def invariant_expectation(inv: s.InvariantDecl) -> str:
    """A step that evaluates a state invariant where it stands (`expect value "..." = true`): how a
    scenario shows an invariant broken by its table, before any move judges it."""
    holds = expr_text(inv.holds)
    text = holds if inv.when is None else f"if {expr_text(inv.when)} then {holds} else true"
    return 'expect value "' + text.replace("\\", "\\\\").replace('"', '\\"') + '" = true'


def cites_line(eng: Engine, property_cite: str, move_names: list[str]) -> str:
    """The `cites` line of a written scenario: the failing property's paragraphs, or, for a failure of the
    rules themselves (a legal move they cannot carry out), the rules of the moves played, the last first.
    Every scenario cites the book (`baobei check` refuses one that cites nothing)."""
    if property_cite:
        return f"cites {property_cite}"
    cites = [str(eng.rules.moves[name].cite) for name in reversed(move_names) if name in eng.rules.moves]
    return f"cites {cites[0]}" if cites else f"cites {eng.rules.players_cite}"
