"""Placement invariants (those reading `places`), proved per transition rule with Z3.

The distribution model of z3_state.py assumes what a placement invariant says:
every card lies in exactly one place. So such an invariant is proved
inductively instead: for every move, ability, routine and hook, from any state in
which it holds, the rule's effects keep it.

The model follows one arbitrary card k. Its multiplicity in every place (each
player's tableau and hand, each pile, the box) is a symbolic count; the
invariant's expression is translated over these counts (`deck` is [k],
`places(k)` their sum). The body is executed symbolically, statement by
statement, as the engine's ops would run it:

- `move C to D` relocates k when C is k, neither is none, and D is a place; a D
  that is not a place (a number, a player ...) would leave k nowhere;
- `draw into D` relocates k when k is the top of the draw pile;
- `shuffle ...` gathers k into the draw pile when it lies in a source;
- `run`, `start round`, the `draw_empty` hook, `for` over cards and `repeat` are
  modular: their bodies are proved on their own, and the caller assumes the
  invariant after them;
- conditions of `if` are not interpreted: every branch counts (an over-
  approximation, so a proof covers every path).

Which card an expression denotes is symbolic too: `card_at(slot)` may be k only
if k lies in that slot's tableau, `top(pile)` only if k lies in that pile, and so on.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import z3  # type: ignore[import-untyped]

from . import syntax as s
from .builtins import SHUFFLE_SOURCES
from .model import Ruleset
from .state import PILES
from .verify_text import stmt_text
from .z3_expr import IntV, ListV, SVal, Translator, Unsupported, Z
from .z3_state import Outcome

PARAM_SLOTS = ("slot", "own_slot", "free_slot")
_fresh_ids = itertools.count()


def fresh_bool(label: str) -> Z:
    return z3.Bool(f"{label}!{next(_fresh_ids)}")


def fresh_int(label: str) -> Z:
    return z3.Int(f"{label}!{next(_fresh_ids)}")


def reads_places(inv: s.InvariantDecl) -> bool:
    """Whether an invariant is about card placement (it calls `places`)."""
    stack: list[object] = [inv.holds, *([inv.when] if inv.when is not None else [])]
    while stack:
        node = stack.pop()
        if isinstance(node, s.Call) and node.func == "places":
            return True
        if isinstance(node, s.Expr):
            for value in vars(node).values():
                stack.extend(value if isinstance(value, tuple) else [value])
    return False


# ---------------------------------------------------------------- typed values of a rule body


@dataclass(frozen=True)
class TCard:
    is_k: Z  # this card is k (never when it is none)
    none: Z


@dataclass(frozen=True)
class TPlace:
    index: Z  # the place's number in the model (for a slot: its owner's tableau)
    none: Z
    is_place: Z  # false for a value of another type that may stand where a place is expected
    slot: bool = False  # a slot (owner = index)
    what: str = ""  # the type, when a value of another type may stand here


@dataclass(frozen=True)
class TPlayer:
    term: Z  # seat, -1 for none


@dataclass(frozen=True)
class TList:
    """A list of players of known length (unrolled), each item present when its Bool holds."""

    items: tuple[tuple[TPlayer, Z], ...]


@dataclass(frozen=True)
class TOther:
    kind: str  # int, bool, str, list of card, list of slot ...


TVal = TCard | TPlace | TPlayer | TList | TOther


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
    return v.kind


# ---------------------------------------------------------------- the generic card as a translator backend


@dataclass(frozen=True)
class KCardV(SVal):
    """The card k in the placement invariant's expression."""


class KBackend:
    """`deck` is [k] and `places(k)` is k's total multiplicity; nothing else of the state exists."""

    def __init__(self, counts: list[Z]) -> None:
        self.counts = counts

    def global_name(self, name: str, pos: s.Pos) -> SVal | None:
        if name == "deck":
            return ListV(((KCardV(), z3.BoolVal(True)),))
        return None

    def variable(self, decl: s.VarDecl, index: SVal | None, pos: s.Pos) -> SVal:
        raise Unsupported(pos, f"a placement invariant reads only card places, not {decl.name!r}")

    def call(self, func: str, args: list[SVal], pos: s.Pos) -> SVal:
        if func == "places" and len(args) == 1 and isinstance(args[0], KCardV):
            return IntV(z3.Sum(*self.counts))
        raise Unsupported(pos, f"a placement invariant reads only places(card of the deck), not {func!r}")

    def card_items(self, bag: Any) -> list[tuple[SVal, Z, Z]]:
        raise Unsupported(s.NOWHERE, "a placement invariant iterates over the deck only")


# ---------------------------------------------------------------- symbolic execution


@dataclass
class Loss:
    """A statement that would leave k in no place (or move something that is not a card)."""

    when: Z
    pos: s.Pos
    text: str
    why: str


@dataclass
class Run:
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
        self.pile_index = {name: 2 * players + i for i, name in enumerate(PILES)}
        self.box = 2 * players + len(PILES)
        self.size = self.box + 1
        self.run = Run()
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
        tr = Translator(self.rules, KBackend(counts), self.n)
        when = tr.boolean(self.inv.when, {}) if self.inv.when is not None else z3.BoolVal(True)
        return z3.Implies(when, tr.boolean(self.inv.holds, {}))

    def havoc(self, label: str) -> list[Z]:
        """k's places after a part proved on its own: anything that keeps the invariant."""
        counts = [fresh_int(f"{label}{i}") for i in range(self.size)]
        self.run.constraints += [c >= 0 for c in counts]
        self.run.constraints.append(self.holds(counts))
        return counts

    def onehot(self, index: Z) -> list[Z]:
        return [z3.If(index == i, 1, 0) for i in range(self.size)]

    @staticmethod
    def choose(cond: Z, a: list[Z], b: list[Z]) -> list[Z]:
        return [z3.If(cond, x, y) for x, y in zip(a, b, strict=True)]

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

    def typed(self, vtype: str, label: str, may_be_none: bool, m: list[Z]) -> TVal:
        """A value of a declared type (a variable, a parameter, a routine's formal)."""
        if vtype in PARAM_SLOTS:
            owner = self.player(label, False)
            none = fresh_bool(label + "_none") if may_be_none else z3.BoolVal(False)
            return TPlace(owner.term, none, z3.BoolVal(True), slot=True)
        if vtype == "player":
            return self.player(label, may_be_none)
        if vtype == "card":
            return self.card(label, None, m)
        if vtype in ("players", "cards"):
            # A declared list (of players, say a routine's `leaders: list`): any subset of the seats.
            return TList(tuple((self.player(label, False), fresh_bool(label + "_in")) for _ in range(self.n)))
        return TOther(vtype)

    # ------------------------------------------------------------ expressions
    def expr(self, node: s.Expr, env: Env, m: list[Z]) -> TVal:
        if isinstance(node, s.Lit):
            v = node.value
            if v is None:
                return TOther("none")
            return TOther("bool" if isinstance(v, bool) else "int" if isinstance(v, int) else "str")
        if isinstance(node, s.Name):
            return self._name(node, env, m)
        if isinstance(node, s.Call):
            return self._call(node, env, m)
        if isinstance(node, s.Index):
            return self._index(node, env, m)
        if isinstance(node, s.Unary):
            self.expr(node.operand, env, m)
            return TOther("bool" if node.op == "not" else "int")
        if isinstance(node, s.Binary):
            self.expr(node.left, env, m)
            self.expr(node.right, env, m)
            return TOther("bool" if node.op in _BOOL_OPS else "int")
        if isinstance(node, s.IfExpr):
            self.expr(node.cond, env, m)
            return self.merge(fresh_bool("if"), self.expr(node.then, env, m), self.expr(node.other, env, m), node.pos)
        if isinstance(node, (s.Quant, s.First, s.Filter)):
            return self._over(node, env, m)
        raise Unsupported(node.pos, f"no model for {type(node).__name__}")

    def _over(self, node: s.Quant | s.First | s.Filter, env: Env, m: list[Z]) -> TVal:
        domain = self.expr(node.domain, env, m)
        item = self.element(domain, node.var, m, node.pos)
        inner = node.body if isinstance(node, s.Quant) else node.cond
        self.expr(inner, {**env, node.var: item}, m)
        if isinstance(node, s.Quant):
            return TOther("bool" if node.kind in ("all", "any") else "int")
        if isinstance(node, s.Filter):
            return domain
        if isinstance(item, TCard):
            return self.card("first", None, m)
        return item

    def element(self, domain: TVal, var: str, m: list[Z], pos: s.Pos) -> TVal:
        """Some item of a list (or none)."""
        if isinstance(domain, TList):
            return self.player(var, True)
        if isinstance(domain, TOther) and domain.kind.startswith("list of "):
            return self.typed(domain.kind.removeprefix("list of "), var, True, m)
        if isinstance(domain, TOther) and domain.kind == "none":
            return TOther("none")
        raise Unsupported(pos, f"iterates over {a_type(domain)}")

    def merge(self, cond: Z, a: TVal, b: TVal, pos: s.Pos) -> TVal:
        if isinstance(a, TOther) and a.kind == "none":
            return self.merge(z3.Not(cond), b, a, pos) if not (isinstance(b, TOther) and b.kind == "none") else a
        none_b = isinstance(b, TOther) and b.kind == "none"
        if isinstance(a, TCard) and (none_b or isinstance(b, TCard)):
            bk, bn = (z3.BoolVal(False), z3.BoolVal(True)) if none_b else (b.is_k, b.none)  # type: ignore[union-attr]
            return TCard(z3.If(cond, a.is_k, bk), z3.If(cond, a.none, bn))
        if isinstance(a, TPlayer) and (none_b or isinstance(b, TPlayer)):
            return TPlayer(z3.If(cond, a.term, -1 if none_b else b.term))  # type: ignore[union-attr]
        if isinstance(a, TPlace) or isinstance(b, TPlace):
            pa, pb = self.as_place(a), self.as_place(b)
            what = "" if isinstance(a, TPlace) and isinstance(b, TPlace) else f"{type_name(a)} or {type_name(b)}"
            return TPlace(z3.If(cond, pa.index, pb.index), z3.If(cond, pa.none, pb.none),
                          z3.If(cond, pa.is_place, pb.is_place), slot=pa.slot and pb.slot, what=what)
        if isinstance(a, TOther) and isinstance(b, TOther) and a.kind == b.kind:
            return a
        if isinstance(a, TList) and isinstance(b, TList):
            return a
        return TOther(f"{type_name(a)} or {type_name(b)}")

    @staticmethod
    def as_place(v: TVal) -> TPlace:
        """Where a card would go: a place, none (the move is left out), or not a place at all."""
        if isinstance(v, TPlace):
            return v
        if isinstance(v, TOther) and v.kind == "none":
            return TPlace(z3.IntVal(-1), z3.BoolVal(True), z3.BoolVal(True))
        return TPlace(z3.IntVal(-1), z3.BoolVal(False), z3.BoolVal(False))

    def _name(self, node: s.Name, env: Env, m: list[Z]) -> TVal:
        name = node.name
        if name in env:
            return env[name]
        if name in self.pile_index:
            return TPlace(z3.IntVal(self.pile_index[name]), z3.BoolVal(False), z3.BoolVal(True))
        if name in _ENGINE_NAMES:
            kind = _ENGINE_NAMES[name]
            if kind == "players":
                return TList(tuple((TPlayer(z3.IntVal(p)), z3.BoolVal(True)) for p in range(self.n)))
            if kind == "window_players":
                return TList(tuple((TPlayer(z3.IntVal(p)), fresh_bool("window_for")) for p in range(self.n)))
            return self.typed(kind, name, name != "active", m)
        var = self.rules.variables.get(name)
        if var is not None:
            return self.typed(var.type, name, True, m)
        define = self.rules.defines.get(name)
        if define is not None:
            return self.expr(define.body, {}, m)
        raise Unsupported(node.pos, f"unknown name {name!r}")

    def _index(self, node: s.Index, env: Env, m: list[Z]) -> TVal:
        self.expr(node.index, env, m)
        base = node.base
        if isinstance(base, s.Name) and base.name not in env:
            if base.name in self.rules.tables:
                return TOther("int")
            var = self.rules.variables.get(base.name)
            if var is not None and var.per_player:
                return self.typed(var.type, base.name, True, m)
        raise Unsupported(node.pos, "indexing is supported for tables and per-player variables")

    def _call(self, node: s.Call, env: Env, m: list[Z]) -> TVal:
        args = [self.expr(a, env, m) for a in node.args]
        define = self.rules.defines.get(node.func)
        if define is not None:
            formals = define.formals or ()
            inner = {f.name: a for f, a in zip(formals, args, strict=False)}
            return self.expr(define.body, inner, m)
        maker = _CALLS.get(node.func)
        if maker is None:
            raise Unsupported(node.pos, f"no model for the primitive {node.func!r}")
        return maker(self, args, m)

    def player_arg(self, v: TVal) -> TPlayer:
        if isinstance(v, TPlayer):
            return v
        if isinstance(v, TPlace) and v.slot:
            return TPlayer(z3.If(v.none, -1, v.index))
        return TPlayer(z3.IntVal(-1))

    def place_of_player(self, v: TVal, offset: int, slot: bool) -> TPlace:
        p = self.player_arg(v)
        return TPlace(p.term + offset, p.term == -1, z3.BoolVal(True), slot=slot)

    def card_from(self, label: str, where: TPlace, m: list[Z]) -> TCard:
        c = self.card(label, where.index, m)
        self.run.constraints.append(z3.Implies(z3.Or(where.none, z3.Not(where.is_place)), z3.Not(c.is_k)))
        return c

    # ------------------------------------------------------------ statements
    def block(self, stmts: tuple[s.Stmt, ...], env: Env, path: Z, m: list[Z]) -> list[Z]:
        env = dict(env)
        for stmt in stmts:
            m = self.stmt(stmt, env, path, m)
        return m

    def stmt(self, node: s.Stmt, env: Env, path: Z, m: list[Z]) -> list[Z]:
        if isinstance(node, s.Let):
            env[node.name] = self.expr(node.value, env, m)
            return m
        if isinstance(node, s.MoveCard):
            return self._move(node, env, path, m)
        if isinstance(node, s.Draw):
            return self._draw(node, env, path, m)
        if isinstance(node, s.Shuffle):
            return self._shuffle(node, path, m)
        if isinstance(node, s.IfStmt):
            self.expr(node.cond, env, m)
            cond = fresh_bool("branch")
            then = self.block(node.then, env, z3.And(path, cond), m)
            other = self.block(node.other, env, z3.And(path, z3.Not(cond)), m)
            return self.choose(cond, then, other)
        if isinstance(node, s.ForEach):
            return self._for(node, env, path, m)
        if isinstance(node, s.Repeat):
            self.expr(node.count, env, m)
            return self._modular_loop(node.body, env, path, m)
        if isinstance(node, s.Run):
            return self._run(node, env, path, m)
        if isinstance(node, s.StartRound):
            return self.choose(path, self.havoc("round_start"), m)
        if isinstance(node, s.Pick):
            env[node.name] = self.element(self.expr(node.domain, env, m), node.name, m, node.pos)
            return m
        for value in vars(node).values():
            if isinstance(value, s.Expr):
                self.expr(value, env, m)
        return m

    def _lose(self, when: Z, node: s.Stmt, why: str) -> None:
        self.run.losses.append(Loss(when, node.pos, stmt_text(node), why))

    def _move(self, node: s.MoveCard, env: Env, path: Z, m: list[Z]) -> list[Z]:
        card = self.expr(node.card, env, m)
        dest = self.expr(node.to, env, m)
        where = self.as_place(dest)
        if not isinstance(card, TCard):
            if not (isinstance(card, TOther) and card.kind == "none"):
                self._lose(path, node, f"moves {a_type(card)}, not a card: the engine would take "
                           "whichever card bears that number")
            return m
        moved = z3.And(path, card.is_k, z3.Not(where.none))
        self._lose(z3.And(moved, z3.Not(where.is_place)), node,
                   f"the destination is {a_type(dest)}, not a place: the card leaves its place for none")
        return self.choose(moved, self.choose(where.is_place, self.onehot(where.index), self.zeros()), m)

    def zeros(self) -> list[Z]:
        return [z3.IntVal(0) for _ in range(self.size)]

    def _draw(self, node: s.Draw, env: Env, path: Z, m: list[Z]) -> list[Z]:
        dest = self.expr(node.into, env, m)
        where = self.as_place(dest)
        draw = self.pile_index["draw_pile"]
        # An empty draw pile first hands over to the draw_empty hook (proved on its own).
        empty = fresh_bool("draw_empty")
        self.run.constraints.append(z3.Implies(m[draw] >= 1, z3.Not(empty)))
        m = self.choose(z3.And(path, empty), self.havoc("draw_empty"), m)
        drawn_k, got = fresh_bool("drawn_is_k"), fresh_bool("drew")
        self.run.constraints.append(z3.Implies(drawn_k, z3.And(got, m[draw] >= 1)))
        self.run.constraints.append(z3.Implies(m[draw] >= 1, got))
        moved = z3.And(path, drawn_k, z3.Not(where.none))
        self._lose(z3.And(moved, z3.Not(where.is_place)), node,
                   f"draws into {a_type(dest)}, not a place: the drawn card leaves the draw pile for none")
        if node.bind:
            env[node.bind] = TCard(z3.And(drawn_k, z3.Not(where.none)), z3.Or(z3.Not(got), where.none))
        return self.choose(moved, self.choose(where.is_place, self.onehot(where.index), self.zeros()), m)

    def _shuffle(self, node: s.Shuffle, path: Z, m: list[Z]) -> list[Z]:
        draw = self.onehot(z3.IntVal(self.pile_index["draw_pile"]))
        if node.into != "draw_pile":
            raise Unsupported(node.pos, "cards are shuffled into the draw_pile only")
        for source in node.sources:
            if source not in SHUFFLE_SOURCES:
                raise Unsupported(node.pos, f"unknown shuffle source {source!r}")
            if source == "all_cards":
                gathered: Z = z3.BoolVal(True)
            elif source == "discard_below_top":
                gathered = z3.And(m[self.pile_index["discard_pile"]] >= 1, z3.Not(fresh_bool("k_on_top")))
            else:
                gathered = m[self.pile_index[source]] >= 1
            m = self.choose(z3.And(path, gathered), draw, m)
        return m

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

    def _run(self, node: s.Run, env: Env, path: Z, m: list[Z]) -> list[Z]:
        routine = self.rules.routines.get(node.routine)
        if routine is None:
            raise Unsupported(node.pos, f"unknown routine {node.routine!r}")
        for formal, arg in zip(routine.formals, node.args, strict=False):
            got = self.expr(arg, env, m)
            if not _fits(formal.type, got):
                self._lose(path, node, f"passes {a_type(got)} for {formal.name}: {formal.type}; the "
                           f"routine's proof assumes a {formal.type}")
        return self.choose(path, self.havoc(f"run_{node.routine}"), m)


_BOOL_OPS = {"and", "or", "==", "!=", "<", "<=", ">", ">=", "in"}

# The engine's names (builtins.GLOBALS) that a rule body may read, by type.
_ENGINE_NAMES = {"players": "players", "window_players": "window_players", "active": "player",
                 "player_count": "int", "phase": "str", "round": "int", "turn": "int",
                 "window_ref": "card", "window_kind": "str", "window_used": "bool"}


def _fits(formal: str, got: TVal) -> bool:
    if isinstance(got, TOther) and got.kind == "none":
        return True
    if formal in PARAM_SLOTS:
        return isinstance(got, TPlace) and got.slot
    if formal == "player":
        return isinstance(got, TPlayer)
    if formal == "card":
        return isinstance(got, TCard)
    if formal in ("players", "cards"):
        return isinstance(got, TList)
    return isinstance(got, TOther) and got.kind == formal


def _seats(p: RuleProver, args: list[TVal], m: list[Z]) -> TVal:
    p.player_arg(args[0])
    return TList(tuple((p.player("seat", False), fresh_bool("seated")) for _ in range(p.n)))


_Maker = Callable[[RuleProver, list[TVal], list[Z]], TVal]
_CALLS: dict[str, _Maker] = {
    "card_at": lambda p, a, m: p.card_from("card_at", p.place_of_player(a[0], 0, True), m),
    "held": lambda p, a, m: p.card_from("held", p.place_of_player(a[0], p.n, False), m),
    "top": lambda p, a, m: p.card_from("top", a[0] if isinstance(a[0], TPlace) and not a[0].slot
                                       else p.as_place(TOther("none")), m),
    "hand": lambda p, a, m: p.place_of_player(a[0], p.n, False),
    "free_slot": lambda p, a, m: p.place_of_player(a[0], 0, True),
    "slot": lambda p, a, m: p.place_of_player(a[0], 0, True),
    "owner": lambda p, a, m: p.player_arg(a[0]),
    "others": _seats, "seats_from": _seats, "seats_after": _seats,
    "cards": lambda p, a, m: TOther("list of card"),
    "slots": lambda p, a, m: TOther("list of slot"),
    "free_slots": lambda p, a, m: TOther("list of slot"),
    **{f: (lambda p, a, m: TOther("int")) for f in ("value", "size", "slot_no", "max", "min", "abs")},
    **{f: (lambda p, a, m: TOther("bool")) for f in ("occupied", "knows", "has_ability", "moved")},
    **{f: (lambda p, a, m: TOther("str")) for f in ("family", "species")},
}


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
    """A body that changes the state, with what it may read: parameters or formals, `actor`, `source`."""

    label: str
    pos: s.Pos
    body: tuple[s.Stmt, ...]
    params: tuple[tuple[str, str, bool], ...]  # name, type, may be none
    is_move: bool


def transitions(rules: Ruleset) -> list[Transition]:
    out: list[Transition] = []
    for m in rules.moves.values():
        params = tuple((p.name, p.kind, p.optional) for p in m.params)
        out.append(Transition(f"{'ability' if m.is_ability else 'move'} {m.name}", m.pos, m.body, params, True))
    for r in [*rules.routines.values(), *rules.hooks.values()]:
        label = f"on {r.name}" if r.is_hook else f"routine {r.name}"
        out.append(Transition(label, r.pos, r.body, tuple((f.name, f.type, True) for f in r.formals), False))
    return out


def prove_rule(rules: Ruleset, inv: s.InvariantDecl, players: int, rule: Transition) -> tuple[Any, RuleProver]:
    """Z3's model of a way the rule breaks the invariant, or None when it cannot."""
    prover = RuleProver(rules, inv, players)
    start = prover.before = prover.havoc("before")
    # A move is made by a player; a routine or hook may run with no actor (the engine's round start).
    env: Env = {"actor": prover.player("actor", not rule.is_move)}
    if rule.is_move:
        env["source"] = prover.card("source", None, start)
    for name, vtype, may_be_none in rule.params:
        env[name] = prover.typed(vtype, name, may_be_none, start)
    end = prover.block(rule.body, env, z3.BoolVal(True), start)
    run = prover.run
    goal = z3.And(prover.holds(end), *(g for g, _ in run.goals), *(z3.Not(loss.when) for loss in run.losses))
    solver = z3.Solver()
    solver.add(*run.constraints)
    solver.add(z3.Not(goal))
    result = solver.check()
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


