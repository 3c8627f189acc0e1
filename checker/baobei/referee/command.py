"""`baobei referee LOG|DIR ...`: judge game logs in one process, and say the verdicts.

The rules are compiled once and the schema's validators are built once (logfile.py caches them), so
a hundred logs pay the start-up once. A malformed log is a verdict like the others (`malformed`,
exit 2): the other logs are still judged, and `--json` prints a verdict for it too, with its error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..engine.engine import Engine
from ..language.paths import default_rules_dir
from ..language.source import Pos
from ..language.terminal import emit, progress
from ..language.words import plural
from ..scenarios.runner import engine_for
from .judge import Verdict, referee
from .logfile import LogError, parse_log, read_log_text

LOG_SUFFIX = ".jsonl"
EXIT_OK, EXIT_ERRORS, EXIT_MALFORMED = 0, 1, 2
Result = tuple[Path, Verdict | LogError]


def log_paths(paths: Sequence[Path]) -> list[Path]:
    """The logs named: a file as it is, a directory's *.jsonl files (below it too), in name order."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            # Regular files only: reading a stray named pipe would wait for a writer forever.
            found = sorted(f for f in path.rglob(f"*{LOG_SUFFIX}") if f.is_file())
            if not found:
                raise LogError(Pos(str(path), 0, 0), f"no game logs (*{LOG_SUFFIX}) in this directory")
            out += found
        else:
            out.append(path)  # a missing file is that log's error (read_log_text)
    return out


def judge_log(eng: Engine, path: Path, rules_dir: Path, keep_going: bool = False,
              advance: Callable[[int], None] = lambda lines: None) -> Verdict | LogError:
    """One log's verdict, or the error that makes it malformed; `advance(1)` per line read and judged."""
    try:
        log = parse_log(read_log_text(path), str(path), advance)
        return referee(eng, log, rules_dir, keep_going, advance)
    except LogError as err:
        return err


def judge_logs(eng: Engine, paths: Sequence[Path], rules_dir: Path, keep_going: bool = False,
               advance: Callable[[int], None] = lambda logs: None) -> list[Result]:
    """Every log's verdict (or error), in order, with one engine; `advance(1)` after each log."""
    results: list[Result] = []
    for path in paths:
        results.append((path, judge_log(eng, path, rules_dir, keep_going)))
        advance(1)
    return results


def malformed_json(path: Path, err: LogError) -> dict[str, Any]:
    """A malformed log's verdict: the shape of a judged one, with the error that stopped the reading."""
    return {"log": str(path), "verdict": "malformed", "lines": 0, "moves": 0, "implicit_moves": 0, "claims": 0,
            "claims_wrong": 0, "errors": [],
            "error": {"line": err.pos.line, "column": err.pos.column, "message": err.message,
                      "excerpt": err.excerpt}}


def result_json(result: Result) -> dict[str, Any]:
    path, verdict = result
    return malformed_json(path, verdict) if isinstance(verdict, LogError) else verdict.to_json()


def exit_code(results: Sequence[Result]) -> int:
    """2 when a log is malformed, else 1 when a log has an error, else 0."""
    if any(isinstance(v, LogError) for _, v in results):
        return EXIT_MALFORMED
    return EXIT_OK if all(v.legal for _, v in results if isinstance(v, Verdict)) else EXIT_ERRORS


def run_referee(args: argparse.Namespace) -> int:
    """The command: `args.logs` (files or directories), `args.rules`, `args.all`, `args.json`."""
    rules_dir = Path(args.rules) if args.rules else default_rules_dir()
    named = [Path(p) for p in args.logs]
    paths = log_paths(named)
    eng = engine_for(rules_dir)  # bad rules are bad input of the whole call (exit 2 by the caller)
    if len(paths) == 1:
        results = [(paths[0], _judge_one(eng, paths[0], rules_dir, args.all))]
    else:
        with progress("logs judged", len(paths)) as advance:
            results = judge_logs(eng, paths, rules_dir, args.all, advance)
    if args.json:
        _print_json(results, single=len(named) == 1 and not named[0].is_dir())
    for result in results:
        _report(result, args.all, err=bool(args.json))
    if len(results) > 1:
        _summary(results, err=bool(args.json))
    return exit_code(results)


def _judge_one(eng: Engine, path: Path, rules_dir: Path, keep_going: bool) -> Verdict | LogError:
    """A single log, with a progress bar over its lines (reading checks the schema: slow too)."""
    try:
        text = read_log_text(path)
        with progress("log lines read", text.count("\n") + 1) as advance:
            log = parse_log(text, str(path), advance)
        with progress("log lines judged", len(log.lines)) as advance:
            return referee(eng, log, rules_dir, keep_going, advance)
    except LogError as err:
        return err


def _print_json(results: Sequence[Result], single: bool) -> None:
    """One log named: its verdict; several (or a directory): every verdict and the counts."""
    if single:
        document: dict[str, Any] = result_json(results[0])
    else:
        document = {"logs": [result_json(r) for r in results], **_counts(results)}
    print(json.dumps(document, indent=2))  # ASCII: a log's odd text cannot break the output


def _counts(results: Sequence[Result]) -> dict[str, int]:
    malformed = sum(isinstance(v, LogError) for _, v in results)
    legal = sum(isinstance(v, Verdict) and v.legal for _, v in results)
    return {"legal": legal, "errors": len(results) - malformed - legal, "malformed": malformed}


def _report(result: Result, keep_going: bool, err: bool) -> None:
    """The verdict for people: every finding with its table, then one line. With --json on standard
    error, so that standard output holds the JSON alone."""
    path, verdict = result
    if isinstance(verdict, LogError):
        print(f"error: {verdict}", file=sys.stderr)
        return
    for found in verdict.findings:
        rule = f" breaks {found.rule}" if found.rule else ""
        emit(f"{path}:{found.line}: {found.kind}: {found.move or '(claims)'}{rule}: {found.why}", "fail", err=err)
        for row in found.table:
            emit(f"    {row}", err=err)
    summary = (f"{plural(verdict.lines, 'line')}: {plural(verdict.moves, 'move')} legal"
               + (f" ({verdict.implicit} implicit step(s) made)" if verdict.implicit else "")
               + f", {plural(verdict.claims, 'claim')} right"
               + (f", {verdict.wrong_claims} wrong" if verdict.wrong_claims else ""))
    if verdict.legal:
        emit(f"{path}: every move is legal and every claim is right; {summary}", "pass", err=err)
        return
    first = "" if keep_going else " (the first; --all lists every one)"
    emit(f"{path}: {plural(len(verdict.findings), 'error')}{first}; {summary}", "fail", err=err)


def _summary(results: Sequence[Result], err: bool) -> None:
    counts = _counts(results)
    style = "pass" if counts["legal"] == len(results) else "fail"
    emit(f"{plural(len(results), 'log')}: {counts['legal']} legal, {counts['errors']} with errors, "
         f"{counts['malformed']} malformed", style, err=err)
