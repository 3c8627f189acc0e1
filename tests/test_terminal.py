"""Terminal output: colours on a terminal only, NO_COLOR respected, plain text in pipes and CI logs, and a
progress bar only on a terminal and only for runs longer than about a second."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from baobei.cli import main
from baobei.language import terminal
from baobei.language.paths import default_scenarios_dir

Capture = pytest.CaptureFixture[str]
ESCAPE = "\x1b["


@pytest.fixture(autouse=True)
def fresh_consoles() -> Iterator[None]:
    """Each test decides whether the output is a terminal: the consoles are made anew for it."""
    terminal._console.cache_clear()
    yield
    terminal._console.cache_clear()


def check_scoring(capsys: Capture) -> tuple[str, str]:
    assert main(["check", "-q", str(default_scenarios_dir() / "scoring")]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_piped_output_is_plain_text(capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    out, err = check_scoring(capsys)
    assert ESCAPE not in out + err
    assert out.splitlines()[-1].endswith("passed, 0 failed")


def test_a_terminal_gets_colours(capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    out, _ = check_scoring(capsys)
    assert f"{ESCAPE}32m" in out  # the summary in green


def test_no_color_turns_colours_off(capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("NO_COLOR", "1")
    out, _ = check_scoring(capsys)
    assert f"{ESCAPE}32m" not in out


def test_a_citation_is_never_read_as_markup(capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    terminal.emit("rule § 2.2 [P24] [bold]x[/bold]")
    assert "[P24] [bold]x[/bold]" in capsys.readouterr().out


def test_the_progress_bar_waits_for_long_runs(capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    with terminal.progress("quick", 3) as advance:
        advance(3)
    assert "quick" not in capsys.readouterr().err  # under a second: no bar
    with terminal.progress("slow", 3, delay=0.0) as advance:
        advance(1)
        advance(2)
    assert "slow" in capsys.readouterr().err
    monkeypatch.delenv("FORCE_COLOR")
    terminal._console.cache_clear()
    with terminal.progress("piped", 3, delay=0.0) as advance:
        advance(3)
    assert capsys.readouterr().err == ""


def test_tables_align_in_plain_text(capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    terminal.table(("a", "bb", "c"), [("xxx", "y", "z"), ("q", "rr", "s")])
    assert capsys.readouterr().out.splitlines() == ["a    bb  c", "xxx  y   z", "q    rr  s"]
