"""How a long round goes on: the facts decision D9 asks for (can a round go on without end?).

A round is followed turn by turn: what moves each turn made (its pattern, the move names in order), and
the state at the start of each turn. From them: the repeating tail of the round (the shortest period of
patterns that its last turns repeat), its commonest patterns, and whether a state came back exactly, which
would make the round a cycle that nothing in the rules ends.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..engine.move import Move
from ..engine.state import State
from .explore import state_key

# How many of a round's commonest turn patterns a summary names.
COMMON = 3


@dataclass(frozen=True)
class RoundSummary:
    """One round, as D9's question sees it."""

    match: int
    round: int
    turns: int
    capped: bool  # it reached the turn cap: cut off, not ended
    period: int  # the shortest period of turn patterns its tail repeats (0: none repeats twice)
    periodic_turns: int  # how many of its last turns follow that period
    pattern: tuple[str, ...]  # one period of the tail
    common: tuple[tuple[str, int], ...]  # the commonest turn patterns and how many turns had each
    repeat: tuple[int, int] | None  # turns (from 1) at whose start the state was the same, the first found

    def to_json(self) -> dict[str, object]:
        return {"match": self.match, "round": self.round, "turns": self.turns, "capped": self.capped,
                "repeating_tail": {"period": self.period, "turns": self.periodic_turns, "pattern": list(self.pattern)},
                "common_turns": [{"moves": p, "turns": n} for p, n in self.common],
                "state_repeats": None if self.repeat is None else {"first": self.repeat[0], "again": self.repeat[1]}}


@dataclass
class RoundTrail:
    """A round under way: the pattern of each turn and the state keys at the turns' starts."""

    round: int
    first_turn: int
    patterns: list[list[str]] = field(default_factory=lambda: [[]])
    keys: dict[int, int] = field(default_factory=dict)
    repeat: tuple[int, int] | None = None

    @property
    def turns(self) -> int:
        return len(self.patterns)

    def note(self, before: State, move: Move, after: State, with_turn: bool) -> None:
        """A move of this round; a turn that begins with it starts a new pattern."""
        self.patterns[-1].append(move.name)
        if after.turn != before.turn and after.round == self.round:
            self.patterns.append([])
            key = state_key(after, with_turn, True)
            if key in self.keys and self.repeat is None:
                self.repeat = (self.keys[key] + 1, len(self.patterns))
            self.keys.setdefault(key, len(self.patterns) - 1)

    def summary(self, match: int, capped: bool) -> RoundSummary:
        """The round as played; a capped round was cut as its next turn began (that turn is not counted)."""
        played = self.patterns[:-1] if capped else self.patterns
        texts = [" ".join(p) for p in played if p] or [""]
        period, covered = periodic_tail(texts)
        common = tuple(Counter(texts).most_common(COMMON))
        return RoundSummary(match, self.round, len(played), capped, period, covered,
                            tuple(texts[len(texts) - period:]) if period else (), common, self.repeat)


def periodic_tail(items: list[str]) -> tuple[int, int]:
    """(period, length) of the longest tail of `items` that repeats one period at least twice, the shortest
    such period; (0, 0) when no tail does."""
    best = (0, 0)
    n = len(items)
    for period in range(1, n // 2 + 1):
        i = n - 1 - period
        while i >= 0 and items[i] == items[i + period]:
            i -= 1
        covered = n - 1 - i
        if covered >= 2 * period and covered > best[1]:
            best = (period, covered)
    return best


def longer(a: RoundSummary | None, b: RoundSummary) -> RoundSummary:
    """The longer of two rounds (the earlier match on a tie), so that merging is deterministic."""
    if a is None or (b.turns, -b.match, -b.round) > (a.turns, -a.match, -a.round):
        return b
    return a
