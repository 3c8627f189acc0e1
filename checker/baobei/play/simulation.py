"""`baobei simulate` around its campaign: refuse a bad request before any match, then turn the matches'
records into the figures, the scenarios of the findings and the plots, written into one directory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..language.errors import write_output
from .campaign import Spec, dealer_for
from .dealer import Finding, MatchRecord
from .figures import StatisticInfo, campaign_figures, to_text
from .findings import Minimized, file_name, minimize
from .plots import write_plots

FIGURES = "simulate.json"


class Simulation:
    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.dealer = dealer_for(spec)  # compiles the rules, the policy and the statistics: errors come here
        self.dealer.eng.check_player_count(spec.players)

    def findings(self, records: list[MatchRecord]) -> list[Minimized]:
        """The first finding of each property, in match order, minimized."""
        first: dict[str, Finding] = {}
        for record in records:
            for finding in record.findings:
                first.setdefault(finding.label, finding)
        return [minimize(self.dealer.eng, f) for f in first.values()]

    def finish(self, records: list[MatchRecord], matches: int, out: Path) -> dict[str, Any]:
        """The figures; written with the findings' scenarios and the plots into `out`."""
        minimized = self.findings(records)
        infos = [StatisticInfo(d, kinds, outcome) for d, kinds, outcome in self.dealer.statistics.kinds()]
        figures = campaign_figures(self.spec, matches, records, infos, minimized, out)
        out.mkdir(parents=True, exist_ok=True)
        write_output(out / FIGURES, to_text(figures))
        for m in minimized:
            if m.scenario:
                (out / "findings").mkdir(exist_ok=True)
                write_output(out / "findings" / file_name(m.finding), m.scenario)
        write_plots(figures, out)
        return figures

