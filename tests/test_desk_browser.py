"""The rules desk in a real browser (the system's Chromium, headless, driven by Playwright): set up a table by
its form, play a move by clicking a card and its move, get a refusal with its rule, undo and redo, step
through a loaded scenario and a game log, export and replay the export; and three of the rulebook's FAQ
situations built in the desk by clicking, each export checked against its scenario in scenarios/. A page that
fetches anything from outside this machine fails the test.

`python tests/test_desk_browser.py --screenshot docs/desk.png` takes the README's picture of the desk.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import pytest
from baobei.desk.app import Desk, create_app
from baobei.desk.server import bind, url_of
from baobei.desk.timeline import normal_table
from baobei.language.paths import PROJECT_ROOT
from baobei.scenarios import syntax as sc
from baobei.scenarios.parser import parse_scenario_file, parse_scenario_text
from baobei.scenarios.runner import run_scenario
from baobei.scenarios.setup import build_table, to_move
from baobei.scenarios.write import table_lines

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Route

# BAOBEI_CHROMIUM: a Chromium that is not on the PATH (.ci/run unpacks one from the Debian packages).
CHROMIUM = os.environ.get("BAOBEI_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
# CI provides Chromium (.ci/run): there, a missing browser is a failure, never a silent skip.
needs_browser = pytest.mark.skipif(CHROMIUM is None and not os.environ.get("CI"),
                                   reason="no Chromium on this machine (CI provides it)")
pytestmark = needs_browser
LAUNCH_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--no-first-run"]
LOCAL = {"127.0.0.1", "localhost"}

# Three of the rulebook's FAQ situations: a defensive pluck with the own draw (and a refused pluck), a pluck
# by the BAO caller behind her active shield (the BAO caller and the shield set up), the caller's pluck
# during the last turns (a phase set up).
FAQ = ["pluck/defensive_own_draw.scenario", "shield/caller_defensive_pluck.scenario",
       "bao/caller_plucks_during_last_turns.scenario"]



@dataclass
class Served:
    url: str
    desk: Desk


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    """The desk served by uvicorn on a free port of 127.0.0.1, in a thread of the test's process."""
    import uvicorn

    app = create_app()
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started, "the desk did not start"
    yield Served(url_of(sock).rstrip("/"), app.state.desk)
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None, "no Chromium: install it, or set BAOBEI_CHROMIUM (CI must run this test)"
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A page that may fetch from this machine only: any other request is refused, and fails the test."""
    outside: list[str] = []
    errors: list[str] = []

    def guard(route: Route) -> None:
        host = urlparse(route.request.url).hostname
        if host in LOCAL:
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    tab = context.new_page()
    tab.route("**/*", guard)
    tab.on("pageerror", lambda exc: errors.append(str(exc)))
    tab.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    yield tab
    context.close()
    assert not outside, f"the desk fetched from outside this machine: {outside[:5]}"
    assert not errors, errors


# ---------------------------------------------------------------- driving the desk
def deal(page: Page, url: str, players: tuple[str, ...]) -> None:
    page.goto(f"{url}/setup")
    page.fill("#d-players", " ".join(players))
    page.fill("#d-seed", "1")
    page.click("#deal-button")
    page.wait_for_url(f"{url}/")


def slot_knowers(table: sc.Table) -> dict[tuple[int, int], set[int]]:
    """Who knows each slot's card by the table's `knows` lines (a slot's card: nobody else)."""
    out: dict[tuple[int, int], set[int]] = {}
    names = list(table.players)
    for who, refs, _, knows in table.knows:
        for ref in refs:
            assert ref.kind == "slot", "the form sets who knows a slot's card; others are table lines"
            assert ref.index is not None
            seats = out.setdefault((names.index(ref.where), ref.index), set())
            (seats.add if knows else seats.discard)(names.index(who))
    return out


def set_up(page: Page, url: str, table: sc.Table) -> None:
    """Set the table up by the setup form: deal to its players, then every field as the table says."""
    deal(page, url, table.players)
    page.goto(f"{url}/setup")
    written = {name: cards for name, cards, _ in table.lines}
    knowers = slot_knowers(table)
    for p, name in enumerate(table.players):
        row = written.get(name, ())
        fields = page.locator(f"select[name^='slot:{p}:']").count()
        assert fields >= len(row), f"{name}: {len(row)} slots, the form offers {fields}"
        for i in range(1, fields + 1):
            value = ("_" if row[i - 1] is None else row[i - 1]) if i <= len(row) else ""
            page.select_option(f"#slot-{p}-{i}", value)
            for q in range(len(table.players)) if i <= len(row) else ():
                page.set_checked(f"input[name='knows:{p}:{i}'][value='{q}']", q in knowers.get((p, i), set()))
        held = [species for who, species, _ in table.holds if who == name]
        page.select_option(f"#hand-{p}", held[0] if held else "")
    for pile in page.locator("input[name^='pile:']").all():
        label = (pile.get_attribute("name") or "").removeprefix("pile:")
        cards = written.get(label, written.get(f"{label}_pile", ()))
        pile.fill(", ".join(c for c in cards if c is not None))
    page.select_option("#f-active", table.active[0] if table.active else table.players[0])
    page.select_option("#f-phase", table.phase or "")
    page.fill("#f-round", str(table.round[0]) if table.round else "")
    page.fill("#f-turn", str(table.turn[0]) if table.turn else "")
    page.fill("#f-seed", str(table.seed) if table.seed else "")
    for field in page.locator("input[name^='var:']").all():
        field.fill("")
    for name, index, given, _ in table.sets:
        key = name + (f"[{index}]" if index else "")
        page.fill(f"input[name='var:{key}']", str(given))
    page.fill("#f-other", "")
    page.click("#setup-button")
    page.wait_for_url(f"{url}/")


def click_move(page: Page, text: str) -> None:
    """Click a legal move's button (a folded kind of move is opened first, as a person would)."""
    button = page.locator(f"button.move[data-move='{text}']")
    assert button.count() == 1, f"{text} is not offered as a legal move"
    button.evaluate("b => { b.closest('details').open = true; }")
    button.click()
    page.wait_for_load_state()


def try_move(page: Page, text: str) -> None:
    page.fill("#try-move", text)
    page.click("#try-button")
    page.wait_for_load_state()


def steps_of(served: Served) -> list[str]:
    return [step.line() for step in served.desk.session.doc.steps]


def export(page: Page, path: Path, **fields: str) -> str:
    for name, value in fields.items():
        page.fill(f"#x-{name}", value)
    with page.expect_download() as download:
        page.click("#export-button")
    download.value.save_as(path)
    return path.read_text(encoding="utf-8")


# ---------------------------------------------------------------- tests
def test_set_up_play_refuse_undo_redo_export_and_replay(served: Served, page: Page, tmp_path: Path) -> None:
    url = served.url
    table = parse_scenario_text("scenario \"t\"\ncites § 2.2 [P24]\ntable\n  players ann ben\n"
                                "  ann: Spatz, Amsel, Kranich\n  ben: Meise, Star, _, Specht\n  draw: Kranich, Ara\n"
                                "  discard: Elster\n  active ann\n  ann knows ann.1\nplay\n", "t").setup
    assert isinstance(table, sc.Table)
    set_up(page, url, table)
    eng = served.desk.eng
    assert served.desk.session.doc.table == normal_table(eng, build_table(eng, table))
    assert page.inner_text("#position").startswith("Round 1, turn 1")
    assert "ann.1" in page.inner_text("#knows") and "Spatz" in page.inner_text("#knows")

    # A move by clicking: the draw, then a card of the picture finds the moves that name it.
    click_move(page, "ann draw")
    assert "What the move did" in page.inner_text("#events") and "§" in page.inner_text("#events")
    page.locator("#picture svg g", has=page.locator("title", has_text="ann.2:")).first.click()
    hits = page.eval_on_selector_all("button.move.hit", "bs => bs.map(b => b.dataset.move)")
    assert "ann keep slot=ann.2" in hits and all("ann.2" in h for h in hits)
    page.click("button.move.hit[data-move='ann keep slot=ann.2']")
    page.wait_for_load_state()
    assert steps_of(served) == ["ann draw", "ann keep slot=ann.2"]

    # A refused move, typed: the decisive rule with its section and paragraphs, and every other reason.
    try_move(page, "ann draw")
    refusal = page.inner_text("#refusal")
    assert "Refused" in refusal and "§" in refusal and "[P" in refusal and "decisive" in refusal.lower()
    reasons = served.desk.session.frame.rejection
    assert reasons is not None and page.locator("#refusal li").count() == len(reasons.all())
    assert steps_of(served)[-1].startswith("reject ann draw by §")

    # Undo and redo, by their buttons.
    page.click("#undo")
    page.wait_for_load_state()
    assert page.locator("#refusal").count() == 0 and len(steps_of(served)) == 2
    page.click("#redo")
    page.wait_for_load_state()
    assert page.locator("#refusal").count() == 1 and len(steps_of(served)) == 3

    # Export, and the export replays as it is (in process: the scenario runner).
    text = export(page, tmp_path / "desk.scenario", title="Keep after a draw", question_en="May ann draw twice?")
    assert 'question en "May ann draw twice?"' in text and 'answer de ""' in text
    result = run_scenario(parse_scenario_text(text, "desk.scenario"), eng)
    assert result.passed, result.failure


def test_step_through_a_loaded_scenario_and_a_game_log(served: Served, page: Page, tmp_path: Path) -> None:
    url = served.url
    page.goto(f"{url}/load")
    page.select_option("#l-path", FAQ[0])
    page.click("#load-path-button")
    page.wait_for_url(f"{url}/")
    steps = len(served.desk.session.doc.steps)
    assert steps > 5 and page.inner_text(".where") == f"step 0 of {steps}"
    page.click("#forward")
    page.wait_for_load_state()
    assert page.inner_text(".where") == f"step 1 of {steps}" and "What the move did" in page.inner_text("#play")
    page.click("#last")
    page.wait_for_load_state()
    page.click("#back")
    page.wait_for_load_state()
    assert page.inner_text(".where") == f"step {steps - 1} of {steps}"

    # A game log, chosen as a file of this computer (the page reads it into the form).
    from baobei.referee.write import LogWriter
    from baobei.scenarios.runner import engine_for

    eng = engine_for(None)
    writer = LogWriter(eng, PROJECT_ROOT / "rules", ["p1", "p2"], 4)
    rng = random.Random(4)
    played = 0
    for _ in range(30):
        move = eng.random_move(writer.st, rng)
        if move is None:
            break
        writer.move(move)
        played += 1
    log = tmp_path / "game.jsonl"
    log.write_text(writer.text(), encoding="utf-8")
    page.goto(f"{url}/load")
    page.set_input_files("#l-file", str(log))
    page.wait_for_function("document.getElementById('l-text').value.length > 0")
    page.click("#load-button")
    page.wait_for_url(f"{url}/")
    assert played > 10 and len(served.desk.session.doc.steps) == played and not served.desk.session.replay_problem
    page.click("#last")
    page.wait_for_load_state()
    assert served.desk.session.at == len(served.desk.session.frames) - 1


@pytest.mark.parametrize("name", FAQ)
def test_a_faq_situation_built_in_the_desk_exports_its_scenario(served: Served, page: Page, tmp_path: Path,
                                                                name: str) -> None:
    """Build the FAQ's table with the setup form, play its moves by clicking them, type its refused moves, mark
    its decisive steps; the export holds the same moves and replays, and the scenario's own play, from the
    export's table, reaches the same expectations."""
    original = parse_scenario_file(PROJECT_ROOT / "scenarios" / name)
    assert isinstance(original.setup, sc.Table) and original.questions
    url, eng = served.url, served.desk.eng
    set_up(page, url, original.setup)
    assert served.desk.session.doc.table == normal_table(eng, build_table(eng, original.setup))
    wanted = []
    for step in original.steps:
        if not isinstance(step, sc.DoMove | sc.Reject):
            continue
        st = served.desk.session.state
        text = eng.describe(st, to_move(eng, st, step.player, step.move, step.args, step.pos))
        if isinstance(step, sc.Reject):
            try_move(page, text)
            shown = page.inner_text("#refusal")
            assert str(step.cite).split(" [")[0] in shown and "[P" in shown, shown
        else:
            click_move(page, text)
        if step.decisive:
            page.click(f"#decisive-{len(served.desk.session.doc.steps)}")
            page.wait_for_load_state()
        wanted.append(moves_of_step(step, text))
    q, a = original.questions, original.answers
    text = export(page, tmp_path / "faq.scenario", title=original.title, question_de=q["de"], answer_de=a["de"],
                  question_en=q["en"], answer_en=a["en"])
    exported = parse_scenario_text(text, "faq.scenario")
    got = [moves_of_step(s, " ".join([s.player, s.move, *(f"{k}={v}" for k, v in s.args)]))
           for s in exported.steps if isinstance(s, sc.DoMove | sc.Reject)]
    assert got == wanted
    result = run_scenario(exported, eng)
    assert result.passed, result.failure
    # The scenario's own play (its moves, refusals and expectations) from the exported table.
    source = (PROJECT_ROOT / "scenarios" / name).read_text(encoding="utf-8")
    own_play = source[source.index("\nplay\n") + 1:]
    combined = text[: text.index("\nplay\n") + 1] + own_play
    again = run_scenario(parse_scenario_text(combined, "combined.scenario"), eng)
    assert again.passed, again.failure
    first = run_scenario(original, eng)
    assert first.state is not None and result.state is not None
    assert table_lines(eng, first.state) == table_lines(eng, result.state)


def moves_of_step(step: sc.DoMove | sc.Reject, text: str) -> tuple[str, str, bool]:
    """A step as the comparison sees it: moved or refused, the move's canonical text, decisive or not."""
    return ("reject" if isinstance(step, sc.Reject) else "move", text, step.decisive)


# ---------------------------------------------------------------- the README's picture
def screenshot(path: Path) -> None:
    """The desk after a refused move in the first FAQ situation, for docs/desk.png."""
    import uvicorn
    from playwright.sync_api import sync_playwright

    app = create_app()
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    url = url_of(sock).rstrip("/")
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        page: Any = chromium.new_page(viewport={"width": 1280, "height": 1000})
        original = parse_scenario_file(PROJECT_ROOT / "scenarios" / FAQ[0])
        assert isinstance(original.setup, sc.Table)
        set_up(page, url, original.setup)
        click_move(page, "alice draw")
        try_move(page, "bob pluck target=bob.1")
        page.locator("#picture svg g", has=page.locator("title", has_text="alice.1:")).first.click()
        page.screenshot(path=str(path), full_page=False)
        chromium.close()
    server.should_exit = True


if __name__ == "__main__":
    if sys.argv[1:2] != ["--screenshot"] or len(sys.argv) != 3:
        sys.exit("usage: python tests/test_desk_browser.py --screenshot docs/desk.png")
    screenshot(Path(sys.argv[2]))
