"""Carrying induction's record over an edit of the code (proofs/carry.py): the exact digest of Z3's terms,
and when `verify --carry` seals a record, carries it, or refuses to.

Building every term induction asks about takes minutes per player count (the note of the session that
wrote this gives the figures), so the record's plumbing is tested here with the terms' digest replaced;
the digest itself is tested on terms built here."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import z3  # type: ignore[import-untyped]
from baobei.cli import main
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.proofs import carry, certificate
from baobei.proofs.carry import TermDigest, carry_record
from baobei.proofs.certificate import FILE, SEAL, kept, key, record
from baobei.proofs.induction import InductionReport

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


@pytest.fixture
def terms_built(monkeypatch: pytest.MonkeyPatch) -> dict[int, str]:
    """What `questions` answers per player count (building the real terms takes minutes): set by a test."""
    answers = {2: "terms-2", 3: "terms-3"}
    monkeypatch.setattr(carry, "questions", lambda rules, players, names, labels: answers[players])
    return answers


def certified(rules_dir: Path) -> str:
    report = InductionReport(inductive={PROPERTY}, dropped={"invariant totals_are_numbers": "a deal breaks it"},
                             seconds=12.5)
    record(rules_dir, {2: report, 3: report}, key(rules_dir))
    return key(rules_dir)


def edit(path: Path) -> None:
    with path.open("a", encoding="utf-8") as f:
        f.write("\n# an edit that changes no term\n")


def run_carry(rules_dir: Path) -> tuple[bool, list[str]]:
    lines: list[str] = []
    return carry_record(load_ruleset(rules_dir), rules_dir, None, lines.append), lines


def test_a_sealed_record_is_carried_over_an_edit_that_leaves_every_term(rules_copy: Path, package: Path,
                                                                         terms_built: dict[int, str]) -> None:
    old = certified(rules_copy)
    done, lines = run_carry(rules_copy)
    assert done and "sealed 2 player counts now, 2 of 2 sealed" in lines[-1]
    sealed = json.loads((rules_copy / FILE).read_text(encoding="utf-8"))
    assert sealed["counts"]["2"][SEAL]["questions"] == "terms-2" and sealed["key"] == old
    edit(package / "engine" / "effects.py")  # code induction runs: the record is stale
    assert key(rules_copy) != old and kept(rules_copy).stale == [2, 3]
    done, lines = run_carry(rules_copy)
    assert done and lines[-1].startswith("carry     carried the record for 2 player counts 2, 3")
    got = kept(rules_copy)
    assert set(got.reports) == {2, 3} and got.reports[2].inductive == {PROPERTY}
    carried = json.loads((rules_copy / FILE).read_text(encoding="utf-8"))
    assert carried["key"] == key(rules_copy) and carried["carried_from"] == [old]
    assert carried["counts"] == sealed["counts"]  # what was proved, and its seal, as they were


@pytest.mark.parametrize(("changed", "why"), [
    ("terms", "with 3 players, induction would ask Z3 other questions"),
    ("askers", "the code that asks Z3 changed (proofs/induction.py, proofs/terms.py, proofs/carry.py)"),
    ("rules", "the rules or the grammar changed"),
])
def test_a_record_is_not_carried_when_a_question_may_differ(rules_copy: Path, package: Path,
                                                            terms_built: dict[int, str], changed: str,
                                                            why: str) -> None:
    certified(rules_copy)
    assert run_carry(rules_copy)[0]
    before = (rules_copy / FILE).read_bytes()
    edit(package / "engine" / "effects.py")
    if changed == "terms":
        terms_built[3] = "other terms"
    elif changed == "askers":
        edit(package / "proofs" / "induction.py")
    else:
        edit(rules_copy / "09_invariants.bao")
    done, lines = run_carry(rules_copy)
    assert not done and lines[-1] == f"carry     not carried: {why}; `baobei verify --certify` makes the record again"
    assert (rules_copy / FILE).read_bytes() == before and kept(rules_copy).stale == [2, 3]


def test_a_seal_made_by_other_askers_is_made_again(rules_copy: Path, package: Path,
                                                  terms_built: dict[int, str]) -> None:
    """carry.py is no code induction runs (the key leaves it out), but it says what a seal digests: after an edit
    of it, the current record's seals are made again, not compared."""
    old = certified(rules_copy)
    assert run_carry(rules_copy)[0]
    edit(package / "proofs" / "carry.py")
    terms_built[2] = "terms-2, digested otherwise"
    done, lines = run_carry(rules_copy)
    assert done and key(rules_copy) == old and "sealed 2 player counts now, 2 of 2 sealed" in lines[-1]
    resealed = json.loads((rules_copy / FILE).read_text(encoding="utf-8"))
    assert resealed["counts"]["2"][SEAL]["questions"] == "terms-2, digested otherwise"
    done, lines = run_carry(rules_copy)
    assert done and "sealed 0 player counts now, 2 of 2 sealed" in lines[-1]


def test_a_record_sealed_in_part_is_not_carried(rules_copy: Path, package: Path, terms_built: dict[int, str]) -> None:
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
        add_seals(rules_copy, {2: {"questions": "x"}}, "another key")
    with pytest.raises(BaoError, match="changed during the run: not carried"):
        carry_to(rules_copy, "another key", old)
    assert (rules_copy / FILE).read_bytes() == before
