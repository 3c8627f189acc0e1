"""Seeded random legal play: whole rounds and matches, out-of-turn moves included.

The simulator knows no phase or move of the rules: a round is over when the
engine starts the next one, and the match is over when nobody may act.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..engine.engine import Engine, invariant_message, progress_message
from ..engine.move import Move
from ..engine.runtime import Event
from ..engine.state import State
from ..engine.table_view import render_table
from ..language.errors import EngineError
from ..referee.write import LogWriter

Policy = Callable[[Engine, State, random.Random], "Move | None"]

# How random play chooses: uniformly over every legal move, or a kind of move first (a player and a
# move of the rules, among those with a legal move), then its arguments.
POLICIES: dict[str, Policy] = {
    "random": lambda eng, st, rng: eng.random_move(st, rng),
    "kinds": lambda eng, st, rng: eng.random_move_by_kind(st, rng),
}


@dataclass
class PlayStats:
    moves: int = 0
    rounds: int = 0
    capped: int = 0  # rounds cut off by the move cap: a finding about the rules (D9), not an error
    matches: int = 0
    seconds: float = 0.0

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds if self.seconds else 0.0

    @property
    def microseconds_per_move(self) -> float:
        return self.seconds / self.moves * 1e6 if self.moves else 0.0

    @property
    def rounds_per_second(self) -> float:
        return self.rounds / self.seconds if self.seconds else 0.0


class Violation(EngineError):
    """Random play reached a state or a move that breaks what the rules promise (an invariant, progress)."""


class Judge:
    """Judges what the rules promise during random play, as a scenario replay does: every state invariant
    after every move (and after the deal), every transition invariant over each move, and progress when
    nobody can act (while somebody can, nobody is stuck)."""

    def __init__(self, eng: Engine) -> None:
        self.eng = eng
        self.transitions = bool(eng.transition_fns)

    def before(self, st: State) -> State | None:
        """What a transition invariant compares the state after the move with (None when there are none)."""
        return st.snapshot() if self.transitions else None

    def state(self, st: State, what: Callable[[], str]) -> None:
        inv = self.eng.broken_invariant(st)
        if inv is not None:
            raise Violation(f"{invariant_message(inv)} ({what()}, round {st.round})")

    def move(self, before: State | None, move: Move, st: State) -> None:
        def what() -> str:  # words for a failure only: the move as it read before it was made
            return f"after {self.eng.describe(st if before is None else before, move)}"

        self.state(st, what)
        if before is not None:
            broken = self.eng.transition_failure(before, st, move)
            if broken is not None:
                raise Violation(f"{broken} ({what()}, round {st.round})")

    def stuck(self, st: State) -> None:
        decl = self.eng.deadlock(st)
        if decl is not None:
            raise Violation(f"{progress_message(decl)} (round {st.round}, phase {st.phase})")


def play_match(eng: Engine, st: State, rng: random.Random, cap: int, stats: PlayStats, rounds: int,
               judge: Judge | None = None) -> None:
    """Random legal moves until the match ends, `rounds` rounds are done, or a round hits `cap` moves;
    with a `judge`, every move is judged by what the rules promise."""
    current, in_round = st.round, 0
    while stats.rounds + stats.capped < rounds:
        move = eng.random_move(st, rng)
        if move is None:  # nobody may act: the match is over (a halt says so), else the rules stalled
            if judge is not None:
                judge.stuck(st)
            stalled(eng, st)
            stats.rounds += 1
            stats.matches += 1
            return
        before = judge.before(st) if judge is not None else None
        eng.push_generated(st, move)  # generated legal just now: checked once, not twice
        if judge is not None:
            judge.move(before, move, st)
        stats.moves += 1
        in_round += 1
        if st.round != current:
            stats.rounds += 1
            current, in_round = st.round, 0
        elif in_round >= cap:
            stats.capped += 1
            return


@dataclass(frozen=True)
class View:
    """Who reads a playthrough: the dealer sees every card; a player (`viewer`, a seat) only the cards that
    player knows. The rules' bookkeeping (variables given values) is shown only when `verbose`."""

    verbose: bool = True
    viewer: int | None = None

    def event(self, e: Event) -> str | None:
        if e.kind == "set" and not self.verbose:
            return None
        return f"{e.seen_by(self.viewer)}  [{e.rule}, {e.cite}]"

    def shown(self, group: list[Event]) -> str:
        """Cards of one player shown by one rule, on one line: at a round's end every card is shown, and a
        line per card would not say at a glance whose they are."""
        first = group[0]
        cards = ", ".join(e.seen_by(self.viewer, f"{e.cards[0][0]} ({e.place})") for e in group)
        return f"{first.owner}'s cards are shown to everyone: {cards}  [{first.rule}, {first.cite}]"

    def events(self, events: list[Event], indent: str) -> list[str]:
        lines = [self.shown(group) if len(group) > 1 else self.event(group[0]) for group in shown_together(events)]
        return [indent + line for line in lines if line is not None]

    def move(self, eng: Engine, st: State, move: Move) -> str:
        text = eng.describe(st, move)
        return text if self.viewer is None else hide_unknown(st, text, self.viewer)

    def table(self, eng: Engine, st: State) -> list[str]:
        if self.viewer is None:
            return ["the table as dealt (face-down cards named for the reader; * marks the active player):",
                    *(f"  {line}" for line in render_table(eng, st, knowledge=False))]
        name = st.names[self.viewer]
        return [f"the table as {name} sees it (? is a card {name} does not know; * marks the active player):",
                *(f"  {line}" for line in render_table(eng, st, knowledge=False, viewer=self.viewer))]


def shown_together(events: list[Event]) -> list[list[Event]]:
    """The events in order, those next to each other that show cards of one player by one rule as one group."""
    groups: list[list[Event]] = []
    for e in events:
        last = groups[-1][-1] if groups else None
        if (last is not None and e.kind == last.kind == "show" and e.owner and e.owner == last.owner
                and e.rule == last.rule and e.cards):
            groups[-1].append(e)
        else:
            groups.append([e])
    return groups


def hide_unknown(st: State, text: str, viewer: int) -> str:
    """`text` with every card label the viewer does not know now replaced by "a card"."""
    def hide(match: re.Match[str]) -> str:
        card = st.facts.by_label.get(match.group(0))
        return match.group(0) if card is None or st.known[card] >> viewer & 1 else "a card"

    return re.sub(r"[^\s=,:;()\[\]{}]+#[0-9]+", hide, text)


def playthrough(eng: Engine, players: int, seed: int, rounds: int, cap: int = 5000,
                turns: int | None = None) -> list[str]:
    """A seeded random game, as text: every move and every event with the rule it cites."""
    return list(lines_of_play(eng, players, seed, rounds, cap, turns))


def lines_of_play(eng: Engine, players: int, seed: int, rounds: int, cap: int = 5000,
                  turns: int | None = None, view: View = View(), writer: LogWriter | None = None) -> Iterator[str]:
    """`playthrough` line by line, so that what was played is shown before an error ends it. `cap` bounds
    the moves, `turns` the turns begun after the deal (a turn cap of the kind decision D9 leaves to
    simulations); reaching either is said. `view` says who reads it. With a `writer` (made for the same
    players and seed) the game is played on the writer's state and written as a game log too."""
    names = [f"p{i + 1}" for i in range(players)]
    st, events = (writer.st, writer.deal_events) if writer is not None else eng.new_match(names, seed)
    rng = random.Random(seed)
    yield from view.events(events, "") + view.table(eng, st)
    first, begun = st.round, st.turn
    for _ in range(cap):
        move = eng.random_move(st, rng)
        if move is None:
            stalled(eng, st)
        if move is None or st.round - first >= rounds:
            break
        if turns is not None and st.turn - begun >= turns:
            yield f"stopped after {turns:,} turns (--max-turns): the rules set no limit to a round"
            return
        yield f"> {view.move(eng, st, move)}"
        before, active = st.round, st.active
        yield from view.events((writer.move(move) if writer is not None else eng.push(st, move))[1:], "  ")
        if st.round != before or (view.viewer is not None and st.active == view.viewer != active):
            yield from view.table(eng, st)  # after a deal; for a player, also when their turn begins
    else:
        # The rules bound no round's length: say that this play stopped, and why, rather than end quietly.
        yield f"stopped after {cap:,} moves: the rules set no limit to a round; --max-moves sets this one"


def stalled(eng: Engine, st: State) -> None:
    """Nobody may act: fine when a halt of the rules says the game is over; otherwise the rules stalled,
    which is an error (never counted as a finished match), shown with the table."""
    if eng.halt(st) is not None:
        return
    table = "\n".join(f"  {line}" for line in render_table(eng, st))
    raise EngineError(f"nobody can act, and no halt of the rules says the game is over (round {st.round}, "
                      f"phase {st.phase}):\n{table}")


def bench(eng: Engine, players: int, rounds: int, seed: int, cap: int = 5000, invariants: bool = False) -> PlayStats:
    """Seeded random play, timed; with `invariants`, judged after every move as well (the same moves)."""
    names = [f"p{i + 1}" for i in range(players)]
    rng = random.Random(seed)
    stats = PlayStats()
    judge = Judge(eng) if invariants else None
    start = time.perf_counter()
    game = 0
    while stats.rounds + stats.capped < rounds:
        st, _ = eng.new_match(names, seed + game, log=False)
        game += 1
        if judge is not None:
            judge.state(st, lambda: "after the deal")
        play_match(eng, st, rng, cap, stats, rounds, judge)
    stats.seconds = time.perf_counter() - start
    return stats


@dataclass
class Tally:
    """What seeded random play did: moves by name, and in how many rounds each watched variable took a value."""

    rounds: int = 0
    moves: Counter[str] = field(default_factory=Counter)
    seen: Counter[tuple[str, str]] = field(default_factory=Counter)


def tally(eng: Engine, players: int, rounds: int, seed: int, watch: list[str], policy: str = "random",
          cap: int = 5000) -> Tally:
    """Play like `bench` (same seeds, same moves) and count instead of timing."""
    names = [f"p{i + 1}" for i in range(players)]
    rng = random.Random(seed)
    out = Tally()
    game = 0
    while out.rounds < rounds:
        st, _ = eng.new_match(names, seed + game, log=False)
        game += 1
        _tally_match(eng, st, rng, cap, out, rounds, watch, policy)
    return out


def _tally_match(eng: Engine, st: State, rng: random.Random, cap: int, out: Tally, rounds: int,
                 watch: list[str], policy: str) -> None:
    current, in_round, values = st.round, 0, _values(st, watch)
    while out.rounds < rounds:
        move = POLICIES[policy](eng, st, rng)
        if move is None:
            stalled(eng, st)
        if move is None or in_round >= cap:  # the match is over, or the round is capped (D9)
            out.rounds += 1
            out.seen.update(values)
            return
        eng.push_generated(st, move)
        out.moves[move.name] += 1
        in_round += 1
        if st.round != current:
            out.rounds += 1
            out.seen.update(values)
            current, in_round, values = st.round, 0, set()
        values |= _values(st, watch)


def _values(st: State, watch: list[str]) -> set[tuple[str, str]]:
    return {(name, str(st.vars.get(name))) for name in watch if name in st.vars}
