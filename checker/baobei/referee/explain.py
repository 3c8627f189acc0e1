"""What a finding of the referee says beyond the engine's refusal: the rule behind a draw the log leaves
out, a slot that does not exist, and the rule that chose a round's starting player.

Every rule named here is found in the rules' own declarations (a routine's words and citation, the
conditions on the way to it), never written in Python: a variant's rules explain themselves the same way.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass

from ..engine.engine import Engine
from ..engine.legality import SLOT_KINDS
from ..engine.move import Move
from ..engine.runtime import Event
from ..engine.state import State
from ..language import syntax as s
from ..language.errors import BaoError
from ..language.ruleset import Ruleset
from ..language.source import Citation
from ..language.text import expr_text
from ..language.walk import walk_stmts
from ..language.words import plural
from .outcomes import Rehearsal, SavedOutcomes

ROUND_START = "round_start"  # the hook the engine runs to deal a round (its contract with any rules)
DRAW_EVENT = "draw"  # the kind of event a draw statement logs
SHOWN_EVENTS = 3  # what the drawing rule did before its draw, at most, in a finding


@dataclass(frozen=True)
class Explained:
    """A finding's rule (its citation as text) and its reason, in the rules' words."""

    rule: str
    why: str


# ---------------------------------------------------------------- a draw the log leaves out


def drawing_event(eng: Engine, pre: State, move: Move, saved: SavedOutcomes,
                  free_for: Callable[[Callable[[], State]], Callable[[int], bool]]) -> tuple[list[Event], int] | None:
    """The events of the move up to the draw the log leaves out and that draw's index among them, found by
    making the move again on a copy of the state it was made in, with the same outcomes, the draw the log
    lacks taking the top card: the draw's event names the rule whose statement draws. None when the
    rehearsal does not come to that draw."""
    st = pre.copy()
    events: list[Event] = []
    chance = Rehearsal(st, eng.rules, free_for(lambda: st), events)
    chance.restore(saved)
    st.use_chance(chance)
    # A later outcome may be wrong as well: the events up to the missing draw are all that is asked.
    with contextlib.suppress(BaoError):
        eng.perform(st, eng.moves[move.name], move.player, move.args, events)
    if chance.missing_at is None:
        return None
    index = next((i for i in range(chance.missing_at, len(events)) if events[i].kind == DRAW_EVENT), None)
    return None if index is None else (events, index)


def missing_draw(rules: Ruleset, move: Move, events: list[Event], index: int, number: int,
                 viewer: int | None) -> Explained | None:
    """Why the move draws the card the log does not name: the declaration whose statement draws it, with its
    words and citation, the conditions of the move that led there (a failed attempt's branch) and what that
    declaration did before the draw."""
    event = events[index]
    decl = rules.routines.get(event.rule) or rules.hooks.get(event.rule) or rules.moves.get(event.rule)
    if decl is None:
        return None
    # In a player's view, a card that player does not know is only "a card" in the events' words.
    done = [e.seen_by(viewer) for e in events[:index] if e.rule == event.rule][-SHOWN_EVENTS:]
    steps = ", ".join([*done, event.seen_by(viewer)])
    return Explained(str(event.cite), f"{_way(rules, move, event.rule)} ({decl.text}): {steps}; the log does not "
                     f"name the card drawn (draw {number} of the move): list every draw of the move in `draws` (null "
                     "for a card not seen)")


def _way(rules: Ruleset, move: Move, rule: str) -> str:
    """How the move came to the declaration that draws: itself, or the conditions of its branches that led to
    the routine (`matches(card_at(target), ref)` is false, so the rules run the failed attempt's routine)."""
    if rule == move.name:
        return move.name
    branch = branch_to(rules, rules.moves[move.name].body, rule)
    if not branch:
        return f"the move runs {rule}"
    taken = " and ".join(f"`{expr_text(cond)}` is {'true' if then else 'false'}" for cond, then in branch)
    return f"{taken}, so the rules run {rule}"


Branch = list[tuple[s.Expr, bool]]


def branch_to(rules: Ruleset, body: tuple[s.Stmt, ...], routine: str) -> Branch:
    """The conditions on the way from a block to the statement that runs `routine`, each with the branch
    taken (True: its `then`); empty when the block runs it unconditionally or not at all."""
    return _within(rules, body, routine, frozenset()) or []


def _branch_in(rules: Ruleset, stmt: s.Stmt, routine: str, seen: frozenset[str]) -> Branch | None:
    """The conditions to `routine` inside one statement, or None when it does not run it."""
    if isinstance(stmt, s.Run):
        if stmt.routine == routine:
            return []
        called = rules.routines.get(stmt.routine)
        if called is None or stmt.routine in seen:  # a routine calling itself: no new way there
            return None
        return _within(rules, called.body, routine, seen | {stmt.routine})
    if isinstance(stmt, s.IfStmt):
        for block, then in ((stmt.then, True), (stmt.other, False)):
            inner = _within(rules, block, routine, seen)
            if inner is not None:
                return [(stmt.cond, then), *inner]
        return None
    if isinstance(stmt, (s.ForEach, s.Repeat)):
        return _within(rules, stmt.body, routine, seen)
    return None


def _within(rules: Ruleset, body: tuple[s.Stmt, ...], routine: str, seen: frozenset[str]) -> Branch | None:
    for stmt in body:
        found = _branch_in(rules, stmt, routine, seen)
        if found is not None:
            return found
    return None


# ---------------------------------------------------------------- a slot that does not exist


def absent_slot(eng: Engine, st: State, move: Move) -> str | None:
    """The move's first slot argument beyond its player's tableau (or numbered below 1), said with how many
    slots that player has; None when every slot it names exists."""
    kinds = {p.name: p.kind for p in eng.rules.moves[move.name].params}
    for key, value in move.args:
        if kinds.get(key) not in SLOT_KINDS or not isinstance(value, tuple):
            continue
        seat, number = value
        row = st.tableaux[seat]
        if not 1 <= number <= len(row):
            name = st.names[seat]
            has = f"{name}.1 to {name}.{len(row)}" if len(row) > 1 else f"{name}.1" if row else "none"
            return f"{name} has no slot {number} ({key}={name}.{number}): {name} has {plural(len(row), 'slot')} ({has})"
    return None


# ---------------------------------------------------------------- who starts a round


def starters(rules: Ruleset) -> tuple[s.RoutineDecl, ...]:
    """The declarations that start a turn while a round is dealt (the rules' hook for the deal and the
    routines it runs): those that say who starts a round."""
    hook = rules.hooks.get(ROUND_START)
    if hook is None:
        return ()
    found: list[s.RoutineDecl] = []
    todo, seen = [hook], {hook.name}
    while todo:
        decl = todo.pop(0)
        stmts = list(walk_stmts(decl.body))
        if any(isinstance(stmt, s.StartTurn) for stmt in stmts):
            found.append(decl)
        for stmt in stmts:
            if isinstance(stmt, s.Run) and stmt.routine not in seen and stmt.routine in rules.routines:
                seen.add(stmt.routine)
                todo.append(rules.routines[stmt.routine])
    return tuple(found)


def starter_note(decls: tuple[s.RoutineDecl, ...], st: State) -> tuple[tuple[Citation, ...], str] | None:
    """The citations and words of the rules (`starters`) that chose the active player as this round's
    starter; None when the rules declare none."""
    if not decls:
        return None
    words = "; ".join(f"{d.text} ({d.name})" for d in decls)
    return tuple(d.cite for d in decls), f"{st.names[st.active]} starts round {st.round}: {words}"


def merged(*cites: Citation) -> str:
    """Several citations as one, each section and paragraph list once, in the order given."""
    parts: list[tuple[str, tuple[str, ...]]] = []
    for cite in cites:
        for part in cite.parts or ((cite.section, cite.paras),):
            if part not in parts:
                parts.append(part)
    return str(Citation.of(parts)) if parts else ""
