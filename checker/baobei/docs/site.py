"""The docs as a static website (mkdocs-material): the FAQ with pictures of the table, the rule reference,
decisions, invariants, the language reference, and one page per scenario with its highlighted source.

The pages are the generated docs, rendered with links that point inside the site (a rules file is a page
with its highlighted source, a scenario is a page of its own) and with the decisive steps drawn as SVG
pictures before and after the step. The site works offline: the theme's web fonts are off and nothing is
fetched from elsewhere. The build is strict, so a broken link fails it.
"""

from __future__ import annotations

import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ..language.errors import BaoError
from ..scenarios.runner import engine_for
from .generate import Project, Replays, build, replay_all
from .index import Index, ScenarioDoc
from .language import render_language
from .pictures import shot_pictures
from .render import Links, render_decisions, render_faq, render_rules
from .trace import Shot, decisive

SITE_NAME = "BAO BEI rules"
PICTURES = "pictures"


@dataclass(frozen=True)
class SiteReport:
    out: Path
    pages: int
    pictures: int
    seconds: float
    size: int  # bytes of the built site


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


class SiteLinks(Links):
    """Links from the site's top pages: a rules file is its source page, a scenario its own page."""

    def line_href(self, path: Path, line: int) -> str:
        return f"source/{path.stem}.md#__codelineno-0-{line}"  # the anchors of the highlighted source page

    def scenario(self, doc: ScenarioDoc) -> str:
        return f"[{doc.scenario.title}](scenarios/{scenario_page(doc)})"


def step_line(shot: Shot) -> str:
    """A decisive step in one line of Markdown: the move, or the move refused with the reason and rule."""
    refusal = shot.refusal
    if refusal is None:
        return f"**Line {shot.line}:** `{shot.text}`"
    return f"**Line {shot.line}:** refused: `{refusal.move}`: {refusal.reason} ({refusal.cite})"


def scenario_page(doc: ScenarioDoc) -> str:
    return slug(doc.rel.removeprefix("scenarios/").removesuffix(".scenario")) + ".md"


class Pages:
    """Writes the Markdown pages and pictures of the site into a docs directory."""

    def __init__(self, project: Project, index: Index, docs: Path) -> None:
        self.project = project
        self.index = index
        self.engine = engine_for(project.rules)
        self.docs = docs
        self.pictures = 0
        self.links = SiteLinks(project.root, docs)

    def write(self, name: str, text: str) -> None:
        path = self.docs / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    # ------------------------------------------------------------ pictures
    def shot_pictures(self, doc: ScenarioDoc, shot: Shot, prefix: str) -> list[str]:
        """The Markdown of one decisive step: its text and the table before and after, drawn."""
        lines = [step_line(shot), ""]
        pictures = shot_pictures(self.engine, shot, numbered=False)
        if pictures is None:
            return lines
        stem = f"{slug(doc.rel)}-line{shot.line}"
        for when, svg in zip(("before", "after"), pictures, strict=True):
            self.write(f"{PICTURES}/{stem}-{when}.svg", svg)
            self.pictures += 1
        # Lazy: the FAQ holds hundreds of pictures, and a browser that draws them all before the page
        # shows takes seconds (8 s in headless Chromium); each is drawn when it scrolls into view.
        drawn = "{ .bao-table loading=lazy }"
        return [*lines, f"![The table before line {shot.line}]({prefix}{PICTURES}/{stem}-before.svg){drawn} "
                f"![The table after line {shot.line}]({prefix}{PICTURES}/{stem}-after.svg){drawn}", ""]

    def proof(self, index: Index, links: Links, doc: ScenarioDoc) -> list[str]:
        shots, more = decisive(doc)
        lines = [f"Decisive steps of {links.scenario(doc)}:", ""]
        for shot in shots:
            lines += self.shot_pictures(doc, shot, "")
        if more:
            lines += [f"({more} more decisive step(s) on the scenario's page.)", ""]
        return lines

    # ------------------------------------------------------------ pages
    def top_pages(self) -> None:
        index, links = self.index, self.links
        self.write("index.md", self.home())
        self.write("faq.md", render_faq(index, links, self.proof))
        self.write("rules.md", render_rules(index, links))
        self.write("decisions.md", render_decisions(index, links))
        self.write("language.md", render_language(index, links))
        invariants = self.project.out / "invariants.md"
        if invariants.is_file():  # judged by `baobei verify` (docs/invariants.md), not again here
            self.write("invariants.md", invariants.read_text(encoding="utf-8"))

    def home(self) -> str:
        return "\n".join([
            f"# {SITE_NAME}", "",
            "The rulebook of BAO BEI as executable rules: every answer here is proved by a scenario that "
            "the rules replay. Jede Antwort ist durch ein Szenario belegt, das die Regeln nachspielen.", "",
            "- [FAQ (Deutsch und English)](faq.md): questions and answers with pictures of the table",
            "- [Rule reference](rules.md): every section of the rulebook, its rules, guards and scenarios",
            "- [Decisions and assumptions](decisions.md): what the rulebook leaves open, decided",
            "- [Invariants](invariants.md): what the rules promise, proved or searched",
            "- [The rules language](language.md): statements, builtins and the moves of these rules",
            "- [Scenarios](scenarios/index.md): every rule clarification with its source",
            "- Rules files: " + ", ".join(f"[{p.name}](source/{p.stem}.md)" for p in self.rule_files()), ""])

    def rule_files(self) -> list[Path]:
        return sorted(self.project.rules.glob("*.bao"))

    def sources(self) -> None:
        for path in self.rule_files():
            text = path.read_text(encoding="utf-8")
            self.write(f"source/{path.stem}.md", f"# rules/{path.name}\n\n```bao linenums=\"1\"\n{text}```\n")

    def scenarios(self) -> None:
        rows = []
        for doc in self.index.scenarios:
            page = scenario_page(doc)
            rows.append(f"| [{doc.scenario.title}]({page}) | `{doc.rel}` |")
            self.write(f"scenarios/{page}", self.scenario(doc))
        self.write("scenarios/index.md", "\n".join(["# Scenarios", "", "| Scenario | File |", "|---|---|", *rows,
                                                     ""]))

    def scenario(self, doc: ScenarioDoc) -> str:
        sc = doc.scenario
        lines = [f"# {sc.title}", "", f"`{doc.rel}` — cites " + "; ".join(str(c) for c in sc.cites) + ".", ""]
        for lang, label in (("de", "Frage"), ("en", "Question")):
            if lang in sc.questions:
                lines += [f"**{label}:** {sc.questions[lang]}", "", f"**{'Antwort' if lang == 'de' else 'Answer'}:** "
                          f"{sc.answers.get(lang, '')}", ""]
        shots, _ = decisive(doc)
        if shots:
            lines += ["## Decisive steps", ""]
            for shot in shots:
                lines += self.shot_pictures(doc, shot, "../")
        source = Path(doc.path).read_text(encoding="utf-8")
        return "\n".join([*lines, "## Source", "", "```scenario", source.rstrip("\n"), "```", ""])


def mkdocs_config(docs: Path, out: Path) -> str:
    """The site's mkdocs.yml: material without web fonts, search in English and German, strict."""
    nav = ["  - Home: index.md", "  - FAQ: faq.md", "  - Rule reference: rules.md", "  - Decisions: decisions.md",
           "  - Invariants: invariants.md", "  - Language: language.md", "  - Scenarios: scenarios/index.md"]
    if not (docs / "invariants.md").exists():
        nav.remove("  - Invariants: invariants.md")
    return "\n".join([
        f"site_name: {SITE_NAME}", f"docs_dir: {docs}", f"site_dir: {out}", "strict: true",
        "use_directory_urls: false",
        "theme:", "  name: material", "  font: false", "  language: en", "  features:",
        "    - navigation.top", "    - search.highlight",
        "plugins:", "  - search:", "      lang: [en, de]",
        "extra_css:", "  - site.css",
        "markdown_extensions:", "  - attr_list", "  - tables", "  - toc:", "      permalink: true",
        "  - pymdownx.highlight:", "      anchor_linenums: true", "      use_pygments: true",
        "  - pymdownx.superfences",
        "validation:", "  omitted_files: ignore", "  unrecognized_links: warn",
        "nav:", *nav, ""])


SITE_CSS = """\
/* Pictures of the table: side by side where there is room, one below the other on a phone. */
img.bao-table { width: 100%; max-width: 32rem; display: inline-block; vertical-align: top; margin: 0 0.5rem 1rem 0; }
"""


def build_site(project: Project, out: Path) -> SiteReport:
    """Build the site into `out`; a failing or malformed scenario stops it, like `baobei docs`."""
    from mkdocs.commands.build import build as mkdocs_build  # the site's tools: only this command needs them
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    began = time.perf_counter()
    replays: Replays = replay_all(project)
    if replays.failed or replays.malformed:
        raise BaoError(f"site not built: {len(replays.failed)} failing and {len(replays.malformed)} malformed "
                       "scenario(s); `baobei check` names them")
    index = build(project, replays)
    with tempfile.TemporaryDirectory(prefix="baobei-site-") as work:
        docs = Path(work) / "docs"
        pages = Pages(project, index, docs)
        pages.top_pages()
        pages.sources()
        pages.scenarios()
        pages.write("site.css", SITE_CSS)
        config = Path(work) / "mkdocs.yml"
        config.write_text(mkdocs_config(docs, out.resolve()), encoding="utf-8")
        try:
            mkdocs_build(load_config(str(config)))
        except (MkDocsException, SystemExit) as err:
            raise BaoError(f"the site did not build (strict: a broken link or a warning fails it): {err}") from None
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    page_count = sum(1 for _ in out.rglob("*.html"))
    return SiteReport(out, page_count, pages.pictures, time.perf_counter() - began, size)
