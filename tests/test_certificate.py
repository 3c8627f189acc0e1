"""Induction's record beside the rules (proofs/certificate.py): used while its key is current, never after an
edit of the rules, and shown as what it is in verify's lines and the invariants page."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from baobei.proofs.certificate import FILE, kept, key, record
from baobei.proofs.induction import InductionReport
from baobei.proofs.verify import invariants_markdown, results_json, verify_all
from jsonschema import Draft202012Validator

PROPERTY = "peek_limit"
SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "verify.schema.json"


@pytest.fixture
def rules_copy(tmp_path: Path) -> Path:
    target = tmp_path / "rules"
    shutil.copytree(default_rules_dir(), target, ignore=shutil.ignore_patterns(FILE))
    return target


def proved(label: str) -> InductionReport:
    # What the record says is the plumbing's to carry: made here, not by a run of induction.
    return InductionReport(inductive={label}, lemmas=["two_wait_at_most"], facts=["single_negative"], seconds=12.5)


def test_a_record_is_used_for_its_rules_and_code_only(rules_copy: Path) -> None:
    assert kept(rules_copy).reports == {} and kept(rules_copy).stale == []  # nothing recorded yet
    record(rules_copy, {2: proved(f"invariant {PROPERTY}")}, key(rules_copy))
    got = kept(rules_copy)
    assert set(got.reports) == {2} and got.reports[2].inductive == {f"invariant {PROPERTY}"}
    assert got.reports[2].kept and got.reports[2].lemmas == ["two_wait_at_most"]
    before = key(rules_copy)
    with (rules_copy / "09_invariants.bao").open("a", encoding="utf-8") as f:
        f.write("\n# an edit of the rules, even a comment, is other rules\n")
    assert key(rules_copy) != before
    assert kept(rules_copy).reports == {} and kept(rules_copy).stale == [2]


def test_the_key_follows_the_provers_code_but_not_how_ctrl_c_is_caught(rules_copy: Path, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from baobei.proofs import certificate

    package = tmp_path / "baobei"
    shutil.copytree(certificate.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(certificate, "PACKAGE", package)
    before = key(rules_copy)
    with (package / "proofs" / "interrupts.py").open("a", encoding="utf-8") as f:
        f.write("\n# how Ctrl-C is caught\n")
    assert key(rules_copy) == before
    with (package / "proofs" / "terms.py").open("a", encoding="utf-8") as f:
        f.write("\n# the prover's own code\n")
    assert key(rules_copy) != before


@pytest.mark.parametrize(("module", "runs"), [("engine/effects.py", True), ("proofs/store.py", True),
                                              ("language/builtins.py", True), ("proofs/bmc.py", False),
                                              ("proofs/symexec.py", False), ("proofs/verify.py", False),
                                              ("game.py", False), ("play/view.py", False),
                                              ("scenarios/write.py", False), ("scenarios/setup.py", False),
                                              ("language/parser.py", True)])
def test_the_key_follows_the_code_induction_runs_only(rules_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       module: str, runs: bool) -> None:
    """The key covers the import closure of proofs/induction.py: an edit of the engine's effects or of the
    prover's store makes the record stale, one of the bounded model checker or of verify's lines does not; nor
    does one of the library (the package names it for the type checker only) or of how a counterexample to
    induction is written as a scenario table (verify hands that to induction)."""
    from baobei.proofs import certificate

    package = tmp_path / "baobei"
    shutil.copytree(certificate.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(certificate, "PACKAGE", package)
    assert (module in certificate.meaning()) == runs
    before = key(rules_copy)
    with (package / module).open("a", encoding="utf-8") as f:
        f.write("\n# an edit\n")
    assert (key(rules_copy) != before) == runs


def test_a_later_count_keeps_the_earlier_ones_under_the_same_key(rules_copy: Path) -> None:
    record(rules_copy, {2: proved(f"invariant {PROPERTY}")}, key(rules_copy))
    record(rules_copy, {3: proved(f"invariant {PROPERTY}")}, key(rules_copy))
    assert set(kept(rules_copy).reports) == {2, 3}


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_a_count_recorded_while_another_run_writes_waits_and_keeps_both(rules_copy: Path) -> None:
    """Two certifications side by side end together: the second waits for the first's lock on the rules
    directory and reads its entry before writing, so no count is lost."""
    import fcntl
    import threading

    current = key(rules_copy)
    record(rules_copy, {2: proved(f"invariant {PROPERTY}")}, current)
    fd = os.open(rules_copy, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # another run is between its read and its write
    later = threading.Thread(target=record, args=(rules_copy, {3: proved(f"invariant {PROPERTY}")}, current))
    later.start()
    later.join(0.5)
    assert later.is_alive(), "recorded without waiting for the lock"
    assert set(kept(rules_copy).reports) == {2}
    record_file = rules_copy / "induction.json"
    record_file.write_text(record_file.read_text(encoding="utf-8").replace('"2"', '"4"'), encoding="utf-8")
    os.close(fd)  # the other run wrote count 4 and let go
    later.join(10)
    assert set(kept(rules_copy).reports) == {3, 4}


def test_verify_says_which_counts_the_current_record_has_no_entry_for(rules_copy: Path) -> None:
    """A record made for these rules and this code, but for 2 players only (a certification that did not get
    to every count): 3 players are judged without it, and the page and the run say so."""
    record(rules_copy, {2: proved(f"invariant {PROPERTY}")}, key(rules_copy))
    rules = load_ruleset(rules_copy)
    verified = verify_all(rules, [2, 3], depth=2, states=200, bmc_depth=1, table_depth=0,
                          only=frozenset({PROPERTY}))
    assert [r.outcome.status for r in verified.results] == ["inductive", "bounded"]
    assert verified.missing == [3] and verified.stale == []
    page = invariants_markdown(rules, rules_copy, verified.results, verified.methods, verified.stale,
                               verified.missing)
    assert "The record has no entry for player counts 3" in page


def test_verify_reports_a_recorded_proof_and_says_when_the_record_is_stale(rules_copy: Path) -> None:
    record(rules_copy, {2: proved(f"invariant {PROPERTY}")}, key(rules_copy))
    rules = load_ruleset(rules_copy)
    verified = verify_all(rules, [2], depth=2, states=200, bmc_depth=1, table_depth=0,
                          only=frozenset({PROPERTY}))
    (result,) = verified.results
    assert result.outcome.status == "inductive"
    assert "proved for every reachable state" in result.outcome.detail and FILE in result.outcome.detail
    assert "lemmas: two_wait_at_most; the claims the first pass dropped tried again assuming what holds in every " \
        "state: single_negative" in result.outcome.detail
    data = json.loads(results_json({"rules": "rules/", "player_counts": [2], "seconds": 1.0, "cpu_seconds": 1.0,
                                    "tally": {"inductive": 1}}, verified))
    assert data["induction"]["2"] == {"seconds": 12.5, "lemmas_proved": ["two_wait_at_most"],
                                      "facts_assumed": ["single_negative"], "recorded": True}
    Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(data)
    with (rules_copy / "09_invariants.bao").open("a", encoding="utf-8") as f:
        f.write("\n# edited\n")
    rules = load_ruleset(rules_copy)
    verified = verify_all(rules, [2], depth=2, states=200, bmc_depth=1, table_depth=0,
                          only=frozenset({PROPERTY}))
    assert verified.results[0].outcome.status == "bounded" and verified.stale == [2]
    page = invariants_markdown(rules, rules_copy, verified.results, verified.methods, verified.stale)
    assert "The record is for other rules or another prover (player counts 2)" in page


def test_certify_refuses_only(rules_copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--certify records induction for every property: a run judging a few would record a part as the whole."""
    from baobei.cli import main

    assert main(["verify", "--rules", str(rules_copy), "--certify", "--only", PROPERTY, "--players", "2"]) == 2
    assert "--certify records induction for every property" in capsys.readouterr().err
    assert not (rules_copy / FILE).exists()
