"""The summary of a campaign's figures for a person: tables of rows, from the JSON figures alone."""

from __future__ import annotations

from typing import Any

from ..language.terminal import emit, table

Table = tuple[tuple[str, ...], list[tuple[str, ...]]]  # (header, rows)
Row = tuple[str, ...]


def _dist(d: dict[str, Any]) -> str:
    if not d.get("count"):
        return "none"
    return f"mean {d['mean']:.2f}, median {d['median']}, 90% at most {d['p90']}, min {d['min']}, max {d['max']}"


def _share(n: int, total: int) -> str:
    return f"{100 * n / total:.1f}%" if total else "-"


def overview(fig: dict[str, Any]) -> Table:
    judged = "every invariant and progress property after every move" if fig["invariants_checked"] else "off"
    rows: list[Row] = [
        ("matches played", f"{fig['matches_played']:,}: {fig['finished_matches']:,} finished, "
                           f"{fig['capped_matches']:,} stopped by the turn cap, {fig['failed_matches']:,} stopped by "
                           "a failure of the rules"),
        ("players, seed, policy", f"{fig['players']}, {fig['seed']}, {fig['policy']}"),
        ("rules judged", judged),
        ("moves", f"{fig['moves']:,}"),
        ("rounds per match", _dist(fig["rounds_per_match"])),
        ("turns per round", _dist(fig["turns_per_round"])),
        ("rounds capped (D9)", f"{fig['capped_matches']:,} reached the cap of {fig['turn_cap']:,} turns; in "
                               f"{fig['capped_cycles']:,} of them a state came back (a cycle nothing in the rules "
                               "ends)"),
    ]
    if fig["refused_proposals"]:
        rows.append(("proposals refused", f"{fig['refused_proposals']:,} (legal in a view, not at the table)"))
    header: Row = ("figure", "value")
    return header, rows


def statistic_table(name: str, stat: dict[str, Any]) -> Table:
    """One statistic: a row per value of its dimensions with how often it was counted and its share of all
    counts, then a total row; a yes/no outcome as how many were yes, how many no, and the share of yes."""
    dims = list(stat["dimensions"])
    header = (*dims, "count", *(("% of all",) if dims else ()), *_outcome_header(stat["outcome"]))
    rows = [_statistic_row(stat, [str(row["key"][d]) for d in dims], row) for row in stat["rows"]]
    if dims or not rows:  # without dimensions the one row is the total already
        total = {"count": stat["count"], "outcomes": _total_outcomes(stat["rows"])}
        rows.append(_statistic_row(stat, ["in total"] + [""] * (len(dims) - 1) if dims else [], total))
    return header, rows


def _outcome_header(outcome: str | None) -> Row:
    if outcome == "bool":
        return ("yes", "no", "% yes")
    return ("outcomes",) if outcome else ()


def _statistic_row(stat: dict[str, Any], key: list[str], row: dict[str, Any]) -> Row:
    """The cells of one row (or of the total): its key, count, share of all counts and outcomes."""
    cells = [*key, f"{row['count']:,}"] + ([_share(row["count"], stat["count"])] if stat["dimensions"] else [])
    outcomes: dict[str, int] = row.get("outcomes", {})
    if stat["outcome"] == "bool":
        yes, no = outcomes.get("true", 0), outcomes.get("false", 0)
        cells += [f"{yes:,}", f"{no:,}", _share(yes, yes + no)]
    elif stat["outcome"]:
        cells.append(", ".join(f"{k}: {n:,}" for k, n in outcomes.items()))
    return tuple(cells)


def _total_outcomes(rows: list[dict[str, Any]]) -> dict[str, int]:
    """The outcomes of every row added up, in the order they first appear."""
    out: dict[str, int] = {}
    for row in rows:
        for outcome, n in row.get("outcomes", {}).items():
            out[outcome] = out.get(outcome, 0) + n
    return out


def longest_table(fig: dict[str, Any]) -> Table:
    rows: list[Row] = []
    for r in fig["longest_rounds"]:
        tail = r["repeating_tail"]
        repeats = (f"{tail['turns']} last turns repeat [{' | '.join(tail['pattern'])}]" if tail["period"]
                   else "no repeating tail")
        again = r["state_repeats"]
        state = f"state of turn {again['first']} again at turn {again['again']}" if again else "no state repeats"
        common = "; ".join(f"{c['moves']} ({c['turns']})" for c in r["common_turns"])
        rows.append((str(r["match"]), str(r["round"]), str(r["turns"]) + (" (capped)" if r["capped"] else ""),
                     repeats, state, common))
    header: Row = ("match", "round", "turns", "tail", "state", "commonest turns (how many)")
    return header, rows


def findings_table(fig: dict[str, Any]) -> Table:
    rows: list[Row] = [(str(f["property"]), f"{f['matches_found_in']:,}",
                        f"match {f['first']['match']}, seed {f['first']['seed']}",
                        f"{f['first']['moves']} -> {f['minimized_moves']}", str(f["scenario"] or "(none replays it)"))
                       for f in fig["findings"]]
    header: Row = ("property", "in matches", "first", "moves (minimized)", "scenario")
    return header, rows


def print_summary(fig: dict[str, Any]) -> None:
    """The figures as tables: on a terminal drawn, elsewhere plain columns."""
    emit(f"simulate: {fig['players']} players, {fig['matches_played']:,} matches from seed {fig['seed']}, "
         f"policy {fig['policy']}", "head")
    table(*overview(fig))
    for name, stat in fig["statistics"].items():
        emit("")
        emit(f"{name}: {stat['text']} ({stat['cite']})", "head")
        header, rows = statistic_table(name, stat)
        if len(header) == 1:  # a bare count reads as a sentence, not as a table of one cell
            emit(f"{header[0]}: {rows[0][0]}")
        else:
            table(header, rows)
    emit("")
    emit("D9, rounds without end: the longest rounds and how they went on", "head")
    table(*longest_table(fig))
    if fig["findings"]:
        emit("")
        emit("findings: failures of the rules, each written as a scenario that replays it", "fail")
        table(*findings_table(fig))
