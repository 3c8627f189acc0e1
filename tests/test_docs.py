"""`baobei docs`: deterministic output, --check, blocked publication, the rulebook FAQ, the coverage table."""

from __future__ import annotations

import io
import re
import shutil
import tomllib
from pathlib import Path

import pytest
from baobei.docs.generate import EXIT_BAD_INPUT, EXIT_FAIL, EXIT_OK, Project, run
from baobei.docs.index import PROPERTY_KINDS
from baobei.language.errors import ScenarioError
from baobei.language.load import load_ruleset
from baobei.language.paths import PROJECT_ROOT
from baobei.language.source import Citation
from baobei.scenarios.parser import parse_scenario_file, parse_scenario_text

GENERATED = ("FAQ.md", "rules.md", "decisions.md")
RULEBOOK_FAQ = [f"P{n}" for n in range(183, 204)]  # the 21 questions the issue names
PENDING = "**Offen / pending:**"

BROKEN = """scenario "Broken on purpose"
cites § 2.1 [P18]

table
  players alice bob
  alice: Spatz
  bob: Amsel
  active alice

play
  expect phase round_over
"""


def _copy_project(dest: Path) -> Project:
    for name in ("rules", "scenarios"):
        shutil.copytree(PROJECT_ROOT / name, dest / name)
    shutil.copytree(PROJECT_ROOT / "docs" / "src", dest / "docs" / "src")
    return Project.at(dest)


def _run(project: Project, check: bool = False, proofs: bool = False) -> tuple[int, str]:
    """`baobei docs` in-process; without the proofs (docs/invariants.md) unless a test asks for them."""
    out = io.StringIO()
    code = run(project, check=check, stream=out, proofs=proofs)
    return code, out.getvalue()


def _read(project: Project) -> dict[str, bytes]:
    return {name: (project.out / name).read_bytes() for name in GENERATED}


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A copy of the project with docs generated once (read-only for the tests that use it)."""
    project = _copy_project(tmp_path_factory.mktemp("docs_project"))
    code, text = _run(project)
    assert code == EXIT_OK, text
    return project


@pytest.fixture
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    """A fresh copy of the project, always at the same path in one test process: the files a test leaves
    alone then keep their text and path, and are parsed once per process (the parsers cache by both)."""
    dest = tmp_path_factory.getbasetemp() / "docs_project_copy"
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir()
    return _copy_project(dest)


@pytest.fixture
def published(project: Project, generated: Project) -> Project:
    """A fresh copy with the docs generated already (copied: they hold no path of their own)."""
    shutil.copytree(generated.out, project.out, dirs_exist_ok=True)
    return project


# ---------------------------------------------------------------- determinism and --check


def test_two_runs_give_identical_files(project: Project) -> None:
    assert _run(project)[0] == EXIT_OK
    first = _read(project)
    assert _run(project)[0] == EXIT_OK
    assert _read(project) == first
    for name, data in first.items():
        assert str(project.root).encode() not in data, f"{name} contains an absolute path"


def test_check_passes_after_generation(generated: Project) -> None:
    code, text = _run(generated, check=True)
    assert code == EXIT_OK, text


def test_check_fails_after_editing_an_answer(published: Project) -> None:
    project = published
    faq = (project.out / "FAQ.md").read_text(encoding="utf-8")
    target, old = _published_answer(project, faq)
    target.write_text(target.read_text(encoding="utf-8").replace(old, old + " Edited.", 1), encoding="utf-8")
    code, text = _run(project, check=True)
    assert code == EXIT_FAIL
    assert "docs/FAQ.md" in text
    assert "docs/rules.md" not in text  # only the file that changed is named


def _published_answer(project: Project, faq: str) -> tuple[Path, str]:
    for path in sorted(project.scenarios.rglob("*.scenario")):
        for answer in parse_scenario_file(path).answers.values():
            if answer in faq:
                return path, answer
    pytest.fail("no scenario answer is published in FAQ.md")


def test_check_fails_when_a_file_is_missing(published: Project) -> None:
    project = published
    (project.out / "decisions.md").unlink()
    code, text = _run(project, check=True)
    assert code == EXIT_FAIL
    assert "docs/decisions.md" in text


def test_committed_docs_are_current() -> None:
    """The docs in the repository match the rules and scenarios (run `baobei docs` after editing them)."""
    code, text = _run(Project.at(PROJECT_ROOT), check=True)
    assert code == EXIT_OK, text


def _judged(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Stand in for `baobei verify` (minutes): a page that changes with the rules it judged; calls recorded."""
    import baobei.proofs.verify as verify

    calls: list[Path] = []

    def judge(directory: Path) -> str:
        calls.append(directory)
        return f"# Invariants\n\nrules of {(directory / '07_scoring.bao').stat().st_size} bytes\n"

    monkeypatch.setattr(verify, "invariants_doc", judge)
    return calls


def test_a_stamped_proofs_page_is_judged_again_only_when_what_it_rests_on_changed(
        project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _judged(monkeypatch)
    page = project.out / "invariants.md"
    assert _run(project, proofs=True)[0] == EXIT_OK and len(calls) == 1  # no stamp yet: judged
    first = page.read_text(encoding="utf-8")
    assert first.startswith("# Invariants\n\nrules of ") and first.splitlines()[-1].startswith("[//]: # (")
    code, text = _run(project, check=True, proofs=True)
    assert code == EXIT_OK and "not judged again" in text, text
    assert len(calls) == 1 and page.read_text(encoding="utf-8") == first  # the stamp holds: not judged again
    # A stamp made elsewhere (another Python, say): judged again, and the same page passes the check.
    page.write_text(re.sub(r"\(judged from \w+\)", "(judged from 00)", first), encoding="utf-8")
    assert _run(project, check=True, proofs=True)[0] == EXIT_OK and len(calls) == 2
    page.write_text(first.replace("rules of", "rules by hand of"), encoding="utf-8")  # an edit of the page
    assert _run(project, check=True, proofs=True)[0] == EXIT_FAIL and len(calls) == 3
    assert _run(project, proofs=True)[0] == EXIT_OK and len(calls) == 4
    rules = project.rules / "07_scoring.bao"  # an edit of what the page is judged from
    rules.write_text(rules.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    code, text = _run(project, check=True, proofs=True)
    assert len(calls) == 5 and code == EXIT_FAIL and "stale: " in text  # judged again: a new page


def test_check_covers_the_proofs_file(project: Project) -> None:
    """docs/invariants.md is generated with the rest and compared by --check (here with one quick
    invariant, so that the proofs take a moment)."""
    text = (project.rules / "09_invariants.bao").read_text(encoding="utf-8")
    keep = text[text.index("invariant tables_defined"):text.index("invariant card_conservation")]
    (project.rules / "09_invariants.bao").write_text(keep, encoding="utf-8")
    assert _run(project, proofs=True)[0] == EXIT_OK
    proofs = project.out / "invariants.md"
    assert "tables_defined" in proofs.read_text(encoding="utf-8")
    assert _run(project, check=True, proofs=True)[0] == EXIT_OK  # the same rules give the same file
    proofs.write_text(proofs.read_text(encoding="utf-8").replace("proved", "explored"), encoding="utf-8")
    code, text = _run(project, check=True, proofs=True)
    assert code == EXIT_FAIL
    assert "stale: docs/invariants.md" in text
    assert _run(project, check=True)[0] == EXIT_OK  # without the proofs the file is not compared


# ---------------------------------------------------------------- blocked publication


def test_a_failing_scenario_blocks_publication(project: Project) -> None:
    broken = project.scenarios / "zz_broken.scenario"
    broken.write_text(BROKEN, encoding="utf-8")
    code, text = _run(project)
    assert code == EXIT_FAIL
    assert "scenarios/zz_broken.scenario" in text
    assert not any((project.out / name).exists() for name in GENERATED)
    code, text = _run(project, check=True)
    assert code == EXIT_FAIL
    assert "scenarios/zz_broken.scenario" in text


def test_a_failing_scenario_leaves_published_docs_alone(published: Project) -> None:
    project = published
    before = _read(project)
    (project.scenarios / "zz_broken.scenario").write_text(BROKEN, encoding="utf-8")
    assert _run(project)[0] == EXIT_FAIL
    assert _read(project) == before


# ---------------------------------------------------------------- the rulebook's FAQ


def _faq_blocks(text: str) -> dict[str, str]:
    """Rulebook FAQ id -> its entry in FAQ.md (from its heading to the next heading)."""
    parts = re.split(r"^(?=##+ )", text, flags=re.MULTILINE)
    out = {}
    for part in parts:
        m = re.match(r"### \[(P\d+)\]", part)
        if m:
            out[m.group(1)] = part
    return out


def _section_ranges() -> dict[str, tuple[int, int]]:
    with (PROJECT_ROOT / "docs" / "src" / "sections.toml").open("rb") as f:
        data = tomllib.load(f)
    return {s["id"]: (s["paras"][0], s["paras"][1]) for s in data["section"]}


def _touches(cite: Citation, ranges: dict[str, tuple[int, int]]) -> set[str]:
    out = {cite.section}
    for para in cite.paras:
        n = int(para[1:])
        out |= {ident for ident, (lo, hi) in ranges.items() if lo <= n <= hi}
    return out


def _encoded_sections(ranges: dict[str, tuple[int, int]]) -> set[str]:
    rules = load_ruleset(PROJECT_ROOT / "rules")
    cites = [c for kind, _, c, _ in rules.cited_rules() if kind not in PROPERTY_KINDS]
    cites += [r.cite for m in rules.moves.values() for r in m.requires]
    return set().union(*(_touches(c, ranges) for c in cites))


def test_every_rulebook_faq_question_appears_once(generated: Project) -> None:
    blocks = _faq_blocks((generated.out / "FAQ.md").read_text(encoding="utf-8"))
    assert sorted(blocks) == sorted(RULEBOOK_FAQ)
    for para, block in blocks.items():
        assert "**Frage:**" in block and "**Question:**" in block, para


def test_answered_items_are_proved_by_a_scenario_citing_them(generated: Project) -> None:
    blocks = _faq_blocks((generated.out / "FAQ.md").read_text(encoding="utf-8"))
    answered = {p: b for p, b in blocks.items() if PENDING not in b}
    for para, block in answered.items():
        links = re.findall(r"Proved by \[[^\]]*\]\(\.\./(scenarios/[^)]+)\)", block)
        assert links, f"{para} is answered without a scenario"
        for link in links:
            scenario = parse_scenario_file(generated.root / link)
            assert any(para in c.paras for c in scenario.cites), f"{link} does not cite {para}"
            assert para in scenario.faq, f"{link} does not say it answers {para}"
            assert scenario.answers, f"{link} carries no answer"
        assert "before:" in block or "table:" in block, f"{para} shows no table"


def test_pending_items_name_the_missing_section(generated: Project) -> None:
    with (PROJECT_ROOT / "docs" / "src" / "faq.toml").open("rb") as f:
        needs = {item["id"]: item["needs"] for item in tomllib.load(f)["item"]}
    encoded = _encoded_sections(_section_ranges())
    blocks = _faq_blocks((generated.out / "FAQ.md").read_text(encoding="utf-8"))
    for para, block in blocks.items():
        missing = [s for s in needs[para] if s not in encoded]
        if missing:
            assert PENDING in block, f"{para} is answered although § {missing[0]} is not encoded"
            pending_line = next(line for line in block.splitlines() if PENDING in line)
            for section in missing:
                assert f"§ {section} " in pending_line, f"{para} does not name § {section}"
        elif PENDING in block:
            pending_line = next(line for line in block.splitlines() if PENDING in line)
            assert any(f"§ {s} " in pending_line for s in needs[para]), para


# ---------------------------------------------------------------- coverage table


def _coverage(text: str) -> dict[str, list[int]]:
    rows = {}
    for m in re.finditer(r"^\| \[§ ([^\]]+)\]\(#[^)]*\) \| [^|]+ \|((?: \d+ \|){5})", text, flags=re.MULTILINE):
        rows[m.group(1)] = [int(n) for n in m.group(2).split("|") if n.strip()]
    return rows


def test_coverage_table_matches_rules_and_scenarios(generated: Project) -> None:
    ranges = _section_ranges()
    rules = load_ruleset(generated.rules)
    cited = rules.cited_rules()
    decls = [c for kind, _, c, _ in cited if kind not in PROPERTY_KINDS and c.section]
    invariants = [c for kind, _, c, _ in cited if kind in PROPERTY_KINDS]
    guards = [r.cite for m in rules.moves.values() for r in m.requires]
    decisions = [a.cite for a in rules.assumptions.values()]
    scenarios = [parse_scenario_file(p).cites for p in sorted(generated.scenarios.rglob("*.scenario"))]
    table = _coverage((generated.out / "rules.md").read_text(encoding="utf-8"))
    assert sorted(table) == sorted(ranges)
    for section in ranges:
        def count(cites: list[Citation], section: str = section) -> int:
            return sum(section in _touches(c, ranges) for c in cites)
        expected = [count(decls), count(guards), count(decisions),
                    sum(any(section in _touches(c, ranges) for c in cs) for cs in scenarios), count(invariants)]
        assert table[section] == expected, f"§ {section}: table {table[section]}, rules and scenarios {expected}"


def test_an_invariant_is_listed_under_the_sections_it_cites(project: Project) -> None:
    # The sections and paragraphs come from the outline data, so the test needs no rulebook ids of its own.
    ranges = _section_ranges()
    section = next(iter(ranges))
    first = ranges[section][0]
    code, text = _run(project)
    assert code == EXIT_OK, text
    before = _coverage((project.out / "rules.md").read_text(encoding="utf-8"))[section][4]
    (project.rules / "99_test_invariant.bao").write_text(
        f'invariant I99 "A test invariant" § {section} [P{first}] {{ holds true }}\n', encoding="utf-8")
    code, text = _run(project)
    assert code == EXIT_OK, text
    rules_md = (project.out / "rules.md").read_text(encoding="utf-8")
    assert _coverage(rules_md)[section][4] == before + 1
    assert "invariant `I99`" in rules_md


# ---------------------------------------------------------------- which scenario answers a rulebook question

CITES_P186 = """scenario "Cites the P186 paragraph, answers another question"
cites § 3.2 [P46], § FAQ [P186]
question de "Darf die aktive Person ihre eigene Ablage als Referenz nutzen?"
answer de "Nein."
question en "May the active player use her own discard as a reference?"
answer en "No."

table
  players alice bob
  alice: Spatz
  bob: Amsel
  draw: Meise
  discard: Specht
  active alice

play
  alice draw
  alice discard
  decisive reject alice pluck target=alice.1 by § 3.2 [P47]
"""


def with_answers(text: str, para: str) -> str:
    """The scenario with an `answers` line after its `cites` line."""
    head, _, rest = text.partition("cites ")
    cites, _, tail = rest.partition("\n")
    return f"{head}cites {cites}\nanswers {para}\n{tail}"


def _faq_entry(project: Project, para: str) -> str:
    return _faq_blocks((project.out / "FAQ.md").read_text(encoding="utf-8"))[para]


def test_citing_a_faq_paragraph_does_not_publish_an_answer_under_it(project: Project) -> None:
    (project.scenarios / "zz_cites_p186.scenario").write_text(CITES_P186, encoding="utf-8")
    assert _run(project)[0] == EXIT_OK
    assert "zz_cites_p186" not in _faq_entry(project, "P186")
    # Saying `answers P186` is what publishes it there.
    answering = with_answers(CITES_P186, "P186")
    (project.scenarios / "zz_cites_p186.scenario").write_text(answering, encoding="utf-8")
    assert _run(project)[0] == EXIT_OK
    assert "zz_cites_p186" in _faq_entry(project, "P186")


def test_answering_a_paragraph_that_is_no_faq_question_is_refused(project: Project) -> None:
    # P46 is cited (so the scenario parses) but is no question of the rulebook's FAQ.
    (project.scenarios / "zz_answers_p46.scenario").write_text(with_answers(CITES_P186, "P46"), encoding="utf-8")
    code, out = _run(project)
    assert code == EXIT_BAD_INPUT
    assert "`answers P46` names no question of the rulebook's FAQ" in out


def test_answers_needs_the_citation_and_both_languages() -> None:
    uncited = with_answers(CITES_P186, "P186").replace(", § FAQ [P186]", "")
    with pytest.raises(ScenarioError, match="does not cite it"):
        parse_scenario_text(uncited, "x.scenario")
    english_only = with_answers(CITES_P186, "P186").replace('question de "Darf', '# question de "Darf')
    with pytest.raises(ScenarioError, match="needs `question de/en`"):
        parse_scenario_text(english_only, "x.scenario")


def test_the_projects_own_assumptions_stand_apart_from_the_binding_decisions(generated: Project) -> None:
    text = (generated.out / "decisions.md").read_text(encoding="utf-8")
    binding, _, own = text.partition("\n## Assumptions of this project\n")
    rules = load_ruleset(PROJECT_ROOT / "rules")
    assert own and "## Binding decisions" in binding
    for ident, decl in rules.assumptions.items():
        heading = f"### {ident} {decl.title}"
        assert heading in (binding if re.fullmatch(r"D\d+", ident) else own), ident
    assert "Not binding" in own


def test_docs_refuse_a_citation_outside_the_rulebook(project: Project) -> None:
    path = project.root / "scenarios" / "turn" / "draw_excludes_take.scenario"
    text = path.read_text(encoding="utf-8")
    cites = next(line for line in text.splitlines() if line.startswith("cites "))
    path.write_text(text.replace(cites, "cites § 9.9 [P999]"), encoding="utf-8")
    code, out = _run(project)
    assert code == EXIT_BAD_INPUT
    assert "draw_excludes_take.scenario:" in out and "§ 9.9 is no section of the rulebook" in out


def _edit_scenario(project: Project, rel: str, old: str, new: str) -> Path:
    path = project.root / "scenarios" / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def test_a_question_in_one_language_only_is_not_published(project: Project) -> None:
    rel = "pluck/first_complete_call_wins.scenario"
    text = (project.root / "scenarios" / rel).read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if x.startswith("question en "))
    _edit_scenario(project, rel, line + "\n", "")
    code, out = _run(project)
    assert code == EXIT_BAD_INPUT and "first_complete_call_wins.scenario: the question is missing in en" in out


def test_an_empty_or_repeated_title_is_not_published(project: Project) -> None:
    source = project.root / "scenarios" / "pluck" / "first_complete_call_wins.scenario"
    shutil.copy(source, project.root / "scenarios" / "pluck" / "copy_of_first_call.scenario")
    code, out = _run(project)
    assert code == EXIT_BAD_INPUT and "is also the title of" in out
    (project.root / "scenarios" / "pluck" / "copy_of_first_call.scenario").unlink()
    title = next(x for x in source.read_text(encoding="utf-8").splitlines() if x.startswith("scenario "))
    _edit_scenario(project, "pluck/first_complete_call_wins.scenario", title, 'scenario ""')
    code, out = _run(project)
    assert code == EXIT_BAD_INPUT and "empty title" in out


def test_the_language_reference_lists_every_move_with_its_arguments(generated: Project) -> None:
    text = (generated.out / "language.md").read_text(encoding="utf-8")
    moves = text.split("## Moves of these rules", 1)[1]
    rules = load_ruleset(PROJECT_ROOT / "rules")
    for m in rules.moves.values():
        row = next(line for line in moves.splitlines() if line.startswith(f"| `{m.name}` "))
        for p in m.params:
            assert f"`{p.name}: {p.kind}{'?' if p.optional else ''}`" in row, (m.name, p.name)
        assert str(m.cite) in row
    assert "| `draw` (move) | only the active player may do this | none | `turn` |" in moves


def test_steps_marked_decisive_are_the_ones_the_faq_shows(project: Project) -> None:
    from baobei.docs.generate import build, replay_all
    from baobei.docs.trace import decisive

    index = build(project, replay_all(project))
    doc = next(d for d in index.scenarios if d.rel.endswith("take_must_replace_an_own_card.scenario"))
    shots, more = decisive(doc)
    assert [shot.text.split(":")[0] for shot in shots] == ["reject alice take slot=alice.2", "alice take slot=alice.3"]
    assert more == 0
    # Without the marks there is no guess: the docs refuse to publish the answer, naming the scenario.
    source = project.root / "scenarios" / "turn" / "take_must_replace_an_own_card.scenario"
    source.write_text(source.read_text(encoding="utf-8").replace("  decisive ", "  "), encoding="utf-8")
    index = build(project, replay_all(project))
    doc = next(d for d in index.scenarios if d.rel.endswith("take_must_replace_an_own_card.scenario"))
    assert decisive(doc) == ([], 0)
    code, out = _run(project)
    assert code == EXIT_BAD_INPUT
    assert "take_must_replace_an_own_card.scenario: the scenario answers a question but marks no step" in out


def test_a_scenario_that_only_deals_shows_its_setup(project: Project) -> None:
    from baobei.docs.generate import build, replay_all
    from baobei.docs.trace import decisive

    index = build(project, replay_all(project))
    doc = next(d for d in index.scenarios if d.rel.endswith("deal_two_players.scenario"))
    shots, _ = decisive(doc)
    assert [shot.kind for shot in shots] == ["setup"]
