"""What a change does to play: `simulate`'s campaign under both versions, with the same seeds, side by side.

Match i of both campaigns is dealt from the same seed and its players draw from the same generator, so the
campaigns play alike until the rules part; identical rules give identical figures. Every figure comes with
its 95 % interval (intervals.py) and is marked when it moved: when the two versions' values differ by more
than chance explains, among all the figures compared (Holm).

The figures follow from the campaign and the rules' own `statistic` declarations, never from names of the
game: rounds per match, turns per round, matches the turn cap stopped; for every statistic, its counts
per match, its share of yes (a true/false outcome: BAO success), and for one dimension its share by value
(the winner's seat: the win rate by seat; the species of an ability used).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..language.errors import BaoError
from ..play.campaign import Spec, campaign_records, default_policy, engine_for, read_rules
from ..play.dealer import MatchRecord
from ..play.figures import word
from ..play.policies import BUILT_IN
from ..play.statistics import Statistics, Tally, Value
from .intervals import ALPHA, Estimate, holm, mean, mean_test, share_test, wilson
from .lockstep import NEW, OLD

MOST_VALUES = 8  # the values of a dimension shown, the most frequent first (a round value has dozens)
SEAT = "player"  # the kind of a dimension of players: a statistic records them by seat (the win rate by seat)


@dataclass(frozen=True)
class PlayOptions:
    players: int
    matches: int
    seed: int
    policy: str | None  # None: the first policy OLD declares (when NEW declares it too), else random
    max_turns: int
    workers: int


@dataclass
class Figure:
    name: str  # "rounds per match", "bao: yes", "winner: seat = 1", "ability per match"
    kind: str  # mean | share
    what: str  # in words (a statistic's own text)
    cite: str
    old: Estimate
    new: Estimate
    p: float = 1.0  # adjusted for every figure compared (Holm)
    moved: bool = False
    detail: bool = False  # a share by a value of a dimension other than a seat: shown to people when it moved


@dataclass
class Sample:
    """One campaign's matches, each reduced to the numbers the figures compare (records are dropped)."""

    matches: int = 0
    capped: int = 0
    moves: int = 0
    rounds_per_match: list[int] = field(default_factory=list)  # of the finished matches
    turns_per_round: list[int] = field(default_factory=list)  # of the rounds played to their end
    counts: dict[str, list[int]] = field(default_factory=dict)  # per statistic: its counts in each match
    tallies: dict[str, Tally] = field(default_factory=dict)  # per statistic: all its counts

    def add(self, record: MatchRecord, statistics: list[str]) -> None:
        self.matches += 1
        self.capped += record.capped
        self.moves += record.moves
        if record.finished:
            self.rounds_per_match.append(len(record.rounds))
        self.turns_per_round += record.rounds
        for name in statistics:
            tally = record.tallies.get(name, Counter())
            self.counts.setdefault(name, []).append(sum(tally.values()))
            self.tallies.setdefault(name, Counter()).update(tally)


@dataclass
class PlayReport:
    options: PlayOptions
    policy: str
    figures: list[Figure] = field(default_factory=list)
    seconds: float = 0.0
    moves: dict[str, int] = field(default_factory=dict)

    @property
    def moved(self) -> list[Figure]:
        return [f for f in self.figures if f.moved]


def choose_policy(requested: str | None, old: Spec, new: Spec) -> str:
    """The policy both campaigns play: the one asked for (both versions must know it), else OLD's first
    declared policy when NEW declares it too, else uniformly random play."""
    names = {side: set(engine_for(spec).rules.policies) | set(BUILT_IN) for side, spec in ((OLD, old), (NEW, new))}
    if requested is not None:
        missing = [side.upper() for side in (OLD, NEW) if requested not in names[side]]
        if missing:
            raise BaoError(f"--policy {requested}: {' and '.join(missing)} declare(s) no such policy")
        return requested
    first = default_policy(engine_for(old))
    return first if first in names[NEW] else "random"


def compare_play(old_dir: Path, new_dir: Path, options: PlayOptions,
                 advance: Callable[[int], None] = lambda n: None) -> tuple[PlayReport, dict[str, Sample]]:
    o = options
    specs = {side: Spec(read_rules(d), str(d), o.players, o.seed, "random", o.max_turns, False)
             for side, d in ((OLD, old_dir), (NEW, new_dir))}
    for spec in specs.values():
        engine_for(spec).check_player_count(o.players)
    policy = choose_policy(o.policy, specs[OLD], specs[NEW])
    began = time.perf_counter()
    samples = {side: _campaign(Spec(spec.rules, spec.source, o.players, o.seed, policy, o.max_turns, False), o,
                               advance) for side, spec in specs.items()}
    report = PlayReport(o, policy, seconds=time.perf_counter() - began,
                        moves={side: sample.moves for side, sample in samples.items()})
    report.figures = figures(specs[OLD], specs[NEW], samples)
    return report, samples


def _campaign(spec: Spec, o: PlayOptions, advance: Callable[[int], None]) -> Sample:
    """The campaign's matches (invariants not judged: the properties part does that), reduced to a sample."""
    statistics = list(engine_for(spec).rules.statistics)
    sample = Sample()
    for record in campaign_records(spec, o.matches, o.workers, None, advance):
        sample.add(record, statistics)
    return sample


def figures(old: Spec, new: Spec, samples: dict[str, Sample]) -> list[Figure]:
    out = list(_campaign_figures(samples[OLD], samples[NEW]))
    stats = {side: {d.ident: (d, kinds, outcome) for d, kinds, outcome in Statistics(engine_for(spec)).kinds()}
             for side, spec in ((OLD, old), (NEW, new))}
    for ident in dict.fromkeys([*stats[OLD], *stats[NEW]]):
        decl, kinds, outcome = stats[OLD].get(ident) or stats[NEW][ident]
        dims = [d.name for d in decl.by]
        out += _statistic_figures(ident, decl.text, str(decl.cite), dims, outcome,
                                  {side: samples[side] if ident in stats[side] else Sample() for side in (OLD, NEW)},
                                  kinds == (SEAT,))
    _judge(out)
    return out


def _campaign_figures(a: Sample, b: Sample) -> Iterator[Figure]:
    yield Figure("rounds per match", "mean", "rounds of a finished match", "",
                 _mean(a.rounds_per_match), _mean(b.rounds_per_match))
    yield Figure("turns per round", "mean", "turns of a round played to its end", "",
                 _mean(a.turns_per_round), _mean(b.turns_per_round))
    yield Figure("matches capped", "share", "matches a round of which reached the turn cap", "",
                 wilson(a.capped, a.matches), wilson(b.capped, b.matches))


def _mean(values: list[int]) -> Estimate:
    return mean([float(v) for v in values])


def _statistic_figures(ident: str, text: str, cite: str, dims: list[str], outcome: str | None,
                       samples: dict[str, Sample], by_seat: bool) -> Iterator[Figure]:
    counts = {side: samples[side].counts.get(ident, []) for side in (OLD, NEW)}
    yield Figure(f"{ident} per match", "mean", text, cite, _mean(counts[OLD]), _mean(counts[NEW]))
    merged = {side: samples[side].tallies.get(ident, Counter()) for side in (OLD, NEW)}
    totals = {side: sum(merged[side].values()) for side in (OLD, NEW)}
    if outcome == "bool":
        yes = {side: sum(n for (_, result), n in merged[side].items() if result is True) for side in (OLD, NEW)}
        yield Figure(f"{ident}: yes", "share", text, cite, wilson(yes[OLD], totals[OLD]), wilson(yes[NEW], totals[NEW]))
    if len(dims) == 1:
        by_value = {side: _by_value(merged[side]) for side in (OLD, NEW)}
        both = by_value[OLD] + by_value[NEW]
        for value, _ in both.most_common(MOST_VALUES):
            shown = word(value) if word(value).startswith(dims[0]) else f"{dims[0]} = {word(value)}"
            yield Figure(f"{ident}: {shown}", "share", text, cite,
                         wilson(by_value[OLD][value], totals[OLD]), wilson(by_value[NEW][value], totals[NEW]),
                         detail=not by_seat)


def _by_value(tally: Tally) -> Counter[Value]:
    out: Counter[Value] = Counter()
    for (key, _), n in tally.items():
        out[key[0]] += n
    return out


def _judge(out: list[Figure]) -> None:
    """Each figure's p-value, adjusted over all those with a sample on both sides, and whether it moved."""
    tested = [f for f in out if f.old.n and f.new.n]
    raw = [share_test(f.old, f.new) if f.kind == "share" else mean_test(f.old, f.new) for f in tested]
    for f, p in zip(tested, holm(raw), strict=True):
        f.p, f.moved = p, p < ALPHA
