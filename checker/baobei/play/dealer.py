"""One simulated match: the dealer holds the state, asks the players' policies for moves through their
views, plays them and judges every move by the rules' invariants.

Who is asked: the players who have a legal move, those acting out of turn first in the rules' order of
simultaneous calls (they call while the reference is visible), the active player last. The first whose
policy proposes a move makes it. When every one waits, the last is asked again and must move. A proposal
the table refuses (illegal in the state, though legal in the player's view) is counted and the player
waits; should the forced one be refused too, the dealer plays a uniformly random legal move for that player.

A match ends when nobody may act (a halt of the rules says the match is over), at the first failure of
the rules (an invariant or progress property, or an engine error: a finding), or when a round reaches the
turn cap (D9: the rules bound no round; a capped round is a figure, not an error).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..engine.engine import Engine, invariant_message, progress_message
from ..engine.incremental import IncrementalJudge
from ..engine.move import Move
from ..engine.state import State
from ..language.errors import EngineError
from ..scenarios.runner import RULES_FAILED
from .explore import TURN, reads_name
from .loops import RoundSummary, RoundTrail, longer
from .policies import Policy, make_policy
from .statistics import Statistics, Tally
from .view import ViewMaker

# The label of a finding that is an engine error (a legal move the rules cannot carry out), as explore names it.
RULES_RUN = "rules"


@dataclass(frozen=True)
class Finding:
    """A failure of the rules in simulation, with the moves from the deal that lead to it."""

    label: str  # "invariant NAME", "progress NAME" or RULES_RUN
    message: str  # as a scenario replay reports it
    cite: str
    match: int
    seed: int
    players: int
    round: int
    moves: tuple[Move, ...]


@dataclass
class MatchRecord:
    """What one match gave: figures only (no state), so that records travel between processes."""

    index: int
    seed: int
    finished: bool = False  # a halt of the rules ended the match
    capped: bool = False  # a round reached the turn cap
    moves: int = 0
    rounds: list[int] = field(default_factory=list)  # turns of each round played to its end
    tallies: dict[str, Tally] = field(default_factory=dict)
    longest: RoundSummary | None = None
    findings: list[Finding] = field(default_factory=list)
    refused: int = 0  # proposals the table refused


class Dealer:
    """Plays matches of one engine with one policy for every player."""

    def __init__(self, eng: Engine, policy: str, invariants: bool = True, max_turns: int = 1000) -> None:
        self.eng = eng
        self.views = ViewMaker(eng)
        self.policy: Policy = make_policy(policy, self.views.engine)
        self.statistics = Statistics(eng)
        self.invariants = invariants
        # Judges one match at a time (each match starts it afresh): only the invariants a move can affect.
        self.judge = IncrementalJudge(eng)
        self.max_turns = max_turns
        self.with_turn = reads_name(eng.rules, TURN)

    def play(self, index: int, seed: int, players: int) -> MatchRecord:
        record = MatchRecord(index, seed)
        st, _ = self.eng.new_match([f"p{i + 1}" for i in range(players)], seed, log=False)
        Match(self, record, st, random.Random(f"policies/{seed}")).run()
        return record


class Match:
    """One match under way."""

    def __init__(self, dealer: Dealer, record: MatchRecord, st: State, rng: random.Random) -> None:
        self.d, self.eng, self.record, self.st, self.rng = dealer, dealer.eng, record, st, rng
        self.starter = st.active  # seat 1 of the figures: the player whose turn began the match
        self.history: list[Move] = []
        self.trail = RoundTrail(st.round, st.turn)
        # Who may act in the state as it is now (None: not listed yet): judging progress and choosing the next
        # mover both need it, and listing it is most of the cost of either.
        self.movers: list[int] | None = None

    def run(self) -> None:
        if self.d.invariants and self._judge_deal():
            return
        while True:
            move = self.next_move()
            if move is None:
                self.record.finished = self.eng.halt(self.st) is not None
                self._end_round(capped=False)
                return
            if not self.step(move):
                return

    def step(self, move: Move) -> bool:
        """Play one move; whether the match goes on."""
        before, st = self.st.copy(), self.st
        self.movers = None
        try:
            self.eng.push_checked(st, move, log=False)
        except EngineError as err:
            # The move's own rule is what failed: the scenario that replays it cites that rule.
            self._find(RULES_RUN, f"{RULES_FAILED}: {err}", str(self.eng.rules.moves[move.name].cite), move)
            return False
        self.history.append(move)
        self.record.moves += 1
        if self.d.invariants:
            for label, message, cite in self._judge(before, move):
                self._find(label, message, cite)
                return False
        self.d.statistics.record(self.record.tallies, before, move, st, self.starter)
        return self._follow(before, move)

    def _follow(self, before: State, move: Move) -> bool:
        """Follow the round: a new one, or a turn beyond the cap."""
        st = self.st
        if st.round != self.trail.round:
            self._end_round(capped=False)
            self.trail = RoundTrail(st.round, st.turn)
            return True
        self.trail.note(before, move, st, self.d.with_turn)
        if self.trail.turns > self.d.max_turns:
            self.record.capped = True
            self._end_round(capped=True)
            return False
        return True

    def _end_round(self, capped: bool) -> None:
        if not capped:
            self.record.rounds.append(self.trail.turns)
        self.record.longest = longer(self.record.longest, self.trail.summary(self.record.index, capped))

    # ------------------------------------------------------------ who moves
    def next_move(self) -> Move | None:
        st, eng = self.st, self.eng
        movers = self._movers()
        if not movers:
            return None
        order = [p for p in self._call_order() if p in movers and p != st.active]
        order += [st.active] if st.active in movers else []
        for seat in order:
            move = self._ask(seat, forced=False)
            if move is not None:
                return move
        move = self._ask(order[-1], forced=True)
        return move if move is not None else eng.random_move(st, self.rng, player=order[-1])

    def _movers(self) -> list[int]:
        if self.movers is None:
            self.movers = self.eng.movers(self.st)
        return self.movers

    def _call_order(self) -> list[int]:
        order = self.eng.call_order(self.st)
        return order if order is not None else self.st.seats_from(self.st.active)

    def _ask(self, seat: int, forced: bool) -> Move | None:
        move = self.d.policy.choose(self.d.views.view(self.st, seat, forced), self.rng)
        if move is None:
            return None
        if move.player != seat or not self.eng.is_legal(self.st, move):
            self.record.refused += 1
            return None
        return move

    # ------------------------------------------------------------ judging
    def _judge_deal(self) -> bool:
        """The dealt state's invariants and progress (a failure there is a finding with no move)."""
        for inv in self.d.judge.start(self.st):
            self._find(f"invariant {inv.ident}", invariant_message(inv), str(inv.cite))
            return True
        for decl in self.eng.deadlocks(self.st, lambda: not self._movers()):
            self._find(f"progress {decl.ident}", progress_message(decl), str(decl.cite))
            return True
        return False

    def _judge(self, before: State, move: Move) -> Iterator[tuple[str, str, str]]:
        """Every property the move breaks, in the order a scenario replay judges them (check_move). The
        invariants are judged incrementally: those the move cannot have affected keep their verdict."""
        states, transitions = self.d.judge.after(before, self.st, move)
        for inv in [*states, *transitions]:
            yield f"invariant {inv.ident}", invariant_message(inv), str(inv.cite)
        for decl in self.eng.deadlocks(self.st, lambda: not self._movers()):
            yield f"progress {decl.ident}", progress_message(decl), str(decl.cite)

    def _find(self, label: str, message: str, cite: str, failing: Move | None = None) -> None:
        moves = (*self.history, failing) if failing is not None else tuple(self.history)
        self.record.findings.append(Finding(label, message, cite, self.record.index, self.record.seed,
                                            len(self.st.names), self.st.round, moves))
