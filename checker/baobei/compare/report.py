"""The comparison for people (four sections, citing § and [P]) and as JSON (docs/compare.schema.json)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..language.terminal import emit, table
from ..language.words import plural
from .answers import PASSED, AnswerReport, ChangedAnswer, Outcome
from .changes import RuleChanges
from .distinguish import SearchReport
from .intervals import ALPHA, Estimate
from .lockstep import NEW, OLD
from .play import Figure, PlayReport, Sample
from .properties import PropertyChange, PropertyReport, Verdict

if TYPE_CHECKING:
    from ..proofs.pair import PairReport

FORMAT = "baobei-compare/1"
MOVED = "*"
LISTED = 12  # scenarios listed by name in a group that parts the same way (the JSON lists every one)
WIDE = 160  # characters of one thing a version does, shown to people (the JSON has it whole)
DOINGS = 3  # what a version does at the differing step, shown to people (the JSON has every event)


@dataclass
class Comparison:
    labels: dict[str, str]  # how the user named each version
    changes: RuleChanges
    answers: AnswerReport
    properties: PropertyReport
    search: SearchReport
    play: PlayReport | None  # None: no matches asked for
    files: list[str] = field(default_factory=list)  # written into --out
    seconds: float = 0.0
    samples: dict[str, Sample] | None = None  # the campaigns' matches, for the plots

    @property
    def differs(self) -> bool:
        return bool(self.answers.changed or self.property_changes or self.search.situation is not None
                    or (self.play is not None and self.play.moved))

    @property
    def property_changes(self) -> list[PropertyChange]:
        """The properties whose verdict changed, or that one version alone declares."""
        return [c for c in self.properties.changes if c.change != "definition"]


# ---------------------------------------------------------------- for people


def print_report(c: Comparison) -> None:
    emit(f"compare OLD {c.labels[OLD]} with NEW {c.labels[NEW]}", "head")
    _rules(c.changes)
    _answers(c.answers)
    _properties(c.properties)
    _situation(c.search)
    _play(c.play)
    _verdict(c)


def _rules(changes: RuleChanges) -> None:
    if not changes.changes:
        emit("the rules' declarations are the same (text positions aside)")
        return
    emit(f"{plural(len(changes.changes), 'declaration')} of the rules differ:")
    for change in changes.changes:
        emit(f"  {change}")


def _answers(report: AnswerReport) -> None:
    verdicts = [a for a in report.changed if a.answer_changed]
    ways = [a for a in report.changed if not a.answer_changed]
    faq = sum(1 for a in verdicts if a.faq)
    emit("")
    emit(f"1. Answers that change: {len(verdicts)} of {plural(report.scenarios, 'scenario')}"
         + (f" ({faq} FAQ {'entry' if faq == 1 else 'entries'})" if faq else ""), "head")
    for group in _groups(verdicts):
        _group(group)
    if ways:
        emit(f"   the same answer, reached another way ({len(ways)}; compare.json says how), the first step that "
             "differs:")
        for a in ways[:LISTED]:
            emit(f"    {_where(a)}")
        if len(ways) > LISTED:
            emit(f"    ... and {len(ways) - LISTED} more")
    for line in report.unreadable:
        emit(f"   not read (under either version): {line}", "warn")


def _groups(answers: list[ChangedAnswer]) -> list[list[ChangedAnswer]]:
    """Scenarios that part the same way (the same verdicts, the same doings and rules at the step) together."""
    groups: dict[tuple[object, ...], list[ChangedAnswer]] = {}
    for a in answers:
        key = (a.old.status, a.old.message, a.old.undeclared, a.new.status, a.new.message, a.new.undeclared,
               a.old_side, a.new_side)
        groups.setdefault(key, []).append(a)
    return list(groups.values())


def _group(group: list[ChangedAnswer]) -> None:
    first = group[0]
    if len(group) > 1:
        emit(f"  {len(group)} scenarios part the same way: OLD {_short(_verdict_words(first.old))}; NEW "
             f"{_short(_verdict_words(first.new))}", "fail" if first.answer_changed else None)
    else:
        emit(f"  {_where(first)}: {first.title}", "fail" if first.answer_changed else None)
        emit(f"    OLD {_short(_outcome(first.old))}; NEW {_short(_outcome(first.new))}")
    for side, what in ((OLD, first.old_side), (NEW, first.new_side)):
        rules = f"  ({'; '.join(what.rules)})" if what.rules else ""
        more = " / ..." if len(what.does) > DOINGS else ""
        emit(f"      {side.upper()}: {' / '.join(_short(d) for d in what.does[:DOINGS])}{more}{rules}")
    if len(group) > 1:
        for a in group[:LISTED]:
            emit(f"    {_where(a)}")
        if len(group) > LISTED:
            emit(f"    ... and {len(group) - LISTED} more (every one in compare.json)")


def _where(a: ChangedAnswer) -> str:
    """A scenario, its FAQ mark, and the first step that differs."""
    faq = "" if not a.faq else " [FAQ " + ", ".join(p for p in a.faq if p) + "]" if any(a.faq) else " [FAQ]"
    return f"{a.path}{faq}" + (f" line {a.line}: {_short(a.step, WIDE // 2)}" if a.step else "")


def _short(text: str, wide: int = WIDE) -> str:
    return text if len(text) <= wide else text[:wide - 1].rstrip() + "…"


def _verdict_words(o: Outcome) -> str:
    words = "passes" if o.status == PASSED else f"{o.status}: {o.message}" if o.message else o.status
    return words + _resting_words(o)


def _outcome(o: Outcome) -> str:
    if o.status == PASSED:
        return "passes" + _resting_words(o)
    return f"{o.status}" + (f" at line {o.line}" if o.line else "") + (f": {o.message}" if o.message else "") + \
        _resting_words(o)


def _resting_words(o: Outcome) -> str:
    """A replay that went ahead without an assumption its rules do not declare says so."""
    return f" (without {', '.join(o.undeclared)}: not declared)" if o.undeclared else ""


def _properties(report: PropertyReport) -> None:
    b = report.budget
    emit("")
    changes = [c for c in report.changes if c.change != "definition"]
    emit(f"2. Properties that change: {len(changes)} (search from {plural(b.deals, 'seeded deal')} of "
         f"{b.players} players, {b.depth} moves deep, at most {b.max_states:,} states: OLD judged "
         f"{report.old_states:,} states to depth {report.old_depth}, NEW {report.new_states:,} to depth "
         f"{report.new_depth})", "head")
    for change in report.changes:
        verdicts = f"OLD {_verdict_text(change.old)}; NEW {_verdict_text(change.new)}"
        style = None if change.change == "definition" else "fail"
        what = "its definition changed, the verdict not" if change.change == "definition" else change.change
        emit(f"  {change.label} ({what}): {verdicts}", style)
        side = change.breaks_in
        if side:
            broken = change.new if side == NEW else change.old
            emit(f"    under {side.upper()}: {broken.message}")


def _verdict_text(v: Verdict) -> str:
    if v.status == "violated":
        return f"violated at depth {v.depth}"
    if v.status == "holds":
        return f"holds to depth {v.depth}"
    return "not declared"


def _situation(report: SearchReport) -> None:
    emit("")
    s = report.situation
    searched = ", ".join(f"{n} {what.removesuffix('s') if n == 1 else what}" for what, n in report.starts.items())
    levels = ", ".join(f"{what} to depth {d}" for what, d in report.levels.items())
    where = "" if s is None else f"{plural(s.depth, 'move')} from {s.start}" if s.depth else f"in {s.start}"
    emit("3. The shortest situation that tells them apart: " + (where or "none found"), "head")
    emit(f"   searched in lock step from {searched or 'the whole deals only'}; {report.pairs:,} pairs of states"
         + (f"; breadth first {levels}" if levels else "") + (" (stopped at --max-states)" if report.truncated
                                                              else ""))
    if report.bmc is not None:
        emit("   " + _bmc_line(report.bmc))
    if s is None:
        return
    if s.move:
        emit(f"  {s.move}")
    for side in (OLD, NEW):
        rules = f"  ({'; '.join(s.rules.get(side, ()))})" if s.rules.get(side) else ""
        emit(f"    {side.upper()}: {' / '.join(s.does.get(side, ())) or '-'}{rules}")
    other = NEW if s.passes == OLD else OLD
    emit(f"  as a scenario, it passes under {s.passes.upper()} and fails under {other.upper()}: "
         f"{_outcome(s.outcomes[other])}")
    for line in s.scenario.rstrip("\n").splitlines():
        emit(f"    | {line}")


def _play(report: PlayReport | None) -> None:
    emit("")
    if report is None:
        emit("4. What it does to play: not played (--matches 0)", "head")
        return
    o = report.options
    emit(f"4. What it does to play: {o.matches:,} matches of {o.players} players from seed {o.seed} under each "
         f"version, the same seeds, policy {report.policy}, turn cap {o.max_turns:,} ({report.seconds:.1f}s)",
         "head")
    rows = [(f.name, str(f.old), str(f.new), MOVED if f.moved else "") for f in report.figures
            if not f.detail or f.moved]
    table(("figure", "OLD [95 % interval]", "NEW [95 % interval]", "moved"), rows)
    compared = sum(1 for f in report.figures if f.old.n and f.new.n)
    emit(f"   {MOVED}: moved beyond chance (p < {ALPHA} adjusted for the {compared} figures compared, Holm); "
         f"{len(report.moved)} moved; shares by value of other dimensions are listed only when they moved")


def _verdict(c: Comparison) -> None:
    emit("")
    if c.files:
        emit("wrote " + ", ".join(c.files))
    if not c.differs:
        emit("the two versions give the same answers, properties and play", "pass")
        return
    properties = len(c.property_changes)
    parts = [plural(len([a for a in c.answers.changed if a.answer_changed]), "answer"),
             f"{properties} {'property' if properties == 1 else 'properties'}",
             "a situation" if c.search.situation else "no situation",
             plural(len(c.play.moved), "figure") + " moved" if c.play is not None else "no play"]
    emit("the versions differ: " + ", ".join(parts), "fail")


# ---------------------------------------------------------------- JSON


def to_json(c: Comparison) -> dict[str, Any]:
    return {
        "format": FORMAT, "old": c.labels[OLD], "new": c.labels[NEW], "differs": c.differs,
        "rules": [{"kind": ch.kind, "name": ch.name, "status": ch.status, "cite": ch.cite}
                  for ch in c.changes.changes],
        "answers": _answers_json(c.answers), "properties": _properties_json(c.properties),
        "situation": _situation_json(c.search), "play": None if c.play is None else _play_json(c.play),
        "files": c.files, "seconds": round(c.seconds, 2),
    }


def _outcome_json(o: Outcome) -> dict[str, Any]:
    return {"status": o.status, "line": o.line, "message": o.message, "undeclared": list(o.undeclared)}


def _answers_json(r: AnswerReport) -> dict[str, Any]:
    return {"scenarios": r.scenarios, "unreadable": r.unreadable, "changed": [
        {"path": a.path, "title": a.title, "faq": [p for p in a.faq if p], "is_faq": bool(a.faq),
         "answer_changed": a.answer_changed, "old": _outcome_json(a.old), "new": _outcome_json(a.new),
         "step": {"line": a.line, "text": a.step},
         "does": {OLD: list(a.old_side.does), NEW: list(a.new_side.does)},
         "rules": {OLD: list(a.old_side.rules), NEW: list(a.new_side.rules)}} for a in r.changed]}


def _verdict_json(v: Verdict) -> dict[str, Any]:
    return {"status": v.status, "depth": v.depth, "message": v.message, "cite": v.cite}


def _properties_json(r: PropertyReport) -> dict[str, Any]:
    b = r.budget
    return {"players": b.players, "depth": b.depth, "deals": b.deals, "seed": b.seed, "max_states": b.max_states,
            "states": {OLD: r.old_states, NEW: r.new_states}, "complete": {OLD: r.old_depth, NEW: r.new_depth},
            "changes": [{"property": ch.label, "change": ch.change, "old": _verdict_json(ch.old),
                         "new": _verdict_json(ch.new), "breaks_in": ch.breaks_in or None,
                         "counterexample": _counterexample(ch)} for ch in r.changes]}


def _counterexample(change: PropertyChange) -> str | None:
    """The scenario of the failure on the side where the property breaks (None: it breaks on neither alone)."""
    if not change.breaks_in:
        return None
    return (change.new if change.breaks_in == NEW else change.old).scenario or None


def _bmc_line(b: PairReport) -> str:
    if b.reason:
        return f"Z3 over the two transition relations: not run ({b.reason})"
    if b.found >= 0:
        return (f"Z3 over the two transition relations: a parting move {plural(b.found, 'move')} after a deal of "
                f"the small deck, the engines confirming it ({plural(b.candidates, 'path')} followed, "
                f"{b.seconds:.1f}s)")
    reach = f"no parting move within {plural(b.depth, 'move')} of any deal of the small deck" if b.depth >= 0 \
        else "no depth judged"
    tried = f", {plural(b.candidates, 'path')} followed by both engines" if b.candidates else ""
    return f"Z3 over the two transition relations: {reach}{tried} ({b.seconds:.1f}s)"


def _situation_json(r: SearchReport) -> dict[str, Any]:
    bmc = None if r.bmc is None else {"depth": r.bmc.depth, "found": r.bmc.found, "candidates": r.bmc.candidates,
                                      "seconds": round(r.bmc.seconds, 2), "reason": r.bmc.reason}
    search = {"starts": r.starts, "pairs": r.pairs, "levels": r.levels, "truncated": r.truncated,
              "splits": r.splits, "unwritten": r.unwritten, "seconds": round(r.seconds, 2), "bmc": bmc}
    s = r.situation
    if s is None:
        return {"found": False, "search": search}
    return {"found": True, "search": search, "depth": s.depth, "start": s.start, "kind": s.kind, "move": s.move,
            "passes": s.passes, "does": {k: list(v) for k, v in s.does.items()},
            "rules": {k: list(v) for k, v in s.rules.items()}, "scenario": s.scenario,
            "replays": {side: _outcome_json(o) for side, o in s.outcomes.items()}}


def _estimate_json(e: Estimate) -> dict[str, Any]:
    return {"value": _rounded(e.value), "low": _rounded(e.low), "high": _rounded(e.high), "n": e.n}


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def _figure_json(f: Figure) -> dict[str, Any]:
    return {"name": f.name, "kind": f.kind, "text": f.what, "cite": f.cite, "old": _estimate_json(f.old),
            "new": _estimate_json(f.new), "p": round(f.p, 6), "moved": f.moved, "detail": f.detail}


def _play_json(r: PlayReport) -> dict[str, Any]:
    o = r.options
    return {"players": o.players, "matches_played": o.matches, "seed": o.seed, "policy": r.policy,
            "turn_cap": o.max_turns, "moves": r.moves, "seconds": round(r.seconds, 2), "alpha": ALPHA,
            "figures": [_figure_json(f) for f in r.figures], "moved": [f.name for f in r.moved]}


def to_text(c: Comparison) -> str:
    return json.dumps(to_json(c), indent=1, ensure_ascii=False) + "\n"
