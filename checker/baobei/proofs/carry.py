"""Carrying induction's record over an edit of the code or of the rules: what changed is proved again.

The record's key (certificate.py) changes with any byte of the rules or of the code induction runs: a
renamed variable in the engine makes the record stale, and certifying again takes hours per player count.
What induction proved does not depend on the code, though, but on the questions it asked Z3: each count's
record carries a seal (seal.py), a digest per query it rests on (the deal, each move), with digests of the
rules and grammar and of the code that says what a seal is (`ASKERS`). `verify --carry` builds every query
again with the current code. A query whose digest is the seal's is the question already answered. A query
that differs, from an edited move or an edited rule, is asked again (`reprove`: every claim at once, then
each alone with more time, as Houdini asks). When Z3 proves every one, for every count the record holds,
the record moves to the current key with the new seals, and says from which. Otherwise it stays stale, and
the run names the claim and move that failed.

Facts about every state are proved again by the current code, not carried; their terms are part of every
move's query. A dropped claim's reason (its counterexample's move, as the engine names it) is carried as
it was written.
"""

from __future__ import annotations

import hashlib
import multiprocessing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import z3  # type: ignore[import-untyped]

from ..language.errors import BaoError, ignore_interrupts
from ..language.ruleset import Ruleset
from ..language.words import plural
from ..play.explore import NAMES  # the names verify gives induction
from . import certificate
from . import terms as T
from .additions import state_claims, trying, untried, without
from .certificate import (
    SEAL,
    add_seals,
    carry_to,
    certificate_path,
    counts_text,
    key,
    recorded,
    rules_digest,
)
from .induction import CHECK_MS, FALSE, RETRY_MS
from .seal import DEAL, INVARIANT, MOVE, Built, build
from .translate import Z

# The code that says what a seal is: compared as source, byte for byte. A seal made by other code is no
# digest this code can compare (a current record's is made again; a stale record is not carried).
ASKERS = ("proofs/seal.py",)


@dataclass(frozen=True)
class Unproved:
    """A claim a query asked again did not prove: where (the deal, or a move's name) and why."""

    claim: str
    where: str
    why: str

    @property
    def place(self) -> str:
        return "the deal" if self.where == DEAL else self.where

    def line(self) -> str:
        return f"{self.claim} after {self.place} ({self.why})"

    def reason(self) -> str:
        """Why a property tried with the record's claims was not proved, as the record words a dropped claim."""
        if self.why.startswith("Z3"):
            return f"not proved after {self.place} with the record's claims ({self.why}; tried by `verify --carry`)"
        return f"not kept by {self.place} from a state satisfying the record's claims (tried by `verify --carry`)"


def reprove(built: Built, parts: Iterable[str], deadline: Callable[[], None] = lambda: None,
            asking: Callable[[str], None] = lambda part: None, tentative: frozenset[str] = frozenset(),
            only: frozenset[str] | None = None) -> list[Unproved]:
    """Ask Z3 the queries of these parts again: what each failed to prove. As induction asks them: without the
    facts about every state first (they make Z3's queries larger, and a claim proved without them must not be
    lost to Z3's time), then with them for what is left. `asking` hears of each part as it is asked.

    A `tentative` claim is one the caller drops when a query does not prove it (a property the record never
    tried): once one part fails it, the later parts do not ask it (a goal Z3 gives up on costs minutes per
    move); once a tentative claim the moves assume fails, nothing more is asked (every move is asked again
    without it). With `only`, the other goals are not asked: each was proved by a sealed query that this one
    extends with hypotheses (a goal implied by fewer hypotheses is implied by more)."""
    wanted = set(parts)
    rel = built.rel
    assert rel is not None
    failed: list[Unproved] = []
    if DEAL in wanted:
        goals = {name: goal for name, goal in built.deal.items() if only is None or name in only}
        failed += [Unproved(name, DEAL, why) for name, why in _unproved(list(rel.side), goals, deadline).items()]
    for move in built.moves:
        given_up = {f.claim for f in failed} & tentative
        if given_up & state_claims(built):
            break
        if MOVE + move.step.cm.name not in wanted:
            continue
        asking(MOVE + move.step.cm.name)
        alone = [*rel.side, move.step.allowed, T.not_(rel.pre[("err",)]), *built.before.values()]
        with_facts = [*alone, *built.facts, *move.step.facts]
        for all_goals in (move.claims, move.transitions):
            goals = {name: goal for name, goal in all_goals.items()
                     if name not in given_up and (only is None or name in only)}
            left = _unproved(alone, goals, deadline)
            if left and built.facts:
                left = _unproved(with_facts, {name: goals[name] for name in left}, deadline)
            failed += [Unproved(name, move.step.cm.name, why) for name, why in left.items()]
    return failed


def _unproved(hypotheses: list[Z], goals: dict[str, Z], deadline: Callable[[], None]) -> dict[str, str]:
    """The goals these hypotheses do not imply, or not within Z3's time (name -> why), asked as Houdini asks:
    all at once; a model names the goals it breaks, and the rest are asked again; those Z3 gives up on, each
    alone with a solver of its own, given up once and asked again with more time."""
    pending: dict[str, Z] = dict(goals)
    failed: dict[str, str] = {}
    solver = z3.Solver()
    solver.set("timeout", CHECK_MS)
    solver.add(*hypotheses)
    while pending:
        deadline()
        answer = T.check(solver, T.or_(FALSE, *[T.not_(goal) for goal in pending.values()]))
        if answer == z3.unsat:
            return failed
        broken = []
        if answer == z3.sat:
            model = solver.model()
            broken = [name for name, goal in pending.items() if not z3.is_true(model.eval(goal, model_completion=True))]
        if not broken:
            break
        for name in broken:
            failed[name] = "a state breaks it"
            del pending[name]
    for name, goal in pending.items():
        for ms in (CHECK_MS, RETRY_MS):
            deadline()
            alone = z3.Solver()
            alone.set("timeout", ms)
            alone.add(*hypotheses)
            answer = T.check(alone, T.not_(goal))
            if answer != z3.unknown:
                break
        if answer != z3.unsat:
            failed[name] = "a state breaks it" if answer == z3.sat else f"Z3 gave no answer in {RETRY_MS // 1000} s"
    return failed


def askers_digest() -> str:
    digest = hashlib.sha256()
    for name in ASKERS:
        digest.update(b"\0" + name.encode() + b"\0" + (certificate.PACKAGE / name).read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True)
class Now:
    """What the seals compare, taken when a run begins: an edit during the run must not pass for what was
    compared (as `verify --certify` takes the key)."""

    key: str
    rules: str
    askers: str

    @staticmethod
    def of(rules_dir: Path) -> Now:
        return Now(key(rules_dir), rules_digest(rules_dir), askers_digest())

    def sealed(self, entry: dict[str, Any]) -> bool:
        """Whether a count's entry has a seal this code can compare (made with these askers, for these rules)."""
        seal = entry.get(SEAL)
        return seal is not None and "parts" in seal and seal["rules"] == self.rules and seal["askers"] == self.askers

    def seal(self, rules: Ruleset, players: int, entry: dict[str, Any]) -> dict[str, Any]:
        """A count's seal: the digests of the rules, of the askers and of every query its entry rests on."""
        return self.seal_of(build(rules, players, list(NAMES[:players]), entry).parts)

    def seal_of(self, parts: dict[str, str]) -> dict[str, Any]:
        return {"rules": self.rules, "askers": self.askers, "parts": dict(sorted(parts.items()))}


def carry_record(rules: Ruleset, rules_dir: Path, selected: list[int] | None, tell: Callable[[str], None],
                 workers: int = 1) -> bool:
    """`verify --carry`: seal a current record's counts (those in `selected`, every one when None) that have
    no seal yet (or one made by other askers), or carry a stale one to the current key, every count's
    changed queries proved again (the counts in `workers` processes). True when the record is current at
    the end."""
    now = Now.of(rules_dir)
    found = recorded(rules_dir)
    if found is None:
        raise BaoError(f"no record {certificate_path(rules_dir)} this code can read: `baobei verify --certify` "
                       "makes one")
    old, entries, _ = found
    if old == now.key:
        todo = [n for n in sorted(entries) if not now.sealed(entries[n]) and (selected is None or n in selected)]
        for n, _, seal in _each_count(lambda n: _sealed(rules, n, entries[n], now, tell), todo, workers):
            add_seals(rules_dir, {n: seal}, now.key)
        sealed = sum(now.sealed(entry) for entry in entries.values()) + len(todo)
        tell(f"carry     the record is current; sealed {plural(len(todo), 'player count')} now, "
             f"{sealed} of {len(entries)} sealed")
        _extend_current(rules, rules_dir, now, selected, tell, workers)
        return True
    why = _why_not(entries, now)
    updates: dict[int, dict[str, Any]] = {}
    if not why:
        why, updates = _carried_all(rules, entries, now, tell, workers)
    if why:
        tell(f"carry     not carried: {why}; `baobei verify --certify` makes the record again")
        return False
    carry_to(rules_dir, old, now.key, updates)
    asked = sum(len(update[SEAL]["reproved"]) for update in updates.values())
    tell(f"carry     carried the record for {counts_text(sorted(entries))} to the current code and rules: "
         f"{queries(asked)} that changed proved again, every other one the same as it was proved"
         + (f"; the properties it never tried: {tried}" if (tried := _tried(entries, updates)) else ""))
    return True


def _extend_current(rules: Ruleset, rules_dir: Path, now: Now, selected: list[int] | None,
                    tell: Callable[[str], None], workers: int) -> None:
    """A current record's sealed counts (those in `selected`) whose entry never tried some of the rules'
    properties: each tried with the entry's claims (additions.py), the record kept under its key."""
    found = recorded(rules_dir)
    assert found is not None
    entries = found[1]
    todo = [n for n in sorted(entries) if (selected is None or n in selected) and now.sealed(entries[n])
            and untried(rules, n, entries[n]).any()]
    if not todo:
        return
    updates: dict[int, dict[str, Any]] = {}
    for n, why, update in _each_count(lambda n: _carried(rules, n, entries[n], now, tell, current=True), todo,
                                      workers):
        if why:
            tell(f"carry     the properties the record never tried were not added: {why}")
            return
        updates[n] = update
    carry_to(rules_dir, now.key, now.key, updates)
    tell(f"carry     tried the properties the record never tried, for {counts_text(todo)}: {_tried(entries, updates)}")


def _tried(entries: dict[int, dict[str, Any]], updates: dict[int, dict[str, Any]]) -> str:
    """"2 players 2 proved, 1 not; ...": what trying the untried properties did to each count's entry ("" when
    no update tried any)."""
    out = []
    for n, update in sorted(updates.items()):
        if "inductive" in update:
            proved = len(set(update["inductive"]) - set(entries[n]["inductive"]))
            out.append(f"{n} players {proved} proved, {len(set(update['dropped']) - set(entries[n]['dropped']))} not")
    return "; ".join(out)


_JOB: Callable[[int], tuple[str, dict[str, Any]]] | None = None  # what a forked worker runs for a count


def _each_count(job: Callable[[int], tuple[str, dict[str, Any]]], counts: list[int], workers: int
                ) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """`job` for every count, as (count, why not, what it made): the counts depend on nothing of each other,
    so with `workers` > 1 they run in forked processes, in the order they finish. A caller that stops early
    (the first count refused) stops the others."""
    global _JOB
    if workers < 2 or len(counts) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        for n in counts:
            yield (n, *job(n))
        return
    _JOB = job
    try:
        with multiprocessing.get_context("fork").Pool(min(workers, len(counts)), initializer=ignore_interrupts) as pool:
            yield from pool.imap_unordered(_run_job, counts)
    finally:
        _JOB = None


def _run_job(n: int) -> tuple[int, str, dict[str, Any]]:
    assert _JOB is not None
    return (n, *_JOB(n))


def _carried_all(rules: Ruleset, entries: dict[int, dict[str, Any]], now: Now, tell: Callable[[str], None],
                 workers: int) -> tuple[str, dict[int, dict[str, Any]]]:
    """`_carried` for every count: why the record cannot be carried ("" when it can, with each count's update)."""
    updates: dict[int, dict[str, Any]] = {}
    for n, why, update in _each_count(lambda n: _carried(rules, n, entries[n], now, tell), sorted(entries), workers):
        if why:
            return why, {}
        updates[n] = update
    return "", updates


def _sealed(rules: Ruleset, n: int, entry: dict[str, Any], now: Now, tell: Callable[[str], None]
            ) -> tuple[str, dict[str, Any]]:
    tell(f"  ... sealing {n} players: building every query induction's record rests on")
    return "", now.seal(rules, n, entry)


def _carried(rules: Ruleset, n: int, entry: dict[str, Any], now: Now, tell: Callable[[str], None],
             current: bool = False) -> tuple[str, dict[str, Any]]:
    """Why a count's entry cannot be carried ("" when it can), and its update: the new seal, the facts, and
    the properties the entry never tried, each proved with its claims or dropped (additions.py)."""
    tell(f"  ... {n} players: building every query induction's record rests on")
    new = untried(rules, n, entry)
    if new.any():
        tell(f"  ... {n} players: trying {properties(len(new.labels))} the record never "
             f"tried, with its claims: " + ", ".join(label.removeprefix(INVARIANT) for label in new.labels))
    built = build(rules, n, list(NAMES[:n]), trying(entry, new.labels))
    old = entry[SEAL]["parts"]
    ask = [part for part, digest in built.parts.items() if old.get(part) != digest]
    adding, dropped, asked = set(new.labels), dict(new.left_out), set(ask)
    while ask:
        tell(f"  ... {n} players: asking Z3 again {queries(len(ask))} of {len(built.parts)}, changed: "
             + ", ".join(ask))
        trying_now = frozenset(label.removeprefix(INVARIANT) for label in adding)
        # On a current record each query is its sealed one with the new claims added (as hypotheses before
        # a move, as goals): the record's goals stay proved, only the new ones are asked.
        failed = reprove(built, ask, asking=_counted(n, len(ask), tell), tentative=trying_now,
                         only=trying_now if current else None)
        lost = {f.claim: f for f in failed if INVARIANT + f.claim in adding}
        kept = [f for f in failed if INVARIANT + f.claim not in adding]
        if kept:
            assumed = {label.removeprefix(INVARIANT) for label in adding} & state_claims(built)
            if not assumed:
                return f"with {n} players, {kept[0].line()}" + (f" and {len(kept) - 1} more" if len(kept) > 1
                                                                  else ""), {}
            # The record's claims were proved assuming less: the new ones made the queries too hard for Z3.
            lost.update({name: Unproved(name, kept[0].where, "Z3 lost a claim of the record when it was "
                                                               "assumed") for name in assumed})
        for name, why in lost.items():
            dropped[INVARIANT + name] = why.reason()
        adding -= {INVARIANT + name for name in lost}
        again = set(without(built, set(lost)) if lost else [])
        again |= {DEAL if f.where == DEAL else MOVE + f.where for f in kept}  # asked again, to fail or pass alone
        ask = [part for part in sorted(again) if old.get(part) != built.parts[part]]  # else proved as sealed
        asked |= set(ask)
    update: dict[str, Any] = {SEAL: {**now.seal_of(built.parts), "reproved": sorted(asked)},
                              "facts": sorted(built.facts_proved)}
    if new.any():
        update["inductive"] = sorted({*entry["inductive"], *adding})
        update["dropped"] = dict(sorted({**entry["dropped"], **dropped}.items()))
        tell(f"  ... {n} players: {len(adding)} of {properties(len(new.labels))} the record "
             f"never tried proved for every reachable state")
    return "", update


def _counted(players: int, total: int, tell: Callable[[str], None]) -> Callable[[str], None]:
    """A progress line for each query asked again: a count's asking takes many minutes."""
    count = iter(range(1, total + 1))
    return lambda part: tell(f"  ... {players} players: asking {part} ({next(count, total)} of {total})")


def properties(n: int) -> str:
    return f"{n} {'property' if n == 1 else 'properties'}"


def queries(n: int) -> str:
    return f"{n} {'query' if n == 1 else 'queries'}"


def _why_not(entries: dict[int, dict[str, Any]], now: Now) -> str:
    """Why a stale record cannot be carried before any term is built ("" when it may be)."""
    unsealed = [n for n, entry in sorted(entries.items()) if "parts" not in entry.get(SEAL, {})]
    if unsealed:
        return f"no seal for {counts_text(unsealed)} (made before the code changed, by `verify --carry`)"
    if any(entry[SEAL]["askers"] != now.askers for entry in entries.values()):
        return "the code that asks Z3 changed (" + ", ".join(ASKERS) + ")"
    return ""
