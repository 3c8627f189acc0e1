"""The two campaigns' plots overlaid (matplotlib, Agg; PNG and SVG, the same bytes for the same figures).

- round_length: the turns per round of both versions, as two outlined histograms on one axis;
- rounds_per_match: the same for the rounds of a finished match;
- shares and means: every figure shown to people, OLD above NEW with its 95 % interval, a figure that
  moved marked with `*` (the means relative to OLD's value, so that figures of any size share one axis).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
from matplotlib.figure import Figure as Plot

from ..play.plots import SIZE, save  # before pyplot is used: it chooses the backend and fixes the bytes
from .lockstep import NEW, OLD
from .play import Figure, PlayReport, Sample

COLOURS = {OLD: "#7a9cc6", NEW: "#c0392b"}
MARK = "*"


def write_plots(report: PlayReport, samples: dict[str, Sample], labels: dict[str, str], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    rounds = {side: sample.turns_per_round for side, sample in samples.items()}
    per_match = {side: sample.rounds_per_match for side, sample in samples.items()}
    shown = [f for f in report.figures if f.old.n and f.new.n and (f.moved or not f.detail)]
    written: list[Path] = []
    for name, fig in (("round_length", _histograms(rounds, labels, "turns in the round", "rounds")),
                      ("rounds_per_match", _histograms(per_match, labels, "rounds in the match", "matches played")),
                      ("shares", _intervals([f for f in shown if f.kind == "share"], labels, "share", False)),
                      ("means", _intervals([f for f in shown if f.kind == "mean"], labels,
                                           "relative to OLD's value", True))):
        written += save(fig, out / f"compare_{name}")
        plt.close(fig)
    return written


def _histograms(values: dict[str, list[int]], labels: dict[str, str], xlabel: str, ylabel: str) -> Plot:
    fig, ax = plt.subplots(figsize=SIZE)
    everything = values[OLD] + values[NEW]
    if everything:
        bins = list(range(min(everything), max(everything) + 2))
        for side in (OLD, NEW):
            ax.hist(values[side], bins=bins, histtype="step", linewidth=1.5, color=COLOURS[side],
                    label=f"{side.upper()}: {labels[side]}")
        ax.legend(loc="upper right", fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    fig.tight_layout()
    return fig


def _intervals(figures: list[Figure], labels: dict[str, str], xlabel: str, relative: bool) -> Plot:
    fig, ax = plt.subplots(figsize=(SIZE[0] + 2, max(2.0, 0.35 * len(figures) + 1)))
    for row, f in enumerate(figures):
        scale = f.old.value if relative and f.old.value else 1.0
        for side, offset in ((OLD, -0.15), (NEW, 0.15)):
            e = f.old if side == OLD else f.new
            if e.value is None or e.low is None or e.high is None:
                continue
            # max: rounding may put an interval's end a hair past its value (a share of 0 or 1)
            errors = [[max(0.0, (e.value - e.low) / scale)], [max(0.0, (e.high - e.value) / scale)]]
            ax.errorbar([e.value / scale], [row + offset], xerr=errors, fmt="o", markersize=3, capsize=2,
                        color=COLOURS[side], label=f"{side.upper()}: {labels[side]}" if row == 0 else None)
    ax.set_yticks(range(len(figures)), [f.name + (f" {MARK}" if f.moved else "") for f in figures], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel + f" (95 % intervals; {MARK}: moved)")
    if figures:
        ax.legend(loc="best", fontsize=7)
    fig.tight_layout()
    return fig
