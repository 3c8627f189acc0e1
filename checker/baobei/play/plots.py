"""Plots of a campaign's figures, as PNG and SVG (matplotlib, Agg: no display needed).

Which plots a campaign gets follows from the figures alone, never from names of the game: the histogram
of round lengths; for every statistic with one numeric dimension and a yes/no outcome, the share of yes
against that number (BAO success against the caller's round value); for every statistic with one
dimension of players, its share by seat (the winner's seat). The files do not change from one run to the
next: no date is written, and the SVG ids come from a fixed salt.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # before pyplot: files only, whatever display there is

import matplotlib.pyplot as plt  # after the backend is chosen
from matplotlib.figure import Figure

# Fixed: the same figures give the same bytes (SVG ids are hashed from this salt, no date is written).
plt.rcParams.update({"svg.hashsalt": "baobei", "svg.fonttype": "path", "font.family": "DejaVu Sans",
                     "figure.dpi": 100})
SIZE = (7.0, 4.0)
BARS = "#7a9cc6"
LINE = "#c0392b"


def write_plots(figures: dict[str, Any], out: Path) -> list[Path]:
    """Write every plot the figures give into `out`; the files written, PNG and SVG of each."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, fig in plots(figures):
        written += save(fig, out / name)
        plt.close(fig)
    return written


def plots(figures: dict[str, Any]) -> list[tuple[str, Figure]]:
    out = [("round_length", round_lengths(figures))]
    for name, stat in figures["statistics"].items():
        kinds = list(stat["dimensions"].values())
        if len(kinds) == 1 and kinds[0] == "int" and stat["outcome"] == "bool" and stat["rows"]:
            out.append((name, rate_against_value(name, stat)))
        elif len(kinds) == 1 and kinds[0] == "player" and stat["rows"]:
            out.append((name, share_by_seat(name, stat, figures["players"])))
    return out


def save(fig: Figure, stem: Path) -> list[Path]:
    png, svg = stem.with_suffix(".png"), stem.with_suffix(".svg")
    fig.savefig(png, format="png", metadata={"Software": None})
    fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None})
    return [png, svg]


def _title(figures: dict[str, Any]) -> str:
    return (f"{figures['players']} players, {figures['matches_played']:,} matches from seed {figures['seed']}, "
            f"policy {figures['policy']}")


def round_lengths(figures: dict[str, Any]) -> Figure:
    fig, ax = plt.subplots(figsize=SIZE)
    histogram = figures["turns_per_round"].get("histogram", {})
    ax.bar([int(k) for k in histogram], list(histogram.values()), width=0.9, color=BARS)
    ax.set_xlabel("turns in the round")
    ax.set_ylabel("rounds")
    ax.set_title(f"Round length: {_title(figures)}", fontsize=9)
    fig.tight_layout()
    return fig


def rate_against_value(name: str, stat: dict[str, Any]) -> Figure:
    """Counts as bars, the share of yes as a line on its own axis from 0 to 1."""
    dimension = next(iter(stat["dimensions"]))
    values = [r["key"][dimension] for r in stat["rows"]]
    fig, ax = plt.subplots(figsize=SIZE)
    ax.bar(values, [r["count"] for r in stat["rows"]], width=0.8, color=BARS, label="count")
    ax.set_xlabel(dimension)
    ax.set_ylabel("count")
    rate = ax.twinx()
    rate.plot(values, [r["rate"] for r in stat["rows"]], color=LINE, marker="o", markersize=3, label="share of yes")
    rate.set_ylim(0, 1.05)
    rate.set_ylabel("share of yes", color=LINE)
    ax.set_title(f"{name}: {stat['text']}", fontsize=9, wrap=True)
    fig.tight_layout()
    return fig


def share_by_seat(name: str, stat: dict[str, Any], players: int) -> Figure:
    """The share of each seat, with the share every seat would have if none had an advantage."""
    dimension = next(iter(stat["dimensions"]))
    seats = [f"seat {i}" for i in range(1, players + 1)]
    counts = {r["key"][dimension]: r["count"] for r in stat["rows"]}
    total = sum(counts.values()) or 1
    fig, ax = plt.subplots(figsize=SIZE)
    ax.bar(seats, [counts.get(seat, 0) / total for seat in seats], color=BARS)
    ax.axhline(1 / players, color=LINE, linestyle="--", label="no advantage")
    ax.set_ylabel("share")
    ax.legend(loc="upper right", fontsize=8)
    ax.set_title(f"{name}: {stat['text']} (seat 1 began the match)", fontsize=9, wrap=True)
    fig.tight_layout()
    return fig
