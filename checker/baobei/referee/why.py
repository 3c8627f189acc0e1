"""`baobei why FILE[:LINE] [MOVE]`: a judge's question at a position of a scenario or a game log.

The position is the table after line LINE (the whole file when no line is given): a scenario is replayed
up to it, a game log judged up to it. With a move, the answer is whether it is legal there and, if not,
every reason in rank order (the decisive one first), each with the rule's own words, section and
paragraphs. Without a move, every legal move of every player there, grouped by player.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.notation import NotationError, parse_move_text
from ..engine.state import State
from ..engine.table_view import render_table
from ..language.errors import BaoError, Rejection
from ..language.ruleset import Ruleset
from ..scenarios import syntax as sc
from ..scenarios.parser import SCENARIO_SUFFIX, parse_scenario_file
from ..scenarios.runner import Replay
from ..scenarios.setup import impossible_slot


@dataclass
class Position:
    """The table after a line of a file, and how it was reached."""

    engine: Engine
    state: State
    file: str
    line: int  # 0: the whole file


@dataclass
class Answer:
    position: Position
    move: str = ""
    legal: bool | None = None  # None: no move was asked about
    reasons: list[Rejection] = field(default_factory=list)
    legal_moves: dict[str, list[str]] = field(default_factory=dict)


def split_place(text: str) -> tuple[Path, int]:
    """FILE or FILE:LINE (a path may hold colons: only a trailing number is a line)."""
    name, sep, tail = text.rpartition(":")
    if sep and tail.isdigit() and name:
        line = int(tail)
        if line < 1:
            raise BaoError(f"{text}: lines are numbered from 1")
        return Path(name), line
    return Path(text), 0


def position_after(eng: Engine, path: Path, line: int, rules_dir: Path) -> Position:
    if not path.is_file():
        raise BaoError(no_file(path))
    lines = len(path.read_bytes().splitlines())
    if line > lines:
        raise BaoError(f"{path}:{line}: the file has {lines} line{'' if lines == 1 else 's'}")
    if path.suffix == SCENARIO_SUFFIX:
        return Position(eng, scenario_position(eng, path, line), str(path), line)
    return Position(eng, log_position(eng, path, line, rules_dir), str(path), line)


def no_file(path: Path) -> str:
    """Why `path` names no file to ask about: a folder, a device, a line number written wrong, or nothing."""
    if path.is_dir():
        return f"{path}: is a folder; name a scenario or a game log, with :LINE for a position in it"
    if path.exists():
        return f"{path}: is not a regular file; name a scenario or a game log"
    head, colon, rest = str(path).partition(":")
    if colon and not rest and Path(head).is_file():
        return f"{path}: the line number is missing (FILE:LINE, the line a whole number from 1)"
    if rest and Path(head).is_file():
        if rest.isdigit():  # FILE:LINE:COLUMN, the column taken for the line
            return f"{path}: write FILE:LINE, one line number (no column)"
        return f"{path}: {rest!r} is no line number (FILE:LINE, the line a whole number from 1)"
    return f"{path}: no such file"


def scenario_position(eng: Engine, path: Path, line: int) -> State:
    """Replay the scenario's steps up to the line; a step that fails before it ends the question there."""
    scenario = parse_scenario_file(path)
    replay = Replay(eng, scenario, snapshots=False)
    for step in scenario.steps:
        if line and step.pos.line > line:
            break
        if line and isinstance(step, sc.Simultaneous) and step.calls and line < step.calls[-1].pos.line:
            # The calls of the block are judged together (D6's order): there is no table between them.
            first, last = step.pos.line, step.calls[-1].pos.line
            raise BaoError(f"{path}:{line}: inside the simultaneous calls of lines {first}-{last}, which are "
                           f"judged together: ask after line {first - 1} (before them) or at line {last} (after them)")
        failure = replay.step(step)
        if failure is not None:
            raise BaoError(f"{failure.pos}: the scenario fails here, before the position asked about: "
                           f"{failure.message}")
    return replay.st


def log_position(eng: Engine, path: Path, line: int, rules_dir: Path) -> State:
    """Judge the game log up to the line; an error before it ends the question there."""
    from .judge import Referee
    from .logfile import read_log

    log = read_log(path)
    if line:
        log = dataclasses.replace(log, lines=tuple(entry for entry in log.lines if entry.number <= line))
    judge = Referee(eng, log, rules_dir)
    verdict = judge.run()
    if not verdict.legal:
        found = verdict.findings[0]
        raise BaoError(f"{path}:{found.line}: the log is wrong here, before the position asked about: "
                       f"{found.kind}: {found.why}")
    return judge.st


def ask(position: Position, move_text: str | None) -> Answer:
    eng, st = position.engine, position.state
    if move_text is None:
        return Answer(position, legal_moves=legal_by_player(eng, st))
    try:
        move = parse_move_text(eng.rules.moves, st, move_text)
    except NotationError as err:
        raise BaoError(f"{move_text!r}: {err}") from None
    _check_slots(st, move, move_text)
    rejection = eng.check(st, move)
    if rejection is None:
        return Answer(position, eng.describe(st, move), True)
    return Answer(position, rejection.move, False, list(rejection.all()))


def _check_slots(st: State, move: Move, move_text: str) -> None:
    """A slot no tableau can have (numbered from 1, at most one per card of the deck) is a mistake in the
    question, as in a scenario, not a move the rules refuse."""
    for name, value in move.args:
        if isinstance(value, tuple) and len(value) == 2:
            problem = impossible_slot(st, st.names[value[0]], value[1])
            if problem is not None:
                raise BaoError(f"{move_text!r}: {name}={problem}")


def legal_by_player(eng: Engine, st: State) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {name: [] for name in st.names}
    for move in eng.legal_moves(st):
        grouped[st.names[move.player]].append(eng.describe(st, move))
    return grouped


def rule_text(rules: Ruleset, rule: str) -> str:
    """The words of the rule a reason names: a move's, a halt's, a protection's, the waiting rule's."""
    kind, _, name = rule.partition(" ")
    if kind == "halt" and name in rules.halts:
        return rules.halts[name].text
    if kind == "protect" and name in rules.protects:
        return rules.protects[name].text
    if rule == "waiting" and rules.waiting is not None:
        return rules.waiting.text
    move = rules.moves.get(rule)
    return move.text if move is not None else ""


def answer_lines(answer: Answer) -> list[str]:
    pos = answer.position
    where = f"{pos.file}, after line {pos.line}" if pos.line else f"{pos.file}, at its end"
    lines = [f"position: {where}", *[f"  | {row}" for row in render_table(pos.engine, pos.state)]]
    if answer.legal is None:
        lines.append("legal moves:")
        for player, moves in answer.legal_moves.items():
            lines.append(f"  {player}: " + (f"{len(moves)} move{'s' if len(moves) != 1 else ''}" if moves
                                            else "no legal move"))
            lines += [f"    {m}" for m in moves]
        return lines
    if answer.legal:
        return [*lines, f"{answer.move}: legal"]
    lines.append(f"{answer.move}: illegal")
    for rank, reason in enumerate(answer.reasons, 1):
        label = "decisive" if rank == 1 else "also"
        lasting = "passing: it ends by itself" if reason.passing else "lasting"
        lines.append(f"  {rank}. {label}: {reason.cite} ({reason.rule}, {lasting}): {reason.reason}")
        words = rule_text(pos.engine.rules, reason.rule)
        if words:
            lines.append(f"       the rule: {words}")
    return lines


def answer_json(answer: Answer) -> dict[str, Any]:
    pos = answer.position
    out: dict[str, Any] = {"file": pos.file, "line": pos.line or None, "table": render_table(pos.engine, pos.state)}
    if answer.legal is None:
        out["legal_moves"] = answer.legal_moves
        return out
    out |= {"move": answer.move, "legal": answer.legal,
            "reasons": [{"rule": r.rule, "cite": str(r.cite), "reason": r.reason, "passing": r.passing,
                         "rule_text": rule_text(pos.engine.rules, r.rule)} for r in answer.reasons]}
    return out
