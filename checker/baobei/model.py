"""The checked rules model: declarations indexed by name, names resolved, errors positioned."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import syntax as s
from .errors import RulesError
from .rules_parser import parse_rules_dir

PILE_NAMES = ("draw_pile", "discard_pile", "under_pile")

# The kinds of value a variable or a formal parameter may be declared with.
VALUE_TYPES = ("int", "bool", "str", "player", "card", "slot", "players", "cards")

# Moments at which the engine hands control to the rules.
HOOKS = {"round_start": 0, "draw_empty": 1}


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
    moves: dict[str, s.MoveDecl] = field(default_factory=dict)
    routines: dict[str, s.RoutineDecl] = field(default_factory=dict)
    hooks: dict[str, s.RoutineDecl] = field(default_factory=dict)
    invariants: dict[str, s.InvariantDecl] = field(default_factory=dict)
    waiting: s.WaitingDecl | None = None
    face_up: dict[str, s.FaceUpDecl] = field(default_factory=dict)
    files: list[s.RulesFile] = field(default_factory=list)

    def table_value(self, name: str, players: int) -> int | None:
        if not isinstance(players, int):
            return None
        for row in self.tables[name].rows:
            if row.low <= players <= row.high:
                return row.value
        return None

    def cited_rules(self) -> list[tuple[str, str, s.Citation, s.Pos]]:
        """(kind, name, citation, position) of every declaration that cites the rulebook."""
        out: list[tuple[str, str, s.Citation, s.Pos]] = []
        if self.deck is not None:
            out.append(("deck", self.deck.title, self.deck.cite, self.deck.pos))
        out.append(("players", f"{self.min_players}..{self.max_players}", self.players_cite, s.NOWHERE))
        out += [("table", t.name, t.cite, t.pos) for t in self.tables.values()]
        out += [("define", d.name, d.cite, d.pos) for d in self.defines.values() if d.cite]
        out += [("ability" if m.is_ability else "move", m.name, m.cite, m.pos) for m in self.moves.values()]
        out += [("routine", r.name, r.cite, r.pos) for r in self.routines.values()]
        out += [("hook", r.name, r.cite, r.pos) for r in self.hooks.values()]
        out += [("invariant", i.ident, i.cite, i.pos) for i in self.invariants.values()]
        if self.waiting is not None:
            out.append(("waiting", "waiting", self.waiting.cite, self.waiting.pos))
        out += [("face up", f.pile, f.cite, f.pos) for f in self.face_up.values()]
        return out


def _unique(table: dict[str, object], key: str, decl: s.Decl, what: str) -> None:
    if key in table:
        raise RulesError(decl.pos, f"{what} {key!r} is declared twice")


def _add(rules: Ruleset, decl: s.Decl) -> None:
    """File one declaration under its kind."""
    if isinstance(decl, s.PlayersDecl):
        if rules.max_players:
            raise RulesError(decl.pos, "the player count is declared twice")
        if not 1 <= decl.low <= decl.high:
            raise RulesError(decl.pos, f"player range {decl.low}..{decl.high} is empty")
        rules.min_players, rules.max_players, rules.players_cite = decl.low, decl.high, decl.cite
    elif isinstance(decl, s.DeckDecl):
        if rules.deck is not None:
            raise RulesError(decl.pos, "a second deck is declared; a rules variant replaces the deck file")
        rules.deck = decl
    elif isinstance(decl, s.TableDecl):
        _unique(rules.tables, decl.name, decl, "table")  # type: ignore[arg-type]
        _check_rows(decl)
        rules.tables[decl.name] = decl
    elif isinstance(decl, s.AssumptionDecl):
        _unique(rules.assumptions, decl.ident, decl, "assumption")  # type: ignore[arg-type]
        rules.assumptions[decl.ident] = decl
    elif isinstance(decl, s.VarDecl):
        _check_type(decl.type, decl.pos, f"variable {decl.name!r}")
        _unique(rules.variables, decl.name, decl, "variable")  # type: ignore[arg-type]
        rules.variables[decl.name] = decl
    elif isinstance(decl, s.DefineDecl):
        for formal in decl.formals or ():
            _check_type(formal.type, decl.pos, f"parameter {formal.name!r} of {decl.name!r}")
        _unique(rules.defines, decl.name, decl, "definition")  # type: ignore[arg-type]
        rules.defines[decl.name] = decl
    elif isinstance(decl, s.MoveDecl):
        _unique(rules.moves, decl.name, decl, "move or ability")  # type: ignore[arg-type]
        rules.moves[decl.name] = decl
    elif isinstance(decl, s.RoutineDecl):
        _add_routine(rules, decl)
    elif isinstance(decl, s.FaceUpDecl):
        if decl.pile not in PILE_NAMES:
            raise RulesError(decl.pos, f"unknown pile {decl.pile!r}; one of: {', '.join(PILE_NAMES)}")
        _unique(rules.face_up, decl.pile, decl, "face-up pile")  # type: ignore[arg-type]
        rules.face_up[decl.pile] = decl
    elif isinstance(decl, s.WaitingDecl):
        if rules.waiting is not None:
            raise RulesError(decl.pos, "the waiting rule for abilities is declared twice")
        rules.waiting = decl
    elif isinstance(decl, s.InvariantDecl):
        _unique(rules.invariants, decl.ident, decl, "invariant")  # type: ignore[arg-type]
        rules.invariants[decl.ident] = decl


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
    for formal in decl.formals:
        _check_type(formal.type, decl.pos, f"parameter {formal.name!r} of {decl.name!r}")
    if not decl.is_hook:
        _unique(rules.routines, decl.name, decl, "routine")  # type: ignore[arg-type]
        rules.routines[decl.name] = decl
        return
    if decl.name not in HOOKS:
        raise RulesError(decl.pos, f"unknown hook {decl.name!r}; the engine calls: {', '.join(sorted(HOOKS))}")
    if len(decl.formals) != HOOKS[decl.name]:
        raise RulesError(decl.pos, f"hook {decl.name!r} takes {HOOKS[decl.name]} parameter(s)")
    _unique(rules.hooks, decl.name, decl, "hook")  # type: ignore[arg-type]
    rules.hooks[decl.name] = decl


def _check_deck(rules: Ruleset) -> None:
    deck = rules.deck
    if deck is None:
        raise RulesError(s.Pos(rules.source, 0, 0), "the rules declare no deck")
    for card in deck.cards:
        if card.species in rules.species:
            raise RulesError(card.pos, f"species {card.species!r} is declared twice")
        if card.count < 1:
            raise RulesError(card.pos, f"species {card.species!r} needs a count of at least 1")
        if card.ability is not None:
            ability = rules.moves.get(card.ability)
            if ability is None or not ability.is_ability:
                raise RulesError(card.pos, f"unknown ability {card.ability!r} for {card.species}")
        rules.species[card.species] = Species(card.species, card.value, card.count,
                                              card.family or card.species, card.ability)


def build_ruleset(files: list[s.RulesFile], source: str) -> Ruleset:
    rules = Ruleset(source=source, files=files)
    for f in files:
        for decl in f.decls:
            _add(rules, decl)
    if not rules.max_players:
        raise RulesError(s.Pos(source, 0, 0), "the rules declare no player count (players LOW..HIGH)")
    _check_deck(rules)
    for hook in HOOKS:
        if hook not in rules.hooks:
            raise RulesError(s.Pos(source, 0, 0), f"the rules declare no hook 'on {hook}'")
    return rules


def load_ruleset(directory: Path) -> Ruleset:
    return build_ruleset(parse_rules_dir(directory), str(directory))
