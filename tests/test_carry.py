"""Carrying induction's record over an edit of the code or the rules (proofs/carry.py): the digest of a query
to Z3 up to its constants' names, the side constraints a query needs, asking a changed query again, and
when `verify --carry` seals a record, carries it, or refuses to.

Building every query of a record takes minutes per player count (the note of the session that wrote this
gives the figures), so the record's plumbing is tested here with the built queries replaced; the digests,
the side constraints and the asking are tested on terms built here."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import z3  # type: ignore[import-untyped]
from baobei.cli import main
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.proofs import carry, certificate, seal
from baobei.proofs import terms as T
from baobei.proofs.additions import Untried
from baobei.proofs.carry import carry_record
from baobei.proofs.certificate import FILE, SEAL, kept, key, record
from baobei.proofs.induction import InductionReport
from baobei.proofs.seal import DEAL, MOVE, Built, Move, QueryDigest, SideIndex, TermDigest

PROPERTY = "invariant peek_limit"


def digest_of(*terms: Any) -> str:
    out = TermDigest()
    out.terms("t", terms)
    return out.hexdigest()


def test_equal_terms_have_one_digest_and_every_difference_shows() -> None:
    x, y = z3.Ints("x y")
    assert digest_of(x + 1 < y) == digest_of(z3.Int("x") + 1 < z3.Int("y"))  # built twice: one term
    others = [x + 2 < y, y < x + 1, x + 1 <= y, z3.Real("x") + 1 < y, z3.Int("x2") + 1 < y, x + 1 > y]
    assert len({digest_of(x + 1 < y), *map(digest_of, others)}) == 1 + len(others)
    a, b = z3.Bools("a b")
    assert digest_of(z3.And(a, b)) != digest_of(z3.Or(a, b)) != digest_of(z3.And(b, a))
    assert digest_of(z3.ForAll([x], x > y)) != digest_of(z3.Exists([x], x > y))
    assert digest_of(z3.ForAll([x], x > y)) != digest_of(z3.ForAll([x], x >= y))
    assert digest_of(a, b) != digest_of(b, a) != digest_of(a)  # the order and the number of terms count


def test_the_digest_of_every_kind_of_term_is_the_one_seals_were_made_with() -> None:
    """A digest made faster must stay the same digest: this value was made by the first TermDigest (one z3core
    call per question, every operator printed at every node). Changing what a digest is makes every seal
    incomparable (carry.ASKERS) and needs a new value here, on purpose."""
    x, y, i = z3.Ints("x y i")
    b, r, v = z3.Bool("b"), z3.Real("r"), z3.BitVec("v", 8)
    cells = z3.Array("A", z3.IntSort(), z3.BoolSort())
    f = z3.Function("f", z3.IntSort(), z3.IntSort())
    terms = [x + y * 3 > 2, z3.ForAll([i], z3.Implies(i > 0, f(i) > x)), z3.Exists([i], cells[i]),
             z3.Lambda([i], i + x), r / 3 > 1.5, v + 5 == 3, z3.Store(cells, 3, b)[x], z3.Distinct(x, y, f(x)),
             z3.IntVal(10**30) + x > 0, z3.And(b, z3.Not(b)), z3.BoolVal(True)]
    query = QueryDigest()
    query.terms("terms", terms)
    assert query.hexdigest() == "857cd1591dab074787f82dc81af946c8623f2950795d73d7a9b228b5efa414a9"


def test_a_shared_subterm_is_digested_once() -> None:
    """A term of 2^200 leaves as a tree is 200 nodes as Z3 keeps it: its digest takes no time, and one
    level more is another term."""
    term = z3.Int("x")
    for _ in range(200):
        term = term + term
    deeper = term + term
    digest = TermDigest()
    digest.terms("t", [term])
    assert len(digest.memo) == 201 and digest_of(term) != digest_of(deeper)


def test_a_term_freed_after_its_digest_is_not_taken_for_the_next_one() -> None:
    """Z3 gives a freed term's id to the next term it makes: the digest keeps what it digested alive, or its
    memo would answer a new term with the digest of an old one (the run-to-run difference this was found by)."""
    digest = TermDigest()
    for n in range(50):
        digest.terms("t", [z3.Int(f"gone{n}") + n])  # the only reference to each term: freed but for the digest
        new = z3.Int(f"new{n}") * (n + 2)
        assert digest.node(new.as_ast()) == TermDigest().node(new.as_ast())


def query_of(*terms: Any, below: QueryDigest | None = None) -> str:
    out = QueryDigest(below)
    out.terms("t", terms)
    return out.hexdigest()


def test_a_query_is_digested_up_to_a_one_to_one_renaming_of_its_constants() -> None:
    x, y, a, b = z3.Ints("x y a b")
    assert query_of(x + 1 < y) == query_of(a + 1 < b)  # renamed: the same question to Z3
    assert query_of(x + 1 < y, y > 0) == query_of(a + 1 < b, b > 0)
    assert query_of(x + 1 < y, y > 0) != query_of(a + 1 < b, a > 0)  # which constant is which counts
    assert query_of(x + y < 3) != query_of(x + x < 3)  # two constants are not one
    assert query_of(x < 3) != query_of(z3.Real("x") < 3) != query_of(z3.Bool("p"))  # sorts count
    assert query_of(x + 1 < y) != query_of(x + 2 < y)  # numerals count
    assert digest_of(x + 1 < y) != digest_of(a + 1 < b)  # the exact digest keeps the names


def test_a_query_goes_on_from_the_part_every_query_begins_with() -> None:
    """Each move's query continues the shared part: its constants keep their numbers there, so a move that
    reads the shared constant differs from one that reads a constant of its own."""
    x, y, fresh = z3.Ints("x y fresh")
    below = QueryDigest()
    below.terms("before", [x > 0])
    assert query_of(y < 5, below=below) == query_of(fresh < 5, below=below)
    assert query_of(x < 5, below=below) != query_of(y < 5, below=below)
    assert query_of(y < 5, below=below) != query_of(y < 5)  # the shared part is in every query's digest


def test_a_query_needs_the_side_constraints_linked_to_it_by_the_constants_the_relation_made() -> None:
    state, made, other, deeper = z3.Int("state"), z3.Int("made"), z3.Int("other"), z3.Int("deeper")
    side = [state >= 0, made < state, other < state, deeper > made + 1, made > 1]
    index = SideIndex(side, {state.get_id()})
    got = index.needed([made.get_id(), state.get_id()])
    # The bound on the state always; those of `made`, and through them `deeper`'s; never `other`'s, which
    # shares only the state with the query.
    assert [str(t) for t in got] == [str(side[0]), str(side[1]), str(side[3]), str(side[4])]
    assert [str(t) for t in index.needed([state.get_id()])] == [str(side[0])]


def fake_built(goals: dict[str, Any], before: Any, deal: dict[str, Any] | None = None) -> Built:
    """A record's queries made by hand: one move `m` from a state where `before` holds."""
    err = z3.Bool("err")
    rel = SimpleNamespace(side=[], pre={("err",): err})
    step = SimpleNamespace(facts=[], allowed=T.TRUE, cm=SimpleNamespace(name="m"))
    return Built(rel=rel, before={"kept": before}, deal=deal or {},  # type: ignore[arg-type]
                 moves=[Move(step, goals, {})])  # type: ignore[arg-type]


def asked_again(built: Built, parts: list[str]) -> list[str]:
    return [failure.line() for failure in carry.reprove(built, parts)]


def test_a_changed_query_is_asked_again_and_what_it_does_not_prove_is_named() -> None:
    x, after = z3.Ints("x after")
    built = fake_built({"kept": z3.Implies(after == x + 1, after > 0)}, x >= 0)
    assert asked_again(built, [MOVE + "m"]) == []
    built = fake_built({"kept": z3.Implies(after == x - 1, after >= 0)}, x >= 0)
    assert asked_again(built, [MOVE + "m"]) == ["kept after m (a state breaks it)"]
    assert asked_again(built, []) == []  # a query not changed is not asked
    two = fake_built({"kept": z3.Implies(after == x + 1, after > 0), "lost": z3.Implies(after == x - 1, after >= 0)},
                     x >= 0)
    assert asked_again(two, [MOVE + "m"]) == ["lost after m (a state breaks it)"]  # a model names what it breaks
    built = fake_built({}, x >= 0, deal={"kept": x > 0})
    assert asked_again(built, [DEAL]) == ["kept after the deal (a state breaks it)"]


def test_a_tentative_claim_a_move_fails_is_not_asked_of_the_later_moves() -> None:
    """A property the record never tried is dropped at its first failure: the later moves do not ask it (Z3
    giving up on it costs minutes per move), and when the moves assumed it, nothing more is asked (every move
    is asked again without it)."""
    x, after = z3.Ints("x after")
    up, down = z3.Implies(after == x + 1, after >= 0), z3.Implies(after == x - 1, after >= 0)

    def moves(claims: dict[str, Any], transitions: dict[str, Any]) -> list[Move]:
        return [Move(SimpleNamespace(facts=[], allowed=T.TRUE, cm=SimpleNamespace(name=name)),  # type: ignore[arg-type]
                     dict(claims), dict(transitions)) for name in ("m", "n")]

    built = fake_built({}, x >= 0)
    built.moves = moves({"kept": up}, {"new": z3.Implies(after == x + 1, after < x)})
    heard: list[str] = []
    both = [MOVE + "m", MOVE + "n"]
    lines = [f.line() for f in carry.reprove(built, both, asking=heard.append, tentative=frozenset({"new"}))]
    assert lines == ["new after m (a state breaks it)"] and heard == both
    # Not tentative, it is asked of every move.
    assert asked_again(built, both) == ["new after m (a state breaks it)", "new after n (a state breaks it)"]
    # A tentative state claim the moves assume, broken by m: n is not asked.
    built.before["new"] = x > 5
    built.moves = moves({"kept": down, "new": z3.Implies(after == x - 1, after > 5)}, {})
    heard.clear()
    lines = [f.line() for f in carry.reprove(built, both, asking=heard.append, tentative=frozenset({"new"}))]
    assert lines == ["new after m (a state breaks it)"] and heard == [MOVE + "m"]
    assert len(asked_again(built, both)) == 2


def test_a_changed_query_may_need_the_facts_about_every_state_and_is_asked_with_them_last() -> None:
    x, after = z3.Ints("x after")
    built = fake_built({"kept": z3.Implies(after == x + 1, after > 0)}, z3.BoolVal(True))
    assert asked_again(built, [MOVE + "m"]) == ["kept after m (a state breaks it)"]
    built.facts = [x >= 0]  # what holds in every state, before the move
    assert asked_again(built, [MOVE + "m"]) == []


def test_a_proved_claim_the_rules_no_longer_let_induction_try_is_refused() -> None:
    from baobei.language.errors import BaoError

    rules = load_ruleset(default_rules_dir())
    entry = {"inductive": ["invariant peek_limit", "invariant gone"], "dropped": {}, "bounds": ""}
    with pytest.raises(BaoError, match="the record's invariant gone is no claim induction tries"):
        seal.proved_claims(rules, 2, entry)
    own, state, moved = seal.proved_claims(rules, 2, {**entry, "inductive": ["invariant peek_limit"],
                                                        "dropped": {"rules_never_fail": "why"}})
    assert own == ["well_formed", "within_bounds"] and [d.ident for d in state] == ["peek_limit"] and not moved


@pytest.fixture
def rules_copy(tmp_path: Path) -> Path:
    target = tmp_path / "rules"
    shutil.copytree(default_rules_dir(), target, ignore=shutil.ignore_patterns(FILE))
    return target


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the package whose source the key and the seals read, to edit."""
    copy = tmp_path / "baobei"
    shutil.copytree(certificate.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(certificate, "PACKAGE", copy)
    return copy


@dataclass
class Queries:
    """What `build` gives per player count (building the real queries takes minutes), what `reprove` says
    (set by a test), and the parts it was asked."""

    parts: dict[int, dict[str, str]] = field(default_factory=lambda: {
        n: {DEAL: f"deal-{n}", MOVE + "peek": f"peek-{n}", MOVE + "bao": f"bao-{n}"} for n in (2, 3)})
    failing: list[carry.Unproved] = field(default_factory=list)
    asked: list[list[str]] = field(default_factory=list)


@pytest.fixture
def queries(monkeypatch: pytest.MonkeyPatch) -> Queries:
    out = Queries()

    def reprove(built: Built, parts: list[str], asking: Any = None,
                tentative: frozenset[str] = frozenset(), only: frozenset[str] | None = None) -> list[carry.Unproved]:
        out.asked.append(sorted(parts))
        return out.failing

    monkeypatch.setattr(carry, "build", lambda rules, players, names, entry: Built(parts=dict(out.parts[players]),
                                                                                   facts_proved=["tables_defined"]))
    monkeypatch.setattr(carry, "reprove", reprove)
    # These records try one property of the rules: the others are not added here (see the additions' tests).
    monkeypatch.setattr(carry, "untried", lambda rules, players, entry: Untried())
    return out


def certified(rules_dir: Path) -> str:
    report = InductionReport(inductive={PROPERTY}, dropped={"invariant totals_are_numbers": "a deal breaks it"},
                             facts=["tables_defined"], seconds=12.5)
    record(rules_dir, {2: report, 3: report}, key(rules_dir))
    return key(rules_dir)


def edit(path: Path) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write("\n# an edit that changes no term\n")


def run_carry(rules_dir: Path) -> tuple[bool, list[str]]:
    lines: list[str] = []
    return carry_record(load_ruleset(rules_dir), rules_dir, None, lines.append), lines


def saved(rules_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((rules_dir / FILE).read_text(encoding="utf-8"))
    return data


def test_a_sealed_record_is_carried_over_an_edit_that_leaves_every_query(rules_copy: Path, package: Path,
                                                                          queries: Queries) -> None:
    old = certified(rules_copy)
    done, lines = run_carry(rules_copy)
    assert done and "sealed 2 player counts now, 2 of 2 sealed" in lines[-1]
    sealed = saved(rules_copy)
    assert sealed["counts"]["2"][SEAL]["parts"] == queries.parts[2] and sealed["key"] == old
    edit(package / "engine" / "effects.py")  # code induction runs: the record is stale
    assert key(rules_copy) != old and kept(rules_copy).stale == [2, 3]
    done, lines = run_carry(rules_copy)
    assert done and lines[-1].startswith("carry     carried the record for 2 player counts 2, 3")
    assert "0 queries that changed proved again" in lines[-1] and queries.asked == []
    got = kept(rules_copy)
    assert set(got.reports) == {2, 3} and got.reports[2].inductive == {PROPERTY}
    carried = saved(rules_copy)
    assert carried["key"] == key(rules_copy) and carried["carried_from"] == [old]
    for n in ("2", "3"):  # what was proved, and its seal, as they were
        assert carried["counts"][n].pop(SEAL) == {**sealed["counts"][n].pop(SEAL), "reproved": []}
    assert carried["counts"] == sealed["counts"]


@pytest.mark.parametrize("edited", ["engine", "rules", "prover"])
def test_a_changed_query_is_proved_again_and_the_record_carried(rules_copy: Path, package: Path, queries: Queries,
                                                                edited: str) -> None:
    """An edit of the rules, or of how induction finds its claims (induction.py), is carried too: what a proof
    rests on is its queries, and a changed one is asked again."""
    old = certified(rules_copy)
    assert run_carry(rules_copy)[0]
    edited_file = {"engine": package / "engine" / "effects.py", "rules": rules_copy / "09_invariants.bao",
                   "prover": package / "proofs" / "induction.py"}[edited]
    edit(edited_file)
    queries.parts[3][MOVE + "peek"] = "peek-3, edited"
    done, lines = run_carry(rules_copy)
    assert done and "1 query that changed proved again" in lines[-1]
    assert "  ... 3 players: asking Z3 again 1 query of 3, changed: move peek" in lines
    assert queries.asked == [[MOVE + "peek"]]
    carried = saved(rules_copy)
    assert carried["counts"]["3"][SEAL]["parts"][MOVE + "peek"] == "peek-3, edited"
    assert carried["counts"]["3"][SEAL]["reproved"] == [MOVE + "peek"] and carried["carried_from"] == [old]


def test_a_record_is_not_carried_when_a_changed_query_is_not_proved(rules_copy: Path, package: Path,
                                                                   queries: Queries) -> None:
    certified(rules_copy)
    assert run_carry(rules_copy)[0]
    before = (rules_copy / FILE).read_bytes()
    edit(package / "engine" / "effects.py")
    queries.parts[2][DEAL] = "another deal"
    queries.failing = [carry.Unproved("peek_limit", DEAL, "a state breaks it"),
                       carry.Unproved("well_formed", DEAL, "a state breaks it")]
    done, lines = run_carry(rules_copy)
    assert not done and lines[-1] == ("carry     not carried: with 2 players, peek_limit after the deal (a state "
                                      "breaks it) and 1 more; `baobei verify --certify` makes the record again")
    assert (rules_copy / FILE).read_bytes() == before and kept(rules_copy).stale == [2, 3]


def test_a_record_is_not_carried_when_the_code_that_says_what_a_seal_is_changed(rules_copy: Path, package: Path,
                                                                                 queries: Queries) -> None:
    certified(rules_copy)
    assert run_carry(rules_copy)[0]
    before = (rules_copy / FILE).read_bytes()
    edit(package / "proofs" / "seal.py")
    edit(package / "engine" / "effects.py")
    done, lines = run_carry(rules_copy)
    why = "the code that asks Z3 changed (proofs/seal.py)"
    assert not done and lines[-1] == f"carry     not carried: {why}; `baobei verify --certify` makes the record again"
    assert (rules_copy / FILE).read_bytes() == before and kept(rules_copy).stale == [2, 3]


def test_a_seal_made_by_other_askers_is_made_again(rules_copy: Path, package: Path, queries: Queries) -> None:
    """seal.py is no code induction runs (the key leaves it out), but it says what a seal digests: after an edit
    of it, the current record's seals are made again, not compared."""
    old = certified(rules_copy)
    assert run_carry(rules_copy)[0]
    edit(package / "proofs" / "seal.py")
    queries.parts[2][DEAL] = "deal-2, digested otherwise"
    done, lines = run_carry(rules_copy)
    assert done and key(rules_copy) == old and "sealed 2 player counts now, 2 of 2 sealed" in lines[-1]
    assert saved(rules_copy)["counts"]["2"][SEAL]["parts"][DEAL] == "deal-2, digested otherwise"
    done, lines = run_carry(rules_copy)
    assert done and "sealed 0 player counts now, 2 of 2 sealed" in lines[-1]


def test_a_record_sealed_in_part_is_not_carried(rules_copy: Path, package: Path, queries: Queries) -> None:
    certified(rules_copy)
    assert carry_record(load_ruleset(rules_copy), rules_copy, [2], lambda line: None)  # --players 2: one seal
    edit(package / "engine" / "effects.py")
    done, lines = run_carry(rules_copy)
    assert not done and "no seal for 1 player count 3" in lines[-1]


def test_carry_judges_nothing_else_and_needs_a_record(rules_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--rules", str(rules_copy), "--carry", "--only", "peek_limit"]) == 2
    assert "--carry judges no property: leave out --only" in capsys.readouterr().err
    assert main(["verify", "--rules", str(rules_copy), "--carry"]) == 2
    assert f"no record {rules_copy / FILE} this code can read" in capsys.readouterr().err


def test_a_record_changed_during_the_run_is_neither_sealed_nor_carried(rules_copy: Path) -> None:
    from baobei.language.errors import BaoError
    from baobei.proofs.certificate import add_seals, carry_to

    old = certified(rules_copy)
    before = (rules_copy / FILE).read_bytes()
    with pytest.raises(BaoError, match="changed during the run: nothing sealed"):
        add_seals(rules_copy, {2: {"parts": {}}}, "another key")
    with pytest.raises(BaoError, match="changed during the run: not carried"):
        carry_to(rules_copy, "another key", old, {})
    assert (rules_copy / FILE).read_bytes() == before


def test_carry_leaves_at_once_instead_of_freeing_its_terms(rules_copy: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Z3 takes minutes to free a count's terms at exit (Z3_del_context, measured at 2 players): after carrying,
    the command ends with everything written, without that."""
    import sys

    from baobei import cli
    from baobei.language import terminal

    left: list[int] = []

    def leave(code: int) -> None:
        left.append(code)
        raise SystemExit(code)

    monkeypatch.setattr(terminal, "LEAVE_AT_ONCE", False)
    monkeypatch.setattr(cli.os, "_exit", leave)
    monkeypatch.setattr(sys, "argv", ["baobei", "verify", "--rules", str(rules_copy), "--carry"])
    with pytest.raises(SystemExit):
        cli.entry()
    assert left == [2] and "no record" in capsys.readouterr().err  # no record here: refused, and left at once
    monkeypatch.setattr(terminal, "LEAVE_AT_ONCE", False)
    monkeypatch.setattr(sys, "argv", ["baobei", "check", str(rules_copy)])
    with pytest.raises(SystemExit):
        cli.entry()
    assert left == [2]  # another command ends as usual



def test_counts_are_carried_in_parallel_processes_and_the_first_refusal_stops_them(rules_copy: Path, package: Path,
                                                                                   queries: Queries) -> None:
    certified(rules_copy)
    assert carry_record(load_ruleset(rules_copy), rules_copy, None, lambda line: None, workers=2)  # sealed, 2 at once
    assert saved(rules_copy)["counts"]["3"][SEAL]["parts"] == queries.parts[3]
    edit(package / "engine" / "effects.py")
    queries.parts[2][MOVE + "bao"] = "bao-2, edited"
    before = (rules_copy / FILE).read_bytes()
    queries.failing = [carry.Unproved("caller_not_owed", "bao", "Z3 gave no answer in 120 s")]
    lines: list[str] = []
    assert not carry_record(load_ruleset(rules_copy), rules_copy, None, lines.append, workers=2)
    assert "with 2 players, caller_not_owed after bao" in lines[-1] and (rules_copy / FILE).read_bytes() == before
    queries.failing = []
    assert carry_record(load_ruleset(rules_copy), rules_copy, None, lines.append, workers=2)
    assert carry_record(load_ruleset(rules_copy), rules_copy, None, lines.append, workers=2)  # current: nothing to do
    carried = saved(rules_copy)
    assert carried["key"] == key(rules_copy) and carried["counts"]["2"][SEAL]["reproved"] == [MOVE + "bao"]
    assert carried["counts"]["3"][SEAL]["reproved"] == []
