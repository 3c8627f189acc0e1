"""A policy per seat: bots of several kinds at one table, and how one policy fares against others.

`simulate` gives every player the same policy. Here each seat has its own: the dealer of a simulated
match (play/dealer.py) asks a `SeatPolicies`, which hands each view to the policy of the view's seat, so
a match is played, judged and counted exactly as `simulate` plays it. `baobei play --human` uses the same
policies for its bots (play/human.py). `measure` plays seeded matches of one policy against another, the
measured policy's seat turning with the match, and counts its wins; who won is read from the final
state by a rules-language expression (the rules name their winner: see `tools/seat_match.py`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.state import State
from ..language.errors import BaoError
from .campaign import match_seed
from .dealer import Dealer, Match, MatchRecord
from .policies import Policy, make_policy, policy_names
from .view import PlayerView


class SeatPolicies:
    """A policy for each seat; it answers for the seat whose view it is given."""

    def __init__(self, policies: Sequence[Policy]) -> None:
        self.policies = list(policies)

    def choose(self, view: PlayerView, rng: random.Random) -> Move | None:
        return self.policies[view.seat].choose(view, rng)


def policies_for(names: Sequence[str], dealer: Dealer) -> SeatPolicies:
    """The named policies, one per seat, for players viewing through the dealer's view engine."""
    return SeatPolicies([make_policy(name, dealer.views.engine) for name in names])


def split_policies(text: str, seats: int, engine: Engine) -> list[str]:
    """A policy for each of `seats` seats from `POLICY` (every seat) or `NAME,NAME,...` (one per seat, in order);
    an unknown name or a wrong count is a BaoError naming what there is."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise BaoError("no policy named; there are: " + ", ".join(policy_names(engine)))
    if len(names) == 1:
        names = names * seats
    if len(names) != seats:
        raise BaoError(f"{len(names)} policies named for {seats} seats: name one for every seat, or one for all")
    for name in names:
        if name not in policy_names(engine):
            raise BaoError(f"no such policy {name!r}; there are: {', '.join(policy_names(engine))}")
    return names


def seated_dealer(eng: Engine, names: Sequence[str], invariants: bool = True, max_turns: int = 1000) -> Dealer:
    """A dealer whose players choose by the named policies, seat by seat."""
    dealer = Dealer(eng, "random", invariants, max_turns)
    dealer.policy = policies_for(names, dealer)
    return dealer


def play_seated(dealer: Dealer, index: int, seed: int, players: int) -> tuple[MatchRecord, State]:
    """One seeded match of the dealer's seated policies: its record and the state it ended in."""
    record = MatchRecord(index, seed)
    st, _ = dealer.eng.new_match([f"p{i + 1}" for i in range(players)], seed, log=False)
    match = Match(dealer, record, st, random.Random(f"policies/{seed}"))
    match.run()
    return record, match.st


@dataclass
class Measure:
    """How often the measured policy won: `wins` of `finished` matches (capped or failed ones not counted)."""

    policy: str
    against: str
    players: int
    matches: int = 0
    finished: int = 0
    wins: int = 0
    by_seat: list[int] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.wins / self.finished if self.finished else 0.0

    def interval(self) -> tuple[float, float]:
        """The 95 % Wilson interval of the win rate."""
        n, z = self.finished, 1.96
        if not n:
            return 0.0, 1.0
        p = self.rate
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def line(self) -> str:
        low, high = self.interval()
        fair = 1 / self.players
        return (f"{self.policy} against {self.players - 1} x {self.against}, {self.players} players: won "
                f"{self.wins} of {self.finished} finished matches ({self.rate:.1%}, 95 % interval {low:.1%} to "
                f"{high:.1%}; an equal player wins {fair:.1%}); {self.matches - self.finished} not finished")


def measure(eng: Engine, policy: str, against: str, players: int, matches: int, seed: int,
            winner: Callable[[State], int | None], max_turns: int = 1000,
            advance: Callable[[int], None] | None = None) -> Measure:
    """Seeded matches of one `policy` player against `players - 1` players of `against`; in match i the
    measured player sits at seat i mod players. `winner` reads the winning seat from a finished state."""
    out = Measure(policy, against, players, by_seat=[0] * players)
    dealers = {}
    for i in range(matches):
        seat = i % players
        if seat not in dealers:
            names = [policy if s == seat else against for s in range(players)]
            dealers[seat] = seated_dealer(eng, names, invariants=False, max_turns=max_turns)
        record, st = play_seated(dealers[seat], i, match_seed(seed, i), players)
        out.matches += 1
        if record.finished and not record.findings:
            out.finished += 1
            if winner(st) == seat:
                out.wins += 1
                out.by_seat[seat] += 1
        if advance is not None:
            advance(1)
    return out
