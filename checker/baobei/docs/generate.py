"""`baobei docs [--check]`: generate docs/ (FAQ, rule reference, decisions) from rules/ and scenarios/.

Only passing scenarios are published: when one fails, nothing is written and the command exits 1
naming it. With --check nothing is written either; the command exits 1 when a committed file
differs from what would be generated, so CI catches stale docs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from ..language.errors import BaoError, SourceError
from ..language.load import load_ruleset
from ..language.output import write_output
from ..language.paths import PROJECT_ROOT, default_scenarios_dir
from ..referee.logfile import schema_text
from ..scenarios.parser import parse_scenario_file, scenario_files
from ..scenarios.runner import engine_for, run_scenario
from .book import LANGUAGES, load_book
from .citations import bad_in_rules, bad_in_scenario
from .index import Index, ScenarioDoc, build_index
from .language import render_language
from .render import Links, faq_status, render_decisions, render_faq, render_rules
from .stamp import inputs_digest, judged, stamped, still_current, unstamped
from .trace import unmarked

EXIT_OK, EXIT_FAIL, EXIT_BAD_INPUT = 0, 1, 2

# Every generated file and the function that writes it.
RENDERERS: dict[str, Callable[[Index, Links], str]] = {
    "FAQ.md": render_faq,
    "rules.md": render_rules,
    "decisions.md": render_decisions,
    "language.md": render_language,
    # The game log's format, published as the referee reads it (the package's own copy).
    "log.schema.json": lambda index, links: schema_text(),
}
DATA_DIR = Path("docs") / "src"


@dataclass
class Replays:
    passed: list[ScenarioDoc] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # "path: message", for the user
    malformed: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Project:
    """Where the generator reads and writes; tests point it at a copy of the project."""

    root: Path
    rules: Path
    scenarios: Path
    out: Path

    @classmethod
    def at(cls, root: Path, rules: Path | None = None, out: Path | None = None) -> Project:
        return cls(root, rules or root / "rules", root / "scenarios", out or root / "docs")

    @property
    def links(self) -> Links:
        return Links(self.root, self.out)


def replay_all(project: Project) -> Replays:
    """Replay every scenario with table snapshots (the docs show the tables around the decisive steps)."""
    eng = engine_for(project.rules)
    links = project.links
    out = Replays()
    for path in scenario_files([project.scenarios]):
        rel = links.shown(path)
        try:
            scenario = parse_scenario_file(path)
            result = run_scenario(scenario, eng, snapshots=True)
        except SourceError as err:
            out.malformed.append(f"{rel}: {err}")
            continue
        if result.failure is None:
            out.passed.append(ScenarioDoc(path, rel, scenario, result))
        else:
            out.failed.append(f"{rel}:{result.failure.pos.line}: {result.failure.message}")
    return out


def build(project: Project, replays: Replays) -> Index:
    """The index of what gets published: rules, the rulebook outline and the passing scenarios."""
    book = load_book(project.root / DATA_DIR)
    return build_index(book, load_ruleset(project.rules), replays.passed)


def generate(project: Project, index: Index) -> dict[str, str]:
    """File name -> content of every generated file."""
    return {name: render(index, project.links) for name, render in RENDERERS.items()}


def stale_files(project: Project, files: dict[str, str]) -> list[str]:
    stale = []
    for name, text in files.items():
        target = project.out / name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            stale.append(project.links.shown(target))
    return stale


# The file `baobei verify` judges into: generated with the rest, it takes the proofs' time (about 40 s).
PROOFS_FILE = "invariants.md"


def proofs_page(project: Project, out: TextIO, check: bool) -> str:
    """docs/invariants.md: the committed page while its stamp says nothing it was judged from changed, else
    judged again (`baobei verify`) and stamped. A check whose judgement gives the committed page again passes
    although the stamp differs (another Python, say): the stamp only saves time, it decides nothing."""
    inputs = inputs_digest(project.rules, default_scenarios_dir())
    target = project.out / PROOFS_FILE
    try:
        before: str | None = target.read_text(encoding="utf-8")
    except OSError:
        before = None
    if before is not None and still_current(before, inputs):
        print(f"{PROOFS_FILE}: judged from these rules, scenarios and code already (its stamp); not judged again",
              file=out)
        return before
    from ..proofs.verify import invariants_doc  # imports z3: only a run with the proofs pays for it

    print(f"judging the rules' properties for {PROOFS_FILE} (baobei verify) ...", file=out, flush=True)
    body = judged(invariants_doc(project.rules))
    return before if check and before is not None and unstamped(before) == body else stamped(body, inputs)


def run(project: Project, check: bool = False, stream: TextIO | None = None, proofs: bool = True) -> int:
    """Generate (or with check=True compare) the docs; the exit code of `baobei docs`. `proofs`: also
    judge the rules' properties into docs/invariants.md."""
    out = stream or sys.stdout
    if not check and project.out.exists() and not project.out.is_dir():
        # Said before any work: the proofs alone take the better part of a minute.
        raise BaoError(f"{project.out}: is a file; --out names the directory the docs are written to")
    replays = replay_all(project)
    for line in replays.malformed:
        print(f"ERROR {line}", file=out)
    for line in replays.failed:
        print(f"FAIL  {line}", file=out)
    if replays.failed or replays.malformed:
        print(f"docs not published: {len(replays.failed)} failing and {len(replays.malformed)} malformed "
              "scenario(s); fix them and run `baobei docs` again", file=out)
        return EXIT_BAD_INPUT if replays.malformed else EXIT_FAIL
    index = build(project, replays)
    unknown = not_rulebook_faq(index) + unpublishable(index) + bad_in_rules(index.book, index.rules)
    unknown += [msg for doc in index.scenarios for msg in bad_in_scenario(index.book, doc.scenario)]
    for line in unknown:
        print(f"ERROR {line}", file=out)
    if unknown:
        return EXIT_BAD_INPUT
    files = generate(project, index)
    if proofs:
        files[PROOFS_FILE] = proofs_page(project, out, check)
    if check:
        stale = stale_files(project, files)
        for name in stale:
            print(f"stale: {name} differs from what `baobei docs` generates", file=out)
        if stale:
            print("run `baobei docs` and commit the result", file=out)
            return EXIT_FAIL
        print(f"docs up to date ({len(files)} files, {len(replays.passed)} scenarios)", file=out)
        return EXIT_OK
    if project.out.exists() and not project.out.is_dir():
        raise BaoError(f"{project.out}: is a file; --out names the directory the docs are written to")
    try:
        project.out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise BaoError(f"{project.out}: cannot make the directory: {err.strerror}") from None
    for name, text in files.items():
        write_output(project.out / name, text)
        print(f"wrote {project.links.shown(project.out / name)}", file=out)
    print(_summary(index), file=out)
    return EXIT_OK


def unpublishable(index: Index) -> list[str]:
    """Scenarios the FAQ cannot publish honestly: no title, a question or answer in one language only,
    the title of another scenario (it would appear twice), or a question whose answer marks no step."""
    out: list[str] = []
    first: dict[str, str] = {}
    for doc in index.scenarios:
        sc = doc.scenario
        if not sc.title.strip():
            out.append(f"{doc.rel}: the scenario has an empty title")
        elif sc.title in first:
            out.append(f"{doc.rel}: the title {sc.title!r} is also the title of {first[sc.title]}")
        else:
            first[sc.title] = doc.rel
        if sc.questions and unmarked(doc):
            out.append(f"{doc.rel}: the scenario answers a question but marks no step `decisive`; mark the "
                       "moves or rejections that carry its answer, the FAQ shows them")
        for what, texts in (("question", sc.questions), ("answer", sc.answers)):
            if texts and set(texts) != set(LANGUAGES):
                missing = ", ".join(lang for lang in LANGUAGES if lang not in texts)
                out.append(f"{doc.rel}: the {what} is missing in {missing}; the FAQ publishes "
                           + " and ".join(LANGUAGES))
    return out


def not_rulebook_faq(index: Index) -> list[str]:
    """`answers Pn` lines naming a paragraph that is not one of the rulebook's FAQ questions."""
    known = {item.para for item in index.book.faq}
    return [f"{doc.rel}: `answers {para}` names no question of the rulebook's FAQ"
            for doc in index.scenarios for para in doc.scenario.faq if para not in known]


def _summary(index: Index) -> str:
    statuses = faq_status(index)
    answered = sum(st.answered for st in statuses)
    return (f"{len(index.scenarios)} scenarios; rulebook FAQ: {answered} answered, "
            f"{len(statuses) - answered} pending")


def run_docs(args: argparse.Namespace) -> int:
    rules = Path(args.rules) if args.rules else None
    out = Path(args.out) if args.out else None
    return run(Project.at(PROJECT_ROOT, rules, out), check=bool(args.check), proofs=not args.no_proofs)
