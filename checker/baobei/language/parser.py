"""Parse rules files: text -> Lark tree -> typed AST (syntax.py).

Raw Lark trees stay inside this module; errors carry file:line:col, what was
found and what was expected.
"""

from __future__ import annotations

import dataclasses
import re
import sys
import tomllib
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from . import syntax as s
from .errors import RulesError, SourceError, caret_excerpt, read_source
from .paths import grammar_dir

_PARA_NUM = re.compile(r"P(\d+)")

# The most numbers one range may span: a paragraph range of a citation, the player counts of a table row.
# Each number of a range is written out (expand_paras, a table's check for overlapping rows): 2..99999999999
# would never end, or end out of memory.
MAX_RANGE = 1_000


@cache
def grammar(name: str) -> Lark:
    """Load a grammar once per process (LALR, positions kept)."""
    # "rules_expr" is the rules grammar entered at `expr`, for expressions written in scenarios;
    # "FILE:RULE" enters a grammar at one of its rules (a game log's claims and table are scenario text).
    file, _, start = name.partition(":")
    if name == "rules_expr":
        file, start = "rules", "expr"
    path = grammar_dir() / f"{file}.lark"
    # cache=True keeps the built LALR tables in a temporary file keyed by the grammar's text:
    # later processes skip the table construction (a quarter of a second for the rules grammar).
    return Lark(path.read_text(encoding="utf-8"), parser="lalr", propagate_positions=True,
                maybe_placeholders=True, start=start or "start", cache=True)


# A file's parse tree depends on its text only: kept by text, so a copy of the rules in another directory (a
# rules variant, a test's copy) skips the parser and only runs the builder, which records the path.
@lru_cache(maxsize=256)
def parse_tree(name: str, text: str) -> Tree[Token]:
    """The tree of `text` in grammar `name` (see grammar()); raises Lark's UnexpectedInput on bad input."""
    return grammar(name).parse(text)


# The terminals of both grammars (grammar/*.lark) that are patterns, not a word to type: the grammar's name
# for them (`_NL`, `SIGNED`) means nothing to a user, so an error says what may be typed there. A terminal that
# is one fixed word (`do`, `{`) is shown as that word. tests/test_rules_input.py checks that every pattern
# terminal of the grammars is here.
SPELLED = {
    "$END": "end of file",
    "_NL": "end of line",
    "_CITE_SEP": "',' or ';'",
    "CMPOP": "a comparison (== != < <= > >= in)",
    "QUANT": "a quantifier (all any sum count most least)",
    "FACE": "'up' or 'down'",
    "LANG": "a language (de or en)",
    "SECTION": "a section (§ and its number)",
    "PARA": "a paragraph (P and its number)",
    "OLD": "old(...)",
    "NAME": "a name",
    "SIGNED": "a number",
    "INT": "a number (0 or more)",
    "STRING": 'a quoted text ("...")',
}


def describe_terminal(name: str, lark: Lark) -> str:
    """What may be typed where the grammar expects this terminal, in a user's words."""
    if name in SPELLED:
        return SPELLED[name]
    try:
        pattern = lark.get_terminal(name).pattern
    except KeyError:
        pattern = None
    if pattern is not None and pattern.type == "str":
        return repr(pattern.value)
    # A pattern missing from SPELLED (a grammar edited since): its name as words, never Lark's spelling.
    return name.strip("_").lower().replace("_", " ")


def describe_expected(expected: set[str] | frozenset[str], lark: Lark) -> str:
    """Turn terminal names into the text a user would type: each once (two terminals may read alike)."""
    shown = list(dict.fromkeys(describe_terminal(name, lark) for name in sorted(expected)))
    return ", ".join(shown[:30]) + (" ..." if len(shown) > 30 else "")


def describe_found(token: Token) -> str:
    """The token a parser could not take: its text, or the end of a line or of the file it stands for."""
    if token.type in ("$END", "_NL"):
        return SPELLED[token.type]
    return repr(str(token))


def syntax_error(err: UnexpectedInput, path: str, text: str, lark: Lark,
                 cls: type[SourceError], mistakes: str = "") -> SourceError:
    """A positioned error naming what was found and what was expected, with the advice of the catalogue of
    common mistakes (grammar/mistakes.toml, section `mistakes`) when the error is one of them."""
    line = getattr(err, "line", 0) or 0
    column = getattr(err, "column", 0) or 0
    if isinstance(err, UnexpectedEOF):
        line = text.count("\n") + 1
    message = syntax_message(err, text, lark)
    advice = common_mistake(err, lark, mistakes) if mistakes else None
    if advice:
        message += f"; {advice}"
    return cls(s.Pos(path, line, column), message, caret_excerpt(text, line, column))


@cache
def mistake_catalogue() -> dict[str, dict[str, list[str]]]:
    """grammar/mistakes.toml: per grammar, advice -> examples that make the mistake."""
    data = tomllib.loads((grammar_dir() / "mistakes.toml").read_text(encoding="utf-8"))
    return {kind: {e["advice"]: [x if x.endswith("\n") else x + "\n" for x in e["examples"]] for e in entries}
            for kind, entries in data.items()}


ErrorKey = tuple[str, object, object]


def error_key(err: UnexpectedInput) -> ErrorKey:
    """What makes two syntax errors the same mistake: the parser's state and the token it could not take.
    Unlike Lark's match_examples this leaves out the depth of the parser's stack, which grows with every
    declaration before the mistake, so the examples also match a mistake deep inside a file."""
    state = getattr(err, "state", None)
    position = getattr(state, "position", state)
    token = getattr(err, "token", None)
    return type(err).__name__, position, getattr(token, "type", getattr(err, "char", None))


@cache
def _mistake_keys(kind: str) -> dict[ErrorKey, str]:
    lark = grammar(kind)
    keys: dict[ErrorKey, str] = {}
    for advice, examples in mistake_catalogue().get(kind, {}).items():
        for example in examples:
            try:
                lark.parse(example)
            except UnexpectedInput as err:
                keys.setdefault(error_key(err), advice)
    return keys


def common_mistake(err: UnexpectedInput, lark: Lark, kind: str) -> str | None:
    """The advice for a common mistake this error is an instance of, if any."""
    return _mistake_keys(kind).get(error_key(err))


def syntax_message(err: UnexpectedInput, text: str, lark: Lark) -> str:
    """What was found and what was expected, in the grammar's words (no parser internals)."""
    if isinstance(err, UnexpectedToken):
        found = describe_found(err.token)
        expected = describe_expected(err.expected, lark)
        return f"found {found}, expected one of: {expected}"
    if isinstance(err, UnexpectedCharacters):
        message = f"unexpected character {text[err.pos_in_stream or 0]!r}"
        if err.allowed:
            message += f", expected one of: {describe_expected(err.allowed, lark)}"
        return message
    if isinstance(err, UnexpectedEOF):
        return f"unexpected end of file, expected one of: {describe_expected(set(err.expected), lark)}"
    return str(err)


def pos_of(path: str, meta: Any) -> s.Pos:
    return s.Pos(path, getattr(meta, "line", 0) or 0, getattr(meta, "column", 0) or 0)


def unquote(token: Token | str) -> str:
    raw = str(token)[1:-1]
    return raw.replace('\\"', '"').replace("\\\\", "\\").replace("\\n", "\n")


def expand_paras(items: list[tuple[str, str | None]]) -> tuple[str, ...]:
    """A list of paragraph ids with ranges, expanded: a range from Pa to Pb lists each id between."""
    out: list[str] = []
    for low, high in items:
        if high is None:
            out.append(low)
            continue
        a, b = int(low[1:]), int(high[1:])
        out.extend(f"P{n}" for n in range(a, b + 1))
    return tuple(out)


def fold(op_items: list[Any], meta_pos: s.Pos) -> s.Expr:
    """Fold `a op b op c` left to right into Binary nodes."""
    result: s.Expr = op_items[0]
    for i in range(1, len(op_items), 2):
        result = s.Binary(meta_pos, str(op_items[i]), result, op_items[i + 1])
    return result


@v_args(meta=True, inline=True)
class SourceBuilder(Transformer[Token, Any]):
    """What both languages' builders share: positions, and citations (sections with paragraph ranges)."""

    error: type[SourceError] = SourceError

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path

    def __default__(self, data: str, children: list[Any], meta: Any) -> Any:
        raise NotImplementedError(f"no builder for grammar rule {data!r}")

    def _p(self, meta: Any) -> s.Pos:
        return pos_of(self.path, meta)

    def citation(self, meta: Any, *parts: tuple[str, tuple[str, ...]]) -> s.Citation:
        return s.Citation.of(list(parts))

    def cite_part(self, meta: Any, section: Token, paras: tuple[str, ...] | None) -> tuple[str, tuple[str, ...]]:
        return (str(section)[1:].strip(), paras or ())

    def paras(self, meta: Any, *items: tuple[str, str | None]) -> tuple[str, ...]:
        return expand_paras(list(items))

    def para(self, meta: Any, low: Token, minus: Token | None, high: Token | None) -> tuple[str, str | None]:
        first = int(str(low)[1:])  # read here: a number too long to read is refused with its place (build)
        if high is not None:
            last = int(str(high)[1:])
            if last <= first:
                raise self.error(self._p(meta), f"paragraph range {low}-{high} does not go up")
            if last - first >= MAX_RANGE:
                raise self.error(self._p(meta), f"paragraph range {low}-{high} spans more than {MAX_RANGE} "
                                 "paragraphs (the rulebook has about 200)")
        return (str(low), str(high) if high is not None else None)


@v_args(meta=True, inline=True)
class RulesBuilder(SourceBuilder):
    """Build syntax.py nodes; an unknown tree node is a bug and raises."""

    error = RulesError

    # --- declarations
    def start(self, meta: Any, *decls: s.Decl) -> tuple[s.Decl, ...]:
        return decls

    def players_decl(self, meta: Any, low: Token, high: Token, cite: s.Citation) -> s.PlayersDecl:
        return s.PlayersDecl(self._p(meta), int(low), int(high), cite)

    def signed_int(self, meta: Any, tok: Token) -> int:
        return int(tok)

    def card_family(self, meta: Any, name: Token) -> tuple[str, str]:
        return ("family", str(name))

    def card_ability(self, meta: Any, name: Token) -> tuple[str, str]:
        return ("ability", str(name))

    def card_decl(self, meta: Any, species: Token, value: int, count: Token,
                  *opts: tuple[str, str]) -> s.CardDecl:
        options = dict(opts)
        return s.CardDecl(self._p(meta), str(species), value, int(count),
                          options.get("family"), options.get("ability"))

    def deck_decl(self, meta: Any, title: Token, cite: s.Citation, *cards: s.CardDecl) -> s.DeckDecl:
        return s.DeckDecl(self._p(meta), unquote(title), cite, cards)

    def table_row(self, meta: Any, low: Token, high: Token | None, value: int) -> s.TableRow:
        row = s.TableRow(int(low), int(high) if high is not None else int(low), value)
        if row.high - row.low >= MAX_RANGE:
            raise self.error(self._p(meta), f"table row {row.low}..{row.high} spans more than {MAX_RANGE} "
                             "player counts")
        return row

    def table_decl(self, meta: Any, name: Token, title: Token, cite: s.Citation,
                   *rows: s.TableRow) -> s.TableDecl:
        return s.TableDecl(self._p(meta), str(name), unquote(title), cite, rows)

    def assumption_decl(self, meta: Any, ident: Token, title: Token, cite: s.Citation,
                        choice: Token, reason: Token) -> s.AssumptionDecl:
        return s.AssumptionDecl(self._p(meta), str(ident), unquote(title), cite,
                                unquote(choice), unquote(reason))

    def var_decl(self, meta: Any, match: Token | None, player: Token | None, name: Token,
                 type_: Token, init: s.Expr, words: Token | None) -> s.VarDecl:
        text = unquote(words) if words is not None else ""
        if text.count("{}") > 1 or (text and "{}" not in text and str(type_) != "bool"):
            raise self.error(self._p(meta), f"the words of variable {str(name)!r} need one {{}} for its value "
                                            "(only a true/false variable's words may leave it out)")
        return s.VarDecl(self._p(meta), str(name), str(type_), init, player is not None, match is not None, text)

    def formals(self, meta: Any, *items: s.Formal | None) -> tuple[s.Formal, ...]:
        return tuple(f for f in items if f is not None)

    def formal(self, meta: Any, name: Token, type_: Token) -> s.Formal:
        return s.Formal(str(name), str(type_))

    def define_decl(self, meta: Any, name: Token, formals: tuple[s.Formal, ...] | None, body: s.Expr,
                    cite: s.Citation | None, text: Token | None) -> s.DefineDecl:
        return s.DefineDecl(self._p(meta), str(name), formals, body, cite,
                            unquote(text) if text is not None else "")

    def by_clause(self, meta: Any, expr: s.Expr, reason: Token | None = None,
                  cite: s.Citation | None = None) -> tuple[str, Any]:
        return ("by", (expr, unquote(reason) if reason is not None else "", cite))

    def with_clause(self, meta: Any, *params: s.Param) -> tuple[str, tuple[s.Param, ...]]:
        return ("with", params)

    def param(self, meta: Any, name: Token, kind: Token, optional: Token | None) -> s.Param:
        return s.Param(str(name), str(kind), optional is not None)

    def require_clause(self, meta: Any, cond: s.Expr, reason: Token, cite: s.Citation) -> tuple[str, s.Require]:
        return ("require", s.Require(cond, unquote(reason), cite, self._p(meta)))

    def do_clause(self, meta: Any, block: tuple[s.Stmt, ...]) -> tuple[str, tuple[s.Stmt, ...]]:
        return ("do", block)

    def _transition(self, meta: Any, name: Token, text: Token, cite: s.Citation,
                    clauses: tuple[Any, ...], is_ability: bool) -> s.MoveDecl:
        by: tuple[s.Expr, str, s.Citation | None] | None = None
        params: tuple[s.Param, ...] = ()
        requires: list[s.Require] = []
        body: tuple[s.Stmt, ...] = ()
        for clause in clauses:
            if clause is None:
                continue
            tag, value = clause
            if tag == "by":
                by = value
            elif tag == "with":
                params = value
            elif tag == "require":
                requires.append(value)
            else:
                body = value
        return s.MoveDecl(self._p(meta), str(name), unquote(text), cite,
                          by[0] if by else None, by[1] if by else "", params,
                          tuple(requires), body, is_ability, by_cite=by[2] if by else None)

    def move_decl(self, meta: Any, name: Token, text: Token, cite: s.Citation, *clauses: Any) -> s.MoveDecl:
        return self._transition(meta, name, text, cite, clauses, False)

    def ability_decl(self, meta: Any, name: Token, text: Token, cite: s.Citation, *clauses: Any) -> s.MoveDecl:
        return self._transition(meta, name, text, cite, clauses, True)

    def _routine(self, meta: Any, rest: tuple[Any, ...], is_hook: bool) -> s.RoutineDecl:
        name, formals, text, cite, body = rest
        return s.RoutineDecl(self._p(meta), str(name), formals or (), unquote(text), cite, body, is_hook)

    def routine_decl(self, meta: Any, *rest: Any) -> s.RoutineDecl:
        return self._routine(meta, rest, False)

    def hook_decl(self, meta: Any, *rest: Any) -> s.RoutineDecl:
        return self._routine(meta, rest, True)

    def step_decl(self, meta: Any, name: Token, formals: tuple[s.Formal, ...] | None, text: Token,
                  cite: s.Citation, *clauses: Any) -> s.MoveDecl:
        step = self._transition(meta, name, text, cite, clauses, True)
        return dataclasses.replace(step, formals=formals or (), is_step=True)

    def pile_decl(self, meta: Any, name: Token, face: Token, cite: s.Citation) -> s.PileDecl:
        return s.PileDecl(self._p(meta), str(name), str(face) == "up", cite)

    def hand_decl(self, meta: Any, capacity: Token, cite: s.Citation) -> s.HandDecl:
        return s.HandDecl(self._p(meta), int(capacity), cite)

    def phases_decl(self, meta: Any, *items: Any) -> s.PhasesDecl:
        *names, cite = items
        return s.PhasesDecl(self._p(meta), tuple(str(n) for n in names), cite)

    def window_decl(self, meta: Any, title: Token, *items: Any) -> s.WindowDecl:
        *kinds, attempts, open_max, cite = items
        return s.WindowDecl(self._p(meta), unquote(title), tuple(unquote(k) for k in kinds), int(attempts),
                            int(open_max), cite)

    def mark_decl(self, meta: Any, name: Token, text: Token, cite: s.Citation, until: Token | None,
                  on_moves: Token | None) -> s.MarkDecl:
        return s.MarkDecl(self._p(meta), str(name), unquote(text), cite, until is not None, on_moves is not None)

    def waiting_decl(self, meta: Any, text: Token, cite: s.Citation) -> s.WaitingDecl:
        return s.WaitingDecl(self._p(meta), unquote(text), cite)

    def implicit_decl(self, meta: Any, *parts: Any) -> s.ImplicitDecl:
        *names, text, cite = parts
        return s.ImplicitDecl(self._p(meta), tuple(str(n) for n in names), unquote(text), cite)

    def no_choice_decl(self, meta: Any, text: Token, cite: s.Citation) -> s.NoChoiceDecl:
        return s.NoChoiceDecl(self._p(meta), unquote(text), cite)

    def untriggered_decl(self, meta: Any, text: Token, cite: s.Citation) -> s.UntriggeredDecl:
        return s.UntriggeredDecl(self._p(meta), unquote(text), cite)

    def halt_decl(self, meta: Any, name: Token, text: Token, cite: s.Citation, when: s.Expr,
                  *allow: Token | None) -> s.HaltDecl:
        return s.HaltDecl(self._p(meta), str(name), unquote(text), cite, when,
                          tuple(str(a) for a in allow if a is not None))

    def simultaneous_decl(self, meta: Any, text: Token, cite: s.Citation, order: s.Expr) -> s.SimultaneousDecl:
        return s.SimultaneousDecl(self._p(meta), unquote(text), cite, order)

    def protect_decl(self, meta: Any, name: Token, text: Token, cite: s.Citation, owner: Token,
                     when: s.Expr) -> s.ProtectDecl:
        return s.ProtectDecl(self._p(meta), str(name), unquote(text), cite, str(owner), when)

    def invariant_decl(self, meta: Any, reachable: Token | None, ident: Token, text: Token, cite: s.Citation,
                       when: s.Expr, holds: s.Expr) -> s.InvariantDecl:
        return s.InvariantDecl(self._p(meta), str(ident), unquote(text), cite, when, holds, reachable is not None)

    def invariant_always(self, meta: Any, reachable: Token | None, ident: Token, text: Token, cite: s.Citation,
                         holds: s.Expr) -> s.InvariantDecl:
        return s.InvariantDecl(self._p(meta), str(ident), unquote(text), cite, None, holds, reachable is not None)

    def lemma_decl(self, meta: Any, ident: Token, text: Token, cite: s.Citation, when: s.Expr,
                   holds: s.Expr) -> s.InvariantDecl:
        return s.InvariantDecl(self._p(meta), str(ident), unquote(text), cite, when, holds, True, lemma=True)

    def lemma_always(self, meta: Any, ident: Token, text: Token, cite: s.Citation, holds: s.Expr) -> s.InvariantDecl:
        return s.InvariantDecl(self._p(meta), str(ident), unquote(text), cite, None, holds, True, lemma=True)

    def progress_decl(self, meta: Any, ident: Token, text: Token, cite: s.Citation,
                      when: s.Expr | None) -> s.ProgressDecl:
        return s.ProgressDecl(self._p(meta), str(ident), unquote(text), cite, when)

    # --- simulation
    def statistic_decl(self, meta: Any, ident: Token, text: Token, cite: s.Citation,
                       *clauses: tuple[str, Any, s.Pos]) -> s.StatisticDecl:
        single: dict[str, Any] = {}
        by: list[s.Dimension] = []
        for tag, value, pos in clauses:
            if tag == "by":
                if any(d.name == value.name for d in by):
                    raise self.error(pos, f"statistic {str(ident)!r} has two dimensions named {value.name!r}")
                by.append(value)
            elif tag in single:
                raise self.error(pos, f"statistic {str(ident)!r} has two `{tag}` clauses")
            else:
                single[tag] = value
        return s.StatisticDecl(self._p(meta), str(ident), unquote(text), cite, single.get("on", ()),
                               single.get("when"), tuple(by), single.get("outcome"))

    def stat_on(self, meta: Any, *names: Token) -> tuple[str, Any, s.Pos]:
        return ("on", tuple(str(n) for n in names), self._p(meta))

    def stat_when(self, meta: Any, expr: s.Expr) -> tuple[str, Any, s.Pos]:
        return ("when", expr, self._p(meta))

    def stat_by(self, meta: Any, name: Token, expr: s.Expr) -> tuple[str, Any, s.Pos]:
        return ("by", s.Dimension(str(name), expr), self._p(meta))

    def stat_outcome(self, meta: Any, expr: s.Expr) -> tuple[str, Any, s.Pos]:
        return ("outcome", expr, self._p(meta))

    def policy_decl(self, meta: Any, ident: Token, text: Token, cite: s.Citation,
                    *rules: s.PolicyRule) -> s.PolicyDecl:
        return s.PolicyDecl(self._p(meta), str(ident), unquote(text), cite, rules)

    def prefer_rule(self, meta: Any, move: Token, when: s.Expr | None, best: s.Expr | None,
                    cite: s.Citation | None) -> s.PolicyRule:
        return s.PolicyRule(self._p(meta), True, (str(move),), when, best, cite)

    def avoid_rule(self, meta: Any, *parts: Any) -> s.PolicyRule:
        *moves, when, cite = parts
        return s.PolicyRule(self._p(meta), False, tuple(str(m) for m in moves), when, None, cite)

    # --- statements
    def block(self, meta: Any, *stmts: s.Stmt) -> tuple[s.Stmt, ...]:
        return stmts

    def s_let(self, meta: Any, name: Token, value: s.Expr) -> s.Stmt:
        return s.Let(self._p(meta), str(name), value)

    def lvalue(self, meta: Any, name: Token, index: s.Expr | None = None) -> tuple[str, s.Expr | None]:
        return (str(name), index)

    def s_set(self, meta: Any, target: tuple[str, s.Expr | None], value: s.Expr) -> s.Stmt:
        return s.SetVar(self._p(meta), target[0], target[1], value)

    def s_draw(self, meta: Any, into: s.Expr, bind: Token | None = None) -> s.Stmt:
        return s.Draw(self._p(meta), into, str(bind) if bind is not None else None)

    def s_move(self, meta: Any, card: s.Expr, to: s.Expr) -> s.Stmt:
        return s.MoveCard(self._p(meta), card, to)

    def s_swap(self, meta: Any, first: s.Expr, second: s.Expr) -> s.Stmt:
        return s.Swap(self._p(meta), first, second)

    def s_mark(self, meta: Any, mark: Token, card: s.Expr) -> s.Stmt:
        return s.Mark(self._p(meta), str(mark), card)

    def s_peek(self, meta: Any, player: s.Expr, card: s.Expr) -> s.Stmt:
        return s.Peek(self._p(meta), player, card)

    def s_show(self, meta: Any, card: s.Expr) -> s.Stmt:
        return s.Show(self._p(meta), card)

    def s_forget(self, meta: Any, card: s.Expr) -> s.Stmt:
        return s.Forget(self._p(meta), card)

    def s_open_window(self, meta: Any, kind: Token, card: s.Expr, players: s.Expr) -> s.Stmt:
        return s.OpenWindow(self._p(meta), unquote(kind), card, players)

    def s_use_window(self, meta: Any) -> s.Stmt:
        return s.UseWindow(self._p(meta))

    def s_close_window(self, meta: Any) -> s.Stmt:
        return s.CloseWindow(self._p(meta))

    def s_pick(self, meta: Any, name: Token, domain: s.Expr) -> s.Stmt:
        return s.Pick(self._p(meta), str(name), domain)

    def s_trigger(self, meta: Any, card: s.Expr, player: s.Expr, after: Token | None) -> s.Stmt:
        return s.Trigger(self._p(meta), card, player, after is not None)

    def s_continue(self, meta: Any, step: Token, args: tuple[s.Expr, ...], player: s.Expr) -> s.Stmt:
        return s.Continue(self._p(meta), str(step), args, player)

    def shuffle_source(self, meta: Any, pile: Token, except_top: Token | None) -> s.ShuffleSource:
        return s.ShuffleSource(str(pile), except_top is not None)

    def s_shuffle(self, meta: Any, *items: Any) -> s.Stmt:
        *sources, into = items
        return s.Shuffle(self._p(meta), tuple(sources), str(into))

    def s_start_turn(self, meta: Any, player: s.Expr) -> s.Stmt:
        return s.StartTurn(self._p(meta), player)

    def s_start_round(self, meta: Any, players: s.Expr | None) -> s.Stmt:
        return s.StartRound(self._p(meta), players)

    def args(self, meta: Any, *items: s.Expr | None) -> tuple[s.Expr, ...]:
        return tuple(i for i in items if i is not None)

    def s_run(self, meta: Any, name: Token, args: tuple[s.Expr, ...] | None = None) -> s.Stmt:
        return s.Run(self._p(meta), str(name), args or ())

    def s_say(self, meta: Any, text: Token, args: tuple[s.Expr, ...] | None = None) -> s.Stmt:
        return s.Say(self._p(meta), unquote(text), args or ())

    def s_for(self, meta: Any, var: Token, domain: s.Expr, body: tuple[s.Stmt, ...]) -> s.Stmt:
        return s.ForEach(self._p(meta), str(var), domain, body)

    def s_repeat(self, meta: Any, count: s.Expr, body: tuple[s.Stmt, ...]) -> s.Stmt:
        return s.Repeat(self._p(meta), count, body)

    def if_stmt(self, meta: Any, cond: s.Expr, then: tuple[s.Stmt, ...], other: Any = None) -> s.Stmt:
        if other is None:
            other_block: tuple[s.Stmt, ...] = ()
        elif isinstance(other, s.IfStmt):
            other_block = (other,)
        else:
            other_block = other
        return s.IfStmt(self._p(meta), cond, then, other_block)

    # --- expressions
    def e_if(self, meta: Any, cond: s.Expr, then: s.Expr, other: s.Expr) -> s.Expr:
        return s.IfExpr(self._p(meta), cond, then, other)

    def e_quant(self, meta: Any, kind: Token, var: Token, domain: s.Expr, body: s.Expr) -> s.Expr:
        return s.Quant(self._p(meta), str(kind), str(var), domain, body)

    def e_first(self, meta: Any, var: Token, domain: s.Expr, cond: s.Expr) -> s.Expr:
        return s.First(self._p(meta), str(var), domain, cond)

    def e_filter(self, meta: Any, var: Token, domain: s.Expr, cond: s.Expr) -> s.Expr:
        return s.Filter(self._p(meta), str(var), domain, cond)

    def e_or(self, meta: Any, *items: s.Expr) -> s.Expr:
        return self._chain(meta, "or", items)

    def e_and(self, meta: Any, *items: s.Expr) -> s.Expr:
        return self._chain(meta, "and", items)

    def _chain(self, meta: Any, op: str, items: tuple[s.Expr, ...]) -> s.Expr:
        result = items[0]
        for item in items[1:]:
            result = s.Binary(self._p(meta), op, result, item)
        return result

    def e_not(self, meta: Any, operand: s.Expr) -> s.Expr:
        return s.Unary(self._p(meta), "not", operand)

    def e_cmp(self, meta: Any, *items: Any) -> s.Expr:
        return fold(list(items), self._p(meta))

    def e_arith(self, meta: Any, *items: Any) -> s.Expr:
        return fold(list(items), self._p(meta))

    def addop(self, meta: Any, tok: Token) -> str:
        return str(tok)

    def mulop(self, meta: Any, tok: Token) -> str:
        return str(tok)

    def e_neg(self, meta: Any, minus: Token, operand: s.Expr) -> s.Expr:
        if isinstance(operand, s.Lit) and isinstance(operand.value, int) and not isinstance(operand.value, bool):
            return s.Lit(self._p(meta), -operand.value)
        return s.Unary(self._p(meta), "neg", operand)

    def e_index(self, meta: Any, base: s.Expr, index: s.Expr) -> s.Expr:
        return s.Index(self._p(meta), base, index)

    def e_int(self, meta: Any, tok: Token) -> s.Expr:
        return s.Lit(self._p(meta), int(tok))

    def e_str(self, meta: Any, tok: Token) -> s.Expr:
        return s.Lit(self._p(meta), unquote(tok))

    def e_true(self, meta: Any) -> s.Expr:
        return s.Lit(self._p(meta), True)

    def e_false(self, meta: Any) -> s.Expr:
        return s.Lit(self._p(meta), False)

    def e_none(self, meta: Any) -> s.Expr:
        return s.Lit(self._p(meta), None)

    def e_name(self, meta: Any, tok: Token) -> s.Expr:
        return s.Name(self._p(meta), str(tok))

    def e_old(self, meta: Any, old: Token, expr: s.Expr) -> s.Expr:
        return s.Old(self._p(meta), expr)

    def e_call(self, meta: Any, func: Token, *args: s.Expr | None) -> s.Expr:
        return s.Call(self._p(meta), str(func), tuple(a for a in args if a is not None))


# Parsed files are immutable, and docs, verify and the tests parse the same texts many times in one process:
# a parse is kept by (text, path), never by path alone, so an edited file is parsed anew.
PARSE_CACHE = 512


@lru_cache(maxsize=PARSE_CACHE)
def parse_rules_text(text: str, path: str) -> s.RulesFile:
    """Parse one rules file; raises RulesError with file:line:col on bad input."""
    try:
        tree = parse_tree("rules", text)
    except UnexpectedInput as err:
        raise syntax_error(err, path, text, grammar("rules"), RulesError, "rules") from None
    return s.RulesFile(path, build(tree, RulesBuilder(path)))


# The deepest nesting a file may have, in levels of its parse tree (the default rules reach 37; an expression in
# parentheses takes five). The builder, the checker and the engine follow the tree recursively: a file nested
# thousands deep (`((((...))))`, `not not not ...`) would exhaust Python's stack, so it is refused here.
MAX_NESTING = 200


def too_deep(tree: Tree[Token]) -> Tree[Token] | None:
    """A node nested more than MAX_NESTING levels deep, if any (found without recursion)."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            return node
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))
    return None


def build(tree: Tree[Token], builder: SourceBuilder) -> Any:
    deep = too_deep(tree)
    if deep is not None:
        raise builder.error(pos_of(builder.path, deep.meta), f"nested too deeply (more than {MAX_NESTING} "
                            "levels of the grammar); take parts out with `let` or `define`")
    try:
        return builder.transform(tree)
    except VisitError as err:
        if isinstance(err.orig_exc, SourceError):
            raise err.orig_exc from None
        number = too_long_number(err)
        if number is not None:
            raise builder.error(pos_of(builder.path, number), f"a number of more than "
                                f"{sys.get_int_max_str_digits()} digits is too long to read") from None
        raise


def too_long_number(err: VisitError) -> Token | None:
    """The number that int() refused in a builder: more digits than sys.get_int_max_str_digits() (4300)."""
    if not isinstance(err.orig_exc, ValueError) or not isinstance(err.obj, Tree):
        return None
    limit = sys.get_int_max_str_digits()
    return next((c for c in err.obj.children if isinstance(c, Token) and len(c.lstrip("-P")) > limit), None)


def parse_rules_dir(directory: Path) -> list[s.RulesFile]:
    """Every *.bao file of a rules directory, in name order (deterministic)."""
    if directory.is_file():
        raise RulesError(s.Pos(str(directory), 0, 0), "is a file; --rules names a directory of .bao files")
    if not directory.is_dir():
        raise RulesError(s.Pos(str(directory), 0, 0), "rules directory not found")
    files = sorted(directory.glob("*.bao"))
    if not files:
        raise RulesError(s.Pos(str(directory), 0, 0), "no .bao rules files in this directory")
    return [parse_rules_text(read_source(f, RulesError), str(f)) for f in files]
