"""Fuzzing the readers: whatever bytes a rules or scenario file holds, the answer is the file or a
positioned error (file:line:col), never a traceback.

Inputs are mutations of the project's own files (a cut, a repeated span, a changed character,
random bytes spliced in) and random text over the languages' own alphabet, so that most inputs get
far into the parser before they go wrong.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from baobei.cli import main
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.state import State
from baobei.language.errors import BaoError, IllegalMove, SourceError, read_source
from baobei.language.load import load_ruleset
from baobei.language.parser import parse_rules_text
from baobei.language.paths import default_rules_dir, default_scenarios_dir
from baobei.scenarios.parser import parse_scenario_text
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from variants import PLAYABLE

MakeVariant = Callable[..., Path]  # the make_variant fixture of conftest.py

RULES = sorted(default_rules_dir().glob("*.bao"))
SCENARIOS = sorted(default_scenarios_dir().rglob("*.scenario"))[:40]
ALPHABET = "abcdefghijklmnopqrstuvwxyz_ 0123456789\n{}[](),.:;=<>!+-*/%\"§#?äöüß\t\\"
POSITIONED = re.compile(r":\d+:\d+: |^\S+: ")  # file:line:col, or a whole-file error naming the file


@st.composite
def mutated(draw: st.DrawFn, sources: list[Path]) -> str:
    text = sources[draw(st.integers(0, len(sources) - 1))].read_text(encoding="utf-8")
    for _ in range(draw(st.integers(1, 3))):
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        j = draw(st.integers(i, min(len(text), i + 40)))
        kind = draw(st.sampled_from(["cut", "repeat", "replace", "insert"]))
        if kind == "cut":
            text = text[:i] + text[j:]
        elif kind == "repeat":
            text = text[:j] + text[i:j] + text[j:]
        elif kind == "replace":
            text = text[:i] + draw(st.text(ALPHABET, min_size=1, max_size=3)) + text[i + 1:]
        else:
            text = text[:i] + draw(st.text(ALPHABET, max_size=12)) + text[i:]
    return text


def parses_or_positioned(parse: object, text: str, path: str) -> None:
    try:
        parse(text, path)  # type: ignore[operator]
    except SourceError as err:
        assert str(err).startswith(path), str(err)
        assert POSITIONED.search(str(err)), str(err)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(RULES))
def test_mutated_rules_files_parse_or_give_a_positioned_error(text: str) -> None:
    parses_or_positioned(parse_rules_text, text, "fuzz.bao")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(SCENARIOS))
def test_mutated_scenario_files_parse_or_give_a_positioned_error(text: str) -> None:
    parses_or_positioned(parse_scenario_text, text, "fuzz.scenario")


@settings(max_examples=200, deadline=None)
@given(st.text(ALPHABET, max_size=200))
def test_random_text_parses_or_gives_a_positioned_error(text: str) -> None:
    parses_or_positioned(parse_rules_text, text, "fuzz.bao")
    parses_or_positioned(parse_scenario_text, text, "fuzz.scenario")


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_are_read_or_refused_with_their_place(tmp_path_factory: pytest.TempPathFactory,
                                                       data: bytes) -> None:
    path = tmp_path_factory.mktemp("bytes") / "x.scenario"
    path.write_bytes(data)
    try:
        read_source(path, SourceError)
    except SourceError as err:
        assert re.match(rf"{re.escape(str(path))}:\d+:\d+: not UTF-8 text: byte 0x[0-9a-f]{{2}}", str(err))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutated(SCENARIOS))
def test_check_runs_mutated_scenarios_without_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         text: str) -> None:
    path = tmp_path / "fuzz.scenario"
    path.write_text(text, encoding="utf-8")
    try:
        code = main(["check", str(path)])
    except BaoError as err:  # pragma: no cover - main reports BaoError itself; this would be a bug
        pytest.fail(f"main let a BaoError through: {err}")
    out, err = capsys.readouterr()
    assert code in (0, 1, 2) and "Traceback" not in out + err


# ---------------------------------------------------------------- random moves, illegal ones included


def random_move_any(eng: Engine, st: State, rng: random.Random) -> Move:
    """A move of the rules with arguments drawn from everything that could be written: most are illegal."""
    decl = rng.choice(list(eng.rules.moves.values()))
    args: list[tuple[str, Any]] = []
    for p in decl.params:
        if p.optional and rng.random() < 0.3:
            continue
        if p.kind in ("slot", "own_slot", "free_slot"):
            value: Any = (rng.randrange(len(st.names)), rng.randrange(0, 9))
        elif p.kind == "player":
            value = rng.randrange(-1, len(st.names) + 1)
        elif p.kind == "held_card":
            value = rng.randrange(len(st.known))
        else:
            value = rng.random() < 0.5
        args.append((p.name, value))
    return Move(rng.randrange(len(st.names)), decl.name, tuple(args))


@pytest.mark.parametrize("variant", ["default", *PLAYABLE])
def test_random_moves_reject_without_a_trace_and_keep_every_invariant(make_variant: MakeVariant,
                                                                     variant: str) -> None:
    rules = default_rules_dir() if variant == "default" else make_variant(*PLAYABLE[variant])
    eng = Engine(load_ruleset(rules))
    rng = random.Random(sum(map(ord, variant)))
    accepted = rejected = 0
    for game in range(3):
        st, _ = eng.new_match(["ann", "ben", "cid"], game + 1)
        for _ in range(150):
            legal = eng.random_move(st, rng)
            if legal is None:
                break
            move = legal if rng.random() < 0.5 else random_move_any(eng, st, rng)
            before, snapshot = st.copy(), eng.state_to_json(st)
            try:
                eng.push(st, move)
            except IllegalMove as err:
                rejected += 1
                assert eng.state_to_json(st) == snapshot, f"{variant}: {err} changed the state"
                assert err.rejection.cite is not None and str(err)
                continue
            accepted += 1
            broken = [i.ident for i in eng.broken_invariants(st)]
            broken += [i.ident for i in eng.broken_transitions(before, st, move.player)]
            assert not broken, (variant, eng.describe(before, move), broken)
    assert accepted > 50 and rejected > 50, (variant, accepted, rejected)


# ---------------------------------------------------------------- the long run (pytest -m slow)

LONG_RUN = 50_000  # examples per language: 100,000 inputs in all


@pytest.mark.slow
@settings(max_examples=LONG_RUN, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated(RULES))
def test_long_run_rules(text: str) -> None:
    parses_or_positioned(parse_rules_text, text, "fuzz.bao")


@pytest.mark.slow
@settings(max_examples=LONG_RUN, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated(SCENARIOS))
def test_long_run_scenarios(text: str) -> None:
    parses_or_positioned(parse_scenario_text, text, "fuzz.scenario")
