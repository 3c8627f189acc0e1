"""The referee: replay a game log against the rules and say where the first error is and which rule it breaks.

Each line's move is checked with the engine's own legality (the rule a rejection cites is the
verdict's rule), its random outcomes are taken from the log (outcomes.py), and its claims are
checked as scenario expectations. A move the rules declare `implicit` (ending a turn, dealing)
may be left out of the log: it is made when the next logged move needs it. With `keep_going`,
the referee goes on after an error where the state allows: an illegal move or an impossible
outcome is skipped (the state stays as it was before the line), and every wrong claim of a line is noted.

A move that is illegal both as logged and after the implicit steps is reported in the reading that
breaks fewer of its rules, the logged state when both break as many (see `_illegal`): the implicit
steps are what the log leaves out, so when they remove what stood in the move's way the log meant the
move after them, and the reason that remains there is the one that answers "why may I not?".
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.runtime import Event
from ..engine.state import State
from ..engine.table_view import render_table
from ..language.errors import BaoError, EngineError, Rejection, ScenarioError
from ..language.source import Citation, Pos
from ..scenarios import syntax as sc
from ..scenarios.expectations import check_expectation
from ..scenarios.parser import parse_claim, parse_table_lines
from ..scenarios.setup import build_table, known_pile
from ..scenarios.wellformed import reserved_message, reserved_words
from .explain import absent_slot, drawing_event, merged, missing_draw, starter_note, starters
from .logfile import GameLog, Line, LogError
from .moves import MoveReader, Refused
from .outcomes import (
    LoggedChance,
    MissingDraw,
    MissingPick,
    OutcomeError,
    SavedOutcomes,
    card_vars,
    exchange,
    free_cards,
    matches,
    some_of,
    unknown_card,
)
from .quote import clipped, quoted, tamed

# What a line may give only with a move: the outcomes the move produces and what it shows.
OUTCOMES = ("draws", "shuffles", "picks", "reveals", "dealt")
# A card label (`Species#3`) in a table line: there `#` begins a comment.
LABEL_IN_TABLE = re.compile(r"[^\s,:#]+#\d+")
# A logged move may need a few implicit steps before it: the end of the last turn, the next deal.
DRAW_PILE = "draw_pile"  # the pile draws come from (the engine's draw statement draws from it)
MAX_IMPLICIT = 3
ACTIVE_CLAIM = "active"  # the claim language's kind of claim about the active player (`active ben`)
# A header's `table` is parsed as a scenario's table block: the parser reads a line `table` and then the
# header's strings, so that the first string is the parser's line 2.
TABLE_FIRST_LINE = 2


@dataclass(frozen=True)
class Finding:
    """One error of the log: where, what was logged, the rule it breaks and why, and the table then."""

    line: int
    kind: str  # "illegal move", "impossible outcome" or "wrong claim"
    move: str
    rule: str
    why: str
    table: tuple[str, ...]
    others: tuple[tuple[str, str], ...] = ()  # an illegal move's further reasons, ranked: (rule, why)

    def __post_init__(self) -> None:
        # The move and the reason may quote the log's input: never in full (quote.py).
        object.__setattr__(self, "move", tamed(self.move))
        object.__setattr__(self, "why", tamed(self.why))

    def to_json(self) -> dict[str, Any]:
        # No rule is null, never "": a reader tests for a rule, not for an empty text (docs/verdict.schema.json).
        return {"line": self.line, "kind": self.kind, "move": self.move, "rule": self.rule or None, "why": self.why,
                "table": list(self.table),
                "reasons": [{"rule": rule or None, "why": why} for rule, why in self.others]}


@dataclass
class Verdict:
    """What the referee found in one log. `claims` counts the claims found right, `wrong_claims` the
    others; a claim after an error of its line (without --all) is not judged and counts in neither."""

    path: str
    lines: int = 0
    moves: int = 0
    implicit: int = 0
    claims: int = 0
    wrong_claims: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def legal(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        return {"log": self.path, "verdict": "legal" if self.legal else "errors", "lines": self.lines,
                "moves": self.moves, "implicit_moves": self.implicit, "claims": self.claims,
                "claims_wrong": self.wrong_claims, "errors": [f.to_json() for f in self.findings]}


def rules_digest(rules_dir: Path) -> str:
    """sha256 over the rules files (names and bytes, in name order): which rules a log was written for."""
    digest = hashlib.sha256()
    for path in sorted(rules_dir.glob("*.bao")):
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return f"sha256:{digest.hexdigest()}"


class Referee:
    def __init__(self, eng: Engine, log: GameLog, rules_dir: Path, keep_going: bool = False) -> None:
        self.eng = eng
        self.log = log
        self.keep_going = keep_going
        self.verdict = Verdict(log.path)
        header = log.header
        self.header_pos = Pos(log.path, 1, 1)
        digest = header.get("rules", {}).get("digest")
        if digest is not None and digest != rules_digest(rules_dir):
            raise LogError(self.header_pos, f"the log was written for other rules ({digest}); these rules are "
                           f"{rules_digest(rules_dir)} (--rules DIR names the rules directory)")
        self.names: list[str] = list(header["players"])
        view = header.get("view")
        if view is not None and view not in self.names:
            raise LogError(self.header_pos, f"view {view!r} is not one of the players: {', '.join(self.names)}")
        self.viewer: int | None = None if view is None else self.names.index(view)
        self.reader = MoveReader(eng, self.viewer)
        self.draw_pile = list(eng.rules.piles).index(DRAW_PILE) if DRAW_PILE in eng.rules.piles else 0
        self.card_vars = card_vars(eng.rules)
        # The moves' readings after each implicit step, when the move stays illegal (see `_illegal`).
        self.readings: list[tuple[State, Rejection, tuple[str, ...]]] = []
        self.implicit_problem: str | None = None
        self.stepped = False  # whether the line's move came after implicit steps
        self.starters = starters(eng.rules)  # the rules that say who starts a round
        # The turn each round began with: until the next turn the active player is the one the deal chose.
        self.round_turns: dict[int, int] = {}
        self._begin()

    @property
    def st(self) -> State:
        """The referee's state (the chance always works on the state the referee holds)."""
        return self.chance.st

    # ------------------------------------------------------------ the initial state
    def _table_names(self) -> None:
        """A header's `table` is read as a scenario's table, whose language reserves more words than the claims
        do (`seed`, `turn`, ...): a player so named would make the table unreadable, so the name is refused as
        such instead of as the syntax error it causes."""
        reserved = [name for name in self.names if name in reserved_words()]
        if reserved:
            raise LogError(self.header_pos, f"{reserved_message(reserved[0])}; a log with a `table` header names its "
                           "players as a scenario does (a log with `dealt` may use these names)")

    def _begin(self) -> None:
        header = self.log.header
        if "table" in header:
            self._table_names()
            table, where = list(header["table"]), f"{self.log.path}:1 table"
            for number, labelled in enumerate(table, 1):
                found = LABEL_IN_TABLE.search(labelled)
                if found is not None:
                    raise LogError(self.header_pos, f"table line {number} {quoted(labelled)}: {quoted(found.group(0))} "
                                   "names a numbered card, but a table names species only (`#` begins a comment in a "
                                   "table line, so the rest of the line would be lost): write the species")
            try:
                st = build_table(self.eng, parse_table_lines(table, where))
            except ScenarioError as err:
                raise LogError(self.header_pos, table_error(table, where, err), err.excerpt) from None
            if list(st.names) != self.names:
                raise LogError(self.header_pos, f"the table's players {', '.join(st.names)} are not the log's "
                               f"players {', '.join(self.names)}")
            self._chance(st).ordered = True  # a table lists its draw pile top first: draws follow it
            return
        try:
            self.eng.check_player_count(len(self.names))
        except BaoError as err:
            raise LogError(self.header_pos, str(err)) from None
        deal = header["dealt"]
        st = self.eng.blank_state(self.names, 0)
        chance = self._chance(st)
        chance.expect([], [], list(deal.get("picks", [])))
        chance.round = -1  # every draw of the deal is free: the deal says where the cards went
        try:
            self.eng.start_round(st, None)
        except MissingPick as err:
            raise LogError(self.header_pos, _deal_without_picks(err, len(deal.get("picks", [])))) from None
        except OutcomeError as err:
            raise LogError(self.header_pos, f"the deal: {err}") from None
        self._note_round(st)
        problem = self._pin_deal(st, deal) or chance.leftovers() or self._unseen_in_deal(st, deal) \
            or self._draw_order(deal, chance)
        if problem:
            raise LogError(self.header_pos, f"the deal: {problem}")

    def _draw_order(self, deal: dict[str, Any], chance: LoggedChance) -> str | None:
        """A deal that lists the draw pile gives its order (bottom first, as every pile of the deal): the draws
        must then follow it, as after a logged shuffle. A list with a card left out (null) gives no order, so
        it is refused rather than half followed."""
        for name, cards in deal.get("piles", {}).items():
            if known_pile(self.eng, name, self.header_pos) != self.draw_pile:
                continue
            if None in cards:
                return (f"{name} lists the draw pile with a card left out (null): list every card, bottom first, "
                        "or leave the pile out (each draw then names its card)")
            chance.ordered = True
        return None

    def _names_every_draw(self, line: Line) -> None:
        """A full log names every card it draws: null (a card not seen) is for a player's view. Malformed
        rather than illegal: the log leaves out what its format asks of it, which says nothing about the
        game, and a referee that took null as any card would accept a draw the game never made. (A deal
        may leave a card out in any log: the referee's card there is judged by every later line.)"""
        draws = line.data.get("draws", [])
        if self.viewer is None and None in draws:
            raise LogError(self._pos(line), f"draws: draw {draws.index(None) + 1} is null (not seen), but the log "
                           "is a full log (no `view` in the header): it names every card it draws")

    def _chance(self, st: State) -> LoggedChance:
        chance = LoggedChance(st, self.eng.rules, self._free_for(st))
        chance.draw_index = self.draw_pile
        st.use_chance(chance)
        self.chance = chance
        return chance

    def _free_for(self, st: State) -> Callable[[int], bool]:
        """Which cards a logged draw may be exchanged with (see outcomes.py): nobody the log speaks for
        can tell them apart. Read on the referee's state as it is then (a line undone replaces it)."""
        return self._free_in(lambda: self.st)

    def _free_in(self, state: Callable[[], State]) -> Callable[[int], bool]:
        return free_cards(state, self.viewer, self.draw_pile)

    def _note_round(self, st: State) -> None:
        self.round_turns[st.round] = st.turn

    def _pin_deal(self, st: State, deal: dict[str, Any]) -> str | None:
        """Make the dealt cards the log's: exchange each with a card of the logged species not yet placed.
        Any arrangement of a freshly shuffled deck is a possible deal."""
        places: list[tuple[str, list[Any], list[str | None]]] = []
        for name, cards in deal.get("tableaux", {}).items():
            if name not in st.names:
                return f"{quoted(name)} is not one of the players"
            places.append((f"{name}'s tableau", st.tableaux[st.names.index(name)], list(cards)))
        for name, cards in deal.get("piles", {}).items():
            try:
                places.append((name, st.piles[known_pile(self.eng, name, self.header_pos)], list(cards)))
            except ScenarioError as err:
                return err.message
        pinned: set[int] = set()
        for where, row, cards in places:
            if len(row) != len(cards):
                return f"the rules deal {len(row)} card(s) to {where}, the log names {len(cards)}"
            for i, want in enumerate(cards):
                card = row[i]  # read now: an earlier exchange may have changed it
                if card is None or want is None:
                    continue
                target = card if matches(st, card, want) and card not in pinned else self._unplaced(st, want, pinned)
                if target is None:
                    return unknown_card(st, want) or f"the log deals more {want} than the deck holds"
                exchange(st, card, target, self.card_vars)
                pinned.add(target)
        return None

    @staticmethod
    def _unplaced(st: State, want: str, pinned: set[int]) -> int | None:
        return next((c for c in range(len(st.known)) if matches(st, c, want) and c not in pinned
                     and c not in st.box), None)

    # ------------------------------------------------------------ replay
    def run(self, advance: Callable[[int], None] = lambda lines: None) -> Verdict:
        for line in self.log.lines:
            self.verdict.lines += 1
            found = self._line(line)
            advance(1)
            if found:
                self.verdict.findings += found
                if not self.keep_going:
                    break
        return self.verdict

    def _line(self, line: Line) -> list[Finding]:
        data = line.data
        events: list[Event] = []
        text = ""
        stray = [key for key in OUTCOMES if key in data]
        if "move" not in data and stray:
            return [Finding(line.number, "impossible outcome", "", "", f"the line gives {', '.join(stray)} but no "
                            "move that could produce them", tuple(render_table(self.eng, self.st)))]
        if "move" in data:
            move = self.reader.read(self.st, data["move"], self._pos(line))
            if isinstance(move, Refused):
                return [Finding(line.number, move.kind, self._raw_move(line), "", move.why,
                                tuple(render_table(self.eng, self.st)))]
            text = self.eng.describe(self.st, move)
            result = self._play(line, move, events)
            if result is not None:
                return [result]
        return self._claims(line, text, events)

    def _play(self, line: Line, move: Move, events: list[Event]) -> Finding | None:
        """Apply the line's move with its outcomes; on an error the state is as before the line."""
        before = self.st.copy()
        data = line.data
        self._names_every_draw(line)
        self.chance.expect(data.get("draws", []), data.get("shuffles", []), data.get("picks", []),
                           data.get("dealt", {}).get("picks", []))
        self.chance.round = self.st.round
        revealed: list[tuple[str, int]] = []
        finding = self._implicit_before(line, move, events)
        if finding is None:
            # After the implicit steps: a reveal names a card where it lies just before the move, in the
            # round the move is made in (an implicit deal changes every place).
            finding = self._reveal(line, move, revealed)
        if finding is None:
            finding = self._apply(line, move, events, before)
        if finding is None:
            problem = self.chance.leftovers() or self._unused_deal(line, before) or self._unseen(revealed)
            if problem is not None:
                finding = self._finding(line, "impossible outcome", move, "", problem, before)
        if finding is not None:
            self._restore(before)
            return finding
        self.verdict.moves += 1
        return None

    def _implicit_before(self, line: Line, move: Move, events: list[Event]) -> Finding | None:
        """Make the implicit steps the move needs, if it is illegal now; a finding when it stays illegal."""
        rejection = self.eng.check(self.st, move)
        self.stepped = rejection is not None and self._implicit_steps(line, move, events)
        if rejection is None or self.stepped:
            # The move's own draws are named by the line: from here on a new round's draws are not the deal's.
            self.chance.round = self.st.round
            return None
        if self.implicit_problem is not None and rejection.rule.startswith("halt "):
            # The round is over and the next deal is what the log does not give: either the move is one too many
            # in this round (the halt) or the log left out the deal that would make it the next round's.
            return self._finding(line, "impossible outcome", move, str(rejection.cite),
                                 f"{rejection.reason}; the move could only be the next round's: "
                                 f"{self.implicit_problem}", self.st)
        return self._illegal(line, move, rejection)

    def _illegal(self, line: Line, move: Move, rejection: Rejection) -> Finding:
        """An illegal move, in the reading that breaks fewest of its rules: as logged, or after one or more
        implicit steps. A halt the implicit steps pass (the round is over, the next move deals) is no
        reading of its own. Ties go to the earlier reading: the log as written."""
        readings: list[tuple[State, Rejection, tuple[str, ...]]] = [(self.st, rejection, ()), *self.readings]
        last = readings[-1]
        st, chosen, steps = min(readings, key=lambda r: (r[1].rule.startswith("halt ") and r is not last,
                                                          len(r[1].all())))
        return self._rejected(line, move, chosen, st, steps)

    def _rejected(self, line: Line, move: Move, rejection: Rejection, st: State,
                  steps: tuple[str, ...] = ()) -> Finding:
        after = f" (read after the implicit {', '.join(steps)}: the move is illegal either way)" if steps else ""
        table = tuple(render_table(self.eng, st))
        missing = absent_slot(self.eng, st, move)
        if missing is not None:
            # A place that does not exist is what is wrong, whatever the rules then say of it: their reasons
            # follow as the further ones.
            return Finding(line.number, "illegal move", rejection.move, "", missing + after, table,
                           tuple((str(r.cite), r.reason) for r in rejection.all()))
        rule, why = str(rejection.cite), rejection.reason
        starter = self._starter(st) if self._not_active(st, move) else None
        if starter is not None:
            rule, why = merged(rejection.cite, *starter[0]), f"{why}; {starter[1]}"
        return Finding(line.number, "illegal move", rejection.move, rule, why + after, table,
                       tuple((str(r.cite), r.reason) for r in rejection.others))

    def _not_active(self, st: State, move: Move) -> bool:
        """Whether the move is refused for a mover who is not the active player (`by actor == active`)."""
        return self.eng.moves[move.name].active_only and move.player != st.active

    def _starter(self, st: State) -> tuple[tuple[Citation, ...], str] | None:
        """The rule that made the active player active, while it is the turn the round's deal chose: a move
        or a claim about the wrong starting player breaks it."""
        if self.round_turns.get(st.round) != st.turn:
            return None
        return starter_note(self.starters, st)

    def _apply(self, line: Line, move: Move, events: list[Event], before: State) -> Finding | None:
        # Checked again after a reveal, which may have changed a hidden card; else `_implicit_before` did.
        rejection = self.eng.check(self.st, move) if "reveals" in line.data else None
        if rejection is not None:
            return self._rejected(line, move, rejection, self.st)
        # The state the move is made in and the outcomes it may use, for the rehearsal of a draw the log leaves
        # out: the line's first state, unless implicit steps or reveals changed it (copied only then).
        pre = self.st.copy() if self.stepped or "reveals" in line.data else before
        saved = self.chance.saved()
        try:
            round_before = self.st.round
            events += self.eng.push_checked(self.st, move, log=self._wants_events(line))
            if self.st.round != round_before:
                self._note_round(self.st)
                problem = self._pin_new_deal(line)
                if problem:
                    return self._finding(line, "impossible outcome", move, "", problem, self.st)
        except MissingDraw as err:
            return self._missing_draw(line, move, err, pre, saved)
        except OutcomeError as err:
            return self._finding(line, "impossible outcome", move, str(self.eng.rules.moves[move.name].cite),
                                 str(err), self.st)
        except EngineError as err:
            return self._finding(line, "illegal move", move, str(self.eng.rules.moves[move.name].cite),
                                 f"the rules cannot carry it out: {err}", self.st)
        return None

    def _missing_draw(self, line: Line, move: Move, err: MissingDraw, pre: State, saved: SavedOutcomes) -> Finding:
        """A draw the log leaves out, with the rule that makes it: the move is made again on a copy to find the
        statement that draws (a failed attempt's penalty, say), and that rule is the finding's."""
        rehearsed = drawing_event(self.eng, pre, move, saved, self._free_in)
        told = None if rehearsed is None else missing_draw(self.eng.rules, move, *rehearsed, err.number, self.viewer)
        if told is None:
            return self._finding(line, "impossible outcome", move, str(self.eng.rules.moves[move.name].cite),
                                 str(err), self.st)
        return self._finding(line, "impossible outcome", move, told.rule, told.why, self.st)

    def _implicit_steps(self, line: Line, move: Move, events: list[Event]) -> bool:
        """Make the rules' implicit moves until the logged move is legal; False (state restored) when it
        never becomes legal, with the readings after each step kept for `_illegal`."""
        self.readings, self.implicit_problem = [], None
        decl = self.eng.rules.implicit
        if decl is None:
            return False
        before, made = self.st.copy(), 0
        steps: list[str] = []
        try:
            for _ in range(MAX_IMPLICIT):
                step = self._implicit_step(decl.moves)
                if step is None:
                    break
                steps.append(self.eng.describe(self.st, step))
                round_before = self.st.round
                events += self.eng.push_checked(self.st, step, log=self._wants_events(line))
                made += 1
                if self.st.round != round_before:
                    self._note_round(self.st)
                    self.implicit_problem = self._pin_new_deal(line)
                    if self.implicit_problem is not None:
                        break
                rejection = self.eng.check(self.st, move)
                if rejection is None:
                    self.verdict.implicit += made
                    return True
                self.readings.append((self.st.copy(), rejection, tuple(steps)))
        except OutcomeError as err:
            self.implicit_problem = str(err)
        self._restore(before)
        return False

    def _implicit_step(self, names: tuple[str, ...]) -> Move | None:
        st = self.st
        seats = st.seats_from(st.active) if st.names else []
        for name in names:
            for p in seats:
                step = Move(p, name, ())
                if self.eng.check(st, step) is None:
                    return step
        return None

    def _pin_new_deal(self, line: Line) -> str | None:
        deal = line.data.get("dealt")
        if deal is None:
            if self.viewer is None:
                return "the move deals a new round, but the line does not say the deal (`dealt`)"
            return None
        return self._pin_deal(self.st, deal)

    def _reveal(self, line: Line, move: Move, revealed: list[tuple[str, int]]) -> Finding | None:
        """A player's view names the cards a move shows that player: make the state hold them. `revealed`
        gets each place with its card, so that after the move the referee can check it was shown."""
        pinned: set[int] = set()
        for place, want in line.data.get("reveals", {}).items():
            card = self._revealed_card(line, place)
            if card is None:
                return self._finding(line, "wrong claim", move, "", f"the log reveals {want} on {place}, which "
                                     "is empty", self.st)
            if matches(self.st, card, want) and card not in pinned:
                pinned.add(card)
                revealed.append((place, card))
                continue
            known = self.viewer is None or self.st.known[card] >> self.viewer & 1
            other = None if known else next((c for c in range(len(self.st.known)) if matches(self.st, c, want)
                                             and self.chance.free(c) and c not in self.st.box
                                             and c not in pinned), None)
            if other is None:
                who = "the log" if self.viewer is None else self.st.names[self.viewer]
                return self._finding(line, "wrong claim", move, "", f"the log reveals {want} on {place}, but "
                                     f"{who} knows it is {self.st.facts.label(card)}" if known else
                                     f"the log reveals {want} on {place}, but no such card can be there", self.st)
            exchange(self.st, card, other, self.card_vars)
            pinned.add(other)
            revealed.append((place, other))
        return None

    def _revealed_card(self, line: Line, place: str) -> int | None:
        owner, _, number = place.partition(".")
        if owner not in self.st.names:
            raise LogError(self._pos(line), f"reveals: unknown player {quoted(owner)}")
        seat = self.st.names.index(owner)
        hand = self.st.hands[seat]
        try:
            return (hand[-1] if hand else None) if number == "hand" else self.st.card_at((seat, int(number)))
        except ValueError:
            raise LogError(self._pos(line), f"reveals: no such place {quoted(place)}") from None

    def _unseen(self, revealed: list[tuple[str, int]]) -> str | None:
        """In a player's view: a card the log names (a reveal, a draw) must be one the move showed that
        player; otherwise the log says what its viewer cannot know."""
        if self.viewer is None:
            return None
        named = [*revealed, *((f"the draw of {want}", card) for want, card in self.chance.named)]
        for what, card in named:
            if not self.st.known[card] >> self.viewer & 1:
                return (f"the log names {what} ({self.st.facts.species[card]}), but the move does not show it to "
                        f"{self.st.names[self.viewer]}")
        return None

    def _unused_deal(self, line: Line, before: State) -> str | None:
        if "dealt" in line.data and self.st.round == before.round:
            return "the line gives a deal (`dealt`), but no round was dealt"
        return None

    def _unseen_in_deal(self, st: State, deal: dict[str, Any]) -> str | None:
        """In a player's view the deal names only cards that player sees (face-up ones)."""
        if self.viewer is None:
            return None
        for name, cards in deal.get("tableaux", {}).items():
            row = st.tableaux[st.names.index(name)]
            for i, want in enumerate(cards):
                card = row[i] if i < len(row) else None
                if want is not None and card is not None and not st.known[card] >> self.viewer & 1:
                    return f"{name}.{i + 1} is named {want}, but {st.names[self.viewer]} cannot see it"
        for name, cards in deal.get("piles", {}).items():
            pile = st.piles[known_pile(self.eng, name, self.header_pos)]
            for i, want in enumerate(cards):
                card = pile[i] if i < len(pile) else None
                if want is not None and card is not None and not st.known[card] >> self.viewer & 1:
                    return f"card {i + 1} of {name} is named {want}, but {st.names[self.viewer]} cannot see it"
        return None

    @staticmethod
    def _wants_events(line: Line) -> bool:
        """Whether the line's claims read the move's events (`said`): only then are they written."""
        return any(claim.lstrip().startswith("said") for claim in line.data.get("claims", []))

    # ------------------------------------------------------------ claims
    def _claims(self, line: Line, text: str, events: list[Event]) -> list[Finding]:
        """Every claim of the line judged, each wrong one a finding; without --all the first wrong one
        ends the line (the log's first error is the verdict)."""
        found: list[Finding] = []
        table: tuple[str, ...] = ()
        for i, claim in enumerate(line.data.get("claims", []), 1):
            message = self._claim_message(line, i, claim, events)
            if message is None:
                self.verdict.claims += 1
                continue
            self.verdict.wrong_claims += 1
            table = table or tuple(render_table(self.eng, self.st))
            rule, note = self._claim_rule(claim)
            found.append(Finding(line.number, "wrong claim", text, rule, f"{clipped(claim)}: {message}{note}", table))
            if not self.keep_going:
                break
        return found

    def _claim_rule(self, claim: str) -> tuple[str, str]:
        """The rule a wrong claim contradicts, when the rules name one, and its words: a claim of the active
        player at a round's first turn contradicts the rule that chose the starter. ("", "") otherwise."""
        starter = self._starter(self.st) if _claim(claim).kind == ACTIVE_CLAIM else None
        if starter is None:
            return "", ""
        return merged(*starter[0]), f"; {starter[1]}"

    def _claim_message(self, line: Line, i: int, claim: str, events: list[Event]) -> str | None:
        """None when the claim is right, else why not. A claim that cannot be read, or judged, is a malformed
        log; but after an earlier error of the log (under --all) the referee's state is not the one the log's
        author saw, so a claim it cannot judge there (a card on a slot now empty) is wrong, not malformed: that
        would end the judging and lose the errors found."""
        try:
            x = _claim(claim)
        except ScenarioError as err:
            raise LogError(self._pos(line), f"claim {i} {quoted(claim)}, at its character {err.pos.column}: "
                           f"{err.message}", err.excerpt) from None
        try:
            hidden = self._hidden_claim(x)
            if hidden is not None:
                return hidden
            if x.kind == "said":
                said = [e.text for e in events if e.kind == "say"]
                return None if x.args[0] in said else f"the rules said {said or 'nothing'}"
            return check_expectation(self.eng, self.st, x)
        except ScenarioError as err:
            if self.verdict.findings:
                return f"it cannot hold here, after the log's earlier error: {err.message}"
            raise LogError(self._pos(line), f"claim {i} {quoted(claim)}, at its character {err.pos.column}: "
                           f"{err.message}", err.excerpt) from None

    def _hidden_claim(self, x: sc.Expect) -> str | None:
        """In a player's view, a claim about the face of a card that player does not know says more than
        the player can: refused rather than judged against a card the referee chose."""
        if self.viewer is None or x.kind != "slot_is" or x.args[1] is None:
            return None
        place = x.args[0]
        if place.player not in self.st.names:
            return None
        card = self.st.card_at((self.st.names.index(place.player), place.slot))
        if card is None or self.st.known[card] >> self.viewer & 1:
            return None
        return f"{self.st.names[self.viewer]} does not know the card on {place.player}.{place.slot}"

    # ------------------------------------------------------------ helpers
    def _restore(self, before: State) -> None:
        before.use_chance(self.chance)
        self.chance.st = before

    def _pos(self, line: Line) -> Pos:
        return Pos(self.log.path, line.number, 1)

    def _raw_move(self, line: Line) -> str:
        raw = line.data["move"]
        return raw if isinstance(raw, str) else json.dumps(raw)

    def _finding(self, line: Line, kind: str, move: Move, rule: str, why: str, st: State) -> Finding:
        return Finding(line.number, kind, self.eng.describe(st, move), rule, why, tuple(render_table(self.eng, st)))


def table_error(table: list[str], where: str, err: ScenarioError) -> str:
    """A table's error said by the header's `table` line it is in (1 for the array's first string) and its
    column there, instead of the parser's position: the parser counts the `table` line it puts before the
    header's strings (the first string would be its line 2), and its position repeats the log's name."""
    if err.pos.file != where:
        return f"table: {err.pos}: {err.message}"  # not a place in the table's lines: said as it is
    line, start = err.pos.line, TABLE_FIRST_LINE
    if line < start:
        return f"table: {err.message}"  # the parser's own `table` line: the table as a whole (no players, say)
    for number, text in enumerate(table, 1):
        # A string with a line feed in it is read as several lines of the table.
        count = text.count("\n") + 1
        if line < start + count:
            within = f" (its line {line - start + 1})" if count > 1 else ""
            return f"table line {number} {quoted(text)}{within}, at its character {err.pos.column}: {err.message}"
        start += count
    return f"table, after its last line: {err.message}"


def _deal_without_picks(err: MissingPick, given: int) -> str:
    """The header's deal without the random picks the rules make while dealing (`given`: how many it gives):
    `dealt.picks` is optional in the schema, since rules that pick nothing while dealing need none, but these
    rules need it."""
    lacks = "has no `picks`" if not given else f"gives {given} pick(s), fewer than the rules make"
    example = f', e.g. "picks": ["{err.choices[0]}"]' if err.choices and not given else ""
    return (f"the deal: the rules pick a {err.kind} at random while dealing ({some_of(err.choices)}), but the "
            f"header's `dealt` {lacks}: `dealt.picks` is required whenever the rules pick at random while dealing, "
            f"every pick in the order made (docs/log.schema.json){example}")


@lru_cache(maxsize=65536)
def _claim(text: str) -> sc.Expect:
    """A claim's expectation, parsed once per text: a log repeats its claims (`phase turn`) many times."""
    return parse_claim(text, "claim")


def referee(eng: Engine, log: GameLog, rules_dir: Path, keep_going: bool = False,
            advance: Callable[[int], None] = lambda lines: None) -> Verdict:
    """Judge a game log line by line; `advance(1)` after each line (a progress bar)."""
    return Referee(eng, log, rules_dir, keep_going).run(advance)
