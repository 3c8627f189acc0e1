"""Typed AST of the rules language.

Lark trees never leave the parser module: the parser turns them into these
frozen dataclasses, each carrying the source position it came from.

Expressions and statements are closed unions (`Expr`, `Stmt`): every consumer
dispatches with `match` and ends in `assert_never`, so mypy reports a node kind
that a consumer forgets. `walk.py` holds the one generic traversal.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TypeAlias, get_args

from .source import NOWHERE, Citation, Pos

__all__ = ["NOWHERE", "Citation", "Pos"]


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Lit:
    pos: Pos = field(compare=False)
    value: int | str | bool | None


@dataclass(frozen=True)
class Name:
    pos: Pos = field(compare=False)
    name: str


@dataclass(frozen=True)
class Call:
    pos: Pos = field(compare=False)
    func: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Index:
    pos: Pos = field(compare=False)
    base: Expr
    index: Expr


@dataclass(frozen=True)
class Unary:
    pos: Pos = field(compare=False)
    op: str  # 'not' | 'neg'
    operand: Expr


@dataclass(frozen=True)
class Binary:
    pos: Pos = field(compare=False)
    op: str  # + - * // % == != < <= > >= in and or
    left: Expr
    right: Expr


@dataclass(frozen=True)
class IfExpr:
    pos: Pos = field(compare=False)
    cond: Expr
    then: Expr
    other: Expr


@dataclass(frozen=True)
class Quant:
    """all / any / sum / count / most / least over a finite domain; `var` is bound in `body` only."""

    pos: Pos = field(compare=False)
    kind: str
    var: str
    domain: Expr
    body: Expr


@dataclass(frozen=True)
class First:
    pos: Pos = field(compare=False)
    var: str
    domain: Expr
    cond: Expr


@dataclass(frozen=True)
class Filter:
    pos: Pos = field(compare=False)
    var: str
    domain: Expr
    cond: Expr


@dataclass(frozen=True)
class Old:
    """`old(EXPR)`: EXPR evaluated in the state before the move, with the names bound where it stands.

    Written only in an invariant, which it makes a transition invariant (judged for every move)."""

    pos: Pos = field(compare=False)
    expr: Expr


Expr: TypeAlias = Lit | Name | Call | Index | Unary | Binary | IfExpr | Quant | First | Filter | Old
_EXPR_CLASSES = get_args(Expr)
Binder: TypeAlias = Quant | First | Filter  # expressions that bind a name in a sub-expression


# ---------------------------------------------------------------- statements


@dataclass(frozen=True)
class Let:
    pos: Pos = field(compare=False)
    name: str
    value: Expr


@dataclass(frozen=True)
class SetVar:
    pos: Pos = field(compare=False)
    name: str
    index: Expr | None
    value: Expr


@dataclass(frozen=True)
class Draw:
    pos: Pos = field(compare=False)
    into: Expr
    bind: str | None


@dataclass(frozen=True)
class MoveCard:
    pos: Pos = field(compare=False)
    card: Expr
    to: Expr


@dataclass(frozen=True)
class Swap:
    """Two cards exchange their places."""

    pos: Pos = field(compare=False)
    first: Expr
    second: Expr


@dataclass(frozen=True)
class Peek:
    pos: Pos = field(compare=False)
    player: Expr
    card: Expr


@dataclass(frozen=True)
class Show:
    pos: Pos = field(compare=False)
    card: Expr


@dataclass(frozen=True)
class Forget:
    pos: Pos = field(compare=False)
    card: Expr


@dataclass(frozen=True)
class Mark:
    """Put a declared mark on a card (it lasts as long as the mark's declaration says)."""

    pos: Pos = field(compare=False)
    mark: str
    card: Expr


@dataclass(frozen=True)
class OpenWindow:
    pos: Pos = field(compare=False)
    kind: str
    card: Expr
    players: Expr


@dataclass(frozen=True)
class UseWindow:
    pos: Pos = field(compare=False)


@dataclass(frozen=True)
class CloseWindow:
    pos: Pos = field(compare=False)


@dataclass(frozen=True)
class Trigger:
    """Queue the ability of a card for a player; `after_window` lets the open window's players act first."""

    pos: Pos = field(compare=False)
    card: Expr
    player: Expr
    after_window: bool = False


@dataclass(frozen=True)
class Continue:
    """Queue a further step of the running ability: `continue STEP(args) for PLAYER`, first in line."""

    pos: Pos = field(compare=False)
    step: str
    args: tuple[Expr, ...]
    player: Expr


@dataclass(frozen=True)
class ShuffleSource:
    pile: str  # a declared pile, or `all_cards` (every card of the deck)
    except_top: bool = False


@dataclass(frozen=True)
class Shuffle:
    pos: Pos = field(compare=False)
    sources: tuple[ShuffleSource, ...]
    into: str


@dataclass(frozen=True)
class StartTurn:
    pos: Pos = field(compare=False)
    player: Expr


@dataclass(frozen=True)
class StartRound:
    """A new round; `with` names the players taking part (all when absent)."""

    pos: Pos = field(compare=False)
    players: Expr | None = None


@dataclass(frozen=True)
class Pick:
    pos: Pos = field(compare=False)
    name: str
    domain: Expr


@dataclass(frozen=True)
class Run:
    pos: Pos = field(compare=False)
    routine: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class ForEach:
    pos: Pos = field(compare=False)
    var: str
    domain: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class Say:
    """Tell the players something in words (a result, a reason): an event that changes nothing.
    Each `{}` of the text is filled with the next argument's value."""

    pos: Pos = field(compare=False)
    text: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Repeat:
    pos: Pos = field(compare=False)
    count: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class IfStmt:
    pos: Pos = field(compare=False)
    cond: Expr
    then: tuple[Stmt, ...]
    other: tuple[Stmt, ...]


Stmt: TypeAlias = (Let | SetVar | Draw | MoveCard | Swap | Peek | Show | Forget | Mark | OpenWindow | UseWindow
                   | CloseWindow | Trigger | Continue | Shuffle | StartTurn | StartRound | Pick | Run | ForEach
                   | Repeat | IfStmt | Say)
Node: TypeAlias = Expr | Stmt


# ---------------------------------------------------------------- declarations


@dataclass(frozen=True)
class PlayersDecl:
    pos: Pos = field(compare=False)
    low: int
    high: int
    cite: Citation


@dataclass(frozen=True)
class CardDecl:
    pos: Pos = field(compare=False)
    species: str
    value: int
    count: int
    family: str | None
    ability: str | None


@dataclass(frozen=True)
class DeckDecl:
    pos: Pos = field(compare=False)
    title: str
    cite: Citation
    cards: tuple[CardDecl, ...]


@dataclass(frozen=True)
class TableRow:
    low: int
    high: int
    value: int


@dataclass(frozen=True)
class TableDecl:
    pos: Pos = field(compare=False)
    name: str
    title: str
    cite: Citation
    rows: tuple[TableRow, ...]


@dataclass(frozen=True)
class AssumptionDecl:
    pos: Pos = field(compare=False)
    ident: str
    title: str
    cite: Citation
    choice: str
    reason: str


@dataclass(frozen=True)
class VarDecl:
    pos: Pos = field(compare=False)
    name: str
    type: str
    init: Expr
    per_player: bool
    whole_match: bool
    words: str = ""  # as people read it, `{}` for the value; "" when it is bookkeeping only (grammar/rules.lark)


@dataclass(frozen=True)
class Formal:
    name: str
    type: str


@dataclass(frozen=True)
class DefineDecl:
    pos: Pos = field(compare=False)
    name: str
    formals: tuple[Formal, ...] | None
    body: Expr
    cite: Citation | None
    text: str


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    optional: bool


@dataclass(frozen=True)
class Require:
    cond: Expr
    reason: str
    cite: Citation
    pos: Pos


@dataclass(frozen=True)
class MoveDecl:
    """A move a player chooses (`by` says who may make it), an ability, or a further step of one."""

    pos: Pos = field(compare=False)
    name: str
    text: str
    cite: Citation
    by: Expr | None
    by_reason: str
    params: tuple[Param, ...]
    requires: tuple[Require, ...]
    body: tuple[Stmt, ...]
    is_ability: bool
    formals: tuple[Formal, ...] = ()  # a step's values bound by the `continue` that queued it
    is_step: bool = False
    by_cite: Citation | None = None  # what a refusal by `by` cites; the move's own citation when absent

    @property
    def by_citation(self) -> Citation:
        return self.by_cite if self.by_cite is not None else self.cite


@dataclass(frozen=True)
class RoutineDecl:
    pos: Pos = field(compare=False)
    name: str
    formals: tuple[Formal, ...]
    text: str
    cite: Citation
    body: tuple[Stmt, ...]
    is_hook: bool


@dataclass(frozen=True)
class InvariantDecl:
    """A property of every state; with `old(...)` in it, of every move (a transition invariant).

    `reachable`: the claim is about the states a game reaches only, not about every arrangement of
    cards and values (a transition invariant is always such a claim). `lemma`: an auxiliary claim
    (reachable, of one state) that the proofs assume while they prove the others, and prove too."""

    pos: Pos = field(compare=False)
    ident: str
    text: str
    cite: Citation
    when: Expr | None
    holds: Expr
    reachable: bool = False
    lemma: bool = False

    @property
    def two_state(self) -> bool:
        """Whether it compares the states before and after a move (it contains `old(...)`)."""
        stack = [self.holds, *([self.when] if self.when is not None else [])]
        while stack:
            node = stack.pop()
            if isinstance(node, Old):
                return True
            stack.extend(_sub_expressions(node))
        return False


def _sub_expressions(node: Expr) -> list[Expr]:
    """The expressions directly inside a node, read from its fields (walk.py, which names each node
    kind, imports this module and so cannot be imported here)."""
    out: list[Expr] = []
    for f in fields(node):
        value = getattr(node, f.name)
        items = value if isinstance(value, tuple) else (value,)
        out += [v for v in items if isinstance(v, _EXPR_CLASSES)]
    return out


@dataclass(frozen=True)
class ProgressDecl:
    """Deadlock freedom: in every reachable state in which `when` holds, somebody has a legal move."""

    pos: Pos = field(compare=False)
    ident: str
    text: str
    cite: Citation
    when: Expr | None


@dataclass(frozen=True)
class WaitingDecl:
    pos: Pos = field(compare=False)
    text: str
    cite: Citation


@dataclass(frozen=True)
class ImplicitDecl:
    """Moves that a game log may leave out (ending a turn, dealing the next round): a referee makes one,
    by whoever may make it, when the next logged move is illegal without it and legal after it."""

    pos: Pos = field(compare=False)
    moves: tuple[str, ...]
    text: str
    cite: Citation


@dataclass(frozen=True)
class UntriggeredDecl:
    """Why an ability a player tries did not start: the only ways an ability starts, with this rule."""

    pos: Pos = field(compare=False)
    text: str
    cite: Citation


@dataclass(frozen=True)
class NoChoiceDecl:
    """What happens to a waiting ability that has no legal choice: it is dropped, with this rule."""

    pos: Pos = field(compare=False)
    text: str
    cite: Citation


@dataclass(frozen=True)
class PileDecl:
    pos: Pos = field(compare=False)
    name: str
    face_up: bool
    cite: Citation


@dataclass(frozen=True)
class HandDecl:
    """How many drawn cards a player may hold at once."""

    pos: Pos = field(compare=False)
    capacity: int
    cite: Citation


@dataclass(frozen=True)
class PhasesDecl:
    """The closed set of phase names."""

    pos: Pos = field(compare=False)
    names: tuple[str, ...]
    cite: Citation


@dataclass(frozen=True)
class WindowDecl:
    """Windows: references open for some players' calls. Kinds, attempts per reference, how many open."""

    pos: Pos = field(compare=False)
    title: str
    kinds: tuple[str, ...]
    attempts: int
    open_max: int
    cite: Citation


@dataclass(frozen=True)
class HaltDecl:
    """While `when` holds only the `allow`ed moves may be made; any other is refused with this rule."""

    pos: Pos = field(compare=False)
    name: str
    text: str
    cite: Citation
    when: Expr
    allow: tuple[str, ...]


@dataclass(frozen=True)
class SimultaneousDecl:
    """Calls made at the same moment are replayed in the order of the players `order` lists."""

    pos: Pos = field(compare=False)
    text: str
    cite: Citation
    order: Expr


@dataclass(frozen=True)
class MarkDecl:
    """A mark that cards may carry; `until turn` clears it when the next turn begins."""

    pos: Pos = field(compare=False)
    name: str
    text: str
    cite: Citation
    until_turn: bool
    on_ability_moves: bool = False  # every card an ability moves, swaps or places gets it


@dataclass(frozen=True)
class ProtectDecl:
    """While `when` holds for a player's tableau, others may not change it; their attempts are refused."""

    pos: Pos = field(compare=False)
    name: str
    text: str
    cite: Citation
    owner: str  # the name bound to the tableau's owner in `when`
    when: Expr


@dataclass(frozen=True)
class Dimension:
    """One `by NAME = EXPR` of a statistic: what its counts are grouped by."""

    name: str
    expr: Expr


@dataclass(frozen=True)
class StatisticDecl:
    """A figure `baobei simulate` counts. After every move (of the moves `on` names, when given) in which
    `when` holds, one count under the values of the dimensions, with the value of `outcome`. The
    expressions see the states before (`old(...)`) and after the move, `actor`, `source` and the
    arguments that every `on` move has (with one kind)."""

    pos: Pos = field(compare=False)
    ident: str
    text: str
    cite: Citation
    on: tuple[str, ...]
    when: Expr | None
    by: tuple[Dimension, ...]
    outcome: Expr | None


@dataclass(frozen=True)
class PolicyRule:
    """`prefer MOVE [when EXPR] [best EXPR]` or `avoid MOVE, ... [when EXPR]`, optionally citing the rulebook."""

    pos: Pos = field(compare=False)
    prefer: bool
    moves: tuple[str, ...]  # a prefer rule names one move
    when: Expr | None
    best: Expr | None
    cite: Citation | None


@dataclass(frozen=True)
class PolicyDecl:
    """How a simulated player chooses its moves from what it knows (its view of the table)."""

    pos: Pos = field(compare=False)
    ident: str
    text: str
    cite: Citation
    rules: tuple[PolicyRule, ...]


Decl: TypeAlias = (PlayersDecl | DeckDecl | TableDecl | AssumptionDecl | VarDecl | DefineDecl | MoveDecl
                   | RoutineDecl | InvariantDecl | ProgressDecl | WaitingDecl | NoChoiceDecl | UntriggeredDecl
                   | ImplicitDecl | PileDecl | HandDecl | PhasesDecl | WindowDecl | HaltDecl | SimultaneousDecl
                   | MarkDecl | ProtectDecl | StatisticDecl | PolicyDecl)


@dataclass(frozen=True)
class RulesFile:
    path: str
    decls: tuple[Decl, ...]
