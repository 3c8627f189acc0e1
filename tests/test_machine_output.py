"""--json for the commands that report results (issue 29): standard output is the JSON alone, valid under
the command's schema in docs/, and the exit code is as without --json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from baobei.cli import main
from jsonschema import Draft202012Validator

DOCS = Path(__file__).resolve().parents[1] / "docs"


def validated(text: str, schema: str) -> Any:
    data = json.loads(text)
    Draft202012Validator(json.loads((DOCS / schema).read_text(encoding="utf-8"))).validate(data)
    return data


def test_simulate_json_is_the_figures_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sim"
    assert main(["simulate", "--players", "2", "--matches", "2", "--workers", "1", "--out", str(out), "--json"]) == 0
    printed, err = capsys.readouterr()
    data = validated(printed, "simulate.schema.json")
    assert data == json.loads((out / "simulate.json").read_text(encoding="utf-8"))
    assert data["matches_played"] == 2 and "matches in" in err  # the lines for people, out of the JSON's way


def test_explore_json_gives_each_propertys_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--players", "2", "--depth", "2", "--json"]) == 0
    printed, err = capsys.readouterr()
    data = validated(printed, "explore.schema.json")
    assert data["states"] == sum(data["per_depth"]) > 0
    assert {p["status"] for p in data["properties"]} == {"holds"} and data["properties"][-1]["property"] == "rules"
    assert "states" in err  # the report for people, out of the JSON's way


def test_explore_refuses_a_state_limit_the_memory_cannot_hold(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explore", "--players", "2", "--max-states", str(10**15)]) == 2
    assert "--max-states 1,000,000,000,000,000: a search of that many states needs about" in capsys.readouterr().err
