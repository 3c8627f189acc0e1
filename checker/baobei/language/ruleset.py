"""The checked rules model: declarations indexed by name, names resolved, errors positioned."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import assert_never

from . import syntax as s
from .errors import RulesError

# The kinds of value a variable or a formal parameter may be declared with.
VALUE_TYPES = ("int", "bool", "str", "player", "card", "slot", "players", "cards")

# Moments at which the engine hands control to the rules: name -> (parameters, required).
HOOKS: dict[str, tuple[tuple[str, ...], bool]] = {
    "round_start": ((), True),
    "draw_empty": (("player",), True),
    # A waiting ability (or a step of one) is about to be used by its owner.
    "ability_start": (("player", "card"), False),
    # A move or an ability step has completed and changed cards of a player's tableau; `by` made it.
    "changed": (("player", "player"), False),
}

# A shuffle source that is no pile: every card of the deck, wherever it lies.
ALL_CARDS = "all_cards"
# The pile the `draw` statement draws from (a name of the engine's contract with the rules, like the hooks).
DRAW_PILE = "draw_pile"

# Resource limits, checked when the rules load so that a slip (a count of 100000000) is a clear error and
# not minutes of play ending out of memory. Far beyond any card game: the default deck has 66 cards.
MAX_DECK = 1_000  # cards in the whole deck
MAX_VALUE = 1_000_000  # the largest absolute card value
MAX_PLAYERS = 26  # the largest player count a `players` declaration may allow


@dataclass(frozen=True)
class Species:
    name: str
    value: int
    count: int
    family: str
    ability: str | None


@dataclass
class Ruleset:
    """Everything the rules directory declares, validated."""

    source: str
    min_players: int = 0
    max_players: int = 0
    players_cite: s.Citation = field(default_factory=lambda: s.Citation(""))
    deck: s.DeckDecl | None = None
    species: dict[str, Species] = field(default_factory=dict)
    tables: dict[str, s.TableDecl] = field(default_factory=dict)
    assumptions: dict[str, s.AssumptionDecl] = field(default_factory=dict)
    variables: dict[str, s.VarDecl] = field(default_factory=dict)
    defines: dict[str, s.DefineDecl] = field(default_factory=dict)
    moves: dict[str, s.MoveDecl] = field(default_factory=dict)  # moves, abilities and ability steps
    routines: dict[str, s.RoutineDecl] = field(default_factory=dict)
    hooks: dict[str, s.RoutineDecl] = field(default_factory=dict)
    invariants: dict[str, s.InvariantDecl] = field(default_factory=dict)  # state and transition invariants
    progress: dict[str, s.ProgressDecl] = field(default_factory=dict)

    @property
    def lemmas(self) -> dict[str, s.InvariantDecl]:
        """The auxiliary claims among the invariants (`lemma`): proved, and assumed by the other proofs."""
        return {k: v for k, v in self.invariants.items() if v.lemma}
    waiting: s.WaitingDecl | None = None
    no_choice: s.NoChoiceDecl | None = None
    untriggered: s.UntriggeredDecl | None = None
    implicit: s.ImplicitDecl | None = None
    piles: dict[str, s.PileDecl] = field(default_factory=dict)
    hand: s.HandDecl | None = None
    phases: s.PhasesDecl | None = None
    window: s.WindowDecl | None = None
    halts: dict[str, s.HaltDecl] = field(default_factory=dict)
    simultaneous: s.SimultaneousDecl | None = None
    marks: dict[str, s.MarkDecl] = field(default_factory=dict)
    protects: dict[str, s.ProtectDecl] = field(default_factory=dict)
    # What `baobei simulate` counts and how its simulated players choose: not rules of the game.
    statistics: dict[str, s.StatisticDecl] = field(default_factory=dict)
    policies: dict[str, s.PolicyDecl] = field(default_factory=dict)
    files: list[s.RulesFile] = field(default_factory=list)
    # The kinds of each `say` statement's arguments, by the statement's position: the engine shows a
    # player by name and a card by its label, which an integer value alone cannot tell.
    say_kinds: dict[s.Pos, tuple[str, ...]] = field(default_factory=dict)
    # The kind of what each `pick` chooses (player, card, ...): a game log names a random pick by it.
    pick_kinds: dict[s.Pos, str] = field(default_factory=dict)

    def table_value(self, name: str, players: object) -> int | None:
        if not isinstance(players, int):
            return None
        for row in self.tables[name].rows:
            if row.low <= players <= row.high:
                return row.value
        return None

    @property
    def phase_names(self) -> tuple[str, ...]:
        return self.phases.names if self.phases is not None else ()

    @property
    def window_kinds(self) -> tuple[str, ...]:
        return self.window.kinds if self.window is not None else ()

    def enum_values(self, enum: str) -> tuple[str, ...]:
        """The declared names a string of this enumeration may take (see builtins.Builtin.enum)."""
        return {"phases": self.phase_names, "window kinds": self.window_kinds,
                "marks": tuple(self.marks)}.get(enum, ())

    def cited_rules(self) -> list[tuple[str, str, s.Citation, s.Pos]]:
        """(kind, name, citation, position) of every declaration that cites the rulebook."""
        out: list[tuple[str, str, s.Citation, s.Pos]] = []
        if self.deck is not None:
            out.append(("deck", self.deck.title, self.deck.cite, self.deck.pos))
        out.append(("players", f"{self.min_players}..{self.max_players}", self.players_cite, s.NOWHERE))
        out += [("table", t.name, t.cite, t.pos) for t in self.tables.values()]
        out += [("define", d.name, d.cite, d.pos) for d in self.defines.values() if d.cite]
        out += [(_move_kind(m), m.name, m.cite, m.pos) for m in self.moves.values()]
        out += [("routine", r.name, r.cite, r.pos) for r in self.routines.values()]
        out += [("hook", r.name, r.cite, r.pos) for r in self.hooks.values()]
        out += [("invariant", i.ident, i.cite, i.pos) for i in self.invariants.values()]
        out += [("progress", p.ident, p.cite, p.pos) for p in self.progress.values()]
        out += [("pile", p.name, p.cite, p.pos) for p in self.piles.values()]
        for label, decl in (("waiting", self.waiting), ("no choice", self.no_choice),
                            ("untriggered", self.untriggered), ("implicit", self.implicit),
                            ("hand", self.hand),
                            ("phases", self.phases), ("window", self.window), ("simultaneous", self.simultaneous)):
            if decl is not None:
                out.append((label, label, decl.cite, decl.pos))
        out += [("halt", h.name, h.cite, h.pos) for h in self.halts.values()]
        out += [("mark", m.name, m.cite, m.pos) for m in self.marks.values()]
        out += [("protect", p.name, p.cite, p.pos) for p in self.protects.values()]
        return out


def _move_kind(m: s.MoveDecl) -> str:
    return "step" if m.is_step else "ability" if m.is_ability else "move"


def _unique(table: dict[str, object], key: str, decl: s.Decl, what: str) -> None:
    if key in table:
        raise RulesError(decl.pos, f"{what} {key!r} is declared twice")


def _single(current: object, decl: s.Decl, what: str) -> None:
    if current is not None:
        raise RulesError(decl.pos, f"{what} is declared twice")


def file_declarations(rules: Ruleset) -> None:
    """File every declaration of the rules' files under its kind; duplicates are errors."""
    for f in rules.files:
        for decl in f.decls:
            _add(rules, decl)


def _add(rules: Ruleset, decl: s.Decl) -> None:
    """File one declaration under its kind."""
    match decl:
        case s.PlayersDecl():
            if rules.max_players:
                raise RulesError(decl.pos, "the player count is declared twice")
            if not 1 <= decl.low <= decl.high:
                raise RulesError(decl.pos, f"player range {decl.low}..{decl.high} is empty")
            if decl.high > MAX_PLAYERS:
                raise RulesError(decl.pos, f"player range {decl.low}..{decl.high}: at most {MAX_PLAYERS} players")
            rules.min_players, rules.max_players, rules.players_cite = decl.low, decl.high, decl.cite
        case s.DeckDecl():
            if rules.deck is not None:
                raise RulesError(decl.pos, "a second deck is declared; a rules variant replaces the deck file")
            rules.deck = decl
        case s.TableDecl():
            _unique(rules.tables, decl.name, decl, "table")  # type: ignore[arg-type]
            _check_rows(decl)
            rules.tables[decl.name] = decl
        case s.AssumptionDecl():
            _unique(rules.assumptions, decl.ident, decl, "assumption")  # type: ignore[arg-type]
            rules.assumptions[decl.ident] = decl
        case s.VarDecl():
            _check_type(decl.type, decl.pos, f"variable {decl.name!r}")
            _unique(rules.variables, decl.name, decl, "variable")  # type: ignore[arg-type]
            rules.variables[decl.name] = decl
        case s.DefineDecl():
            _no_repeats(tuple(f.name for f in decl.formals or ()), decl, f"definition {decl.name!r}: the parameter")
            for formal in decl.formals or ():
                _check_type(formal.type, decl.pos, f"parameter {formal.name!r} of {decl.name!r}")
            _unique(rules.defines, decl.name, decl, "definition")  # type: ignore[arg-type]
            rules.defines[decl.name] = decl
        case s.MoveDecl():
            # One name, one meaning: an argument named twice (or also a step's value) would hide the other.
            _no_repeats(tuple(p.name for p in decl.params) + tuple(f.name for f in decl.formals), decl,
                        f"move {decl.name!r}: the argument")
            for formal in decl.formals:
                _check_type(formal.type, decl.pos, f"value {formal.name!r} of the step {decl.name!r}")
            _unique(rules.moves, decl.name, decl, "move, ability or step")  # type: ignore[arg-type]
            rules.moves[decl.name] = decl
        case s.RoutineDecl():
            _add_routine(rules, decl)
        case s.InvariantDecl() | s.ProgressDecl():
            _add_property(rules, decl)
        case _:
            _add_fact(rules, decl)


def _add_property(rules: Ruleset, decl: s.InvariantDecl | s.ProgressDecl) -> None:
    """Invariants and progress properties share one name space: reports name a property by it."""
    if decl.ident in rules.invariants or decl.ident in rules.progress:
        raise RulesError(decl.pos, f"property {decl.ident!r} is declared twice")
    if isinstance(decl, s.InvariantDecl):
        rules.invariants[decl.ident] = decl
    else:
        rules.progress[decl.ident] = decl


def _add_fact(rules: Ruleset, decl: s.Decl) -> None:
    """File a declaration of the game's vocabulary: piles, hand, phases, windows, marks, policies."""
    match decl:
        case s.PileDecl():
            _unique(rules.piles, decl.name, decl, "pile")  # type: ignore[arg-type]
            rules.piles[decl.name] = decl
        case s.HandDecl():
            _single(rules.hand, decl, "the hand")
            if decl.capacity < 1:
                raise RulesError(decl.pos, "a hand must hold at least one card")
            rules.hand = decl
        case s.PhasesDecl():
            _single(rules.phases, decl, "the set of phases")
            _no_repeats(decl.names, decl, "phase")
            rules.phases = decl
        case s.WindowDecl():
            _single(rules.window, decl, "the window")
            _no_repeats(decl.kinds, decl, "window kind")
            if decl.attempts < 1 or decl.open_max < 1:
                raise RulesError(decl.pos, "a window needs at least one attempt and room for one open window")
            rules.window = decl
        case s.WaitingDecl():
            _single(rules.waiting, decl, "the waiting rule for abilities")
            rules.waiting = decl
        case s.NoChoiceDecl():
            _single(rules.no_choice, decl, "the rule for abilities without a legal choice")
            rules.no_choice = decl
        case s.UntriggeredDecl():
            _single(rules.untriggered, decl, "the rule for abilities nothing triggered")
            rules.untriggered = decl
        case s.ImplicitDecl():
            _single(rules.implicit, decl, "the moves a log may leave out")
            _no_repeats(decl.moves, decl, "implicit move")
            rules.implicit = decl
        case s.HaltDecl():
            _unique(rules.halts, decl.name, decl, "halt")  # type: ignore[arg-type]
            rules.halts[decl.name] = decl
        case s.SimultaneousDecl():
            _single(rules.simultaneous, decl, "the order of simultaneous calls")
            rules.simultaneous = decl
        case s.MarkDecl():
            _unique(rules.marks, decl.name, decl, "mark")  # type: ignore[arg-type]
            rules.marks[decl.name] = decl
        case s.ProtectDecl():
            _unique(rules.protects, decl.name, decl, "protection")  # type: ignore[arg-type]
            rules.protects[decl.name] = decl
        case s.StatisticDecl():
            _unique(rules.statistics, decl.ident, decl, "statistic")  # type: ignore[arg-type]
            rules.statistics[decl.ident] = decl
        case s.PolicyDecl():
            _unique(rules.policies, decl.ident, decl, "policy")  # type: ignore[arg-type]
            rules.policies[decl.ident] = decl
        case s.PlayersDecl() | s.DeckDecl() | s.TableDecl() | s.AssumptionDecl() | s.VarDecl() | s.DefineDecl() \
                | s.MoveDecl() | s.RoutineDecl() | s.InvariantDecl() | s.ProgressDecl():
            raise AssertionError("filed by _add")
        case _:
            assert_never(decl)


def _no_repeats(names: tuple[str, ...], decl: s.Decl, what: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise RulesError(decl.pos, f"{what} {name!r} is named twice")
        seen.add(name)


def _check_rows(table: s.TableDecl) -> None:
    """Rows are ranges of player counts; no count may have two rows."""
    seen: dict[int, s.TableRow] = {}
    for row in table.rows:
        if row.low > row.high:
            raise RulesError(table.pos, f"table {table.name!r}: the range {row.low}..{row.high} is empty")
        for n in range(row.low, row.high + 1):
            if n in seen:
                raise RulesError(table.pos, f"table {table.name!r} has two rows for {n}")
            seen[n] = row


def _check_type(type_name: str, pos: s.Pos, what: str) -> None:
    if type_name not in VALUE_TYPES:
        raise RulesError(pos, f"{what} has unknown type {type_name!r}; one of: {', '.join(VALUE_TYPES)}")


def _add_routine(rules: Ruleset, decl: s.RoutineDecl) -> None:
    _no_repeats(tuple(f.name for f in decl.formals), decl, f"routine {decl.name!r}: the parameter")
    for formal in decl.formals:
        _check_type(formal.type, decl.pos, f"parameter {formal.name!r} of {decl.name!r}")
    if not decl.is_hook:
        _unique(rules.routines, decl.name, decl, "routine")  # type: ignore[arg-type]
        rules.routines[decl.name] = decl
        return
    if decl.name not in HOOKS:
        raise RulesError(decl.pos, f"unknown hook {decl.name!r}; the engine calls: {', '.join(sorted(HOOKS))}")
    wanted = HOOKS[decl.name][0]
    if len(decl.formals) != len(wanted):
        raise RulesError(decl.pos, f"hook {decl.name!r} takes {len(wanted)} parameter(s): {', '.join(wanted)}")
    _unique(rules.hooks, decl.name, decl, "hook")  # type: ignore[arg-type]
    rules.hooks[decl.name] = decl


def check_deck(rules: Ruleset) -> None:
    deck = rules.deck
    if deck is None:
        raise RulesError(s.Pos(rules.source, 0, 0), "the rules declare no deck")
    for card in deck.cards:
        if card.species in rules.species:
            raise RulesError(card.pos, f"species {card.species!r} is declared twice")
        if card.count < 1:
            raise RulesError(card.pos, f"species {card.species!r} needs a count of at least 1")
        if card.count > MAX_DECK:
            raise RulesError(card.pos, f"species {card.species!r} has {card.count} cards; a deck holds at most "
                             f"{MAX_DECK}")
        if abs(card.value) > MAX_VALUE:
            raise RulesError(card.pos, f"species {card.species!r} has the value {card.value}; values lie "
                             f"between -{MAX_VALUE} and {MAX_VALUE}")
        if card.ability is not None:
            ability = rules.moves.get(card.ability)
            if ability is None or not ability.is_ability or ability.is_step:
                raise RulesError(card.pos, f"unknown ability {card.ability!r} for {card.species}")
        rules.species[card.species] = Species(card.species, card.value, card.count,
                                              card.family or card.species, card.ability)
    total = sum(sp.count for sp in rules.species.values())
    if total > MAX_DECK:
        raise RulesError(deck.pos, f"the deck has {total} cards; a deck holds at most {MAX_DECK}")


def check_required(rules: Ruleset) -> None:
    where = s.Pos(rules.source, 0, 0)
    if not rules.max_players:
        raise RulesError(where, "the rules declare no player count (players LOW..HIGH)")
    if rules.phases is None:
        raise RulesError(where, "the rules declare no phases (phases NAME, NAME ...)")
    if rules.hand is None:
        raise RulesError(where, "the rules declare no hand (hand holds N)")
    if "draw_pile" not in rules.piles:
        raise RulesError(where, "the rules declare no draw_pile (pile draw_pile face down ...): draws come from it")
    for hook, (_, required) in HOOKS.items():
        if required and hook not in rules.hooks:
            raise RulesError(where, f"the rules declare no hook 'on {hook}'")
