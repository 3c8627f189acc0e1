"""What a rules directory holds, counted and listed: `baobei rules` prints it for people and, with
--json, for machines (docs/rules.schema.json). One summary for both, so the two never disagree."""

from __future__ import annotations

from typing import Any

from . import syntax as s
from .ruleset import Ruleset
from .text import expr_text


def section_key(text: str) -> tuple[int, ...]:
    """The rulebook's order of section ids: 1.10 after 1.9; ids of letters (the FAQ, the appendices) last."""
    digits = "".join(ch if ch.isdigit() or ch == "." else " " for ch in text).split()
    parts = digits[0].split(".") if digits else []
    return tuple(int(p) for p in parts if p) or (10_000,)


def who_may(move: s.MoveDecl) -> str:
    """Who may make a move, in the rules' words: the reason a refusal gives names them."""
    if move.is_ability:
        return "the player the ability waits for"
    if move.by is None or (isinstance(move.by, s.Lit) and move.by.value is True):
        return "anyone"
    return move.by_reason or expr_text(move.by)


def rules_summary(rules: Ruleset, directory: str) -> dict[str, Any]:
    cited = rules.cited_rules()
    sections = sorted({c.section for _, _, c, _ in cited if c.section}, key=section_key)
    paragraphs = {p for _, _, c, _ in cited for p in c.paras}
    return {
        "rules": directory,
        "files": len(rules.files),
        "players": {"min": rules.min_players, "max": rules.max_players},
        "deck": {"species": len(rules.species), "cards": sum(sp.count for sp in rules.species.values())},
        "counts": counts(rules),
        "moves": [move_entry(m) for m in rules.moves.values()],
        "invariants": [{"name": i.ident, "text": i.text, "cite": str(i.cite), "transition": i.two_state,
                        "lemma": i.lemma} for i in rules.invariants.values()],
        "progress": [{"name": p.ident, "text": p.text, "cite": str(p.cite)} for p in rules.progress.values()],
        "assumptions": [assumption_entry(a) for a in sorted(rules.assumptions.values(),
                                                            key=lambda a: section_key(a.ident))],
        "sections": sections,
        "paragraphs": len(paragraphs),
        "cited": [{"kind": kind, "name": name, "cite": str(cite), "at": str(pos)} for kind, name, cite, pos in cited],
        "statistics": list(rules.statistics),
        "policies": list(rules.policies),
    }


def counts(rules: Ruleset) -> dict[str, int]:
    return {"moves": sum(1 for m in rules.moves.values() if not m.is_ability),
            "abilities": sum(1 for m in rules.moves.values() if m.is_ability),
            "routines": len(rules.routines), "hooks": len(rules.hooks), "definitions": len(rules.defines),
            "tables": len(rules.tables), "variables": len(rules.variables),
            "invariants": len(rules.invariants),
            "transition_invariants": sum(1 for i in rules.invariants.values() if i.two_state),
            "progress": len(rules.progress)}


def move_entry(m: s.MoveDecl) -> dict[str, Any]:
    kind = "step" if m.is_step else "ability" if m.is_ability else "move"
    return {"name": m.name, "kind": kind, "text": m.text, "who": who_may(m), "cite": str(m.cite),
            "arguments": [{"name": p.name, "kind": p.kind, "optional": p.optional} for p in m.params]}


def assumption_entry(a: s.AssumptionDecl) -> dict[str, str]:
    return {"id": a.ident, "title": a.title, "cite": str(a.cite), "choice": a.choice, "reason": a.reason}


def summary_lines(summary: dict[str, Any], verbose: bool) -> list[str]:
    """The summary as people read it; with `verbose`, every decision with its text and every cited rule."""
    c = summary["counts"]
    lines = [f"rules {summary['rules']}: {summary['files']} files, valid",
             f"  {c['moves']} moves, {c['abilities']} abilities, {c['routines']} routines, {c['hooks']} hooks, "
             f"{c['definitions']} definitions, {c['tables']} tables, {c['variables']} variables",
             f"  {c['invariants']} invariants ({c['transition_invariants']} of them transition invariants, judged "
             f"for every move), {c['progress']} progress propert{'y' if c['progress'] == 1 else 'ies'}"]
    if summary["statistics"] or summary["policies"]:
        lines.append(f"  for `baobei simulate`: {len(summary['statistics'])} statistics, policies "
                     + (", ".join(summary["policies"]) or "none"))
    deck, players = summary["deck"], summary["players"]
    lines.append(f"  deck: {deck['species']} species, {deck['cards']} cards; "
                 f"players {players['min']}..{players['max']}")
    lines.append(f"  {len(summary['cited'])} cited rules over {len(summary['sections'])} sections and "
                 f"{summary['paragraphs']} paragraphs:")
    lines.append("    " + ", ".join(f"§ {sec}" for sec in summary["sections"]))
    decisions = summary["assumptions"]
    if not verbose:
        lines.append(f"  {len(decisions)} decisions where the rulebook is silent or unclear: "
                     + ", ".join(a["id"] for a in decisions) + " (-v shows each with its text)")
        return lines
    lines.append(f"  {len(decisions)} decisions where the rulebook is silent or unclear:")
    for a in decisions:
        lines += [f"    {a['id']} {a['title']} ({a['cite']})", f"        decided: {a['choice']}",
                  f"        because: {a['reason']}"]
    lines.append("  cited rules:")
    transition = {i["name"] for i in summary["invariants"] if i["transition"]}
    for rule in summary["cited"]:
        mark = "  transition invariant: judged for every move" if rule["name"] in transition \
            and rule["kind"] == "invariant" else ""
        lines.append(f"    {rule['kind']:<12} {rule['name']:<32} {rule['cite']}  ({rule['at']}){mark}")
    return lines
