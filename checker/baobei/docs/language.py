"""docs/language.md: the reference of the rules language, generated from its registries.

Every builtin and statement is described by its one registry entry (language/builtins.py,
language/statements.py), so this page cannot drift from what the engine and the provers do.
The game's own vocabulary (piles, hand, phases, window, halts) comes from the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..language.arith import FLOOR_DIVISION_DOC
from ..language.builtins import BUILTINS, STATE_NAMES, TRANSITION_NAMES, Builtin, NotProvable
from ..language.kinds import PARAM_KINDS
from ..language.ruleset import HOOKS, MAX_DECK, MAX_PLAYERS, MAX_VALUE, Ruleset
from ..language.statements import STATEMENTS
from ..language.summary import who_may
from ..language.walk import move_phases
from .index import Index
from .render import Links

TRANSITION_ACTOR, TRANSITION_ABILITY, TRANSITION_SOURCE = TRANSITION_NAMES


def _signature(b: Builtin) -> str:
    args = ", ".join(kind or "any" for kind in b.args)
    return f"`{b.name}({args})`" if b.args else f"`{b.name}`"


def _proof(b: Builtin) -> str:
    return f"not translated: {b.prove.reason}" if isinstance(b.prove, NotProvable) else "translated"


def _builtin_rows(entries: dict[str, Builtin]) -> list[str]:
    rows = ["| builtin | value | meaning | Z3 |", "|---|---|---|---|"]
    rows += [f"| {_signature(b)} | {b.result} | {b.doc} | {_proof(b)} |" for b in entries.values()]
    return rows


def _statement_rows() -> list[str]:
    rows = ["| statement | cards | meaning |", "|---|---|---|"]
    rows += [f"| `{spec.syntax}` | {spec.effect.value} | {spec.doc} |" for spec in STATEMENTS.values()]
    return rows


def _vocabulary(rules: Ruleset) -> list[str]:
    lines = ["## The game's vocabulary, as these rules declare it", ""]
    piles = ", ".join(f"`{p.name}` (face {'up' if p.face_up else 'down'}, {p.cite})" for p in rules.piles.values())
    lines.append(f"- Piles: {piles}.")
    if rules.hand is not None:
        lines.append(f"- A hand holds {rules.hand.capacity} drawn card(s) ({rules.hand.cite}).")
    if rules.phases is not None:
        lines.append(f"- Phases: {', '.join(f'`{p}`' for p in rules.phases.names)} ({rules.phases.cite}).")
    if rules.window is not None:
        w = rules.window
        kinds = ", ".join(f"`{k}`" for k in w.kinds)
        lines.append(f"- The {w.title}: kinds {kinds}; {w.attempts} attempt(s) per reference; "
                     f"at most {w.open_max} open ({w.cite}).")
    lines += _variables(rules)
    for h in rules.halts.values():
        allowed = ", ".join(f"`{a}`" for a in h.allow) or "nothing"
        lines.append(f"- Halt `{h.name}`: {h.text} Allowed: {allowed} ({h.cite}).")
    for label, decl in (("While an ability waits", rules.waiting), ("An ability without a legal choice",
                                                                    rules.no_choice),
                        ("An ability nothing triggered", rules.untriggered),
                        ("Simultaneous calls", rules.simultaneous)):
        if decl is not None:
            lines.append(f"- {label}: {decl.text} ({decl.cite}).")
    return lines


def _variables(rules: Ruleset) -> list[str]:
    """The variables with the words a picture of the table says them in, and those that are bookkeeping."""
    worded = [f"`{name}` “{decl.words}”" + (" (per player)" if decl.per_player else "")
              for name, decl in rules.variables.items() if decl.words]
    plain = [f"`{name}`" for name, decl in rules.variables.items() if not decl.words]
    return [f"- Variables, in the words after their initial value that pictures of the table say them in (`{{}}`: "
            f"the value; a true/false variable's words without it are said while it is true; a variable without "
            f"a value says nothing): {', '.join(worded) or 'none'}. Bookkeeping without words, not drawn: "
            f"{', '.join(plain) or 'none'}."]


@dataclass(frozen=True)
class MoveRow:
    """One move, ability or step of the move reference."""

    name: str
    kind: str  # move, ability, step of an ability
    who: str  # its `by` condition, or who uses an ability
    args: tuple[str, ...]  # NAME: KIND, with ? when optional
    phases: tuple[str, ...]  # empty: any phase
    cite: str


def move_rows(rules: Ruleset) -> list[MoveRow]:
    rows = []
    for m in rules.moves.values():
        kind = "step of an ability" if m.is_step else "ability" if m.is_ability else "move"
        who = who_may(m)
        args = tuple(f"{p.name}: {p.kind}{'?' if p.optional else ''}" for p in m.params)
        rows.append(MoveRow(m.name, kind, who, args, tuple(sorted(move_phases(m) or ())), str(m.cite)))
    return rows


def _moves(rules: Ruleset) -> list[str]:
    """The moves a scenario's `play` lines may use, with their arguments: the move reference."""
    lines = ["## Moves of these rules", "",
             "A scenario's `play` line names the player, the move and its arguments: "
             "`alice pluck target=bob.2 gift=alice.1`. A slot is `PLAYER.NUMBER`, a player is a name, a held "
             "card is `Species#N`, a yes/no argument is `true` or `false`; an argument marked `?` may be left "
             "out. `baobei explain` shows each move's events with the rule behind them.", "",
             "| Move | Who | Arguments | In phase | Rule |", "|---|---|---|---|---|"]
    for r in move_rows(rules):
        lines.append(f"| `{r.name}` ({r.kind}) | {r.who} | {', '.join(f'`{a}`' for a in r.args) or 'none'} | "
                     f"{', '.join(f'`{p}`' for p in r.phases) or 'any'} | {r.cite} |")
    return lines


def _properties(rules: Ruleset) -> list[str]:
    two_state = sum(1 for inv in rules.invariants.values() if inv.two_state)
    return [
        "## Properties: invariants and progress",
        "",
        "- `[reachable] invariant NAME \"title\" CITATION { [when EXPR] holds EXPR }`: in every state in which "
        "`when` holds, `holds` holds. Replaying a scenario judges it after every move. Without `reachable` it "
        "is a claim about every state, every arrangement of cards and values (`baobei verify` proves it with "
        "Z3 or reports a counterexample); with `reachable`, about the states a game reaches (`verify` proves it "
        "with Z3 where it can, else judges it by the engine's search). These rules declare "
        f"{sum(1 for inv in rules.invariants.values() if inv.reachable)} `reachable` invariants.",
        f"- `old(EXPR)`, written only in an invariant: `EXPR` in the state before the move, with the names "
        f"bound around it. An invariant that reads it is a transition invariant, judged for every move over "
        f"the state before and the state after the move has settled; in it `{TRANSITION_ACTOR}` names the "
        f"player who made the move, `{TRANSITION_ABILITY}` whether the move was an ability or a step "
        f"of one, and `{TRANSITION_SOURCE}` the card whose ability it was (none for any other move). These rules "
        f"declare {len(rules.invariants)} invariants, {two_state} of "
        "them transition invariants.",
        "- `progress NAME \"title\" CITATION [{ when EXPR }]`: in every reachable state in which `when` holds "
        f"(always, without the block), somebody has a legal move. These rules declare {len(rules.progress)}.",
        "- `baobei explore` judges all of them in every state it reaches from seeded deals, but those that read "
        "who knows a card (`knows`) only with `--knowledge`: they make knowledge part of every state, which "
        "multiplies the states of a search. `baobei verify` uses the same searches (one of them keeping "
        "knowledge) for what Z3 cannot prove.",
    ]


def _simulation(rules: Ruleset) -> list[str]:
    """The declarations `baobei simulate` reads: what it counts, how its players choose."""
    stats = ", ".join(f"`{name}`" for name in rules.statistics) or "none"
    policies = ", ".join(f"`{name}`" for name in rules.policies) or "none"
    return [
        "## Simulation: statistics and policies",
        "",
        "Not rules of the game: what `baobei simulate` counts over many matches, and how its simulated players "
        "choose. Like every declaration they cite the rulebook.",
        "",
        "- `statistic NAME \"title\" CITATION { [on MOVE, ...] [when EXPR] [by NAME = EXPR ...] [outcome EXPR] }`: "
        "after every move (only of the moves `on` names, when given) in which `when` holds, one count under the "
        "values of the `by` dimensions, with the value of `outcome` (true or false: how many were yes, how many "
        "no). The expressions "
        f"read the state after the move and, in `old(EXPR)`, the state before it; `{TRANSITION_ACTOR}` is the "
        "mover, `source` the card whose ability the move is, and the arguments every `on` move has are bound by "
        "name. A player is reported by seat, counted from the player whose turn began the match (seat 1). "
        "`simulate` plots a statistic with one numeric dimension and a true/false outcome (the share of yes "
        f"against the number) and one with a dimension of players (the share by seat). These rules declare: {stats}.",
        "- `policy NAME \"title\" CITATION { RULE ... }`, each rule `prefer MOVE [when EXPR] [best EXPR] "
        "[CITATION]` or `avoid MOVE, ... [when EXPR] [CITATION]`: a simulated player's choice, made from its view "
        "of the table, in which a card it does not know is a blank whose value and family are `none`. The first "
        "`prefer` rule that some legal move of its move satisfies chooses among those moves (the ones of the "
        "highest `best`); else a move of a kind no `avoid` rule excludes, chosen at random; when every kind is "
        "avoided the player waits, unless nobody else can act. A `prefer` rule reads its move's arguments, an "
        f"`avoid` rule only `{TRANSITION_ACTOR}`. Besides `random` and `kinds`, these rules declare: {policies}.",
    ]


def render_language(index: Index, links: Links) -> str:
    """The language reference for the rules the index was built from."""
    hooks = ", ".join(f"`on {name}({', '.join(params)})`" + ("" if required else " (optional)")
                      for name, (params, required) in HOOKS.items())
    lines = [
        "# The rules language: reference",
        "",
        "Generated by `baobei docs` from the builtin and statement registries and the rules; do not edit.",
        "",
        "## Builtins",
        "",
        "Every builtin is total: an argument that is `none` gives `none`, `false`, `0` or the empty list.",
        "",
        *_builtin_rows(BUILTINS),
        "",
        "## Names of the state",
        "",
        *_builtin_rows(STATE_NAMES),
        "",
        "## Statements",
        "",
        *_statement_rows(),
        "",
        "## Arithmetic",
        "",
        f"`+ - *` as usual; {FLOOR_DIVISION_DOC}. An operand that is `none` makes the result `none`.",
        "",
        "## Move arguments and hooks",
        "",
        f"- Argument kinds: {', '.join(f'`{k}`' for k in PARAM_KINDS)}; `?` makes one optional.",
        f"- Hooks the engine calls: {hooks}.",
        "",
        "## Limits",
        "",
        f"Checked when the rules load: a deck of at most {MAX_DECK:,} cards, card values between "
        f"-{MAX_VALUE:,} and {MAX_VALUE:,}, at most {MAX_PLAYERS} players. Rules and scenario files are UTF-8 "
        "text (a byte order mark is accepted).",
        "",
        *_properties(index.rules),
        "",
        *_simulation(index.rules),
        "",
        *_vocabulary(index.rules),
        "",
        *_moves(index.rules),
        "",
    ]
    return "\n".join(lines)
