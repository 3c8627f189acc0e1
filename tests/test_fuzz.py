"""Fuzzing the readers: whatever a rules or scenario file holds, the answer is the file or a positioned error
(file:line:col, exit 2 of the command line), never a traceback, never a hang.

Inputs (fuzz_strategies.py):
- files generated from the languages' own Lark grammars (hypothesis.extra.lark with realistic terminals), so
  that most of them parse and go on to the checker or the replay;
- the project's files mutated token by token (lexed by the project's Lark lexer; tokens deleted, repeated,
  swapped, replaced) and byte by byte (a cut, a repeated span, a changed character, random text spliced in);
- random text over the languages' alphabet, random bytes, constructs nested thousands deep.

A rules file goes through the whole load of a rules variant (the default rules with that file replaced or added:
parse, check, build the rule set, compile the engine, check its citations against the rulebook), as `baobei rules
--rules DIR` reads it. A scenario is parsed, its citations checked, and replayed against the default rules, as
`baobei check` does. Each input has LIMIT seconds of CPU time; more fails the test as a hang.

About 2,000 inputs run with the tests; `pytest -m slow` runs 100,000 and more (test_long_run).
"""

from __future__ import annotations

import random
import re
import resource
import signal
import sys
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import pytest
from baobei.cli import main
from baobei.docs.citations import bad_in, bad_in_scenario, outline
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.state import State
from baobei.language import syntax as s
from baobei.language.errors import BaoError, IllegalMove, RulesError, SourceError, read_source
from baobei.language.load import build_ruleset, load_ruleset
from baobei.language.parser import MAX_NESTING, MAX_RANGE, parse_rules_text
from baobei.language.paths import default_rules_dir, default_scenarios_dir
from baobei.scenarios.parser import parse_scenario_text
from baobei.scenarios.runner import engine_for, run_scenario
from fuzz_strategies import (
    ADDED,
    NESTINGS,
    RULES_FILES,
    Variant,
    generated_scenario,
    nested,
    rules_variant,
    token_mutated,
    token_mutated_variant,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from variants import PLAYABLE

MakeVariant = Callable[..., Path]  # the make_variant fixture of conftest.py
T = TypeVar("T")

RULES = sorted(default_rules_dir().glob("*.bao"))
SCENARIOS = sorted(default_scenarios_dir().rglob("*.scenario"))[:40]
ALPHABET = "abcdefghijklmnopqrstuvwxyz_ 0123456789\n{}[](),.:;=<>!+-*/%\"§#?äöüß\t\\"
POSITIONED = re.compile(r":\d+:\d+: |^\S+: ")  # file:line:col, or a whole-file error naming the file

# Seconds of CPU time for one input: the slowest of 100,000 took 0.7 s (most take 2 to 50 ms); a collection of
# Hypothesis's own garbage, late in a long run, may take a second more.
LIMIT = 5.0
MEMORY = 2 << 30  # bytes one input may add to the address space of the process
STATM = Path("/proc/self/statm")  # its first number: the size of the address space, in pages
RULES_DIR = str(default_rules_dir())
RULES_PATHS = frozenset({RULES_DIR, *map(str, RULES_FILES), str(default_rules_dir() / ADDED)})
SCENARIO_PATH = "fuzz.scenario"
# file:line:col: message (a whole-file error has no line: only the rules directory may have one, for what the
# rules as a whole lack).
PLACE = re.compile(r"(?P<file>[^\n:]+?)(?::(?P<line>\d+):(?P<column>\d+))?: \S")
SUPPRESSED = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


# ---------------------------------------------------------------- judging one input


class Hang(BaseException):
    """Raised by the timer in the middle of the code under test: a BaseException, so that no `except Exception`
    there can take it for an error of the input."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Hang after `seconds` of the process's CPU time (other processes on a busy machine do not count); and a
    MemoryError after MEMORY more bytes (on Linux): an input that asks for all the memory there is fails the
    test instead of the machine."""

    def expire(signum: int, frame: object) -> None:
        raise Hang

    previous = signal.signal(signal.SIGPROF, expire)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if STATM.exists():
        size = int(STATM.read_text().split()[0]) * resource.getpagesize()
        cap = size + MEMORY if hard == resource.RLIM_INFINITY else min(size + MEMORY, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    # Then again every quarter of a second: Python drops an exception raised while a garbage collector callback
    # runs (Hypothesis times the collector), and the next one must end the hang.
    signal.setitimer(signal.ITIMER_PROF, seconds, 0.25)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        signal.signal(signal.SIGPROF, previous)


def assert_positioned(message: str, known: Collection[str]) -> None:
    """`message` names a known file, with line and column (only the rules directory as a whole goes without)."""
    match = PLACE.match(message)
    assert match is not None and match["file"] in known, f"not a positioned error: {message[:1000]}"
    assert match["line"] is not None or match["file"] == RULES_DIR, f"an error without its line: {message[:1000]}"
    assert match["line"] is None or int(match["line"]) > 0, f"an error at line 0: {message[:1000]}"


def judge(steps: Callable[[list[str]], str], known: Collection[str]) -> str:
    """Run the steps of reading one input. The answer: what became of it ("accepted", "replayed: failed") or
    which step refused it with a positioned error. A traceback (any other exception, MemoryError and
    RecursionError included) fails the test with the input, as does an answer that takes longer than LIMIT."""
    step = ["parser"]  # the step under way; the steps name the next one as they go
    try:
        with time_limit(LIMIT):
            return steps(step)
    except Hang:
        raise AssertionError(f"no answer within {LIMIT:g} s (the {step[0]} hangs)") from None
    except BaoError as err:
        assert_positioned(str(err), known)
        return f"refused by the {step[0]}"


@cache
def default_files() -> dict[str, s.RulesFile]:
    """The default rules files, parsed once per process (a variant replaces one of them)."""
    return {p.name: parse_rules_text(read_source(p, RulesError), str(p)) for p in RULES_FILES}


def load_variant(variant: Variant) -> str:
    """Load the default rules with one file replaced or added, as load_ruleset reads a rules directory."""

    def steps(step: list[str]) -> str:
        replaced = parse_rules_text(variant.text, str(default_rules_dir() / variant.name))
        step[0] = "checker"
        files = {**default_files(), variant.name: replaced}
        rules = build_ruleset([files[name] for name in sorted(files)], RULES_DIR)
        step[0] = "compiler"
        Engine(rules)
        step[0] = "citations check"
        wrong = bad_in(outline(), replaced.decls, s.Pos(replaced.path, 0, 0))  # the others cite well
        for message in wrong:
            assert_positioned(message, RULES_PATHS)
        return "refused by the citations check" if wrong else "accepted"

    return judge(steps, RULES_PATHS)


def replay(text: str) -> str:
    """Parse a scenario, check its citations and replay it against the default rules, as `baobei check` does."""

    def steps(step: list[str]) -> str:
        scenario = parse_scenario_text(text, SCENARIO_PATH)
        step[0] = "citations check"
        wrong = bad_in_scenario(outline(), scenario)
        for message in wrong:
            assert_positioned(message, {SCENARIO_PATH})
        if wrong:
            return "refused by the citations check"
        step[0] = "replay"
        result = run_scenario(scenario, engine_for(None))
        if result.failure is not None:
            assert result.failure.pos.file == SCENARIO_PATH and result.failure.pos.line > 0, result.failure
        return "replayed: passed" if result.passed else "replayed: failed"

    return judge(steps, {SCENARIO_PATH})


def fuzz(strategy: st.SearchStrategy[T], judge_one: Callable[[T], str], examples: int) -> Counter[str]:
    """Judge `examples` inputs drawn from `strategy`; what became of them, counted."""
    tally: Counter[str] = Counter()

    # No example database: the inner function has the same source in every test (the same database key).
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=SUPPRESSED)
    @given(strategy)
    def run(value: T) -> None:
        tally[judge_one(value)] += 1

    run()
    return tally


def share(tally: Counter[str], *outcomes: str) -> float:
    return sum(n for outcome, n in tally.items() if outcome.startswith(outcomes)) / max(1, tally.total())


def test_the_judge_fails_a_hang_a_memory_error_and_an_unpositioned_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules[__name__], "LIMIT", 0.3)

    def hang(step: list[str]) -> str:
        step[0] = "checker"
        while True:
            pass

    with pytest.raises(AssertionError, match=r"no answer within 0\.3 s \(the checker hangs\)"):
        judge(hang, RULES_PATHS)
    if STATM.exists():
        with pytest.raises(MemoryError):
            judge(lambda step: str(bytearray(MEMORY + (1 << 30))), RULES_PATHS)

    def unpositioned(step: list[str]) -> str:
        raise BaoError("something went wrong")

    with pytest.raises(AssertionError, match="not a positioned error"):
        judge(unpositioned, RULES_PATHS)
    assert judge(lambda step: "accepted", RULES_PATHS) == "accepted"


# ---------------------------------------------------------------- files generated from the grammars


def test_generated_rules_files_load_or_give_a_positioned_error(record_property: Callable[[str, Any], None]) -> None:
    tally = fuzz(rules_variant(), load_variant, 250)
    record_property("outcomes", dict(tally))
    # Most generated files parse: the checker, the compiler and the citations check get their share.
    assert share(tally, "refused by the parser") < 0.5, tally
    assert share(tally, "refused by the checker", "refused by the compiler", "refused by the citations",
                 "accepted") > 0.5, tally


def test_generated_scenarios_replay_or_give_a_positioned_error(record_property: Callable[[str, Any], None]) -> None:
    tally = fuzz(generated_scenario(), replay, 250)
    record_property("outcomes", dict(tally))
    assert share(tally, "refused by the parser") < 0.5, tally
    assert share(tally, "refused by the replay", "replayed") > 0.2, tally


# ---------------------------------------------------------------- the project's files, mutated token by token


def test_token_mutated_rules_files_load_or_give_a_positioned_error(
        record_property: Callable[[str, Any], None]) -> None:
    tally = fuzz(token_mutated_variant(), load_variant, 250)
    record_property("outcomes", dict(tally))
    assert share(tally, "refused by the checker", "refused by the compiler", "accepted") > 0.1, tally


def test_token_mutated_scenarios_replay_or_give_a_positioned_error(
        record_property: Callable[[str, Any], None]) -> None:
    tally = fuzz(token_mutated("scenario"), replay, 250)
    record_property("outcomes", dict(tally))
    assert share(tally, "refused by the replay", "replayed") > 0.1, tally


# ---------------------------------------------------------------- constructs nested thousands deep


def test_deeply_nested_files_give_a_positioned_error() -> None:
    tally = fuzz(rules_variant(nested("rules")), load_variant, 10)
    tally += fuzz(nested("scenario"), replay, 10)
    assert tally["refused by the parser"] > 0, tally


@pytest.mark.parametrize("construct", NESTINGS["rules"], ids=lambda c: c[1].strip() or c[3].strip())
def test_nesting_beyond_the_limit_is_refused_with_its_place(construct: tuple[str, str, str, str, str]) -> None:
    """Regression: `((((...))))` a hundred deep ran out of Python's stack in the builder (RecursionError)."""
    head, opening, inner, closing, tail = construct

    def text(depth: int) -> str:
        return head + opening * depth + inner + closing * depth + tail

    with pytest.raises(RulesError, match=rf"^deep\.bao:1:\d+: nested too deeply \(more than {MAX_NESTING} "):
        parse_rules_text(text(2000), "deep.bao")
    # The deepest nesting the parser takes goes through the checker and the compiler without exhausting the stack.
    low, high = 1, MAX_NESTING  # every level of the construct is at least one level of the grammar
    while low < high:
        middle = (low + high + 1) // 2
        try:
            parse_rules_text(text(middle), "deep.bao")
            low = middle
        except RulesError as err:
            assert "nested too deeply" in str(err)
            high = middle - 1
    outcome = load_variant(Variant(ADDED, text(low), "add"))
    assert outcome in ("accepted", "refused by the checker", "refused by the compiler"), outcome


def test_scenario_expressions_nested_beyond_the_limit_are_refused_with_their_place() -> None:
    deep = "not " * 5000 + "true"
    text = (f'scenario "deep"\ncites § 1.2 [P9]\ntable\n  players alice bob\n  alice:\n  bob:\nplay\n'
            f'  expect value "{deep}" = false\n')
    assert replay(text) == "refused by the replay"
    shallow = "not " * 151 + "true"  # false, as expected
    assert replay(text.replace(deep, shallow)) == "replayed: passed"


# ---------------------------------------------------------------- numbers too long, ranges too wide


@pytest.mark.parametrize("text", [
    "players 2..{big} § 1.2 [P7]",
    "players 2..6 § 1.2 [P{big}]",
    "players 2..6 § 1.2 [P1-P{big}]",
    "define x = -{big}",
    "table t \"t\" § 1.2 [P7] {{ 2: {big} }}",
])
def test_numbers_too_long_to_read_are_refused_with_their_place(text: str) -> None:
    """Regression: a number of more than 4,300 digits made int() fail inside the builder (a traceback)."""
    with pytest.raises(RulesError, match=r"^f\.bao:1:\d+: a number of more than \d+ digits is too long to read"):
        parse_rules_text(text.format(big="9" * 5000), "f.bao")


@pytest.mark.parametrize("line", ["deal seed {big} players alice bob", "table\n  players alice bob\n  seed {big}"])
def test_numbers_too_long_in_a_scenario_are_refused_with_their_place(line: str) -> None:
    text = f'scenario "big"\n{line.format(big="9" * 5000)}\nplay\n'
    with pytest.raises(SourceError, match=r"^f\.scenario:\d+:\d+: a number of more than \d+ digits"):
        parse_scenario_text(text, "f.scenario")


def test_paragraph_ranges_are_bounded() -> None:
    """Regression: every paragraph of a range is listed, so [P1-P99999999999] never ended (or ran out of memory)."""
    with time_limit(LIMIT), pytest.raises(RulesError, match=rf"^f\.bao:1:21: paragraph range P1-P99999999999 "
                                                            rf"spans more than {MAX_RANGE} paragraphs"):
        parse_rules_text("players 2..6 § 1.2 [P1-P99999999999]", "f.bao")
    last = f"P{MAX_RANGE}"
    decl = parse_rules_text(f"players 2..6 § 1.2 [P1-{last}]", "f.bao").decls[0]
    assert isinstance(decl, s.PlayersDecl)
    assert len(decl.cite.paras) == MAX_RANGE and decl.cite.paras[-1] == last


@pytest.mark.parametrize(("file", "declaration", "what"), [
    ("06_bao.bao", r'(protect shield )"[^"]*"', "protect 'shield'"),
    ("05_abilities.bao", r'(no choice )"[^"]*"', "no choice"),
])
def test_protect_and_no_choice_rules_need_a_text(file: str, declaration: str, what: str) -> None:
    """Regression: the engine gives their text as the reason (`text[0].lower()`): an empty one was an IndexError
    when the engine was built (protect) or an ability dropped (no choice)."""
    path = default_rules_dir() / file
    text = re.sub(declaration, r'\1""', path.read_text(encoding="utf-8"), count=1)
    assert text != path.read_text(encoding="utf-8")
    files = [parse_rules_text(text, str(path)) if name == file else f for name, f in default_files().items()]
    with pytest.raises(RulesError, match=rf"^{re.escape(str(path))}:\d+:1: {what} needs a text"):
        build_ruleset(files, RULES_DIR)


@pytest.mark.parametrize("line", ["set noted[alice] = alice.1", "set bao_caller = bob.2", "set contenders = alice.1"])
def test_a_place_set_in_a_scenario_table_is_refused_with_its_place(line: str) -> None:
    """Regression: `set VAR = alice.1` in a table reached the setup as a bare place: AttributeError."""
    text = f'scenario "set"\ntable\n  players alice bob\n  alice: Spatz, Amsel\n  bob: Kranich, Star\n  {line}\nplay\n'
    with pytest.raises(SourceError, match=r"^fuzz\.scenario:6:\d+: expected "):
        run_scenario(parse_scenario_text(text, SCENARIO_PATH), engine_for(None))


def test_table_rows_are_bounded() -> None:
    """Regression: a table's check for overlapping rows lists every player count of a row: 2..99999999999 took
    all the memory of the machine."""
    text = 'table t "t" § 1.2 [P7] {{\n  2..{high}: 5\n}}'
    with time_limit(LIMIT), pytest.raises(RulesError, match=rf"^f\.bao:2:3: table row 2\.\.99999999999 spans more "
                                                            rf"than {MAX_RANGE} player counts"):
        parse_rules_text(text.format(high=99999999999), "f.bao")
    parse_rules_text(text.format(high=MAX_RANGE), "f.bao")


# ---------------------------------------------------------------- the project's files, mutated byte by byte


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


@st.composite
def mutated_variant(draw: st.DrawFn) -> Variant:
    path = draw(st.sampled_from(RULES))
    return Variant(path.name, draw(mutated([path])), "bytes")


def parses_or_positioned(parse: object, text: str, path: str) -> None:
    try:
        parse(text, path)  # type: ignore[operator]
    except SourceError as err:
        assert str(err).startswith(path), str(err)
        assert POSITIONED.search(str(err)), str(err)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_variant())
def test_mutated_rules_files_load_or_give_a_positioned_error(variant: Variant) -> None:
    load_variant(variant)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(SCENARIOS))
def test_mutated_scenario_files_replay_or_give_a_positioned_error(text: str) -> None:
    replay(text)


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


# ---------------------------------------------------------------- the command line


def no_traceback(code: int, out: str, err: str, path: Path) -> None:
    assert code in (0, 1, 2) and "Traceback" not in out + err, (code, out, err)
    if code == 2:
        first = next(line for line in err.splitlines() if line.startswith(("error: ", "ERROR ")))
        assert str(path) in first, first


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# deferred: the grammar's strategy is built when the test runs, not in every test process that collects it.
@given(st.one_of(mutated(SCENARIOS), token_mutated("scenario"), st.deferred(generated_scenario)))
def test_check_runs_mutated_scenarios_without_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         text: str) -> None:
    path = tmp_path / "fuzz.scenario"
    path.write_text(text, encoding="utf-8")
    with time_limit(LIMIT):
        code = main(["check", str(path)])
    out, err = capsys.readouterr()
    no_traceback(code, out, err, path)


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.one_of(rules_variant(), token_mutated_variant(), mutated_variant()))
def test_rules_command_reads_variants_without_a_traceback(make_variant: MakeVariant,
                                                          capsys: pytest.CaptureFixture[str],
                                                          variant: Variant) -> None:
    """The same variants, from a directory, through `baobei rules --rules DIR`."""
    directory = make_variant()
    (directory / variant.name).write_text(variant.text, encoding="utf-8")
    with time_limit(LIMIT):
        code = main(["rules", "--rules", str(directory)])
    out, err = capsys.readouterr()
    assert code in (0, 2), (code, out, err)
    no_traceback(code, out, err, directory)


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
            broken += [i.ident for i in eng.broken_transitions(before, st, move)]
            assert not broken, (variant, eng.describe(before, move), broken)
    assert accepted > 50 and rejected > 50, (variant, accepted, rejected)


# ---------------------------------------------------------------- the long run (pytest -m slow)

# Inputs per source: 102,000 in all, about half an hour on one core (`pytest -m slow -n 2`: about a quarter).
LONG_RUN: dict[str, tuple[Callable[[], st.SearchStrategy[Any]], Callable[[Any], str], int]] = {
    "generated rules": (rules_variant, load_variant, 15_000),
    "generated scenarios": (generated_scenario, replay, 15_000),
    "token-mutated rules": (token_mutated_variant, load_variant, 20_000),
    "token-mutated scenarios": (lambda: token_mutated("scenario"), replay, 20_000),
    "byte-mutated rules": (mutated_variant, load_variant, 15_000),
    "byte-mutated scenarios": (lambda: mutated(SCENARIOS), replay, 15_000),
    "nested rules": (lambda: rules_variant(nested("rules")), load_variant, 500),
    "nested scenarios": (lambda: nested("scenario"), replay, 1_500),
}


@pytest.mark.slow
@pytest.mark.parametrize("source", LONG_RUN)
def test_long_run(source: str, record_property: Callable[[str, Any], None]) -> None:
    strategy, judge_one, examples = LONG_RUN[source]
    tally = fuzz(strategy(), judge_one, examples)
    record_property("inputs", tally.total())
    record_property("outcomes", dict(tally))
    print(f"{source}: {tally.total()} inputs, no failure: {dict(tally)}")
    assert tally.total() >= examples, tally
