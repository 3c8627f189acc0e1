"""The setup form: a scenario table as fields to click and fill, and the fields back as the table's lines.

The form holds what people set up most: the players, the card in each slot and who knows it, the held
cards, the piles in order, the active player, the phase, round, turn and seed, and every variable of the rules
(the BAO caller, the shield ... as the rules name them). Whatever else a table can say (open windows, waiting
abilities, marks, protections, who knows a card in a pile or a hand) stays in table lines of its own, edited
as text. A form is read back into table lines, which the scenario parser and `build_table` judge: the desk
never holds a table that a scenario could not state.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..engine.engine import Engine
from ..engine.state import State
from ..scenarios.parser import parse_table_lines
from ..scenarios.setup import pile_index

# Table lines the form does not hold as fields: they stay lines of text.
OTHER_LINES = ("window ", "waiting ", "marked ", "protected ", "among ")
SLOT_REF = re.compile(r"[A-Za-z_]\w*\.\d+$")
EXTRA_SLOTS = 2  # free slot fields after a player's last slot: a table grows by choosing a card there
NO_SLOT, EMPTY = "", "_"


@dataclass
class TableForm:
    """The fields of the setup form. Players are kept by seat, so that renaming one keeps their cards."""

    players: list[str]
    rows: list[list[str]]  # per seat: the species in each slot, `_` for an empty slot
    knows: dict[tuple[int, int], set[int]]  # (seat, slot from 1) -> the seats that know the card there
    hands: list[list[str]]  # per seat: the species held, first drawn first
    piles: dict[str, str]  # a pile as the table names it -> its cards, comma separated, as its line writes them
    active: str = ""
    phase: str = ""
    round: str = ""
    turn: str = ""
    seed: str = ""
    variables: dict[str, str] = field(default_factory=dict)  # `name` or `name[player]` -> value ("" as the rules)
    other: list[str] = field(default_factory=list)


def form_of(eng: Engine, st: State, lines: Sequence[str]) -> TableForm:
    """The form of a table: `lines` its table block (as `table_lines` writes it), `st` the state it builds."""
    table = parse_table_lines(list(lines[1:]), "desk table")
    names = list(table.players)
    written = {name: cards for name, cards, _ in table.lines}
    rows = [[EMPTY if c is None else c for c in written.get(name, ())] for name in names]
    knows = {(p, i + 1): {q for q in range(len(names)) if st.known[card] >> q & 1}
             for p in range(len(names)) for i, card in enumerate(st.tableaux[p]) if card is not None}
    hands: list[list[str]] = [[] for _ in names]
    for name, species, _ in table.holds:
        hands[names.index(name)].append(species)
    piles = {label: ", ".join(c or EMPTY for c in written.get(label, written.get(full, ())))
             for label, full in zip(pile_labels(eng), eng.pile_names, strict=True)}
    variables = {name + (f"[{index}]" if index else ""): str(value) for name, index, value, _ in table.sets}
    return TableForm(names, rows, knows, hands, piles, active=table.active[0] if table.active else "",
                     phase=table.phase or "", round=str(table.round[0]) if table.round else "",
                     turn=str(table.turn[0]) if table.turn else "", seed=str(table.seed) if table.seed else "",
                     variables=variables, other=other_lines(lines))


def pile_labels(eng: Engine) -> list[str]:
    """Each pile as a table names it: without `_pile` where that names no other pile (`scenarios/setup.py`
    reads both)."""
    return [short if pile_index(eng, short) == i else name
            for i, (name, short) in enumerate((n, n.removesuffix("_pile")) for n in eng.pile_names)]


def other_lines(lines: Sequence[str]) -> list[str]:
    """The table lines the form has no fields for: windows, waiting abilities, marks, protections, the
    players of the round, and who knows a card that lies in a pile or a hand (a slot's card has boxes)."""
    out = []
    for line in lines[1:]:
        text = line.strip()
        if text.startswith(OTHER_LINES):
            out.append(text)
            continue
        head, sep, refs = text.partition(" knows ")
        if not sep or " " in head:
            continue
        negated = refs.startswith("not ")
        far = [r for r in refs.removeprefix("not ").split(", ") if not SLOT_REF.match(r)]
        if far:
            out.append(f"{head} knows {'not ' if negated else ''}" + ", ".join(far))
    return out


def read_form(fields: Mapping[str, list[str]]) -> TableForm:
    """The form as the browser sent it (each field's values, in order). Slots, knowledge and hands are named
    by seat: `slot:SEAT:N`, `knows:SEAT:N` (the seats that know it), `hand:SEAT`."""
    def one(name: str) -> str:
        return (fields.get(name) or [""])[-1].strip()

    players = one("players").replace(",", " ").split()
    rows: list[list[str]] = []
    knows: dict[tuple[int, int], set[int]] = {}
    for p in range(len(players)):
        slots = sorted((int(key.rsplit(":", 1)[1]), one(key)) for key in fields
                       if key.startswith(f"slot:{p}:") and key.rsplit(":", 1)[1].isdigit())
        cells = [species or EMPTY for _, species in slots]
        while cells and cells[-1] == EMPTY and not slots[len(cells) - 1][1]:
            cells.pop()  # a trailing field left at "no slot" adds no slot
        rows.append(cells)
        for i in range(1, len(cells) + 1):
            seats = {int(v) for v in fields.get(f"knows:{p}:{i}", []) if v.isdigit() and int(v) < len(players)}
            if seats:
                knows[(p, i)] = seats
    hands = [[one(f"hand:{p}")] if one(f"hand:{p}") else [] for p in range(len(players))]
    piles = {key.removeprefix("pile:"): one(key) for key in fields if key.startswith("pile:")}
    variables = {key.removeprefix("var:"): one(key) for key in fields if key.startswith("var:")}
    other = [line.strip() for line in one("other").splitlines() if line.strip()]
    return TableForm(players, rows, knows, hands, piles, one("active"), one("phase"), one("round"), one("turn"),
                     one("seed"), variables, other)


def table_of(form: TableForm) -> tuple[str, ...]:
    """The table block the form states (the parser judges it: a misspelt name is its error, with its line)."""
    lines = ["table", "  players " + " ".join(form.players)]
    for p, name in enumerate(form.players):
        if p < len(form.rows) and form.rows[p]:
            lines.append(f"  {name}: " + ", ".join(form.rows[p]))
    for label, cards in form.piles.items():
        names = [c.strip() for c in cards.replace(";", ",").split(",") if c.strip()]
        if names:
            lines.append(f"  {label}: " + ", ".join(names))
    for key, value in (("active", form.active), ("phase", form.phase), ("round", form.round),
                       ("turn", form.turn), ("seed", form.seed)):
        if value:
            lines.append(f"  {key} {value}")
    for p, hand in enumerate(form.hands):
        lines += [f"  {form.players[p]} holds {species}" for species in hand if p < len(form.players)]
    lines += knows_lines(form)
    lines += [f"  set {key} = {value}" for key, value in form.variables.items() if value]
    lines += [f"  {line}" for line in form.other]
    return tuple(lines)


def knows_lines(form: TableForm) -> list[str]:
    out = []
    for q, name in enumerate(form.players):
        refs = [f"{form.players[p]}.{i}" for (p, i), seats in sorted(form.knows.items())
                if q in seats and p < len(form.players)]
        if refs:
            out.append(f"  {name} knows " + ", ".join(refs))
    return out


def variable_fields(eng: Engine, st: State) -> list[tuple[str, str, str]]:
    """(field key, what it is, the value a table starts it with) for every variable of the rules: a player's
    variable once per player. The rules' own words say what each is, where they give some."""
    blank = eng.blank_state(list(st.names), None)
    out = []
    for name, var in eng.rules.variables.items():
        words = f" ({var.words})" if var.words else ""
        if var.per_player:
            out += [(f"{name}[{player}]", f"{var.type}{words}",
                     eng.format_value(blank, var.type, blank.pvars[name][p])) for p, player in enumerate(st.names)]
        else:
            out.append((name, f"{var.type}{words}", eng.format_value(blank, var.type, blank.vars[name])))
    return out
