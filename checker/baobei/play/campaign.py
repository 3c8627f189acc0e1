"""Many seeded matches, in this process, over worker processes or on a Dask cluster, with one result.

Match i of a campaign with seed S is dealt from a seed made of (S, i) alone and its policies draw from a
generator seeded the same way, so a match plays the same wherever and in whatever order it runs; the
records are put back in match order. The same campaign therefore gives the same figures, byte for byte,
with one worker, with many, or on a cluster.

A campaign streams: its jobs are made as they are sent, a few per worker are under way at a time, and
each record is folded into the totals as it arrives and then dropped. Its memory does not grow with the
number of matches (`--matches 1000000000` runs for years, not out of memory).

A job carries the rules as text (each file's path and contents), not as a directory, so that a worker of
a cluster needs no copy of the rules; each process compiles them once.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections import Counter, deque
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from multiprocessing.pool import AsyncResult
from pathlib import Path
from typing import Any, TypeVar

from ..engine.engine import Engine
from ..language.errors import BaoError, RulesError, ignore_interrupts, read_source
from ..language.load import build_ruleset
from ..language.parser import parse_rules_dir, parse_rules_text
from .dealer import Dealer, Finding, MatchRecord
from .loops import RoundSummary
from .policies import make_policy
from .statistics import Statistics, Tally
from .view import ViewMaker

# How many of the longest rounds the figures describe (D9): kept as the matches arrive, the others dropped.
LONGEST = 5

@dataclass(frozen=True)
class Spec:
    """Everything a match depends on."""

    rules: tuple[tuple[str, str], ...]  # (path, text) of every rules file, in name order
    source: str  # the rules directory, for messages
    players: int
    seed: int
    policy: str = "random"
    max_turns: int = 1000
    invariants: bool = True


def read_rules(directory: Path) -> tuple[tuple[str, str], ...]:
    """The rules files of a directory as (path, text), in name order; refused as `load_ruleset` refuses."""
    parse_rules_dir(directory)  # the directory's own checks: it exists, holds .bao files that parse
    return tuple((str(f), read_source(f, RulesError)) for f in sorted(directory.glob("*.bao")))


def match_seed(seed: int, index: int) -> int:
    """The deal's seed of match `index` (a 48-bit number: a scenario's `deal seed` line can state it)."""
    digest = hashlib.sha256(f"baobei simulate {seed} {index}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


_ENGINES: dict[tuple[tuple[str, str], ...], Engine] = {}
_DEALERS: dict[tuple[Any, ...], Dealer] = {}


def engine_for(spec: Spec) -> Engine:
    """The rules of a spec, compiled once per process."""
    if spec.rules not in _ENGINES:
        files = [parse_rules_text(text, path) for path, text in spec.rules]
        _ENGINES[spec.rules] = Engine(build_ruleset(files, spec.source))
    return _ENGINES[spec.rules]


def dealer_for(spec: Spec) -> Dealer:
    """One dealer per process and rules, policy and judging (compiling the rules takes a tenth of a second)."""
    key = (spec.rules, spec.policy, spec.invariants, spec.max_turns)
    if key not in _DEALERS:
        _DEALERS[key] = Dealer(engine_for(spec), spec.policy, spec.invariants, spec.max_turns)
    return _DEALERS[key]


def default_policy(eng: Engine) -> str:
    """The policy a campaign uses unless told: the first the rules declare, else uniformly random play."""
    return next(iter(eng.rules.policies), "random")


def play_matches(spec: Spec, indices: Sequence[int]) -> list[MatchRecord]:
    """The job a worker runs: these matches of the campaign."""
    dealer = dealer_for(spec)
    return [dealer.play(i, match_seed(spec.seed, i), spec.players) for i in indices]


def job_size(matches: int, workers: int) -> int:
    """Matches per job: small enough to keep every worker busy to the end, big enough to be cheap."""
    return max(1, min(25, matches // (workers * 8) if workers > 1 else 25))


def jobs(matches: int, workers: int) -> Iterator[range]:
    """The campaign's jobs, made one at a time as they are sent: a range of match indices each, so that
    a campaign of a billion matches costs no more memory than one of a hundred."""
    size = job_size(matches, workers)
    return (range(start, min(start + size, matches)) for start in range(0, matches, size))


@dataclass
class Totals:
    """What the figures need of a campaign's matches, folded in as each record arrives: counts, histograms,
    the few longest rounds and each property's first finding; never a record per match, so that the
    memory a campaign needs does not grow with its matches. Every part is a sum or a choice by a total
    order (the earliest match, the longest round), so the totals do not depend on the order of arrival."""

    keep: int  # how many of the longest rounds to keep (the figures' LONGEST)
    matches: int = 0
    finished: int = 0
    capped: int = 0
    failed: int = 0  # matches stopped by a failure of the rules
    moves: int = 0
    refused: int = 0
    capped_cycles: int = 0  # capped matches whose longest round came back to a state (D9)
    rounds_per_match: Counter[int] = field(default_factory=Counter)  # of the finished matches
    turns_per_round: Counter[int] = field(default_factory=Counter)  # of the rounds played to their end
    tallies: dict[str, Tally] = field(default_factory=dict)
    longest: list[RoundSummary] = field(default_factory=list)  # the `keep` longest rounds, longest first
    # Each property's finding of the earliest match, with (match, place in its record) to compare by: as
    # many findings as the rules have properties, whatever the number of matches.
    first: dict[str, tuple[tuple[int, int], Finding]] = field(default_factory=dict)
    found: Counter[str] = field(default_factory=Counter)  # matches whose first finding is of each property

    def add(self, record: MatchRecord) -> None:
        self._count(record)
        for name, tally in record.tallies.items():
            self.tallies.setdefault(name, Counter()).update(tally)
        if record.longest is not None:
            self._keep_longest(record.longest)
        for place, finding in enumerate(record.findings):
            self._keep_finding((record.index, place), finding)
        self.found.update(f.label for f in record.findings[:1])

    def _count(self, r: MatchRecord) -> None:
        self.matches += 1
        self.finished += r.finished
        self.capped += r.capped
        self.failed += bool(r.findings)
        self.moves += r.moves
        self.refused += r.refused
        self.capped_cycles += r.capped and r.longest is not None and r.longest.repeat is not None
        if r.finished:
            self.rounds_per_match[len(r.rounds)] += 1
        self.turns_per_round.update(r.rounds)

    def _keep_longest(self, summary: RoundSummary) -> None:
        """Keep the round if it is among the `keep` longest so far (ties: the earlier match, as `longer`)."""
        self.longest.append(summary)
        self.longest.sort(key=lambda r: (r.turns, -r.match, -r.round), reverse=True)
        del self.longest[self.keep:]

    def _keep_finding(self, where: tuple[int, int], finding: Finding) -> None:
        kept = self.first.get(finding.label)
        if kept is None or where < kept[0]:
            self.first[finding.label] = (where, finding)

    def first_findings(self) -> list[Finding]:
        """The first finding of each property, in match order."""
        return [finding for _, finding in sorted(self.first.values(), key=lambda kept: kept[0])]


def run_campaign(spec: Spec, matches: int, workers: int = 1, dask: str | None = None,
                 advance: Callable[[int], None] = lambda n: None) -> Totals:
    """The totals of every match, each record folded in as it arrives and then dropped."""
    totals = Totals(keep=LONGEST)
    for record in campaign_records(spec, matches, workers, dask, advance):
        totals.add(record)
    return totals


def workers_used(workers: int, matches: int) -> int:
    """The processes a campaign runs on: at most one per match and four per core."""
    return max(1, min(workers, matches, 4 * default_workers()))


def campaign_records(spec: Spec, matches: int, workers: int = 1, dask: str | None = None,
                     advance: Callable[[int], None] = lambda n: None) -> Generator[MatchRecord]:
    """Every match's record, in match order, played as they are asked for: at most a few jobs per worker
    are under way or waiting to be read at any time. Closing it early stops the workers."""
    # More processes than matches have nothing to play, and far more than cores only compete for them: a
    # mistyped --workers must not fork thousands of processes.
    workers = workers_used(workers, matches)
    # closing: the pool or the cluster's client is let go as soon as this is, not when it is collected.
    with closing(_job_results(spec, jobs(matches, workers), workers, dask)) as results:
        for records in results:
            advance(len(records))
            yield from records


def _job_results(spec: Spec, todo: Iterator[range], workers: int, dask: str | None) -> Generator[list[MatchRecord]]:
    """The records of each job, in job order: on the cluster, over worker processes or in this process."""
    if dask is not None:
        return _on_dask(spec, todo, dask)
    if workers > 1:
        return _on_processes(spec, todo, workers)
    return (play_matches(spec, job) for job in todo)


# Jobs under way at once, per worker: enough that no worker waits for the parent to read a result, few
# enough that the records not yet folded in stay a handful however many matches the campaign has.
IN_FLIGHT = 4

Job = TypeVar("Job")


def in_order(submit: Callable[[range], Job], result: Callable[[Job], list[MatchRecord]], todo: Iterator[range],
             window: int) -> Iterator[list[MatchRecord]]:
    """The results of the jobs, in job order, with at most `window` jobs submitted and not yet read. (A pool's
    `imap` takes jobs as fast as the pipe to its workers does and holds any number of results not read.)"""
    pending: deque[Job] = deque()
    for job in todo:
        pending.append(submit(job))
        if len(pending) >= window:
            yield result(pending.popleft())
    while pending:
        yield result(pending.popleft())


def _on_processes(spec: Spec, todo: Iterator[range], workers: int) -> Generator[list[MatchRecord]]:
    # Ctrl-C reaches the parent alone (the workers ignore it), and leaving the pool terminates them at once:
    # the command stops within a second instead of finishing the matches under way. Waiting for a result
    # (AsyncResult.get) is interrupted by Ctrl-C as imap's waiting was.
    with multiprocessing.Pool(workers, initializer=ignore_interrupts) as pool:
        def submit(job: range) -> AsyncResult[list[MatchRecord]]:
            return pool.apply_async(play_matches, (spec, job))

        yield from in_order(submit, lambda pending: pending.get(), todo, workers * IN_FLIGHT)


def _on_dask(spec: Spec, todo: Iterator[range], address: str) -> Generator[list[MatchRecord]]:
    try:
        from distributed import Client
    except ImportError:
        raise BaoError("--dask needs the dask extra: pip install 'baobei[dask]'") from None
    try:
        client = Client(address, timeout="10s")  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as err:
        raise BaoError(f"--dask {address}: no Dask scheduler answers there ({err})") from None
    with client:
        threads = max(1, sum(client.nthreads().values()))  # type: ignore[no-untyped-call]

        def submit(job: range) -> Any:
            return client.submit(play_matches, spec, job, pure=False)

        # Submitted in a bounded window and read in job order, whatever order they finish in.
        yield from in_order(submit, lambda future: future.result(), todo, threads * IN_FLIGHT)


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def check_simulation_rules(eng: Engine) -> None:
    """Compile the rules' statistics and policies as `simulate` would (a name they do not know is a BaoError
    with its place): `baobei rules` reports them before any match is played."""
    Statistics(eng)
    views = ViewMaker(eng)
    for name in eng.rules.policies:
        make_policy(name, views.engine)
