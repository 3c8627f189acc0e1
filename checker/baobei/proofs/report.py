"""What `baobei verify` shows: counterexample tables, counterexample scenarios, docs/invariants.md."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..engine.engine import Engine
from ..language import syntax as s
from ..language.arith import FLOOR_DIVISION_DOC
from ..language.builtins import STATE_NAMES
from ..language.errors import BaoError
from ..language.paths import shown_path
from ..language.ruleset import Ruleset
from ..language.text import expr_text
from ..scenarios.write import table_lines
from .distribution import Outcome, StateCex
from .induction import Cti
from .placement import DRAW_PILE, PlacementOutcome, player_names


@dataclass
class Result:
    """One property (an invariant or a progress property) for one player count."""

    inv: s.InvariantDecl | s.ProgressDecl
    players: int
    outcome: Outcome


@dataclass
class Method:
    """How an invariant is proved, for the report and the docs."""

    kind: str  # state | placement | explored | state+explored
    reads: list[str] = field(default_factory=list)  # what of the state it reads


# ---------------------------------------------------------------- values


def show(value: Any, names: list[str], vtype: str) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        item = vtype.removeprefix("list ").removesuffix("s")  # `players` and `list player` hold players
        return "[" + ", ".join(show(v, names, item) for v in value) + "]"
    if vtype == "player" and isinstance(value, int):
        return names[value] if 0 <= value < len(names) else str(value)
    return str(value)


def value_type(rules: Ruleset, name: str) -> str:
    var = rules.variables.get(name)
    if var is not None:
        return var.type
    state = STATE_NAMES.get(name)
    return state.result if state is not None else ""


# ---------------------------------------------------------------- counterexample tables


def cex_table(rules: Ruleset, cex: StateCex) -> list[str]:
    """The state as a table: players, their cards by slot, per-player values; then the rest."""
    names = player_names(cex.players)
    values = {sp.name: sp.value for sp in rules.species.values()}
    header = ["player", "cards by slot (value)", *cex.columns, *cex.per_player]
    rows = []
    for p, name in enumerate(names):
        cards = ", ".join(f"{i + 1}:{c} ({values[c]})" for i, c in enumerate(cex.tableaux[p])) or "(no cards)"
        if cex.among and p not in cex.among:
            cards += " (not in this round)"
        if cex.hands[p]:
            cards += "; holds " + ", ".join(cex.hands[p])
        cells = [show(v[p], names, "") for v in cex.columns.values()]
        cells += [show(v[p], names, value_type(rules, k)) for k, v in cex.per_player.items()]
        rows.append([name, cards, *cells])
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) if i < 2 else str(c).rjust(w) for i, (c, w) in
                       enumerate(zip(r, widths, strict=True))).rstrip() for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    facts = [f"{k} = {show(v, names, value_type(rules, k))}" for k, v in {**cex.engine, **cex.scalars}.items()]
    facts += [f"{k} = {show(v, names, '')}" for k, v in cex.defines.items()]
    if facts:
        lines.append("with " + ", ".join(facts))
    piles = [f"{name.replace('_', ' ')} {len(cards)} (top {cards[-1]})" for name, cards in cex.piles.items() if cards]
    if cex.box:
        piles.append(f"out of play {len(cex.box)}")
    lines.append("other cards: " + ("; ".join(piles) or "none"))
    lines += [f"the engine stops here: {b}" for b in cex.broken]
    return lines


def placement_lines(out: PlacementOutcome) -> list[str]:
    cex = out.rule_cex
    if cex is None:
        return []
    return [f"rule {cex.rule} ({cex.pos})",
            f"statement at {cex.statement_pos}: {cex.statement}",
            f"a card lying in {cex.before} before the rule: {cex.why}"]


def result_lines(rules: Ruleset, r: Result) -> list[str]:
    """The counterexample (or the reason for `unknown`) under a result line."""
    o = r.outcome
    if isinstance(o, PlacementOutcome) and o.status == "violated":
        return placement_lines(o)
    if o.cex is not None:
        return cex_table(rules, o.cex)
    return ([o.detail] if o.detail else []) + ["  " + line for line in o.cti]


# ---------------------------------------------------------------- counterexample scenarios


def scenario_header(inv: s.InvariantDecl, players: int) -> list[str]:
    return [
        f"# Counterexample written by `baobei verify`: invariant {inv.ident} ({inv.cite}) breaks",
        f"# with {players} players. {inv.text}.",
        "# Replayed with the rules that produced it, the scenario fails naming the invariant.",
        f'scenario "Counterexample to invariant {inv.ident} with {players} players"',
        f"cites {inv.cite}",
        "tags counterexample, invariant",
    ]


def scenario_table(rules: Ruleset, cex: StateCex) -> list[str]:
    names = player_names(cex.players)
    lines = ["table", "  players " + " ".join(names)]
    if cex.among:
        lines.append("  among " + " ".join(names[p] for p in cex.among))
    for p, name in enumerate(names):
        row = ", ".join(cex.tableaux[p])
        if row or not cex.among or p in cex.among:  # a player of the round has a row: `bob:` when empty
            lines.append(f"  {name}: {row}".rstrip())
    for pile, cards in cex.piles.items():
        if cards:
            # Scenario tables name a pile without its `_pile` ending; the draw pile top first, the others bottom first.
            shown = reversed(cards) if pile == DRAW_PILE else cards
            lines.append(f"  {pile.removesuffix('_pile')}: " + ", ".join(shown))
    active = cex.engine.get("active")
    lines.append(f"  active {names[active] if isinstance(active, int) else names[0]}")
    phase = cex.engine.get("phase")
    if isinstance(phase, str) and re.fullmatch(r"[A-Za-z_]\w*", phase):
        lines.append(f"  phase {phase}")
    for p, name in enumerate(names):
        lines += [f"  {name} holds {species}" for species in cex.hands[p]]
    for var, value in cex.scalars.items():
        vtype = value_type(rules, var)
        if vtype in _WRITABLE:
            lines.append(f"  set {var} = {show(value, names, vtype)}")
    for var, values in cex.per_player.items():
        vtype = value_type(rules, var)
        if vtype in _WRITABLE:
            lines += [f"  set {var}[{names[p]}] = {show(v, names, vtype)}" for p, v in enumerate(values)]
    return lines


# The types of variables a scenario table can set (cards come only from play).
_WRITABLE = ("int", "bool", "player", "players")


def probe_text(inv: s.InvariantDecl) -> str:
    """The invariant as one expression a scenario can evaluate."""
    holds = expr_text(inv.holds)
    text = holds if inv.when is None else f"if {expr_text(inv.when)} then {holds} else true"
    return text.replace("\\", "\\\\").replace('"', '\\"')


# ---------------------------------------------------------------- docs


METHOD_TEXT = {
    "state": ("Over every distribution of the deck's {deck} cards among the players' tableaux and hands, "
              "the {piles} and the box, with every state variable the property reads free "
              "within its type: Z3 shows that no such state satisfies `when` and breaks `holds` "
              "(the negation is unsatisfiable). Definitions and tables are translated from the rules as "
              "written, each builtin by its entry in the builtin registry; quantifiers over players are "
              "unrolled for each player count. Where the engine would stop (a table without the row, a "
              "divisor of zero) the proof fails: " + FLOOR_DIVISION_DOC + "."),
    "static": ("The property reads no state: a fact of the rules' tables and deck for each player count, which "
               "Z3 decides by the same translation (a table without a row for the player count counts as a "
               "violation)."),
    "placement": ("Inductively over the rules' {rules} transitions (every move, ability, ability step, routine "
                  "and hook): for one arbitrary card, from any state in which the invariant holds, Z3 executes "
                  "the body symbolically, each statement by the effect on cards the statement registry "
                  "declares for it (`move`, `draw` and `shuffle` relocate the card, `swap` exchanges the "
                  "places of two cards on slots, as the engine's effects do), and shows that no path ends "
                  "with the invariant broken; a destination that is not a place would leave the card in "
                  "none. Conditions of `if` are not interpreted (every branch counts); `run`, `start round`, "
                  "the `draw_empty` hook and loops are proved on their own and assumed by their callers. No "
                  "statement creates or copies a card: the rules language has none, and a statement kind "
                  "without a declared effect leaves the proof unknown. Not part of this proof: whether a "
                  "destination slot or hand is free. The engine refuses to cover a card or overfill a hand; "
                  "such a move fails with an engine error instead of completing."),
    "relation": ("Bounded model checking: Z3 over the rules' transition relation (proofs/relation.py), every "
                 "move, ability and step of the rules executed symbolically, statement by statement as the "
                 "engine's effects run them, with halts, the waiting rule, protections and the settling of "
                 "waiting abilities; a draw may give any card of the draw pile. It starts from every deal of the "
                 "small deck (every species once, further copies until a few cards are left to draw) with the "
                 "match's totals, noted scores and starting player free, and shows that no path of up to k moves "
                 "breaks the property (`bounded` to k); a path that does is replayed by the engine, which must "
                 "reach the same violation (else the report names a disagreement)."),
    "induction": ("Induction over the engine's own steps run on Z3 terms (proofs/machine.py), with `verify "
                  "--induction` or the record `verify --certify` makes: the full deck, the cards' layout left "
                  "free: a question about the cards has a fresh answer, kept while no card moves (for a "
                  "tableau's list, on the paths of a move that move none), and a player's tableau is that seat's. "
                  "The claims that read no card, or only a sum or count over a tableau's cards that reads nothing "
                  "but their facts (a round value), and that every move keeps from any state satisfying them all "
                  "(lemmas of the rules among them) are `inductive`: they hold in every reachable state. "
                  "A claim some move breaks from a state satisfying the others is dropped with that state, its "
                  "counterexample to induction. A second pass tries the dropped claims again, each move now "
                  "assuming before and after it the rules' claims that Z3 proves over every state (at most one "
                  "negative round value, say: what the cards decide and free cards cannot)."),
    "search": ("The engine's breadth-first search (`baobei explore`) over the states a round reaches from seeded "
               "deals of the small deck (every species once, further copies until a few cards are left to "
               "draw): every legal move, out-of-turn moves included, from every state reached, each state "
               "judged once; state invariants and progress in every state reached, transition invariants over "
               "every move. `explored` is no proof: it holds in what the search reached, to the depth shown per "
               "player count; a violation comes with the moves from the deal."),
}

METHOD_TITLE = {
    "state": "Z3 over every state", "static": "A fact of the tables", "placement": "Card conservation per transition",
    "relation": "Bounded model checking", "induction": "Induction", "search": "The engine's search",
}
# A property about the states and moves rounds reach: what judges it, in this order.
REACHED = ("induction", "relation", "search")


def method_parts(method: Method) -> tuple[list[str], bool]:
    """The methods that judge a property, and whether the last ones apply only where the first finds a
    counterexample over arbitrary states."""
    if method.kind == "explored":
        return list(REACHED), False
    base, _, searched = method.kind.partition("+")
    first = "static" if base == "state" and not method.reads else base
    return [first, *(REACHED if searched else ())], bool(searched)


def method_link(part: str) -> str:
    title = METHOD_TITLE[part]
    anchor = "".join(c for c in title.lower().replace(" ", "-") if c.isalnum() or c == "-")
    label = title if title.startswith("Z3") else title[0].lower() + title[1:]
    return f"[{label}](#{anchor})"


def method_line(method: Method) -> str:
    """How one property is judged, each method named and linked to its explanation on the page."""
    parts, fallback = method_parts(method)
    reads = f" (it reads {', '.join(method.reads)})" if method.reads else ""
    links = [method_link(p) for p in parts]
    if fallback:
        return (f"{links[0]}{reads}; where Z3 finds a counterexample over arbitrary states, which a claim about "
                f"reached states allows: {', then '.join(links[1:])}.")
    return ", then ".join(links) + reads + "."


def methods_section(rules: Ruleset, methods: dict[str, Method], transitions: int) -> list[str]:
    """Each method the page's properties use, explained once."""
    deck = sum(sp.count for sp in rules.species.values())
    used = [p for p in METHOD_TITLE if any(p in method_parts(m)[0] for m in methods.values())]
    out = ["## How a property is judged", ""]
    for part in used:
        out += [f"### {METHOD_TITLE[part]}", "",
                METHOD_TEXT[part].format(deck=deck, rules=transitions, piles=pile_list(rules)), ""]
    return out


def pile_list(rules: Ruleset) -> str:
    """The declared piles in words: "the draw, discard and under piles"."""
    names = [name.removesuffix("_pile").replace("_", " ") for name in rules.piles]
    if len(names) < 2:
        return " ".join(names) + " pile"
    return ", ".join(names[:-1]) + f" and {names[-1]} piles"


def docs_markdown(rules: Ruleset, source: str, results: list[Result], methods: dict[str, Method],
                  transitions: int, stale: list[int] | None = None, missing: list[int] | None = None) -> str:
    """docs/invariants.md: deterministic (no timings), so that a rerun on the same rules writes the same."""
    counts = f"{rules.min_players} to {rules.max_players}"
    by_inv: dict[str, list[Result]] = {}
    for r in results:
        by_inv.setdefault(r.inv.ident, []).append(r)
    out = ["# Invariants and progress", "",
           f"Generated by `baobei verify --docs` from `{source}`; do not edit by hand.", "",
           "Each property is declared in the rules with the paragraphs it rests on and an expression in "
           "the rules' own expression language. `baobei verify` judges it for every allowed player count "
           f"({counts}): with Z3 over every state where it can (`proved`); a claim about the states and moves "
           "rounds reach with Z3 over the rules' transition relation (`inductive`, or `bounded` to k moves "
           "from every deal) and by the engine's search (`explored` to a depth, no proof). Replaying a "
           "scenario evaluates the same expressions after every move and fails the scenario naming the "
           "property.", "",
           "Induction over every move of the rules takes minutes per player count: `baobei verify --certify` "
           "runs it and records what it proved in the rules directory (`induction.json`), under a digest of the "
           "rules and of the code that gives them their meaning. A default run uses a player count's record only "
           "while that digest is the current one. Each count's record is sealed with a digest of every query to Z3 "
           "it rests on (the deal, each move): after an edit of that code or of the rules, `baobei verify --carry` "
           "builds the queries again, asks Z3 those that changed, and carries the record over when every one is "
           "still proved. A property added to the rules after the record was made is tried there too: it joins "
           "the record's claims (a state claim is assumed before every move with them), and is proved for every "
           "reachable state when the deal and every move keep it; otherwise it is dropped, with the move that "
           "breaks it.", ""]
    if stale:
        out += [f"The record is for other rules or another prover (player counts {', '.join(map(str, stale))}): "
                "it is not used here; `baobei verify --carry` carries it over the edit when every query that changed "
                "is still proved, else `baobei verify --certify` makes it again.", ""]
    if missing:
        out += [f"The record has no entry for player counts {', '.join(map(str, missing))}: their induction has not "
                "run on this code yet, so they are judged here without it; `baobei verify --players N --certify` "
                "adds an entry.", ""]
    out += ["| Property | Cites | Status |", "|---|---|---|"]
    for ident, rs in by_inv.items():
        out.append(f"| [{ident}](#{ident.lower()}) | {rs[0].inv.cite} | {summary(rs)} |")
    out += ["", *methods_section(rules, {i: methods[i] for i in by_inv}, transitions)]
    for ident, rs in by_inv.items():
        prop = rs[0].inv
        kind = "Progress" if isinstance(prop, s.ProgressDecl) else \
            "Transition invariant" if prop.two_state else "Invariant of reached states" if prop.reachable \
            else "Invariant of every state"
        out += ["", f"## {ident}", "", f"{kind}: {prop.text}.", "",
                f"Cites {prop.cite}; declared in `{shown_path(prop.pos.file)}` line {prop.pos.line}.", "", "```"]
        if prop.when is not None:
            out.append(f"when  {expr_text(prop.when)}")
        if isinstance(prop, s.InvariantDecl):
            out.append(f"holds {expr_text(prop.holds)}")
        else:
            out.append("holds somebody has a legal move")
        out += ["```", "", "How it is judged: " + method_line(methods[ident]), "",
                "| Players | Status | Detail |", "|---|---|---|"]
        out += [f"| {r.players} | {r.outcome.status} | {_detail(r)} |" for r in rs]
    return "\n".join(out) + "\n"


def _detail(r: Result) -> str:
    o = r.outcome
    if o.status == "proved":
        return ""
    if o.status in ("explored", "bounded", "inductive"):
        return o.detail.replace("|", "/")
    return o.detail.replace("|", "/")[:300]


def summary(rs: list[Result]) -> str:
    statuses = {r.outcome.status for r in rs}
    if len(statuses) == 1:
        return statuses.pop()
    return "; ".join(f"{r.outcome.status} for {r.players}" for r in rs)


def check_players(rules: Ruleset, players: int | None) -> list[int]:
    if players is None:
        return list(range(rules.min_players, rules.max_players + 1))
    if not rules.min_players <= players <= rules.max_players:
        raise BaoError(f"{players} players: these rules allow {rules.min_players} to {rules.max_players} "
                       f"players ({rules.players_cite})")
    return [players]


def cti_lines(rules: Ruleset, cti: Cti | None) -> list[str]:
    """A counterexample to induction for a person: the state before the move as a scenario table (a state
    no game may reach: a lemma that excludes it lets the claim be proved), then the move."""
    if cti is None or cti.before is None:
        return []
    try:
        table = table_lines(Engine(rules), cti.before)
    except (BaoError, IndexError, KeyError, ValueError) as err:
        # A value the engine's tables cannot hold (a player beyond the table, say): the state is beyond
        # what a scenario can state, which is itself what a lemma has to rule out.
        return [f"counterexample to induction: {cti.move}, from a state a table cannot state ({err!r})"]
    return ["counterexample to induction (a lemma that rules this state out may let the claim be proved):",
            *table, f"then {cti.move}"]
