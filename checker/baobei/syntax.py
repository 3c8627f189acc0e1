"""Typed AST of the rules language.

Lark trees never leave the parser module: the parser turns them into these
frozen dataclasses, each carrying the source position it came from.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Pos:
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        if not self.line:
            return self.file  # an error about the whole file (missing, unreadable, empty)
        return f"{self.file}:{self.line}:{self.column}"


NOWHERE = Pos("<builtin>", 0, 0)


@dataclass(frozen=True)
class Citation:
    """A rulebook section id (e.g. '3.3', 'B', 'K.2') and paragraph ids.

    A citation of several sections keeps each section's paragraphs in `parts`;
    `section` is then the first (the main) section and `paras` all paragraphs.
    """

    section: str
    paras: tuple[str, ...] = ()
    parts: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @staticmethod
    def of(parts: list[tuple[str, tuple[str, ...]]]) -> Citation:
        if len(parts) == 1:
            return Citation(parts[0][0], parts[0][1])
        return Citation(parts[0][0], tuple(p for _, ps in parts for p in ps), tuple(parts))

    @property
    def sections(self) -> tuple[str, ...]:
        return tuple(sec for sec, _ in self.parts) if self.parts else (self.section,)

    def paras_of(self, section: str) -> tuple[str, ...]:
        if not self.parts:
            return self.paras if section == self.section else ()
        return tuple(p for sec, ps in self.parts if sec == section for p in ps)

    def __str__(self) -> str:
        parts = self.parts or ((self.section, self.paras),)
        return "; ".join(f"§ {sec}" + (" [" + ", ".join(ps) + "]" if ps else "") for sec, ps in parts)


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Expr:
    pos: Pos = field(compare=False)


@dataclass(frozen=True)
class Lit(Expr):
    value: int | str | bool | None


@dataclass(frozen=True)
class Name(Expr):
    name: str


@dataclass(frozen=True)
class Call(Expr):
    func: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class Index(Expr):
    base: Expr
    index: Expr


@dataclass(frozen=True)
class Unary(Expr):
    op: str  # 'not' | 'neg'
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    op: str  # + - * // % == != < <= > >= in and or
    left: Expr
    right: Expr


@dataclass(frozen=True)
class IfExpr(Expr):
    cond: Expr
    then: Expr
    other: Expr


@dataclass(frozen=True)
class Quant(Expr):
    """all / any / sum / count / most / least over a finite domain."""

    kind: str
    var: str
    domain: Expr
    body: Expr


@dataclass(frozen=True)
class First(Expr):
    var: str
    domain: Expr
    cond: Expr


@dataclass(frozen=True)
class Filter(Expr):
    var: str
    domain: Expr
    cond: Expr


# ---------------------------------------------------------------- statements


@dataclass(frozen=True)
class Stmt:
    pos: Pos = field(compare=False)


@dataclass(frozen=True)
class Let(Stmt):
    name: str
    value: Expr


@dataclass(frozen=True)
class SetVar(Stmt):
    name: str
    index: Expr | None
    value: Expr


@dataclass(frozen=True)
class Draw(Stmt):
    into: Expr
    bind: str | None


@dataclass(frozen=True)
class MoveCard(Stmt):
    card: Expr
    to: Expr


@dataclass(frozen=True)
class Peek(Stmt):
    player: Expr
    card: Expr


@dataclass(frozen=True)
class Show(Stmt):
    card: Expr


@dataclass(frozen=True)
class Forget(Stmt):
    card: Expr


@dataclass(frozen=True)
class OpenWindow(Stmt):
    kind: str
    card: Expr
    players: Expr


@dataclass(frozen=True)
class UseWindow(Stmt):
    pass


@dataclass(frozen=True)
class CloseWindow(Stmt):
    pass


@dataclass(frozen=True)
class Trigger(Stmt):
    card: Expr
    player: Expr


@dataclass(frozen=True)
class Shuffle(Stmt):
    sources: tuple[str, ...]
    into: str


@dataclass(frozen=True)
class StartTurn(Stmt):
    player: Expr


@dataclass(frozen=True)
class StartRound(Stmt):
    """A new round; `with` names the players taking part (all when absent)."""

    players: Expr | None = None


@dataclass(frozen=True)
class Pick(Stmt):
    name: str
    domain: Expr


@dataclass(frozen=True)
class Run(Stmt):
    routine: str
    args: tuple[Expr, ...]


@dataclass(frozen=True)
class ForEach(Stmt):
    var: str
    domain: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class Repeat(Stmt):
    count: Expr
    body: tuple[Stmt, ...]


@dataclass(frozen=True)
class IfStmt(Stmt):
    cond: Expr
    then: tuple[Stmt, ...]
    other: tuple[Stmt, ...]


# ---------------------------------------------------------------- declarations


@dataclass(frozen=True)
class Decl:
    pos: Pos = field(compare=False)


@dataclass(frozen=True)
class PlayersDecl(Decl):
    low: int
    high: int
    cite: Citation


@dataclass(frozen=True)
class CardDecl(Decl):
    species: str
    value: int
    count: int
    family: str | None
    ability: str | None


@dataclass(frozen=True)
class DeckDecl(Decl):
    title: str
    cite: Citation
    cards: tuple[CardDecl, ...]


@dataclass(frozen=True)
class TableRow:
    low: int
    high: int
    value: int


@dataclass(frozen=True)
class TableDecl(Decl):
    name: str
    title: str
    cite: Citation
    rows: tuple[TableRow, ...]


@dataclass(frozen=True)
class AssumptionDecl(Decl):
    ident: str
    title: str
    cite: Citation
    choice: str
    reason: str


@dataclass(frozen=True)
class VarDecl(Decl):
    name: str
    type: str
    init: Expr
    per_player: bool
    whole_match: bool


@dataclass(frozen=True)
class Formal:
    name: str
    type: str


@dataclass(frozen=True)
class DefineDecl(Decl):
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
class MoveDecl(Decl):
    """A move a player chooses; `by` says who may make it."""

    name: str
    text: str
    cite: Citation
    by: Expr | None
    by_reason: str
    params: tuple[Param, ...]
    requires: tuple[Require, ...]
    body: tuple[Stmt, ...]
    is_ability: bool


@dataclass(frozen=True)
class RoutineDecl(Decl):
    name: str
    formals: tuple[Formal, ...]
    text: str
    cite: Citation
    body: tuple[Stmt, ...]
    is_hook: bool


@dataclass(frozen=True)
class InvariantDecl(Decl):
    ident: str
    text: str
    cite: Citation
    when: Expr | None
    holds: Expr


@dataclass(frozen=True)
class WaitingDecl(Decl):
    text: str
    cite: Citation


@dataclass(frozen=True)
class FaceUpDecl(Decl):
    pile: str
    cite: Citation


@dataclass(frozen=True)
class RulesFile:
    path: str
    decls: tuple[Decl, ...]
