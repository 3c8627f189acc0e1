"""Ctrl-C: every long command stops at once with one line and exit 130, never a traceback, and leaves
no half-written output file (issues 27 and 29)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from baobei.language.errors import write_output

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"

# Each command runs far longer than the pause before the interrupt.
LONG_COMMANDS = {
    "check": ["check", *[str(SCENARIOS)] * 60],
    "verify": ["verify", "--players", "2", "--workers", "1"],
    "explore": ["explore", "--players", "3", "--depth", "40", "--deals", "50"],
    "simulate": ["simulate", "--players", "4", "--matches", "100000", "--workers", "2", "--out", "{out}"],
    "bench": ["bench", "--players", "4", "--rounds", "1000000"],
    "referee": ["--rules", "{rules}", "referee", "{log}"],
}
# What the one line after Ctrl-C says: how far the run came, where the command counts its work.
HOW_FAR = {"check": r" of [\d,]+ scenarios done", "simulate": " of 100,000 matches played done",
           "referee": r" of [\d,]+ log lines (read|judged) done", "bench": " of 3 runs done"}


@pytest.fixture(scope="module")
def long_log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A game log long enough to judge for many seconds: a rules variant whose match goes on (a threshold
    no total reaches; rules are data), played for thousands of rounds."""
    place = tmp_path_factory.mktemp("long_game")
    rules = place / "rules"
    shutil.copytree(ROOT / "rules", rules)
    scoring = rules / "07_scoring.bao"
    text = scoring.read_text(encoding="utf-8")
    table = re.search(r"table threshold [^{]*\{(?P<body>[^}]*)\}", text)
    assert table is not None, "the rules have no threshold table to raise"
    raised = re.sub(r"(\d+):\s*\d+", r"\1: 1000000", table["body"])
    scoring.write_text(text.replace(table["body"], raised), encoding="utf-8")
    log = place / "game.jsonl"
    subprocess.run([sys.executable, "-m", "baobei.cli", "--rules", str(rules), "play", "--players", "2",
                    "--rounds", "2500", "--max-moves", "1000000", "--log", str(log)], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return rules, log


def default_interrupts() -> None:
    """The child hears Ctrl-C even where this process was started to ignore it (a background job)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupted(args: list[str], after: float) -> tuple[int, str, float]:
    """Run `baobei ARGS`, send SIGINT after `after` seconds; the exit code, stderr, and how long it took
    to stop."""
    proc = subprocess.Popen([sys.executable, "-m", "baobei.cli", *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            preexec_fn=default_interrupts)
    time.sleep(after)
    assert proc.poll() is None, f"baobei {' '.join(args)} ended before the interrupt: pick a longer run"
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        _, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"baobei {' '.join(args)} did not stop within 20 s of Ctrl-C")
    return proc.returncode, err, time.monotonic() - sent


@pytest.mark.parametrize("name", sorted(LONG_COMMANDS))
def test_ctrl_c_exits_130_without_traceback(name: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    places = {"{out}": str(tmp_path / "sim")}
    if name == "referee":
        rules, log = request.getfixturevalue("long_log")
        places |= {"{rules}": str(rules), "{log}": str(log)}
    args = [places.get(a, a) for a in LONG_COMMANDS[name]]
    # Once during the start (compiling the rules), once in the work itself.
    code, err, _ = interrupted(args, 0.5)
    assert (code, "Traceback" in err) == (130, False), err[-2000:]
    code, err, stopped = interrupted(args, 4.0)
    assert (code, "Traceback" in err) == (130, False), err[-2000:]
    last = err.strip().splitlines()[-1]
    assert last.startswith("interrupted"), err[-2000:]
    if name in HOW_FAR:
        assert re.fullmatch(r"interrupted: [\d,]+" + HOW_FAR[name], last), last
    assert stopped < 1.0, f"{name} took {stopped:.2f} s to stop"


def test_output_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An interrupt while a file is written leaves the old file as it was and no stray part file."""
    target = tmp_path / "report.md"
    target.write_text("old", encoding="utf-8")

    def broken(self: Path, text: str, encoding: str = "utf-8") -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(Path, "write_text", broken)
    with pytest.raises(KeyboardInterrupt):
        write_output(target, "new")
    monkeypatch.undo()
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


def test_output_to_a_pipe_or_device_is_written_into_not_replaced(tmp_path: Path) -> None:
    """`--log /dev/stdout`, a named pipe: the text goes through it, and the path stays what it was (a rename
    over it would put a plain file in place of the device, /dev/null included, when run as root)."""
    import os
    import stat
    import threading

    from baobei.language.output import write_output as write_named

    pipe = tmp_path / "log.fifo"
    os.mkfifo(pipe)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_text(encoding="utf-8")), daemon=True)
    reader.start()
    write_named(pipe, "through the pipe")
    reader.join(timeout=10)
    assert got == ["through the pipe"]
    assert stat.S_ISFIFO(pipe.stat().st_mode) and sorted(p.name for p in tmp_path.iterdir()) == ["log.fifo"]


def test_a_z3_object_cut_short_by_ctrl_c_is_not_reported_at_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    import z3  # type: ignore[import-untyped]
    from baobei.proofs.interrupts import unraisable_in_a_proof

    reported: list[object] = []
    monkeypatch.setattr(sys, "__unraisablehook__", reported.append)
    half_built = types.SimpleNamespace(exc_value=AttributeError("ctx"), object=z3.AstRef.__del__)
    unraisable_in_a_proof(half_built)
    assert reported == []
    other = types.SimpleNamespace(exc_value=ValueError("kept"), object=len)
    unraisable_in_a_proof(other)
    assert reported == [other]


def test_a_ctrl_c_python_dropped_inside_a_destructor_is_raised_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python raises the KeyboardInterrupt of Ctrl-C wherever the main thread is, also inside a Z3 object's
    `__del__` (collected while the engine searches, say), and there it only reports it ("Exception ignored
    in"): the command went on. It is raised again once the `__del__` is over, not reported, and kept: the
    next solver check raises it too."""
    import types

    import z3  # type: ignore[import-untyped]
    from baobei.proofs import interrupts, terms

    reported: list[object] = []
    monkeypatch.setattr(sys, "__unraisablehook__", reported.append)
    monkeypatch.setattr(interrupts, "CTRL_C", type(interrupts.CTRL_C)())
    solver = z3.Solver()
    assert terms.check(solver) == z3.sat
    raised_again = hook_returned = False
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in `baobei` (a test worker ignores it)
    try:
        interrupts.unraisable_in_a_proof(types.SimpleNamespace(exc_value=KeyboardInterrupt(), object=z3.AstRef.__del__))
        # Raised inside the hook, Python would report it with a traceback and drop it (seen in a clean clone's
        # test run): the hook must return first.
        hook_returned = True
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # the interrupt lands a moment later: well before the end
            pass
    except KeyboardInterrupt:
        raised_again = True
    finally:
        signal.signal(signal.SIGINT, before)
    assert hook_returned and raised_again and reported == []
    with pytest.raises(KeyboardInterrupt):
        terms.check(solver)


def test_ctrl_c_during_a_z3_call_s_argument_conversion_counts_as_an_interrupt() -> None:
    """Ctrl-C while ctypes converts an argument of a Z3 call surfaces as ctypes' ArgumentError, which keeps only
    the interrupt's name in its message (seen once in test_ctrl_c_exits_130_without_traceback[verify]: exit 1,
    a traceback)."""
    import ctypes

    from baobei.cli import caused_by_interrupt

    assert caused_by_interrupt(ctypes.ArgumentError("argument 1: KeyboardInterrupt: "))
    assert not caused_by_interrupt(ctypes.ArgumentError("argument 1: TypeError: wrong type"))


def finaliser_report(interrupt: bool) -> tuple[int, str]:
    """The `baobei` command whose work makes an object with a failing finaliser, freed when the work ends
    (with Ctrl-C answered, or not): its exit code and standard error."""
    program = (
        "from baobei import cli\n"
        "class Half:\n"
        "    def __del__(self) -> None:\n"
        "        raise AttributeError('no owner')\n"
        "def work(argv=None):\n"
        "    half = Half()\n"
        f"    return cli.interrupted() if {interrupt} else 0\n"
        "cli.main = work\n"
        "cli.entry()\n"
    )
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stderr.strip()


def test_a_finaliser_failing_after_ctrl_c_prints_no_traceback() -> None:
    """Ctrl-C inside a Z3 context's constructor leaves the context without its `owner`; its finaliser then
    fails when the interrupt's frames are freed, and Python prints that as a traceback (seen once in
    test_ctrl_c_exits_130_without_traceback[verify]). After the interrupt the command drops such a report;
    without one it is reported as usual."""
    assert finaliser_report(interrupt=True) == (130, "interrupted")
    code, err = finaliser_report(interrupt=False)
    assert code == 0 and "no owner" in err, err
