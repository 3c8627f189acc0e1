"""The figures of a campaign: every number of its matches, merged in match order, as JSON.

Nothing here is timed, so the same campaign gives the same JSON byte for byte. Statistics are the rules'
(play/statistics.py): each becomes a table of rows, one per value of its dimensions, with its count and
its outcomes (for a true/false outcome, `rate`: the share of true).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..language import syntax as s
from .campaign import LONGEST, Spec
from .dealer import Finding, MatchRecord
from .findings import Minimized
from .loops import RoundSummary, longer
from .statistics import Key, Tally, Value

FORMAT = "baobei-simulate/1"


@dataclass(frozen=True)
class StatisticInfo:
    """What the figures need of a statistic declaration: its words and the kinds of its values."""

    decl: s.StatisticDecl
    kinds: tuple[str, ...]  # of each dimension
    outcome: str | None  # the outcome's kind; None when it has none


def distribution(values: list[int]) -> dict[str, Any]:
    """Count, mean, median, 90th percentile, extremes and the histogram of whole numbers."""
    if not values:
        return {"count": 0}
    ordered = sorted(values)
    return {"count": len(values), "mean": round(sum(values) / len(values), 3), "median": _at(ordered, 0.5),
            "p90": _at(ordered, 0.9), "min": ordered[0], "max": ordered[-1],
            "histogram": {str(v): n for v, n in sorted(Counter(values).items())}}


def _at(ordered: list[int], q: float) -> int:
    """The q-quantile of sorted numbers (the value below which a share q of them lie)."""
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def merged_tallies(records: list[MatchRecord]) -> dict[str, Tally]:
    out: dict[str, Tally] = {}
    for record in records:
        for name, tally in record.tallies.items():
            out.setdefault(name, Counter()).update(tally)
    return out


def _order(key: Key) -> tuple[tuple[int, Any], ...]:
    """Numbers by value, words alphabetically, none first: keys of mixed kinds sort the same everywhere."""
    return tuple((0, 0) if v is None else (1, int(v)) if isinstance(v, bool | int) else (2, str(v)) for v in key)


def word(value: Value) -> str:
    """A value as a word: true, false, none, a number, a word."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "none" if value is None else str(value)


def statistic_rows(info: StatisticInfo, tally: Tally) -> list[dict[str, Any]]:
    names = [d.name for d in info.decl.by]
    by_key: dict[Key, Counter[Value]] = {}
    for (key, outcome), n in tally.items():
        by_key.setdefault(key, Counter())[outcome] += n
    rows = []
    for key in sorted(by_key, key=_order):
        outcomes = by_key[key]
        count = sum(outcomes.values())
        row: dict[str, Any] = {"key": dict(zip(names, key, strict=True)), "count": count}
        if info.outcome is not None:
            row["outcomes"] = {word(v): n for v, n in sorted(outcomes.items(), key=lambda i: _order((i[0],)))}
            if info.outcome == "bool":
                row["rate"] = round(outcomes[True] / count, 4)
        rows.append(row)
    return rows


def statistic_figures(info: StatisticInfo, tally: Tally) -> dict[str, Any]:
    rows = statistic_rows(info, tally)
    total = sum(r["count"] for r in rows)
    out: dict[str, Any] = {"text": info.decl.text, "cite": str(info.decl.cite),
                           "dimensions": {d.name: k for d, k in zip(info.decl.by, info.kinds, strict=True)},
                           "outcome": info.outcome, "count": total, "rows": rows}
    if info.outcome == "bool":
        hits = sum(r["outcomes"].get("true", 0) for r in rows)
        out["rate"] = round(hits / total, 4) if total else None
    return out


def finding_figures(minimized: list[Minimized], found: dict[str, int], out: Path | None) -> list[dict[str, Any]]:
    rows = []
    for m in minimized:
        f = m.finding
        rows.append({"property": f.label, "message": f.message, "cite": f.cite, "matches_found_in": found[f.label],
                     "first": {"match": f.match, "seed": f.seed, "round": f.round, "moves": len(f.moves)},
                     "minimized_moves": len(m.moves), "replays": m.replays,
                     "scenario": scenario_path(f, out) if m.scenario else None})
    return rows


def scenario_path(finding: Finding, out: Path | None) -> str:
    from .findings import file_name

    return f"findings/{file_name(finding)}" if out is None else str(out / "findings" / file_name(finding))


def longest_rounds(records: list[MatchRecord], count: int = LONGEST) -> list[RoundSummary]:
    rounds = [r.longest for r in records if r.longest is not None]
    out: list[RoundSummary] = []
    for _ in range(min(count, len(rounds))):
        best: RoundSummary | None = None
        for r in rounds:
            if r not in out:
                best = longer(best, r)
        if best is not None:
            out.append(best)
    return out


def campaign_figures(spec: Spec, matches: int, records: list[MatchRecord], infos: list[StatisticInfo],
                     findings: list[Minimized], out: Path | None) -> dict[str, Any]:
    """Every figure of the campaign (the JSON `baobei simulate` writes)."""
    finished = [r for r in records if r.finished]
    tallies = merged_tallies(records)
    found = Counter(f.label for r in records for f in r.findings[:1])
    return {
        "format": FORMAT,
        "rules": Path(spec.source).name, "players": spec.players, "matches_played": matches, "seed": spec.seed,
        "policy": spec.policy, "turn_cap": spec.max_turns, "invariants_checked": spec.invariants,
        "finished_matches": len(finished), "capped_matches": sum(r.capped for r in records),
        "failed_matches": sum(1 for r in records if r.findings), "moves": sum(r.moves for r in records),
        "refused_proposals": sum(r.refused for r in records),
        # D9: a capped round is its match's longest; one whose state came back is a cycle nothing ends.
        "capped_cycles": sum(1 for r in records if r.capped and r.longest is not None and r.longest.repeat),
        "rounds_per_match": distribution([len(r.rounds) for r in finished]),
        "turns_per_round": distribution([t for r in records for t in r.rounds]),
        "statistics": {i.decl.ident: statistic_figures(i, tallies.get(i.decl.ident, Counter())) for i in infos},
        "longest_rounds": [r.to_json() for r in longest_rounds(records)],
        "findings": finding_figures(findings, found, out),
    }


def to_text(figures: dict[str, Any]) -> str:
    """The JSON text: sorted keys, indented, one trailing newline (the bytes do not depend on dict order)."""
    return json.dumps(figures, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
