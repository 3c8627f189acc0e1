"""Placement invariants (those reading `places`), proved per transition with Z3.

The distribution model of distribution.py assumes what a placement invariant
says: every card lies in exactly one place. So such an invariant is proved
inductively instead: for every move, ability, ability step, routine and hook,
from any state in which it holds, the rule's effects keep it.

The model follows one arbitrary card k. Its multiplicity in every place (each
player's tableau and hand, each declared pile, the box) is a symbolic count; the
invariant's expression is translated over these counts by `CardModel` (`deck`
is [k], `places(k)` their sum). The body is executed symbolically, statement by
statement, by what the statement registry (`language/statements.py`) declares
about each statement's cards:

- MOVE (`move C to D`) relocates k when C is k, neither is none, and D is a
  place; a D that is not a place (a number, a player ...) would leave k nowhere;
- SWAP (`swap A with B`) puts k on the other card's slot when exactly one of A
  and B is k and neither is none: the two cards exchange places, so k still lies
  in one place;
- DRAW (`draw into D`) relocates k when k is the top of the draw pile;
- SHUFFLE gathers k into the target pile when it lies in a source (`all_cards`:
  wherever it lies; `except top`: unless it is that pile's top);
- NEW_ROUND and RUNS (`start round`, `run`) and the `draw_empty` hook a draw may
  run are modular: their bodies are proved on their own, and the caller assumes
  the invariant after them; so are loops over anything but players (CONTAINS);
- conditions of `if` are not interpreted: every branch counts (an over-
  approximation, so a proof covers every path); NONE moves no card.

A relocation sets k's multiplicities to one in the destination, which is exact
in the states a conservation invariant allows (k in exactly one place). A
statement kind without an entry in the registry, or whose declared effect this
prover cannot read from it, makes the proof `unknown`, never `proved`.

Which card an expression denotes is symbolic too (`BodyModel`, the builtins'
`Symbolic` protocol over typed values): `card_at(slot)` may be k only if k lies
in that slot's tableau, `top(place)` only if k lies in that place, and so on.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, assert_never

import z3  # type: ignore[import-untyped]

from ..language import syntax as s
from ..language.builtins import BUILTINS, ENGINE_NAMES, STATE_NAMES, Builtin, NotProvable, Symbolic
from ..language.kinds import PARAM_KINDS, declared_kind
from ..language.ruleset import ALL_CARDS, Ruleset, Species
from ..language.statements import CardEffect, spec_of
from ..language.text import stmt_text
from ..language.walk import ExprVisitor, walk_expr
from . import terms as T
from .distribution import Outcome
from .translate import TRUE, IntV, ListV, SVal, SymbolicModel, Translator, Unsupported, Z, species_fact

# The engine draws from the pile of this name (language/ruleset.py requires the rules to declare it).
DRAW_PILE = "draw_pile"
_fresh_ids = itertools.count()


def fresh_bool(label: str) -> Z:
    return z3.Bool(f"{label}!{next(_fresh_ids)}")


def fresh_int(label: str) -> Z:
    return z3.Int(f"{label}!{next(_fresh_ids)}")


def reads_places(inv: s.InvariantDecl) -> bool:
    """Whether an invariant is about card placement (it calls `places`)."""
    exprs = [inv.holds, *([inv.when] if inv.when is not None else [])]
    return any(isinstance(e, s.Call) and e.func == "places" for x in exprs for e in walk_expr(x))


# ---------------------------------------------------------------- the card k in the invariant


@dataclass(frozen=True)
class KCardV(SVal):
    """The card k in the placement invariant's expression."""


class CardModel(SymbolicModel):
    """`deck` is [k] and `places(k)` is k's total multiplicity; nothing else of the state exists."""

    what = "card-conservation model"

    def __init__(self, counts: list[Z]) -> None:
        self.counts = counts

    def missing(self, primitive: str, pos: s.Pos) -> Unsupported:
        return Unsupported(pos, f"a placement invariant reads only places(card of the deck), not {primitive!r}")

    def deck(self, pos: s.Pos) -> SVal:
        return ListV(((KCardV(), TRUE),))

    def places(self, card: SVal, pos: s.Pos) -> SVal:
        if not isinstance(card, KCardV):
            raise self.missing("places", pos)
        return IntV(z3.Sum(*self.counts))


# ---------------------------------------------------------------- typed values of a rule body


@dataclass(frozen=True)
class TCard:
    is_k: Z  # this card is k (never when it is none)
    none: Z


@dataclass(frozen=True)
class TPlace:
    index: Z  # the place's number in the model (for a slot: its owner's tableau)
    none: Z
    is_place: Z  # false for a value of another kind that may stand where a place is expected
    slot: bool = False  # a slot (owner = index)
    what: str = ""  # the kind, when a value of another kind may stand here


@dataclass(frozen=True)
class TPlayer:
    term: Z  # seat, -1 for none


@dataclass(frozen=True)
class TList:
    """A list of players of known length (unrolled), each item present when its Bool holds."""

    items: tuple[tuple[TPlayer, Z], ...]


@dataclass(frozen=True)
class TOther:
    """A value whose content the proof does not follow: its kind of the builtin registry (int, bool,
    str, list card, list slot), `none`, or two kinds an `if` may give."""

    kind: str


TVal = TCard | TPlace | TPlayer | TList | TOther
Names = Mapping[str, TVal]
NONE_VALUE = TOther("none")


def a_type(v: TVal) -> str:
    name = type_name(v)
    return ("an " if name[0] in "aeiou" else "a ") + name


def type_name(v: TVal) -> str:
    if isinstance(v, TCard):
        return "card"
    if isinstance(v, TPlace):
        return v.what or ("slot" if v.slot else "place")
    if isinstance(v, TPlayer):
        return "player"
    if isinstance(v, TList):
        return "list of players"
    return f"list of {v.kind.removeprefix('list ')}s" if v.kind.startswith("list ") else v.kind


def _fact_kind(fact: str) -> str:
    """The kind of a card fact, read off a blank species (a fact's kind does not depend on the deck)."""
    value = species_fact(Species("", 0, 0, "", None), fact)
    return "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "str"


# ---------------------------------------------------------------- the builtins over typed values


class BodyModel:
    """The builtins' `Symbolic` protocol over the typed values of a rule body, at k's multiplicities `m`.

    Only what decides where k goes is followed: which card a value may be (and so whether it may
    be k), which place, which player. Numbers, booleans and strings are opaque (`TOther`).
    """

    def __init__(self, prover: RuleProver, m: list[Z]) -> None:
        self.p = prover
        self.m = m

    # ------------------------------------------------------------ cards and places
    def card_fact(self, card: TVal, fact: str, pos: s.Pos) -> TVal:
        return TOther(_fact_kind(fact))

    def card_at(self, slot: TVal, pos: s.Pos) -> TVal:
        return self.p.card_from("card_at", self.p.place_of_player(slot, 0, True), self.m)

    def top(self, place: TVal, pos: s.Pos) -> TVal:
        where = place if isinstance(place, TPlace) and not place.slot else as_place(NONE_VALUE)
        return self.p.card_from("top", where, self.m)

    def hand(self, player: TVal, pos: s.Pos) -> TVal:
        return self.p.place_of_player(player, self.p.n, False)

    def make_slot(self, player: TVal, number: TVal, pos: s.Pos) -> TVal:
        return self.p.place_of_player(player, 0, True)

    def added_slot(self, player: TVal, preferred: TVal, pos: s.Pos) -> TVal:
        return self.p.place_of_player(player, 0, True)

    def owner(self, slot: TVal, pos: s.Pos) -> TVal:
        return self.p.player_arg(slot)

    # ------------------------------------------------------------ players
    def seats(self, player: TVal, include_self: bool, pos: s.Pos) -> TVal:
        return TList(tuple((self.p.player("seat", False), fresh_bool("seated")) for _ in range(self.p.n)))

    def players(self, pos: s.Pos) -> TVal:
        return TList(tuple((TPlayer(z3.IntVal(q)), TRUE) for q in range(self.p.n)))

    def state(self, name: str, kind: str, pos: s.Pos) -> TVal:
        return self.p.typed(kind, name, True, self.m)

    # ------------------------------------------------------------ opaque values
    def cards(self, player: TVal, pos: s.Pos) -> TVal:
        return TOther("list card")

    def held(self, player: TVal, pos: s.Pos) -> TVal:
        return TOther("list card")

    def deck(self, pos: s.Pos) -> TVal:
        return TOther("list card")

    def slots(self, player: TVal, free: bool, pos: s.Pos) -> TVal:
        return TOther("list slot")

    def slot_no(self, slot: TVal, pos: s.Pos) -> TVal:
        return TOther("int")

    def size(self, value: TVal, pos: s.Pos) -> TVal:
        return TOther("int")

    def places(self, card: TVal, pos: s.Pos) -> TVal:
        return TOther("int")

    def player_count(self, pos: s.Pos) -> TVal:
        return TOther("int")

    def seat_count(self, pos: s.Pos) -> TVal:
        return TOther("int")

    def minmax(self, a: TVal, b: TVal, smaller: bool, pos: s.Pos) -> TVal:
        return TOther("int")

    def absolute(self, a: TVal, pos: s.Pos) -> TVal:
        return TOther("int")

    def occupied(self, slot: TVal, pos: s.Pos) -> TVal:
        return TOther("bool")

    def knows(self, player: TVal, card: TVal, pos: s.Pos) -> TVal:
        return TOther("bool")

    def marked(self, card: TVal, mark: TVal, pos: s.Pos) -> TVal:
        return TOther("bool")

    def protected(self, player: TVal, pos: s.Pos) -> TVal:
        return TOther("bool")


if TYPE_CHECKING:
    def _implements_symbolic(model: BodyModel) -> Symbolic:
        return model


class BodyExprs(ExprVisitor[TVal, Names]):
    """A rule body's expressions as typed values, at k's multiplicities `m`."""

    def __init__(self, prover: RuleProver, m: list[Z]) -> None:
        self.p = prover
        self.rules = prover.rules
        self.model = BodyModel(prover, m)
        self.m = m

    def lit(self, node: s.Lit, env: Names) -> TVal:
        v = node.value
        if v is None:
            return NONE_VALUE
        return TOther("bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "str")

    def name(self, node: s.Name, env: Names) -> TVal:
        name = node.name
        if name in env:
            return env[name]
        if name in STATE_NAMES:
            return self.builtin(STATE_NAMES[name], [], node.pos)
        if name in self.p.pile_index:
            return TPlace(z3.IntVal(self.p.pile_index[name]), z3.BoolVal(False), TRUE)
        if name in ENGINE_NAMES:
            raise Unsupported(node.pos, f"{name!r} is not bound here")
        var = self.rules.variables.get(name)
        if var is not None:
            return self.p.typed(declared_kind(var.type), name, True, self.m)
        define = self.rules.defines.get(name)
        if define is not None:
            return self.visit(define.body, {})
        raise Unsupported(node.pos, f"unknown name {name!r}")

    def call(self, node: s.Call, env: Names) -> TVal:
        args = [self.visit(a, env) for a in node.args]
        define = self.rules.defines.get(node.func)
        if define is not None:
            formals = define.formals or ()
            return self.visit(define.body, {f.name: a for f, a in zip(formals, args, strict=False)})
        builtin = BUILTINS.get(node.func)
        if builtin is None:
            raise Unsupported(node.pos, f"unknown function {node.func!r}")
        return self.builtin(builtin, args, node.pos)

    def builtin(self, builtin: Builtin, args: list[TVal], pos: s.Pos) -> TVal:
        prove = builtin.prove
        if isinstance(prove, NotProvable):
            raise Unsupported(pos, f"{builtin.name!r} has no Z3 translation: {prove.reason}")
        result = prove(self.model, pos, *args)
        if not isinstance(result, TCard | TPlace | TPlayer | TList | TOther):
            raise TypeError(f"the translation of {builtin.name!r} gave {result!r}, not a typed value")
        return result

    def index(self, node: s.Index, env: Names) -> TVal:
        self.visit(node.index, env)
        base = node.base
        if isinstance(base, s.Name) and base.name not in env:
            if base.name in self.rules.tables:
                return TOther("int")
            var = self.rules.variables.get(base.name)
            if var is not None and var.per_player:
                return self.p.typed(declared_kind(var.type), base.name, True, self.m)
        raise Unsupported(node.pos, "indexing is supported for tables and per-player variables")

    def unary(self, node: s.Unary, env: Names) -> TVal:
        self.visit(node.operand, env)
        return TOther("bool" if node.op == "not" else "int")

    def binary(self, node: s.Binary, env: Names) -> TVal:
        self.visit(node.left, env)
        self.visit(node.right, env)
        return TOther("bool" if node.op in _BOOL_OPS else "int")

    def if_expr(self, node: s.IfExpr, env: Names) -> TVal:
        self.visit(node.cond, env)
        return merge(fresh_bool("if"), self.visit(node.then, env), self.visit(node.other, env))

    def quant(self, node: s.Quant, env: Names) -> TVal:
        body = self._bound(node.var, node.domain, node.body, env)[1]
        if node.kind in ("all", "any"):
            return TOther("bool")
        return body if node.kind in ("most", "least") else TOther("int")

    def first(self, node: s.First, env: Names) -> TVal:
        item = self._bound(node.var, node.domain, node.cond, env)[0]
        return self.p.card("first", None, self.m) if isinstance(item, TCard) else item

    def filter(self, node: s.Filter, env: Names) -> TVal:
        return self._bound(node.var, node.domain, node.cond, env)[2]

    def old(self, node: s.Old, env: Names) -> TVal:
        raise Unsupported(node.pos, "old(...) reads the state before a move; a rule's body judges one state")

    def _bound(self, var: str, domain_node: s.Expr, inner: s.Expr, env: Names) -> tuple[TVal, TVal, TVal]:
        """(some item, the inner expression with it, the domain) of a quantifier, `first` or filter."""
        domain = self.visit(domain_node, env)
        item = self.p.element(domain, var, self.m, domain_node.pos)
        return item, self.visit(inner, {**env, var: item}), domain


_BOOL_OPS = {"and", "or", "==", "!=", "<", "<=", ">", ">=", "in"}


def as_place(v: TVal) -> TPlace:
    """Where a card would go: a place, none (the move is left out), or not a place at all."""
    if isinstance(v, TPlace):
        return v
    if isinstance(v, TOther) and v.kind == "none":
        return TPlace(z3.IntVal(-1), TRUE, TRUE)
    return TPlace(z3.IntVal(-1), z3.BoolVal(False), z3.BoolVal(False))


def _is_none(v: TVal) -> bool:
    return isinstance(v, TOther) and v.kind == "none"


def merge(cond: Z, a: TVal, b: TVal) -> TVal:
    """`if cond then a else b` over typed values: a union of what either may be."""
    if _is_none(a) and _is_none(b):
        return a
    if _is_none(a):
        return merge(z3.Not(cond), b, a)
    if isinstance(a, TCard) and (_is_none(b) or isinstance(b, TCard)):
        bk, bn = (b.is_k, b.none) if isinstance(b, TCard) else (z3.BoolVal(False), TRUE)
        return TCard(z3.If(cond, a.is_k, bk), z3.If(cond, a.none, bn))
    if isinstance(a, TPlayer) and (_is_none(b) or isinstance(b, TPlayer)):
        return TPlayer(z3.If(cond, a.term, b.term if isinstance(b, TPlayer) else -1))
    if isinstance(a, TPlace) or isinstance(b, TPlace):
        pa, pb = as_place(a), as_place(b)
        what = "" if isinstance(a, TPlace) and isinstance(b, TPlace) else f"{type_name(a)} or {type_name(b)}"
        return TPlace(z3.If(cond, pa.index, pb.index), z3.If(cond, pa.none, pb.none),
                      z3.If(cond, pa.is_place, pb.is_place), slot=pa.slot and pb.slot, what=what)
    if isinstance(a, TOther) and isinstance(b, TOther) and a.kind == b.kind:
        return a
    if isinstance(a, TList) and isinstance(b, TList):
        return a
    return TOther(f"{type_name(a)} or {type_name(b)}")


# ---------------------------------------------------------------- symbolic execution


@dataclass
class Loss:
    """A statement that would leave k in no place (or move something that is not a card)."""

    when: Z
    pos: s.Pos
    text: str
    why: str


@dataclass
class Collected:
    """Everything one rule's proof collects."""

    constraints: list[Z] = field(default_factory=list)
    goals: list[tuple[Z, str]] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)


Env = dict[str, TVal]


class RuleProver:
    """Executes one rule body for the card k, for n players."""

    def __init__(self, rules: Ruleset, inv: s.InvariantDecl, players: int) -> None:
        self.rules = rules
        self.inv = inv
        self.n = players
        self.pile_index = {name: 2 * players + i for i, name in enumerate(rules.piles)}
        self.box = 2 * players + len(rules.piles)
        self.size = self.box + 1
        self.run = Collected()
        self.before: list[Z] = []

    # ------------------------------------------------------------ places
    def place_label(self, i: int, names: list[str]) -> str:
        if i < self.n:
            return f"{names[i]}'s tableau"
        if i < 2 * self.n:
            return f"{names[i - self.n]}'s hand"
        for name, j in self.pile_index.items():
            if i == j:
                return name.replace("_", " ")
        return "the box" if i == self.box else "nowhere"

    def holds(self, counts: list[Z]) -> Z:
        """The invariant's expression over k's multiplicities."""
        tr = Translator(self.rules, CardModel(counts))
        when = tr.boolean(self.inv.when) if self.inv.when is not None else TRUE
        return z3.Implies(when, tr.boolean(self.inv.holds))

    def havoc(self, label: str) -> list[Z]:
        """k's places after a part proved on its own: anything that keeps the invariant."""
        counts = [fresh_int(f"{label}{i}") for i in range(self.size)]
        self.run.constraints += [c >= 0 for c in counts]
        self.run.constraints.append(self.holds(counts))
        return counts

    def onehot(self, index: Z) -> list[Z]:
        return [z3.If(index == i, 1, 0) for i in range(self.size)]

    def zeros(self) -> list[Z]:
        return [z3.IntVal(0) for _ in range(self.size)]

    @staticmethod
    def choose(cond: Z, a: list[Z], b: list[Z]) -> list[Z]:
        return [z3.If(cond, x, y) for x, y in zip(a, b, strict=True)]

    def relocate(self, moved: Z, where: TPlace, m: list[Z]) -> list[Z]:
        """k goes to `where` when `moved`; to no place at all if `where` is no place."""
        return self.choose(moved, self.choose(where.is_place, self.onehot(where.index), self.zeros()), m)

    # ------------------------------------------------------------ values
    def player(self, label: str, may_be_none: bool) -> TPlayer:
        t = fresh_int(label)
        self.run.constraints.append(z3.And(t >= (-1 if may_be_none else 0), t < self.n))
        return TPlayer(t)

    def card(self, label: str, where: Z | None, m: list[Z]) -> TCard:
        """A card read from the state: it is k only if k lies where the card is read from."""
        is_k, none = fresh_bool(label + "_is_k"), fresh_bool(label + "_none")
        self.run.constraints.append(z3.Implies(is_k, z3.Not(none)))
        if where is not None:
            self.run.constraints.append(z3.Implies(is_k, z3.Or(False, *(z3.And(where == i, c >= 1)
                                                                      for i, c in enumerate(m)))))
        return TCard(is_k, none)

    def typed(self, kind: str, label: str, may_be_none: bool, m: list[Z]) -> TVal:
        """A value of a kind of the registry (a variable, a parameter, a formal, a state name)."""
        if kind == "slot":
            owner = self.player(label, False)
            none = fresh_bool(label + "_none") if may_be_none else z3.BoolVal(False)
            return TPlace(owner.term, none, TRUE, slot=True)
        if kind == "player":
            return self.player(label, may_be_none)
        if kind == "card":
            return self.card(label, None, m)
        if kind == "list player":
            # A list of players (say a routine's `leaders: players`): any subset of the seats.
            return TList(tuple((self.player(label, False), fresh_bool(label + "_in")) for _ in range(self.n)))
        return TOther(kind)

    def element(self, domain: TVal, var: str, m: list[Z], pos: s.Pos) -> TVal:
        """Some item of a list (or none)."""
        if isinstance(domain, TList):
            return self.player(var, True)
        if isinstance(domain, TOther) and domain.kind.startswith("list "):
            return self.typed(domain.kind.removeprefix("list "), var, True, m)
        if _is_none(domain):
            return NONE_VALUE
        raise Unsupported(pos, f"iterates over {a_type(domain)}")

    def player_arg(self, v: TVal) -> TPlayer:
        if isinstance(v, TPlayer):
            return v
        if isinstance(v, TPlace) and v.slot:
            return TPlayer(z3.If(v.none, -1, v.index))
        return TPlayer(z3.IntVal(-1))

    def place_of_player(self, v: TVal, offset: int, slot: bool) -> TPlace:
        """The player's tableau (offset 0) or hand (offset n); a slot stands for its owner's tableau."""
        p = self.player_arg(v)
        return TPlace(p.term + offset, p.term == -1, TRUE, slot=slot)

    def card_from(self, label: str, where: TPlace, m: list[Z]) -> TCard:
        c = self.card(label, where.index, m)
        self.run.constraints.append(z3.Implies(z3.Or(where.none, z3.Not(where.is_place)), z3.Not(c.is_k)))
        return c

    def expr(self, node: s.Expr, env: Names, m: list[Z]) -> TVal:
        return BodyExprs(self, m).visit(node, env)

    # ------------------------------------------------------------ statements
    def block(self, stmts: tuple[s.Stmt, ...], env: Env, path: Z, m: list[Z]) -> list[Z]:
        env = dict(env)  # names bound in a block end with it
        for stmt in stmts:
            m = self.stmt(stmt, env, path, m)
        return m

    def stmt(self, node: s.Stmt, env: Env, path: Z, m: list[Z]) -> list[Z]:
        """k's places after the statement, by the card effect the statement registry declares for it."""
        try:
            effect = spec_of(node).effect
        except KeyError as err:
            raise Unsupported(node.pos, f"{err.args[0]}: its effect on cards is unknown") from None
        match effect:
            case CardEffect.NONE:
                return self._no_move(node, env, m)
            case CardEffect.MOVE:
                return self._move(node, env, path, m)
            case CardEffect.SWAP:
                return self._swap(node, env, path, m)
            case CardEffect.DRAW:
                return self._draw(node, env, path, m)
            case CardEffect.SHUFFLE:
                return self._shuffle(node, path, m)
            case CardEffect.NEW_ROUND:
                return self._new_round(node, path, m)
            case CardEffect.RUNS:
                return self._run(node, env, path, m)
            case CardEffect.CONTAINS:
                return self._contains(node, env, path, m)
            case _:
                assert_never(effect)

    @staticmethod
    def _unmodelled(node: s.Stmt, effect: CardEffect) -> Unsupported:
        return Unsupported(node.pos, f"{type(node).__name__} is declared to {effect.name.lower()} cards "
                           f"({effect.value}), which the card-conservation proof cannot read from it")

    def _lose(self, when: Z, node: s.Stmt, why: str) -> None:
        self.run.losses.append(Loss(when, node.pos, stmt_text(node), why))

    def _no_move(self, node: s.Stmt, env: Env, m: list[Z]) -> list[Z]:
        """No card moves; only the names a statement binds matter to what follows."""
        match node:
            case s.Let():
                env[node.name] = self.expr(node.value, env, m)
            case s.Pick():
                env[node.name] = self.element(self.expr(node.domain, env, m), node.name, m, node.pos)
            case _:
                pass
        return m

    def _move(self, node: s.Stmt, env: Env, path: Z, m: list[Z]) -> list[Z]:
        if not isinstance(node, s.MoveCard):
            raise self._unmodelled(node, CardEffect.MOVE)
        card = self.expr(node.card, env, m)
        dest = self.expr(node.to, env, m)
        where = as_place(dest)
        if not isinstance(card, TCard):
            self._not_a_card(path, node, "moves", card)
            return m
        moved = z3.And(path, card.is_k, z3.Not(where.none))
        self._lose(z3.And(moved, z3.Not(where.is_place)), node,
                   f"the destination is {a_type(dest)}, not a place: the card can go to no place "
                   "(the engine stops the rule there)")
        return self.relocate(moved, where, m)

    def _not_a_card(self, path: Z, node: s.Stmt, verb: str, value: TVal) -> None:
        if not _is_none(value):
            self._lose(path, node, f"{verb} {a_type(value)}, not a card: the engine would take "
                       "whichever card bears that number")

    def _swap(self, node: s.Stmt, env: Env, path: Z, m: list[Z]) -> list[Z]:
        if not isinstance(node, s.Swap):
            raise self._unmodelled(node, CardEffect.SWAP)
        first, second = self.expr(node.first, env, m), self.expr(node.second, env, m)
        for value in (first, second):
            if not isinstance(value, TCard):
                self._not_a_card(path, node, "swaps", value)
        if not isinstance(first, TCard) or not isinstance(second, TCard):
            return m  # none swaps nothing
        # The engine swaps cards lying on slots only: k takes the other card's slot, in some tableau.
        swapped = z3.And(path, z3.Xor(first.is_k, second.is_k), z3.Not(first.none), z3.Not(second.none))
        tableau = fresh_int("swap_to")
        self.run.constraints.append(z3.And(tableau >= 0, tableau < self.n))
        return self.choose(swapped, self.onehot(tableau), m)

    def _draw(self, node: s.Stmt, env: Env, path: Z, m: list[Z]) -> list[Z]:
        if not isinstance(node, s.Draw):
            raise self._unmodelled(node, CardEffect.DRAW)
        dest = self.expr(node.into, env, m)
        where = as_place(dest)
        draw = self.pile_index[DRAW_PILE]
        # An empty draw pile first hands over to the draw_empty hook (proved on its own).
        empty = fresh_bool("draw_empty")
        self.run.constraints.append(z3.Implies(m[draw] >= 1, z3.Not(empty)))
        m = self.choose(z3.And(path, empty), self.havoc("draw_empty"), m)
        drawn_k, got = fresh_bool("drawn_is_k"), fresh_bool("drew")
        self.run.constraints.append(z3.Implies(drawn_k, z3.And(got, m[draw] >= 1)))
        self.run.constraints.append(z3.Implies(m[draw] >= 1, got))
        moved = z3.And(path, drawn_k, z3.Not(where.none))
        self._lose(z3.And(moved, z3.Not(where.is_place)), node,
                   f"draws into {a_type(dest)}, not a place: the drawn card can go to no place "
                   "(the engine stops the rule there)")
        if node.bind:
            env[node.bind] = TCard(z3.And(drawn_k, z3.Not(where.none)), z3.Or(z3.Not(got), where.none))
        return self.relocate(moved, where, m)

    def _shuffle(self, node: s.Stmt, path: Z, m: list[Z]) -> list[Z]:
        if not isinstance(node, s.Shuffle) or node.into not in self.pile_index:
            raise self._unmodelled(node, CardEffect.SHUFFLE)
        gathered: list[Z] = []
        for source in node.sources:
            if source.pile == ALL_CARDS:
                gathered.append(TRUE)
                continue
            if source.pile not in self.pile_index:
                raise Unsupported(node.pos, f"unknown shuffle source {source.pile!r}")
            there = m[self.pile_index[source.pile]] >= 1
            # A source's top card stays: k is gathered unless it is that top (which the model leaves open).
            gathered.append(z3.And(there, z3.Not(fresh_bool("k_on_top"))) if source.except_top else there)
        into = self.onehot(z3.IntVal(self.pile_index[node.into]))
        return self.choose(z3.And(path, z3.Or(False, *gathered)), into, m)

    def _new_round(self, node: s.Stmt, path: Z, m: list[Z]) -> list[Z]:
        if not isinstance(node, s.StartRound):
            raise self._unmodelled(node, CardEffect.NEW_ROUND)
        return self.choose(path, self.havoc("round_start"), m)

    def _run(self, node: s.Stmt, env: Env, path: Z, m: list[Z]) -> list[Z]:
        if not isinstance(node, s.Run):
            raise self._unmodelled(node, CardEffect.RUNS)
        routine = self.rules.routines.get(node.routine)
        if routine is None:
            raise Unsupported(node.pos, f"unknown routine {node.routine!r}")
        for formal, arg in zip(routine.formals, node.args, strict=False):
            got = self.expr(arg, env, m)
            if not _fits(formal.type, got):
                self._lose(path, node, f"passes {a_type(got)} for {formal.name}: {formal.type}; the "
                           f"routine's proof assumes a {formal.type}")
        return self.choose(path, self.havoc(f"run_{node.routine}"), m)

    def _contains(self, node: s.Stmt, env: Env, path: Z, m: list[Z]) -> list[Z]:
        match node:
            case s.IfStmt():
                cond = fresh_bool("branch")
                then = self.block(node.then, env, z3.And(path, cond), m)
                other = self.block(node.other, env, z3.And(path, z3.Not(cond)), m)
                return self.choose(cond, then, other)
            case s.ForEach():
                return self._for(node, env, path, m)
            case s.Repeat():
                return self._modular_loop(node.body, env, path, m)
            case _:
                raise self._unmodelled(node, CardEffect.CONTAINS)

    def _for(self, node: s.ForEach, env: Env, path: Z, m: list[Z]) -> list[Z]:
        domain = self.expr(node.domain, env, m)
        if isinstance(domain, TList):  # players: a known number of rounds, unrolled
            for player, present in domain.items:
                after = self.block(node.body, {**env, node.var: player}, z3.And(path, present), m)
                m = self.choose(present, after, m)
            return m
        item = self.element(domain, node.var, m, node.pos)
        return self._modular_loop(node.body, {**env, node.var: item}, path, m)

    def _modular_loop(self, body: tuple[s.Stmt, ...], env: Env, path: Z, m: list[Z]) -> list[Z]:
        """Any number of rounds: one round from any state keeping the invariant must keep it."""
        start = self.havoc("loop")
        end = self.block(body, env, path, start)
        self.run.goals.append((z3.Implies(path, self.holds(end)), "a loop round"))
        return self.choose(path, self.havoc("after_loop"), m)


def _fits(formal_type: str, got: TVal) -> bool:
    """Whether a routine's argument is of its formal's kind (none fits any)."""
    if _is_none(got):
        return True
    wanted = declared_kind(formal_type)
    if wanted == "slot":
        return isinstance(got, TPlace) and got.slot
    if wanted == "player":
        return isinstance(got, TPlayer)
    if wanted == "card":
        return isinstance(got, TCard)
    if wanted == "list player":
        return isinstance(got, TList)
    return isinstance(got, TOther) and got.kind == wanted


# ---------------------------------------------------------------- proofs per rule


@dataclass
class RuleCex:
    """A rule whose effects can break the placement invariant, and how."""

    rule: str
    pos: s.Pos
    statement: str
    statement_pos: s.Pos
    why: str
    before: str  # where k lay before the rule


@dataclass
class PlacementOutcome(Outcome):
    rules_proved: int = 0
    rules_total: int = 0
    rule_cex: RuleCex | None = None


@dataclass(frozen=True)
class Transition:
    """A body that changes the state, with what it may read: parameters, formals, `actor`, `source`."""

    label: str
    pos: s.Pos
    body: tuple[s.Stmt, ...]
    params: tuple[tuple[str, str, bool], ...]  # name, kind of the registry, may be none
    is_move: bool


def _move_label(m: s.MoveDecl) -> str:
    return "step" if m.is_step else "ability" if m.is_ability else "move"


def transitions(rules: Ruleset) -> list[Transition]:
    """Every move, ability and ability step (a step's formals come from the queue and may be none),
    every routine, and every hook the rules declare."""
    out: list[Transition] = []
    for m in rules.moves.values():
        params = tuple((p.name, PARAM_KINDS.get(p.kind, p.kind), p.optional) for p in m.params)
        params += tuple((f.name, declared_kind(f.type), True) for f in m.formals)
        out.append(Transition(f"{_move_label(m)} {m.name}", m.pos, m.body, params, True))
    for r in [*rules.routines.values(), *rules.hooks.values()]:
        label = f"on {r.name}" if r.is_hook else f"routine {r.name}"
        out.append(Transition(label, r.pos, r.body, tuple((f.name, declared_kind(f.type), True) for f in r.formals),
                              False))
    return out


def prove_rule(rules: Ruleset, inv: s.InvariantDecl, players: int, rule: Transition) -> tuple[Any, RuleProver]:
    """Z3's model of a way the rule breaks the invariant, or None when it cannot."""
    prover = RuleProver(rules, inv, players)
    start = prover.before = prover.havoc("before")
    # A move is made by a player; a routine or hook may run with no actor (the engine's round start).
    env: Env = {"actor": prover.player("actor", not rule.is_move)}
    if rule.is_move:
        env["source"] = prover.card("source", None, start)
    for name, kind, may_be_none in rule.params:
        env[name] = prover.typed(kind, name, may_be_none, start)
    end = prover.block(rule.body, env, TRUE, start)
    run = prover.run
    goal = z3.And(prover.holds(end), *(g for g, _ in run.goals), *(z3.Not(loss.when) for loss in run.losses))
    solver = z3.Solver()
    solver.add(*run.constraints)
    solver.add(z3.Not(goal))
    result = T.check(solver)
    if result == z3.unknown:
        raise Unsupported(rule.pos, f"Z3 gave no answer ({solver.reason_unknown()})")
    return (solver.model() if result == z3.sat else None), prover


def prove_placement(rules: Ruleset, inv: s.InvariantDecl, players: int) -> PlacementOutcome:
    began = time.perf_counter()
    rules_list = transitions(rules)
    proved = 0
    first_cex: RuleCex | None = None
    unknown = ""
    for rule in rules_list:
        try:
            model, prover = prove_rule(rules, inv, players, rule)
        except Unsupported as err:
            unknown = unknown or f"{rule.label}: {err}"
            continue
        if model is None:
            proved += 1
        else:
            first_cex = first_cex or _rule_cex(rule, model, prover, players)
    elapsed = time.perf_counter() - began
    status = "violated" if first_cex else ("unknown" if unknown else "proved")
    out = PlacementOutcome(status, elapsed, unknown if status == "unknown" else "")
    out.rules_proved, out.rules_total, out.rule_cex = proved, len(rules_list), first_cex
    return out


def _rule_cex(rule: Transition, model: Any, prover: RuleProver, players: int) -> RuleCex:
    names = player_names(players)
    before = "nowhere"
    for i, c in enumerate(prover.before):
        if model.eval(c, model_completion=True).as_long() >= 1:
            before = prover.place_label(i, names)
    for loss in prover.run.losses:
        if z3.is_true(model.eval(loss.when, model_completion=True)):
            return RuleCex(rule.label, rule.pos, loss.text, loss.pos, loss.why, before)
    return RuleCex(rule.label, rule.pos, "", rule.pos, "the card ends in no place or in more than one", before)


def player_names(n: int) -> list[str]:
    """Seat names for reports and emitted scenarios."""
    base = ["alice", "bob", "carol", "dave", "erin", "frank"]
    return [base[i] if i < len(base) else f"player{i + 1}" for i in range(n)]
