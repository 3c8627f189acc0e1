"""The docs site: built strict with mkdocs-material, offline, and checked in a real browser (the system's
Chromium, headless): every picture renders with a size, search finds the FAQ in German and in English,
no console error, nothing fetched from the internet."""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest
from baobei.docs.generate import Project
from baobei.docs.site import build_site
from baobei.language.errors import BaoError
from baobei.language.paths import PROJECT_ROOT

# BAOBEI_CHROMIUM: a Chromium that is not on the PATH (.ci/run unpacks one from the Debian packages).
CHROMIUM = os.environ.get("BAOBEI_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
# The site is built once: every test of this module runs in the same process (--dist loadscope).
# CI installs Chromium (.ci/run): there, a missing browser is a failure, never a silent skip.
needs_browser = pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                                   reason="no Chromium on this machine (CI installs it)")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    report = build_site(Project.at(PROJECT_ROOT), out)
    assert report.pages > 100 and report.pictures > 50
    return out


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    """The site served on localhost: the theme's search runs in a web worker, which file:// forbids."""
    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def test_the_site_has_every_page_and_no_external_resource(site: Path) -> None:
    for page in ("index.html", "faq.html", "rules.html", "decisions.html", "language.html", "invariants.html",
                 "scenarios/index.html", "source/01_deck.html"):
        assert (site / page).is_file(), page
    faq = (site / "faq.html").read_text(encoding="utf-8")
    assert "Frage" in faq and "Question" in faq and ".svg" in faq
    pictures = re.findall(r'<img [^>]*src="([^"]+\.svg)"', faq)
    assert len(pictures) > 100
    for src in pictures:  # every picture exists and is an SVG drawing (the browser test draws the first ones)
        root = ElementTree.parse(site / src).getroot()
        box = [float(v) for v in root.get("viewBox", "").split()]
        assert root.tag.endswith("svg") and len(box) == 4 and box[2] > 0 and box[3] > 0, src
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text, page
        assert 'src="http' not in text and "<link href=\"http" not in text, page


def test_scenario_pages_show_highlighted_source(site: Path) -> None:
    page = (site / "scenarios" / "pluck-defensive-own-draw.html").read_text(encoding="utf-8")
    assert 'class="highlight"' in page and '<span class="kd">scenario</span>' in page


def test_a_broken_link_fails_the_build(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(PROJECT_ROOT / "rules", root / "rules")
    shutil.copytree(PROJECT_ROOT / "scenarios" / "turn", root / "scenarios" / "turn")  # a few: a quick build
    shutil.copytree(PROJECT_ROOT / "docs" / "src", root / "docs" / "src")
    answer = root / "scenarios" / "turn" / "take_must_replace_an_own_card.scenario"
    text = answer.read_text(encoding="utf-8")
    answer.write_text(text.replace('answer en "', 'answer en "See [the rules](missing.md). ', 1), encoding="utf-8")
    with pytest.raises(BaoError, match="did not build"):
        build_site(Project.at(root), tmp_path / "out")


@needs_browser
def test_the_site_in_a_real_browser(server: str, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    external: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 390, "height": 844})  # a phone
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("request", lambda req: external.append(req.url) if not req.url.startswith(server) else None)
        page.goto(f"{server}/faq.html", wait_until="networkidle")
        # The pictures load lazily (every one is checked on disk by the test above): the first 40 are
        # loaded now and must be drawn with a size.
        assert page.eval_on_selector_all("img[src$='.svg']", "imgs => imgs.length > 40 && "
                                         "imgs.every(i => i.loading === 'lazy')")
        sizes = page.eval_on_selector_all(
            "img[src$='.svg']", "imgs => Promise.all(imgs.slice(0, 40).map(i => { i.loading = 'eager'; "
            "return i.decode().then(() => [i.naturalWidth, i.getBoundingClientRect().width]); }))")
        assert len(sizes) == 40 and all(natural > 0 and shown > 0 for natural, shown in sizes)
        page.screenshot(path=str(tmp_path / "faq.png"), full_page=False)
        assert (tmp_path / "faq.png").stat().st_size > 10_000
        for word, wanted in (("Ablage", "faq.html"), ("discard", "faq.html")):
            page.goto(f"{server}/index.html?q={word}", wait_until="networkidle")
            page.wait_for_selector(".md-search-result__item", timeout=15_000)
            links = page.eval_on_selector_all(".md-search-result__item a", "as => as.map(a => a.href)")
            assert any(wanted in link for link in links), (word, links[:5])
        page.goto(f"{server}/scenarios/pluck-defensive-own-draw.html", wait_until="networkidle")
        assert page.eval_on_selector_all("img[src$='.svg']", "imgs => imgs.every(i => i.naturalWidth > 0)")
        browser.close()
    assert not errors, errors
    assert not external, external[:5]
