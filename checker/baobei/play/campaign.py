"""Many seeded matches, in this process, over worker processes or on a Dask cluster, with one result.

Match i of a campaign with seed S is dealt from a seed made of (S, i) alone and its policies draw from a
generator seeded the same way, so a match plays the same wherever and in whatever order it runs; the
records are put back in match order. The same campaign therefore gives the same figures, byte for byte,
with one worker, with many, or on a cluster.

A job carries the rules as text (each file's path and contents), not as a directory, so that a worker of
a cluster needs no copy of the rules; each process compiles them once.
"""

from __future__ import annotations

import functools
import hashlib
import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..engine.engine import Engine
from ..language.errors import BaoError, RulesError, ignore_interrupts, read_source
from ..language.load import build_ruleset
from ..language.parser import parse_rules_dir, parse_rules_text
from .dealer import Dealer, MatchRecord
from .policies import make_policy
from .statistics import Statistics
from .view import ViewMaker


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


def play_matches(spec: Spec, indices: list[int]) -> list[MatchRecord]:
    """The job a worker runs: these matches of the campaign."""
    dealer = dealer_for(spec)
    return [dealer.play(i, match_seed(spec.seed, i), spec.players) for i in indices]


def chunks(matches: int, workers: int) -> list[list[int]]:
    """Match indices in jobs small enough to keep every worker busy to the end, big enough to be cheap."""
    size = max(1, min(25, matches // (workers * 8) if workers > 1 else 25))
    return [list(range(start, min(start + size, matches))) for start in range(0, matches, size)]


def run_campaign(spec: Spec, matches: int, workers: int = 1, dask: str | None = None,
                 advance: Callable[[int], None] = lambda n: None) -> list[MatchRecord]:
    """Every match's record, in match order."""
    jobs = chunks(matches, workers)
    if dask is not None:
        results: Iterable[list[MatchRecord]] = _on_dask(spec, jobs, dask)
    elif workers == 1:
        results = (play_matches(spec, job) for job in jobs)
    else:
        results = _on_processes(spec, jobs, workers)
    out: list[MatchRecord] = []
    for records in results:
        out += records
        advance(len(records))
    return out


def _on_processes(spec: Spec, jobs: list[list[int]], workers: int) -> Iterator[list[MatchRecord]]:
    # Ctrl-C reaches the parent alone (the workers ignore it), and leaving the pool terminates them at once:
    # the command stops within a second instead of finishing the matches under way.
    with multiprocessing.Pool(workers, initializer=ignore_interrupts) as pool:
        yield from pool.imap(functools.partial(play_matches, spec), jobs)



def _on_dask(spec: Spec, jobs: list[list[int]], address: str) -> Iterator[list[MatchRecord]]:
    try:
        from distributed import Client
    except ImportError:
        raise BaoError("--dask needs the dask extra: pip install 'baobei[dask]'") from None
    try:
        client = Client(address, timeout="10s")  # type: ignore[no-untyped-call]
    except (OSError, TimeoutError, ValueError) as err:
        raise BaoError(f"--dask {address}: no Dask scheduler answers there ({err})") from None
    with client:
        futures = client.map(play_matches, [spec] * len(jobs), jobs, pure=False)
        for future in futures:  # in job order, whatever order they finish in
            yield future.result()


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def check_simulation_rules(eng: Engine) -> None:
    """Compile the rules' statistics and policies as `simulate` would (a name they do not know is a BaoError
    with its place): `baobei rules` reports them before any match is played."""
    Statistics(eng)
    views = ViewMaker(eng)
    for name in eng.rules.policies:
        make_policy(name, views.engine)
