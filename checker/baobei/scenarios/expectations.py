"""The scenario language's expectations: each compares the state with what a line expects.

An expectation answers None when it holds, else a message "expected ..., actual ...".
A misspelt name in an expectation is a malformed scenario (ScenarioError), not a failure.
"""

from __future__ import annotations

from typing import Any

from lark.exceptions import UnexpectedInput

from ..engine.engine import Engine
from ..engine.state import State
from ..language.errors import BaoError, ScenarioError
from ..language.kinds import kind_of
from ..language.parser import RulesBuilder, build, grammar, syntax_message
from ..language.source import Pos
from . import syntax as sc
from .setup import card_at_place, check_phase, convert, known_pile, player_index


def check_expectation(eng: Engine, st: State, x: sc.Expect) -> str | None:
    """None when the expectation holds, else 'expected ..., actual ...'."""
    validate_expectation(eng, st, x)
    handler = _EXPECTATIONS[x.kind]
    message: str | None = handler(eng, st, *x.args)
    return message


def validate_expectation(eng: Engine, st: State, x: sc.Expect) -> None:
    """A misspelt player, species, phase or ability is a malformed scenario, not a failed check."""
    players: tuple[str, ...] = ()
    species: tuple[str | None, ...] = ()
    if x.kind in ("holds", "knows", "cards"):
        players = (x.args[0],)
        species = (x.args[1],) if x.kind == "holds" else ()
    elif x.kind == "active":
        players = (x.args[0],)
    elif x.kind == "window_open":
        players = x.args[0]
    elif x.kind == "pile_top":
        species = (x.args[1],)
    elif x.kind == "pending":
        players, species = (x.args[2],), (x.args[1],)
        ability = eng.rules.moves.get(x.args[0])
        if ability is None or not ability.is_ability:
            raise ScenarioError(x.pos, f"unknown ability {x.args[0]!r}")
    elif x.kind == "phase":
        check_phase(eng, x.args[0], x.pos)
    for name in players:
        player_index(st, name, x.pos)
    for sp in species:
        _known_species(eng, sp, x.pos)


def _label(eng: Engine, card: int | None) -> str:
    return "empty" if card is None else eng.facts.species[card]


def _x_slot_is(eng: Engine, st: State, place: sc.Place, species: str | None) -> str | None:
    p = player_index(st, place.player, place.pos)
    if not 0 < place.slot <= len(st.tableaux[p]) + 1:
        raise ScenarioError(place.pos, f"{place.player} has no slot {place.slot}")
    actual = st.card_at((p, place.slot))
    _known_species(eng, species, place.pos)
    want = species or "empty"
    got = _label(eng, actual)
    return None if got == want else f"expected {place} to be {want}, actual {got}"


def _known_species(eng: Engine, species: str | None, pos: Pos) -> None:
    if species is not None and species not in eng.rules.species:
        raise ScenarioError(pos, f"unknown species {species!r}; the deck has: {', '.join(eng.rules.species)}")


def _x_holds(eng: Engine, st: State, player: str, species: str | None) -> str | None:
    """`holds X`: X is among the cards in the player's hand; `holds nothing`: the hand is empty."""
    p = player_index(st, player, Pos("", 0, 0))
    held = [eng.facts.species[c] for c in st.hands[p]]
    ok = not held if species is None else species in held
    got = ", ".join(held) or "nothing"
    return None if ok else f"expected {player} to hold {species or 'nothing'}, actual {got}"


def _pile(eng: Engine, st: State, name: str, pos: Pos) -> list[int]:
    return st.piles[known_pile(eng, name, pos)]


def _x_pile_top(eng: Engine, st: State, pile: str, species: str | None, pos: Pos) -> str | None:
    items = _pile(eng, st, pile, pos)
    got = eng.facts.species[items[-1]] if items else "empty"
    want = species or "empty"
    return None if got == want else f"expected the top of the {pile} pile to be {want}, actual {got}"


def _x_pile_size(eng: Engine, st: State, pile: str, size: int, pos: Pos) -> str | None:
    got = len(_pile(eng, st, pile, pos))
    return None if got == size else f"expected the {pile} pile to hold {size} card(s), actual {got}"


def _x_phase(eng: Engine, st: State, phase: str) -> str | None:
    return None if st.phase == phase else f"expected phase {phase}, actual {st.phase}"


def _x_active(eng: Engine, st: State, name: str) -> str | None:
    got = st.names[st.active]
    return None if got == name else f"expected {name} to be the active player, actual {got}"


def _x_knows(eng: Engine, st: State, player: str, place: sc.Place, wanted: bool) -> str | None:
    p = player_index(st, player, place.pos)
    card = card_at_place(st, place)
    got = st.knows(p, card)
    if got == wanted:
        return None
    return f"expected {player} {'to know' if wanted else 'not to know'} {place} ({eng.facts.label(card)}), " \
           f"actual: {'knows' if got else 'does not know'} it"


def _x_cards(eng: Engine, st: State, player: str, count: int) -> str | None:
    got = len(st.cards_of(player_index(st, player, Pos("", 0, 0))))
    return None if got == count else f"expected {player} to have {count} card(s), actual {got}"


def _x_window_open(eng: Engine, st: State, names: tuple[str, ...]) -> str | None:
    w = st.window
    if w is None or w.attempts <= 0:
        return f"expected an open window for {', '.join(names)}, actual {'used' if w else 'none'}"
    got = sorted(st.names[p] for p in range(len(st.names)) if w.players >> p & 1)
    if got == sorted(names):
        return None
    return f"expected the window open for {', '.join(sorted(names))}, actual for {', '.join(got) or 'nobody'}"


def _x_window_used(eng: Engine, st: State) -> str | None:
    w = st.window
    return None if w is not None and w.attempts <= 0 else "expected the window's attempts to be used"


def _x_window_closed(eng: Engine, st: State) -> str | None:
    w = st.window
    return None if w is None else f"expected no open window, actual '{w.kind}' on {eng.facts.label(w.ref)}"


def _x_pending(eng: Engine, st: State, ability: str, species: str | None, player: str) -> str | None:
    want = f"'{ability}'" + (f" of {species}" if species else "") + f" for {player}"
    if not st.waiting:
        return f"expected {want} waiting, actual nothing waiting"
    first = st.waiting[0]
    got_species = eng.facts.species[first.card]
    got = f"'{first.ability}' of {got_species} for {st.names[first.owner]}"
    if (first.ability, st.names[first.owner]) == (ability, player) and species in (None, got_species):
        return None
    return f"expected {want} waiting, actual {got}"


def _x_no_pending(eng: Engine, st: State) -> str | None:
    if not st.waiting:
        return None
    return "expected no ability waiting, actual " + ", ".join(f"'{w.ability}' for {st.names[w.owner]}"
                                                             for w in st.waiting)


def _x_value(eng: Engine, st: State, text: str, want: sc.Value, pos: Pos) -> str | None:
    fn, kind = compile_probe(eng, st, text, pos)
    got = eng.evaluate(st, fn, {n: i for i, n in enumerate(st.names)})
    return _compare(eng, st, f'"{text}"', got, want, kind)


def _x_var(eng: Engine, st: State, name: str, index: str | None, want: sc.Value) -> str | None:
    var = eng.rules.variables.get(name)
    if var is None:
        raise ScenarioError(want.pos, f"unknown variable {name!r}")
    if var.per_player != (index is not None):
        raise ScenarioError(want.pos, f"{name!r} is {'per player' if var.per_player else 'a single value'}")
    got = st.pvars[name][player_index(st, index, want.pos)] if index is not None else st.vars[name]
    label = f"{name}[{index}]" if index is not None else name
    return _compare(eng, st, label, got, want, var.type)


def _compare(eng: Engine, st: State, label: str, got: Any, want: sc.Value, kind: str | None) -> str | None:
    """Compare a value of the given kind (player, card, int, list player ...; None if unknown)."""
    if want.kind == "list":
        return _compare_list(eng, st, label, got, want, kind)
    if want.kind == "int" and kind in ("player", "card"):
        # Seats and cards are numbers inside; a scenario names them, so a wrong one cannot pass.
        what = "a player's name" if kind == "player" else "a card's species"
        raise ScenarioError(want.pos, f"{label} is a {kind}: write {what}, not the number {want}")
    if want.kind == "name" and isinstance(got, int) and not isinstance(got, bool):
        shown = _name_of(eng, st, got, kind, want.data)
        ok = shown == want.data
    elif want.kind == "slot":
        ok = got == convert(eng, st, want, "slot")
        shown = eng.slot_label(st, got) if isinstance(got, tuple) else str(got)
    elif kind == "str" and want.kind in ("none", "bool") and isinstance(got, str):
        # A word variable's value is a word: `NAME = none` claims the word none, which the scenario
        # language reads as its none (and `true`/`false` as its truth values).
        ok = got == str(want)
        shown = got
    else:
        ok = got == want.data and type(got) is type(want.data)
        shown = eng.format_value(st, "", got)
    return None if ok else f"expected {label} = {want}, actual {shown}"


def _name_of(eng: Engine, st: State, value: int, kind: str | None, wanted: str) -> str:
    """A number read back as the kind of thing it is: a player's name or a card's species."""
    if kind is None:  # unknown: read it as what the expected name is, if it can be one
        kind = "player" if wanted in st.names else "card" if wanted in eng.rules.species else "int"
    if kind == "player" and 0 <= value < len(st.names):
        return st.names[value]
    if kind == "card" and 0 <= value < len(eng.facts):
        return eng.facts.species[value]
    return str(value)


def _compare_list(eng: Engine, st: State, label: str, got: Any, want: sc.Value, kind: str | None) -> str | None:
    """Lists compare item by item, in order."""
    item_kind = kind.removeprefix("list ") if kind and kind.startswith("list ") else None
    items = list(got) if isinstance(got, (list, tuple)) and not _is_slot(got) else None
    if items is not None and len(items) == len(want.data) and all(
            _compare(eng, st, label, g, w, item_kind) is None for g, w in zip(items, want.data, strict=True)):
        return None
    players = item_kind == "player" or any(w.kind == "name" and w.data in st.names for w in want.data)
    shown = "[" + ", ".join(_show(eng, st, g, players) for g in items) + "]" if items is not None \
        else _show(eng, st, got, players)
    return f"expected {label} = {want}, actual {shown}"


def _is_slot(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value)


def _show(eng: Engine, st: State, value: Any, players: bool) -> str:
    if _is_slot(value):
        return eng.slot_label(st, value)
    return eng.format_value(st, "player" if players else "", value)


def compile_probe(eng: Engine, st: State, text: str, pos: Pos) -> tuple[Any, str | None]:
    """Compile a rules-language expression written in a scenario (player names are in scope),
    with the kind of value it gives where that can be told from the expression."""
    lark = grammar("rules_expr")
    try:
        tree = lark.parse(text)
    except UnexpectedInput as err:
        message = syntax_message(err, text, lark).replace("end of file", "end of the expression")
        column = getattr(err, "column", 0) or len(text) + 1
        raise ScenarioError(pos, f"bad expression {text!r} at its character {column}: {message}") from None
    try:
        node = build(tree, RulesBuilder(pos.file))
        known = dict.fromkeys(st.names, "player")
        return eng.compile_expr(node, known), kind_of(eng.rules, node, known)
    except BaoError as err:
        raise ScenarioError(pos, f"in {text!r}: {getattr(err, 'message', err)}") from None
    except RecursionError:
        # The compiler walks the expression's tree recursively: a long chain (1 + 1 + ... + 1) is nested
        # as deep as it is long. Bad input, not a crash.
        raise ScenarioError(pos, f"the expression {text[:60]!r}... is nested too deeply to compile "
                            f"({len(text)} characters); split it or name a part in the rules") from None


_EXPECTATIONS: dict[str, Any] = {
    "slot_is": _x_slot_is, "holds": _x_holds, "pile_top": _x_pile_top, "pile_size": _x_pile_size,
    "phase": _x_phase, "active": _x_active, "knows": _x_knows, "cards": _x_cards,
    "window_open": _x_window_open, "window_used": _x_window_used, "window_closed": _x_window_closed,
    "pending": _x_pending, "no_pending": _x_no_pending, "value": _x_value, "var": _x_var,
}
