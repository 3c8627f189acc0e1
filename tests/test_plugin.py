"""The pytest plugin collects scenario files as test items and reports a failure like `baobei check`."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DRAW_SCENARIO

PASSING = DRAW_SCENARIO

FAILING = PASSING.replace("expect discard top is Kranich", "expect discard top is Star")


def line_of(text: str, line: str) -> int:
    return text.splitlines().index(line) + 1


FAILING_LINE = line_of(FAILING, "  expect discard top is Star")
PLUGIN = ("-p", "baobei.scenarios.pytest_plugin")


def write(pytester: pytest.Pytester, name: str, text: str) -> Path:
    """Write the text byte for byte (makefile would reformat it and shift the line numbers)."""
    path = pytester.path / f"{name}.scenario"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_passing_scenario_is_collected_and_passes(pytester: pytest.Pytester) -> None:
    write(pytester, "good", PASSING)
    result = pytester.runpytest(*PLUGIN, "-v")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*good.scenario::good PASSED*"])


def test_without_the_plugin_nothing_is_collected(pytester: pytest.Pytester) -> None:
    write(pytester, "good", PASSING)
    result = pytester.runpytest("-p", "no:baobei.scenarios.pytest_plugin")
    result.assert_outcomes()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_a_failing_scenario_fails_with_file_line_expected_actual_and_trace(pytester: pytest.Pytester) -> None:
    path = write(pytester, "bad", FAILING)
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        f"*{path}:{FAILING_LINE}:*A draw*",
        "*expected the top of the discard pile to be Star, actual Kranich*",
        "*trace up to here:*",
        f"*line {line_of(FAILING, '  alice draw')}: alice draw*",
        f"*line {line_of(FAILING, '  alice discard')}: alice discard*",
    ])


def test_passing_and_failing_scenarios_side_by_side(pytester: pytest.Pytester) -> None:
    write(pytester, "good", PASSING)
    write(pytester, "bad", FAILING)
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(passed=1, failed=1)


def test_a_malformed_scenario_is_reported_with_its_position(pytester: pytest.Pytester) -> None:
    text = PASSING.replace("  alice draw\n", "  alice draw = =\n")
    path = write(pytester, "malformed", text)
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([f"*malformed scenario: {path}:{line_of(text, '  alice draw = =')}:14: found '='*"])
