"""The rules desk without a browser: its session (moves, refusals, undo and redo, stepping), its export (a
scenario that `baobei check` replays as it is), loading scenarios and game logs, the setup form, bad input
said in the page, and the `baobei serve` command (a port in use, Ctrl-C). Starlette's TestClient drives the
app in process."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from baobei.cli import main
from baobei.desk.app import create_app
from baobei.desk.export import ExportForm, scenario_text
from baobei.desk.loading import NotingEngine, load_any
from baobei.desk.server import bind
from baobei.desk.session import Session
from baobei.desk.tables import form_of, read_form, table_of
from baobei.desk.timeline import DeskError, replay
from baobei.language.errors import BaoError
from baobei.language.load import load_ruleset
from baobei.language.paths import PROJECT_ROOT, default_rules_dir
from baobei.referee.write import LogWriter
from baobei.scenarios.parser import parse_scenario_text, scenario_files
from baobei.scenarios.runner import run_scenario
from baobei.scenarios.syntax import Table
from starlette.testclient import TestClient

TABLE = ("table", "  players ann ben", "  ann: Spatz, Amsel, Kranich", "  ben: Meise, Star, _, Specht",
         "  draw: Kranich, Ara", "  discard: Elster", "  active ann", "  ann knows ann.1")


@pytest.fixture(scope="module")
def eng() -> NotingEngine:
    return NotingEngine(load_ruleset(default_rules_dir()))


@pytest.fixture
def client() -> TestClient:
    return TestClient(create_app())


def replays(eng: NotingEngine, text: str) -> None:
    result = run_scenario(parse_scenario_text(text, "desk.scenario"), eng)
    assert result.passed, result.failure


# ---------------------------------------------------------------- the session
def test_a_move_a_refusal_undo_redo_and_stepping(eng: NotingEngine) -> None:
    s = Session.start(eng, TABLE)
    assert s.play("ann draw") is None and s.at == 1 and s.frame.events
    refusal = s.play("ben pluck target=ben.1")
    assert refusal is not None and refusal.cite.paras and s.doc.steps[-1].line().startswith("reject ben pluck")
    assert s.state is s.frames[1].state  # a refusal leaves the table as it was
    assert s.undo() and len(s.doc.steps) == 1 and s.redo() and len(s.doc.steps) == 2
    assert not s.redo()
    s.goto(0)
    s.play("ann draw")  # a move at an earlier position replaces the steps after it ...
    assert [step.text for step in s.doc.steps] == ["ann draw"] and s.at == 1
    s.undo()  # ... and undo brings them back, at the position shown then
    assert len(s.doc.steps) == 2 and s.at == 0
    with pytest.raises(DeskError, match="fly"):
        s.play("ann fly away")


def test_an_expectation_and_a_decisive_mark(eng: NotingEngine) -> None:
    s = Session.start(eng, TABLE)
    s.play("ann draw")
    s.expect("expect ann holds Kranich")
    assert not s.frame.problem
    s.expect("ann holds Ara")
    assert "expected" in s.frame.problem
    with pytest.raises(DeskError):
        s.expect("ann is happy")
    s.toggle_decisive(1)
    assert s.doc.steps[0].decisive and s.doc.steps[0].line() == "decisive ann draw"
    with pytest.raises(DeskError):
        s.toggle_decisive(2)  # an expectation is no step to mark


def test_the_export_replays_and_leaves_the_faq_for_the_person(eng: NotingEngine, tmp_path: Path) -> None:
    s = Session.start(eng, TABLE)
    s.play("ann draw")
    s.play("ann draw")
    s.play("ann keep slot=ann.2")
    s.toggle_decisive(2)
    text = scenario_text(eng, s.doc, s.frames, s.at, ExportForm(title='Twice "no"', questions=(("de", "Zweimal?"),)))
    assert 'scenario "Twice \\"no\\""' in text and 'question de "Zweimal?"' in text
    assert 'answer de ""' in text and 'question en ""' in text and 'answer en ""' in text
    assert "  decisive reject ann draw by §" in text and "  expect ann.2 is Kranich" in text
    assert "draws" not in text  # the table's draw pile gives these cards by itself
    replays(eng, text)
    path = tmp_path / "desk.scenario"
    path.write_text(text, encoding="utf-8")
    assert main(["check", str(path)]) == 0
    shorter = scenario_text(eng, s.doc, s.frames, 1, ExportForm(expects=False))
    assert "keep" not in shorter and "expect" not in shorter.split("\nplay\n")[1]
    replays(eng, shorter)


def test_every_scenario_of_the_project_loads_and_exports_a_scenario_that_replays(eng: NotingEngine) -> None:
    files = scenario_files([PROJECT_ROOT / "scenarios"])
    assert len(files) > 100
    for f in files:
        doc, problem = load_any(eng, f.read_text(encoding="utf-8"), str(f), default_rules_dir())
        frames = replay(eng, doc)
        assert not problem and len(frames) == len(doc.steps) + 1, f
        assert not [fr.problem for fr in frames if fr.problem], f
        result = run_scenario(parse_scenario_text(scenario_text(eng, doc, frames, len(doc.steps), ExportForm()),
                                                  "x.scenario"), eng)
        assert result.passed, (f, result.failure)


def game_log(eng: NotingEngine, seed: int, moves: int) -> str:
    writer = LogWriter(eng, default_rules_dir(), ["p1", "p2", "p3"], seed)
    rng = random.Random(seed)
    for _ in range(moves):
        move = eng.random_move(writer.st, rng)
        if move is None:
            break
        writer.move(move)
    return writer.text()


def test_a_game_log_loads_move_by_move_and_its_export_replays(eng: NotingEngine) -> None:
    text = game_log(eng, 5, 200)  # past the end of the first round: the next deal is the log's
    doc, problem = load_any(eng, text, "game.jsonl", default_rules_dir())
    frames = replay(eng, doc)
    assert not problem and len(frames) == len(doc.steps) + 1 and not any(f.problem for f in frames)
    assert frames[-1].state.round > 1
    replays(eng, scenario_text(eng, doc, frames, len(doc.steps), ExportForm()))


def test_a_wrong_game_log_loads_up_to_its_error(eng: NotingEngine) -> None:
    lines = game_log(eng, 2, 12).splitlines()
    lines[6] = '{"move": "p1 draw"}' if '"p1 draw"' not in lines[6] else '{"move": "p2 draw"}'
    doc, problem = load_any(eng, "\n".join(lines) + "\n", "bad.jsonl", default_rules_dir())
    assert problem.startswith("bad.jsonl:7: illegal move") and len(doc.steps) >= 4


# ---------------------------------------------------------------- the setup form
def test_the_setup_form_round_trips_a_table(eng: NotingEngine) -> None:
    source = (PROJECT_ROOT / "scenarios" / "shield" / "caller_defensive_pluck.scenario").read_text(encoding="utf-8")
    scenario = parse_scenario_text(source, "x")
    s = Session.start(eng, tuple(["table", *source.split("\ntable\n")[1].split("\nplay\n")[0].splitlines()]))
    form = form_of(eng, s.state, s.doc.table)
    assert isinstance(scenario.setup, Table)
    assert form.variables and not any(form.knows.values()) and form.players == list(scenario.setup.players)
    fields: dict[str, list[str]] = {"players": [" ".join(form.players)], "active": [form.active]}
    for p, row in enumerate(form.rows):
        fields |= {f"slot:{p}:{i}": [c] for i, c in enumerate(row, 1)}
    fields |= {f"pile:{k}": [v] for k, v in form.piles.items()} | {f"var:{k}": [v] for k, v in form.variables.items()}
    assert table_of(read_form(fields)) and Session.start(eng, table_of(read_form(fields))).doc.table == s.doc.table


# ---------------------------------------------------------------- the app
def test_pages_are_offline_and_carry_their_security_headers(client: TestClient) -> None:
    for path in ("/", "/setup", "/load"):
        page = client.get(path)
        assert page.status_code == 200 and "default-src 'self'" in page.headers["content-security-policy"]
        links = re.findall(r'(?:src|href|action)="([^"]*)"', page.text)
        assert links and all(link.startswith("/") for link in links), links
    script = client.get("/static/desk.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert "http" not in client.get("/static/desk.css").text
    assert client.get("/static/../app.py").status_code == 404


def test_moves_refusals_and_the_export_through_the_app(client: TestClient) -> None:
    client.post("/setup-text", data={"table": "\n".join(TABLE[1:])})
    client.post("/move", data={"move": "ben draw"})
    page = client.get("/").text
    assert 'id="refusal"' in page and "§" in page and "[P" in page and "decisive" in page
    client.post("/move", data={"move": "ann draw"})
    assert "What the move did" in client.get("/").text
    client.post("/undo")
    client.post("/redo")
    client.post("/goto", data={"at": "1"})
    assert "step 1 of 2" in client.get("/").text
    exported = client.get("/export", params={"title": "A desk test", "answer_en": "Only ann.", "expects": "1"})
    assert exported.status_code == 200 and 'filename="a_desk_test.scenario"' in exported.headers["content-disposition"]
    assert 'answer en "Only ann."' in exported.text and "ann draw" not in exported.text.split("\nplay\n")[1]


def test_bad_input_is_said_in_the_page_never_a_traceback(client: TestClient) -> None:
    said = client.post("/move", data={"move": "ann fly away"})  # answered by the desk's page, with the notice
    assert 'id="notice"' in said.text and "fly" in said.text and 'id="notice"' not in client.get("/").text
    assert "expected a whole number" in client.post("/goto", data={"at": "x"}).text
    bad = client.post("/load", data={"name": "mine.scenario", "text": 'scenario "x"\ncites § 2.2 [P24]\ntable\n'
                                                                      "  players ann\n  ann: Spatz,\nplay\n"})
    assert bad.status_code == 400 and re.search(r"mine\.scenario:5:\d+", bad.text) and "Traceback" not in bad.text
    log = client.post("/load", data={"name": "game.jsonl", "text": '{"log": "baobei-log/1"}\nnot json\n'})
    assert log.status_code == 400 and "game.jsonl:1" in log.text
    setup = client.post("/setup", data={"players": "ann ben", "slot:0:1": "Dodo", "active": "ann"})
    assert setup.status_code == 400 and "Dodo" in setup.text and "unknown species" in setup.text
    text_setup = client.post("/setup-text", data={"table": "players ann ben\nann: Spatz\nactive zed"})
    assert text_setup.status_code == 400 and "zed" in text_setup.text
    assert client.post("/load", data={"path": "../README.md"}).status_code == 400


def test_a_project_scenario_loads_by_its_name(client: TestClient) -> None:
    loaded = client.post("/load", data={"path": "pluck/defensive_own_draw.scenario"}, follow_redirects=True)
    assert loaded.status_code == 200 and "Defensive pluck" in loaded.text and "step 0 of" in loaded.text


# ---------------------------------------------------------------- the command
def test_serve_refuses_a_port_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    taken = bind("127.0.0.1", 0)
    try:
        code = main(["serve", "--no-open", "--port", str(taken.getsockname()[1])])
    finally:
        taken.close()
    assert code == 2 and "cannot listen on 127.0.0.1" in capsys.readouterr().err
    with pytest.raises(BaoError):
        bind("no-such-host.invalid", 0)


@pytest.mark.parametrize("when", ["at_once", "once_answering"])
def test_serve_stops_on_ctrl_c_with_exit_130(when: str) -> None:
    """Ctrl-C right after the address is printed (uvicorn still starting: once seen lost, the server running
    on) and once the desk answers a request: exit 130 either way, no traceback."""
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "baobei.cli", "serve", "--no-open", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert "the rules desk is at http://127.0.0.1:" in line, line
    url = line.split(" is at ", 1)[1].split()[0]
    deadline = time.monotonic() + 20
    while when == "once_answering" and time.monotonic() < deadline:  # until the server answers
        try:
            urllib.request.urlopen(url, timeout=2).close()
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    try:
        code = proc.wait(timeout=30)
    finally:
        proc.kill()
    rest = proc.stderr.read()
    assert code == 130 and "Traceback" not in rest, rest


@pytest.mark.parametrize("path", ["/move", "/setup", "/setup-text"])
def test_a_form_that_is_not_utf8_is_the_pages_notice_not_a_server_error(client: TestClient, path: str) -> None:
    sent = client.post(path, content=b"\xff\xfe=\xff", headers={"Content-Type": "application/x-www-form-urlencoded"},
                       follow_redirects=False)
    assert sent.status_code == 303
    assert "text is not UTF-8" in client.get("/").text
