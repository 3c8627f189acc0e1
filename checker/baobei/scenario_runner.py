"""Replay a scenario: build its table, play its moves, check its expectations.

A failed expectation is a result (the scenario fails, with expected against
actual and the trace so far); a malformed scenario is a ScenarioError.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark.exceptions import UnexpectedInput

from . import scenario_syntax as sc
from .compiler import Compiler, Event
from .engine import SLOT_KINDS, Engine, Move
from .errors import BaoError, EngineError, ScenarioError, caret_excerpt
from .model import load_ruleset
from .paths import default_rules_dir
from .rules_parser import RulesBuilder, build, grammar
from .state import State
from .syntax import Citation, Pos
from .table_view import render_table

_ENGINES: dict[Path, Engine] = {}


def engine_for(rules_dir: Path | None = None) -> Engine:
    """One compiled engine per rules directory and process."""
    key = (rules_dir or default_rules_dir()).resolve()
    if key not in _ENGINES:
        _ENGINES[key] = Engine(load_ruleset(key))
    return _ENGINES[key]


@dataclass
class TraceEntry:
    pos: Pos
    text: str
    events: list[Event] = field(default_factory=list)
    table: list[str] = field(default_factory=list)


@dataclass
class Failure:
    pos: Pos
    step: str
    message: str


@dataclass
class ScenarioResult:
    scenario: sc.Scenario
    failure: Failure | None
    trace: list[TraceEntry]
    state: State | None

    @property
    def passed(self) -> bool:
        return self.failure is None


# ---------------------------------------------------------------- setup


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


def build_table(eng: Engine, table: sc.Table) -> State:
    if not table.players:
        raise ScenarioError(table.pos, "the table names no players (players NAME NAME ...)")
    try:
        st = eng.blank_state(list(table.players), table.seed)
    except BaoError as err:
        raise ScenarioError(table.pos, str(err)) from None
    if table.phase is not None:
        check_phase(eng, table.phase, table.pos)
    st.round, st.turn, st.phase = 1, 1, table.phase or "turn"
    pool = CardPool(eng)
    _place_cards(eng, st, table, pool)
    st.box = pool.rest()
    st.active = player_index(st, table.active[0], table.active[1]) if table.active else 0
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
            for c in ids:
                st.known[c] = st.everyone
        else:
            st.under = ids
    for name, species, pos in table.holds:
        p = player_index(st, name, pos)
        card = pool.take(species, pos)
        st.hands[p] = card
        st.known[card] |= 1 << p


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
        if param is None:
            raise ScenarioError(value.pos, f"{name} has no argument {key!r}; it takes: "
                                f"{', '.join(q.name for q in params) or 'none'}")
        values[key] = convert(eng, st, value, param.kind)
    return Move(p, name, tuple((q.name, values.get(q.name)) for q in params))


# ---------------------------------------------------------------- expectations


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


def check_phase(eng: Engine, phase: str, pos: Pos) -> None:
    if phase not in eng.phases:
        raise ScenarioError(pos, f"unknown phase {phase!r}; the rules use: {', '.join(sorted(eng.phases))}")


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
    p = player_index(st, player, Pos("", 0, 0))
    got = _label(eng, st.hands[p]) if st.hands[p] is not None else "nothing"
    want = species or "nothing"
    return None if got == want else f"expected {player} to hold {want}, actual {got}"


def _pile(st: State, name: str) -> list[int]:
    return {"draw": st.draw, "discard": st.discard, "under": st.under}[name]


def _x_pile_top(eng: Engine, st: State, pile: str, species: str) -> str | None:
    items = _pile(st, pile)
    got = eng.facts.species[items[-1]] if items else "empty"
    return None if got == species else f"expected the top of the {pile} pile to be {species}, actual {got}"


def _x_pile_size(eng: Engine, st: State, pile: str, size: int) -> str | None:
    got = len(_pile(st, pile))
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
    if w is None or w.used:
        return f"expected an open pluck window for {', '.join(names)}, actual {'used' if w else 'none'}"
    got = sorted(st.names[p] for p in range(len(st.names)) if w.players >> p & 1)
    if got == sorted(names):
        return None
    return f"expected the window open for {', '.join(sorted(names))}, actual for {', '.join(got) or 'nobody'}"


def _x_window_used(eng: Engine, st: State) -> str | None:
    w = st.window
    return None if w is not None and w.used else "expected the pluck window's attempt to be used"


def _x_window_closed(eng: Engine, st: State) -> str | None:
    w = st.window
    return None if w is None else f"expected no pluck window, actual '{w.kind}' on {eng.facts.label(w.ref)}"


def _x_pending(eng: Engine, st: State, ability: str, species: str | None, player: str) -> str | None:
    want = f"'{ability}'" + (f" of {species}" if species else "") + f" for {player}"
    if not st.pending:
        return f"expected {want} waiting, actual nothing waiting"
    got_ability, card, owner = st.pending[0]
    got_species = eng.facts.species[card]
    got = f"'{got_ability}' of {got_species} for {st.names[owner]}"
    if (got_ability, st.names[owner]) == (ability, player) and species in (None, got_species):
        return None
    return f"expected {want} waiting, actual {got}"


def _x_no_pending(eng: Engine, st: State) -> str | None:
    if not st.pending:
        return None
    return "expected no ability waiting, actual " + ", ".join(f"'{a}' for {st.names[o]}" for a, _, o in st.pending)


def _x_value(eng: Engine, st: State, text: str, want: sc.Value, pos: Pos) -> str | None:
    fn = compile_probe(eng, st, text, pos)
    got = eng.evaluate(st, fn, {n: i for i, n in enumerate(st.names)})
    return _compare(eng, st, f'"{text}"', got, want)


def _x_var(eng: Engine, st: State, name: str, index: str | None, want: sc.Value) -> str | None:
    var = eng.rules.variables.get(name)
    if var is None:
        raise ScenarioError(want.pos, f"unknown variable {name!r}")
    if var.per_player != (index is not None):
        raise ScenarioError(want.pos, f"{name!r} is {'per player' if var.per_player else 'a single value'}")
    got = st.pvars[name][player_index(st, index, want.pos)] if index is not None else st.vars[name]
    label = f"{name}[{index}]" if index is not None else name
    return _compare(eng, st, label, got, want)


def _compare(eng: Engine, st: State, label: str, got: Any, want: sc.Value) -> str | None:
    if want.kind == "list":
        return _compare_list(eng, st, label, got, want)
    if want.kind == "name" and isinstance(got, int) and not isinstance(got, bool):
        if want.data in st.names:
            shown = st.names[got]
        else:
            shown = eng.facts.species[got] if 0 <= got < len(eng.facts) else str(got)
        ok = shown == want.data
    elif want.kind == "slot":
        ok = got == convert(eng, st, want, "slot")
        shown = eng.slot_label(st, got) if isinstance(got, tuple) else str(got)
    else:
        ok = got == want.data and type(got) is type(want.data)
        shown = eng.format_value(st, "", got)
    return None if ok else f"expected {label} = {want}, actual {shown}"


def _compare_list(eng: Engine, st: State, label: str, got: Any, want: sc.Value) -> str | None:
    """Lists compare item by item, in order."""
    items = list(got) if isinstance(got, (list, tuple)) and not _is_slot(got) else None
    if items is not None and len(items) == len(want.data) and all(
            _compare(eng, st, label, g, w) is None for g, w in zip(items, want.data, strict=True)):
        return None
    players = any(w.kind == "name" and w.data in st.names for w in want.data)
    shown = "[" + ", ".join(_show(eng, st, g, players) for g in items) + "]" if items is not None \
        else _show(eng, st, got, players)
    return f"expected {label} = {want}, actual {shown}"


def _is_slot(value: Any) -> bool:
    return isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value)


def _show(eng: Engine, st: State, value: Any, players: bool) -> str:
    if _is_slot(value):
        return eng.slot_label(st, value)
    return eng.format_value(st, "player" if players else "", value)


def compile_probe(eng: Engine, st: State, text: str, pos: Pos) -> Any:
    """Compile a rules-language expression written in a scenario (player names are in scope)."""
    lark = grammar("rules_expr")
    try:
        tree = lark.parse(text)
    except UnexpectedInput as err:
        raise ScenarioError(pos, f"bad expression {text!r}: {str(err).splitlines()[0]}") from None
    try:
        node = build(tree, RulesBuilder(pos.file))
        return Compiler(eng).expr(node, frozenset(st.names))
    except BaoError as err:
        raise ScenarioError(pos, f"in {text!r}: {getattr(err, 'message', err)}") from None


_EXPECTATIONS: dict[str, Any] = {
    "slot_is": _x_slot_is, "holds": _x_holds, "pile_top": _x_pile_top, "pile_size": _x_pile_size,
    "phase": _x_phase, "active": _x_active, "knows": _x_knows, "cards": _x_cards,
    "window_open": _x_window_open, "window_used": _x_window_used, "window_closed": _x_window_closed,
    "pending": _x_pending, "no_pending": _x_no_pending, "value": _x_value, "var": _x_var,
}


# ---------------------------------------------------------------- running


def cite_matches(got: Citation, want: Citation) -> bool:
    return want.section in got.sections and set(want.paras) <= set(got.paras_of(want.section))


def check_invariants(eng: Engine, st: State) -> str | None:
    for ident, (when, holds) in eng.invariant_fns.items():
        if (when is None or eng.evaluate(st, when)) and not eng.evaluate(st, holds):
            inv = eng.rules.invariants[ident]
            return f"invariant {ident} ({inv.cite}) is violated: {inv.text}"
    return None


class Replay:
    """Plays one scenario step by step, recording the trace."""

    def __init__(self, eng: Engine, scenario: sc.Scenario, snapshots: bool) -> None:
        self.eng = eng
        self.scenario = scenario
        self.snapshots = snapshots
        self.trace: list[TraceEntry] = []
        self.st = self._setup()

    def _setup(self) -> State:
        setup = self.scenario.setup
        entry = TraceEntry(setup.pos, "setup")
        if isinstance(setup, sc.Deal):
            try:
                st, events = self.eng.new_match(list(setup.players), setup.seed)
            except BaoError as err:
                raise ScenarioError(setup.pos, str(err)) from None
            entry.events = events
        else:
            st = build_table(self.eng, setup)
        entry.table = render_table(self.eng, st)
        self.trace.append(entry)
        return st

    def run(self) -> Failure | None:
        for step in self.scenario.steps:
            failure = self.step(step)
            if failure is not None:
                return failure
        return None

    def step(self, step: sc.Step) -> Failure | None:
        if isinstance(step, sc.DoMove):
            return self._do(step)
        if isinstance(step, sc.Reject):
            return self._reject(step)
        if isinstance(step, sc.Simultaneous):
            return self._simultaneous(step)
        assert isinstance(step, sc.Expect)
        message = check_expectation(self.eng, self.st, step)
        self.trace.append(TraceEntry(step.pos, f"expect {step.text.removeprefix('expect ')}"
                                     + ("" if message is None else "  -> FAILED")))
        return None if message is None else Failure(step.pos, step.text, message)

    def _do(self, step: sc.DoMove) -> Failure | None:
        move = to_move(self.eng, self.st, step.player, step.move, step.args, step.pos)
        text = self.eng.describe(self.st, move)
        rejection = self.eng.check(self.st, move)
        if rejection is not None:
            self.trace.append(TraceEntry(step.pos, text + "  -> REJECTED"))
            return Failure(step.pos, text, f"expected the move to be legal, but it was rejected: "
                           f"{rejection.cite}: {rejection.reason}")
        try:
            events = self.eng.push(self.st, move)
        except EngineError as err:
            return Failure(step.pos, text, f"the rules failed while applying the move: {err}")
        entry = TraceEntry(step.pos, text, events)
        if self.snapshots:
            entry.table = render_table(self.eng, self.st)
        self.trace.append(entry)
        broken = check_invariants(self.eng, self.st)
        return None if broken is None else Failure(step.pos, text, broken)

    def _simultaneous(self, step: sc.Simultaneous) -> Failure | None:
        """D6: calls marked simultaneous count clockwise from the active player; a call that is
        no longer legal when its turn comes (the reference is used) is rejected, not a failure."""
        n = len(self.st.names)
        moves = [to_move(self.eng, self.st, c.player, c.move, c.args, c.pos) for c in step.calls]
        order = sorted(zip(moves, step.calls, strict=True), key=lambda mc: (mc[0].player - self.st.active) % n)
        for move, call in order:
            rejection = self.eng.check(self.st, move)
            if rejection is not None:
                self.trace.append(TraceEntry(call.pos, f"{rejection.move} (simultaneous): rejected, "
                                             f"{rejection.cite}: {rejection.reason}"))
                continue
            failure = self._do(call)
            if failure is not None:
                return failure
        return None

    def _reject(self, step: sc.Reject) -> Failure | None:
        move = to_move(self.eng, self.st, step.player, step.move, step.args, step.pos)
        text = self.eng.describe(self.st, move)
        rejection = self.eng.check(self.st, move)
        self.trace.append(TraceEntry(step.pos, f"reject {text}: "
                                     + (f"{rejection.cite}: {rejection.reason}" if rejection else "legal!")))
        if rejection is None:
            return Failure(step.pos, f"reject {text}", f"expected the move to be rejected citing {step.cite}, "
                           "but it is legal")
        if not cite_matches(rejection.cite, step.cite):
            return Failure(step.pos, f"reject {text}", f"expected a rejection citing {step.cite}, actual "
                           f"{rejection.cite}: {rejection.reason}")
        return None


def run_scenario(scenario: sc.Scenario, eng: Engine | None = None, snapshots: bool = False) -> ScenarioResult:
    """Replay a scenario; ScenarioError for malformed content, a Failure for a broken expectation."""
    engine = eng or engine_for(None)
    replay = Replay(engine, scenario, snapshots)
    failure = replay.run()
    return ScenarioResult(scenario, failure, replay.trace, replay.st)


def format_failure(result: ScenarioResult, source: str = "") -> str:
    failure = result.failure
    if failure is None:
        return "passed"
    lines = [f"{failure.pos}: {result.scenario.title}", f"  step: {failure.step}", f"  {failure.message}"]
    if source:
        excerpt = caret_excerpt(source, failure.pos.line, max(failure.pos.column, 1))
        if excerpt:
            lines.append(excerpt)
    lines.append("  trace up to here:")
    for entry in result.trace:
        lines.append(f"    line {entry.pos.line}: {entry.text}")
        lines.extend(f"      {ev}" for ev in entry.events)
    return "\n".join(lines)
