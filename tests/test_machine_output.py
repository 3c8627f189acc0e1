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
