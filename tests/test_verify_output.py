"""`baobei verify`'s output for people and programs (issues 27 and 29): one line per property and player
count with its status, method and own time; the work the properties share once per player count with its
time; the explanations once, and only with -v; a summary with the count of each status, wall and CPU time;
`--json -` on standard output, in the documented schema, with the lines for people on standard error.

The runs are small: two players, two claims about reached states and one about every state, a relation of
one move and a search of a few states (a few seconds each).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
from baobei.cli import main
from baobei.language.load import load_ruleset
from baobei.language.paths import default_rules_dir
from conftest import rules_without_record

SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "verify.schema.json"

# peek_limit: a claim about reached states (Z3 over every state finds a state no round reaches, then the
# relation and the search judge it); no_deadlock: a progress property (no query of its own); single_negative:
# proved over every state. The rules without induction's record: with it, peek_limit is inductive.
PROPERTIES = ("peek_limit", "no_deadlock", "single_negative")
SMALL = ("--rules", str(rules_without_record()), "--players", "2", "--bmc-depth", "1", "--depth", "2",
         "--states", "100", "--table-depth", "0", "--workers", "1",
         *(arg for name in PROPERTIES for arg in ("--only", name)))

RESULT = re.compile(r"^(proved|inductive|bounded|explored|violated|unknown)  +(\w+) +(\d+) players +"
                    r"(\d+\.\d{3}s|-)  (\S.*)$")
SHARED = re.compile(r"^(search|tables|relation|induction) +2 players: .* in \d+\.\ds\b")
SUMMARY = re.compile(r"^3 properties x 1 player count: (\d+ \w+, ){5}\d+ \w+ in \d+\.\d\ds wall, \d+\.\d\ds CPU$")
# The explanation the old output repeated under every bounded property.
EXPLANATION = "bounded to 1 move (Z3 over every deal of the small deck)"

Run = tuple[int, str, str]


def verify(*argv: str) -> Run:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["verify", *SMALL, *argv])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def plain() -> Run:
    return verify()


@pytest.fixture(scope="module")
def verbose() -> Run:
    return verify("-v")


@pytest.fixture(scope="module")
def to_stdout(tmp_path_factory: pytest.TempPathFactory) -> Run:
    with pytest.MonkeyPatch.context() as patch:  # a program that took `-` for a file name would write here
        patch.chdir(tmp_path_factory.mktemp("cwd"))
        return verify("--json", "-")


def result_lines(out: str) -> dict[tuple[str, int], re.Match[str]]:
    found: dict[tuple[str, int], re.Match[str]] = {}
    for line in out.splitlines():
        m = RESULT.match(line)
        if m:
            assert (m[2], int(m[3])) not in found, f"two lines for {m[2]} with {m[3]} players"
            found[(m[2], int(m[3]))] = m
    return found


# ---------------------------------------------------------------- the default output


def test_one_line_per_property_and_player_count(plain: Run) -> None:
    code, out, err = plain
    assert code == 0, out + err
    lines = out.splitlines()
    results = result_lines(out)
    assert set(results) == {(name, 2) for name in PROPERTIES}
    assert {m[1] for m in results.values()} == {"bounded", "proved"}
    # Nothing but the result lines, the shared work once per player count, and the summary.
    others = [line for line in lines if not RESULT.match(line)]
    assert [line for line in others if not SHARED.match(line)] == [others[-1]], out
    assert SUMMARY.match(others[-1]), others[-1]
    assert len(lines) == len(PROPERTIES) + len(others)
    assert not [line for line in lines if line.startswith(" ")], "no explanation, no progress under the lines"


def test_no_explanation_without_verbose(plain: Run) -> None:
    _, out, _ = plain
    assert EXPLANATION not in out and "what the statuses mean" not in out
    assert out.count("explored to depth 2 of 1 seeded deal(s)") == 1  # the search's line, once


def test_each_line_says_how_it_was_decided_and_its_own_time(plain: Run) -> None:
    results = result_lines(plain[1])
    assert results[("single_negative", 2)][5] == "Z3 over every state"
    assert results[("peek_limit", 2)][5] == "bounded to 1 move (Z3 over every deal)"
    assert results[("no_deadlock", 2)][5] == "bounded to 1 move (Z3 over every deal)"
    # A progress property has no query of its own: its work is all in the relation's and the search's lines.
    assert results[("no_deadlock", 2)][4] == "-"
    assert results[("peek_limit", 2)][4].endswith("s")  # its own query, Z3 over every state


def test_the_shared_work_is_said_once_per_player_count_with_its_time(plain: Run) -> None:
    shared = [line for line in plain[1].splitlines() if SHARED.match(line)]
    assert [line.split()[0] for line in shared] == ["search", "relation"]
    assert "bounded model checking to 1 move in " in shared[1]


# ---------------------------------------------------------------- -v


def test_verbose_explains_each_thing_once(verbose: Run) -> None:
    code, out, err = verbose
    assert code == 0, out + err
    assert out.count(EXPLANATION) == 1, out
    assert out.count("explored to depth 2 of 1 seeded deal(s)") == 1  # the search's line says it already
    assert out.count("over arbitrary states Z3 finds a counterexample, a state no round reaches") == 1
    assert "what the statuses mean:" in out and re.search(r"^  bounded +no path of up to k moves", out, re.M)
    assert "each method at length: docs/invariants.md" in out
    # The explanation names the results it is about.
    about = out.split(EXPLANATION)[0].splitlines()[-2]
    assert "2 players: peek_limit, no_deadlock:" in about


def test_verbose_keeps_one_line_per_result(verbose: Run, plain: Run) -> None:
    assert set(result_lines(verbose[1])) == set(result_lines(plain[1])) == {(name, 2) for name in PROPERTIES}
    assert "  ... bounded model checking with 2 players" in verbose[1]  # the progress of the long parts


# ---------------------------------------------------------------- --json -


def test_json_to_standard_output_follows_the_schema(to_stdout: Run) -> None:
    from jsonschema import Draft202012Validator

    code, out, err = to_stdout
    assert code == 0, out + err
    data = json.loads(out)  # standard output is the JSON and nothing else
    Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(data)
    assert not list(Path.cwd().glob("-")), "`-` is standard output, not a file"
    # The lines for people went to standard error: the same results.
    people = result_lines(err)
    assert {(r["property"], r["players"]): r["status"] for r in data["results"]} == \
        {key: m[1] for key, m in people.items()}
    assert SUMMARY.match(err.splitlines()[-1])


def test_json_says_method_depth_lemmas_and_own_time(to_stdout: Run) -> None:
    data = json.loads(to_stdout[1])
    results = {r["property"]: r for r in data["results"]}
    assert {k: (r["method"], r["depth"], r["lemmas"]) for k, r in results.items()} == {
        "peek_limit": ("bmc", 1, []), "no_deadlock": ("bmc", 1, []), "single_negative": ("state", None, [])}
    assert results["no_deadlock"]["seconds"] is None  # no work of its own
    assert isinstance(results["peek_limit"]["seconds"], float)
    shared = data["shared"]["2"]
    assert shared["relation"]["depth"] == 1 and shared["tables"] is None
    assert shared["search"]["depth"] == 2 and shared["search"]["seconds"] >= 0
    # A result's own time is its own: not the relation's or the search's, which every result shares.
    assert results["peek_limit"]["seconds"] not in (shared["relation"]["seconds"], shared["search"]["seconds"])
    assert data["cpu_seconds"] > 0 and data["seconds"] > 0
    human = result_lines(to_stdout[2])
    assert human[("peek_limit", 2)][4] == f"{results['peek_limit']['seconds']:.3f}s"


def test_the_schema_documents_every_field_of_a_result() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    result = schema["$defs"]["result"]
    assert {"status", "method", "depth", "lemmas", "seconds"} <= set(result["required"])
    assert all(result["properties"][name].get("description") for name in ("method", "depth", "lemmas", "seconds"))
    assert {"cpu_seconds", "shared"} <= set(schema["required"])


# ---------------------------------------------------------------- the parts


def test_each_part_of_the_explanations_is_said_once_for_the_results_it_is_about() -> None:
    from baobei.proofs.distribution import Outcome
    from baobei.proofs.report import Result
    from baobei.proofs.verify import explanation_groups

    invs = list(load_ruleset(default_rules_dir()).invariants.values())[:3]
    common = "bounded to 4 moves (Z3 over every deal of the small deck); explored to depth 9 of 1 seeded deal(s)"
    results = [Result(invs[0], 2, Outcome("bounded", 0.1, common + "; over arbitrary states Z3 finds one")),
               Result(invs[1], 2, Outcome("bounded", 0.2, common)),
               Result(invs[2], 2, Outcome("violated", 0.3, "broken; reached 3 moves after the deal"))]
    groups = [([r.inv.ident for r in rs], parts) for rs, parts in explanation_groups(results)]
    assert groups == [
        ([invs[0].ident, invs[1].ident], ["bounded to 4 moves (Z3 over every deal of the small deck)",
                                          "explored to depth 9 of 1 seeded deal(s)"]),
        ([invs[0].ident], ["over arbitrary states Z3 finds one"]),
    ]  # the violation's detail stands under its own line


@pytest.mark.parametrize(("status", "method", "depth", "lemmas", "text"), [
    ("proved", "placement", None, (), "Z3 over every transition rule"),
    ("bounded", "bmc", 4, (), "bounded to 4 moves (Z3 over every deal)"),
    ("explored", "search", 1, (), "explored to depth 1 (the engine's search from the deals)"),
    ("inductive", "induction", None, ("well_formed",), "in every reachable state (induction over every move; "
                                                        "lemmas: well_formed)"),
    ("violated", "tables", 3, (), "3 moves from a scenario table (the engine's search from the scenario tables)"),
    ("violated", "bmc", 1, (), "1 move after a deal (Z3 over every deal)"),
    ("unknown", "search", None, (), "the engine's search from the deals"),
])
def test_the_verdict_in_words(status: str, method: str, depth: int | None, lemmas: tuple[str, ...],
                              text: str) -> None:
    from baobei.proofs.verify import Verdict, verdict_text

    assert verdict_text(status, Verdict(method, depth, lemmas)) == text


def test_a_record_that_cannot_be_read_is_named_not_passed_over(tmp_path: Path) -> None:
    """An induction.json that is not JSON (a bad merge, say) would otherwise leave every inductive claim
    merely bounded with nothing said: the run says the record is not used, and how to make it again."""
    rules = tmp_path / "rules"
    rules.mkdir()
    for f in rules_without_record().glob("*.bao"):
        (rules / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    (rules / "induction.json").write_text("{ <<<<<<< HEAD", encoding="utf-8")
    code, out, err = verify("--rules", str(rules))
    assert code == 0 and "induction the record induction.json cannot be read" in out + err and "--certify" in out + err

