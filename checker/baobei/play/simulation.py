"""`baobei simulate` around its campaign: refuse a bad request before any match, then turn the campaign's
totals into the figures, the scenarios of the findings and the plots, written into one directory.

The figures are made from the totals (play/campaign.py), not from a record per match: counts, histograms,
the few longest rounds and each property's first finding, so that they need the same memory for a hundred
matches as for a billion, and are the same, byte for byte, whatever order the matches finished in.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from ..language.output import write_output
from .campaign import Spec, Totals, dealer_for
from .figures import FORMAT, StatisticInfo, finding_figures, statistic_figures, to_text
from .findings import Minimized, file_name, minimize
from .plots import write_plots

FIGURES = "simulate.json"


class Simulation:
    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.dealer = dealer_for(spec)  # compiles the rules, the policy and the statistics: errors come here
        self.dealer.eng.check_player_count(spec.players)

    def findings(self, totals: Totals) -> list[Minimized]:
        """The first finding of each property, in match order, minimized."""
        return [minimize(self.dealer.eng, f) for f in totals.first_findings()]

    def finish(self, totals: Totals, matches: int, out: Path) -> dict[str, Any]:
        """The figures; written with the findings' scenarios and the plots into `out`."""
        minimized = self.findings(totals)
        infos = [StatisticInfo(d, kinds, outcome) for d, kinds, outcome in self.dealer.statistics.kinds()]
        figures = campaign_figures(self.spec, matches, totals, infos, minimized, out)
        out.mkdir(parents=True, exist_ok=True)
        write_output(out / FIGURES, to_text(figures))
        for m in minimized:
            if m.scenario:
                (out / "findings").mkdir(exist_ok=True)
                write_output(out / "findings" / file_name(m.finding), m.scenario)
        write_plots(figures, out)
        return figures


def campaign_figures(spec: Spec, matches: int, totals: Totals, infos: list[StatisticInfo],
                     findings: list[Minimized], out: Path | None) -> dict[str, Any]:
    """Every figure of the campaign (the JSON `baobei simulate` writes)."""
    t = totals
    return {
        "format": FORMAT,
        "rules": Path(spec.source).name, "players": spec.players, "matches_played": matches, "seed": spec.seed,
        "policy": spec.policy, "turn_cap": spec.max_turns, "invariants_checked": spec.invariants,
        "finished_matches": t.finished, "capped_matches": t.capped, "failed_matches": t.failed, "moves": t.moves,
        "refused_proposals": t.refused,
        # D9: a capped round is its match's longest; one whose state came back is a cycle nothing ends.
        "capped_cycles": t.capped_cycles,
        "rounds_per_match": distribution(t.rounds_per_match),
        "turns_per_round": distribution(t.turns_per_round),
        "statistics": {i.decl.ident: statistic_figures(i, t.tallies.get(i.decl.ident, Counter())) for i in infos},
        "longest_rounds": [r.to_json() for r in t.longest],
        "findings": finding_figures(findings, dict(t.found), out),
    }


def distribution(counts: Counter[int]) -> dict[str, Any]:
    """Count, mean, median, 90th percentile, extremes and the histogram of whole numbers, from how often
    each occurred (the same figures as from the numbers themselves)."""
    count = sum(counts.values())
    if not count:
        return {"count": 0}
    ordered = sorted(counts.items())
    total = sum(v * n for v, n in ordered)  # a whole number: the mean is rounded from the exact quotient
    return {"count": count, "mean": round(total / count, 3), "median": _at(ordered, count, 0.5),
            "p90": _at(ordered, count, 0.9), "min": ordered[0][0], "max": ordered[-1][0],
            "histogram": {str(v): n for v, n in ordered}}


def _at(ordered: list[tuple[int, int]], count: int, q: float) -> int:
    """The q-quantile (the value at place q·count of the numbers in order) of (value, times) in value order."""
    place = min(count - 1, int(q * count))
    for value, times in ordered:
        if place < times:
            return value
        place -= times
    raise AssertionError("a place beyond the count")  # place < count = the sum of the times
