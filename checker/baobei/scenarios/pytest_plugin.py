"""pytest collects scenario files as test items (pytest's non-Python file collection)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..language.errors import ScenarioError, SourceError, read_source
from .parser import SCENARIO_SUFFIX, parse_scenario_file
from .runner import ScenarioResult, engine_for, format_failure, run_scenario


class ScenarioFailed(Exception):
    def __init__(self, result: ScenarioResult, source: str) -> None:
        super().__init__(result.failure.message if result.failure else "")
        self.result = result
        self.source = source


def pytest_collect_file(parent: pytest.Collector, file_path: Path) -> pytest.Collector | None:
    if file_path.suffix == SCENARIO_SUFFIX:
        collected: pytest.Collector = ScenarioFile.from_parent(parent, path=file_path)
        return collected
    return None


class ScenarioFile(pytest.File):
    def collect(self) -> Any:
        yield ScenarioItem.from_parent(self, name=self.path.stem)


class ScenarioItem(pytest.Item):
    def runtest(self) -> None:
        scenario = parse_scenario_file(self.path)
        result = run_scenario(scenario, engine_for(None))
        if not result.passed:
            raise ScenarioFailed(result, read_source(self.path, ScenarioError))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScenarioFailed):
            return format_failure(excinfo.value.result, excinfo.value.source)
        if isinstance(excinfo.value, SourceError):
            return f"malformed scenario: {excinfo.value}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, 0, f"scenario: {self.path.name}"
