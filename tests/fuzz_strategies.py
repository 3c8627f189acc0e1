"""Hypothesis strategies that fuzz the readers of rules and scenario files (used by test_fuzz.py).

- `generated(kind)`: whole files generated from the language's own Lark grammar (grammar/*.lark) with
  hypothesis.extra.lark.from_lark (for the rules: its strategy with a budget for the nesting of expressions,
  BoundedLarkStrategy). Every terminal gets an explicit strategy with realistic values: the names,
  numbers, strings, sections and paragraphs that the project's own files use (mostly), values no file uses
  (sometimes: huge numbers, unknown paragraphs, odd names), and keywords surrounded by blanks so that the
  text lexes again as it was generated. Most generated files parse, and then reach the checker (rules) or
  the replay against the default rules (scenarios).
- `rules_variant(...)`: a rules file of the default rules directory replaced by such a file, or such a file
  added to them (the default declarations stay, so the generated ones are checked in the context of a whole,
  valid rulebook); the test loads the variant as `baobei --rules` would.
- `generated_scenario()`: a generated scenario, or a project scenario with generated steps or table lines.
- `token_mutated(kind)`: a file of the project lexed by the project's own (contextual) Lark lexer, then
  tokens deleted, repeated, swapped, or replaced by another token of the same kind (another name: an
  unknown or mistyped reference), by a keyword, or by an extreme value.
- `nested(kind)`: a construct of the language nested far deeper than any author would nest it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from baobei.language.parser import grammar
from baobei.language.paths import default_rules_dir, default_scenarios_dir, grammar_dir
from hypothesis import strategies as st
from hypothesis.extra.lark import LarkStrategy, from_lark
from hypothesis.internal.conjecture.data import ConjectureData
from lark import Lark, Token
from lark.grammar import Symbol, Terminal

RULES_FILES = sorted(default_rules_dir().glob("*.bao"))
SCENARIO_FILES = sorted(default_scenarios_dir().rglob("*.scenario"))
FILES = {"rules": RULES_FILES, "scenario": SCENARIO_FILES}

# Values that no file of the project uses: limits, overflows, odd spellings.
EXTREME_INTS = ("0", "1", "26", "27", "1000", "1001", "1000001", "4294967296", "99999999999999999999999")
EXTREME_NAMES = ("_", "x" * 200, "actor", "none_", "Spatz2", "draw_pile", "all_cards", "P1", "in_")
EXTREME_STRINGS = ('""', '"\\""', '"\\\\"', '"a\\nb"', '"§ 1.1 [P1]"', '"' + "w" * 300 + '"', '"äöüß€"')


def source(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text if text.endswith("\n") or path.suffix == ".bao" else text + "\n"


@cache
def tokens_of(kind: str, path: Path) -> tuple[Token, ...]:
    """The tokens of a project file as the parser reads them (the contextual lexer: a keyword where the
    grammar allows one, else a name); comments and blanks lie between them."""
    return tuple(grammar(kind).parse_interactive(source(path)).iter_parse())


@cache
def vocabulary(kind: str) -> dict[str, tuple[str, ...]]:
    """Every token text the project's files use, by terminal name (sorted: the same strategies in every
    process, which the example database and pytest-xdist need)."""
    found: dict[str, set[str]] = {}
    for path in FILES[kind]:
        for tok in tokens_of(kind, path):
            found.setdefault(tok.type, set()).add(str(tok))
    return {name: tuple(sorted(values)) for name, values in found.items()}


@cache
def occurrences(kind: str, terminal: str) -> tuple[str, ...]:
    """Every occurrence of a terminal in the project's files (sorted): a draw from it favours what is frequent,
    the players alice and bob over a name written once."""
    return tuple(sorted(str(tok) for path in FILES[kind] for tok in tokens_of(kind, path) if tok.type == terminal))


@cache
def uncached_grammar(kind: str) -> Lark:
    """The grammar as a Lark object that keeps its definition (baobei's cached parser drops it)."""
    return Lark((grammar_dir() / f"{kind}.lark").read_text(encoding="utf-8"), parser="lalr")


@cache
def keywords(kind: str) -> tuple[str, ...]:
    """The literal strings of the grammar: keywords and punctuation."""
    terminals, _, _ = uncached_grammar(kind).grammar.compile(uncached_grammar(kind).options.start, ())
    return tuple(sorted(t.pattern.value for t in terminals if t.pattern.type == "str"))


def quoted(text: str) -> str:
    """A rules expression as a scenario string (`expect value "EXPR" = ...`)."""
    return '"' + text.strip().replace("\\", "\\\\").replace('"', '\\"') + '"'


def alternatives(pattern: str) -> tuple[str, ...]:
    """The words of a terminal that is a choice of a few (`(?:down|up)`, `(all|any|sum)\\b`), else nothing."""
    words = tuple(re.sub(r"\\b|\(\?:|[()]", "", pattern).split("|"))
    return words if all(re.fullmatch(pattern, w) for w in words) else ()


# Made once, from a fixed seed (the same strategies in every process): values no file of the project uses.
_RANDOM = random.Random(11)
RANDOM_NAMES = tuple("".join(_RANDOM.choices("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789",
                                             k=_RANDOM.randint(1, 14))).lstrip("0123456789") or "_"
                     for _ in range(40))
_PIECES = ["a", "Z", " ", "§", "ä", "€", "{}", "\\\"", "\\\\", "\\n", "#", "\t"]  # escapes, holes for `say`
RANDOM_STRINGS = tuple('"' + "".join(_RANDOM.choices(_PIECES, k=_RANDOM.randint(0, 20))) + '"' for _ in range(30))
RANDOM_NUMBERS = tuple(str(_RANDOM.randint(0, 10 ** _RANDOM.randint(1, 25))) for _ in range(20))
RANDOM_SECTIONS = ("§ 0", "§ 99.99", "§ A", "§1.1", "§  7.12", "§ FAQ", "§ 2.999999999999999999999")

# How a token stands in the text: mostly between blanks, sometimes at the end of a line or before a comment (the
# layout, drawn with the token: one draw a token, where from_lark draws blanks and comments after each symbol).
LAYOUTS = (" {} ",) * 6 + (" {}\n", "\t{}  # fuzz\n", "\n  {}\t")


def pool(values: Sequence[str], newlines: bool = True) -> st.SearchStrategy[str]:
    """One draw among the values, each in a layout of its own."""
    layouts = LAYOUTS if newlines else (" {} ",)
    out = [layouts[i % len(layouts)].format(v) for i, v in enumerate(values)]
    return st.sampled_from(out) if out else st.nothing()


def terminal_strategies(kind: str, newlines: bool = True) -> dict[str, st.SearchStrategy[str]]:
    """An explicit strategy for every terminal of the grammar (from_lark's own would give mostly noise:
    `players` glued to the next name, numbers with forty digits, strings of control characters). Each is one
    draw among the values the project's files use (as often as they use them: alice and bob more than a name
    written once), keywords and values no file uses."""
    lark = uncached_grammar(kind)
    terminals, _, ignore = lark.grammar.compile(lark.options.start, ())
    words = vocabulary(kind)
    newlines = newlines and kind == "rules"  # a newline in a scenario is a token of its own (_NL)
    # `old` followed by a parenthesis is the two-state form, not a call: left out of generated names.
    names = [n for n in occurrences(kind, "NAME") if n != "old"]
    ints = [*occurrences(kind, "INT"), *map(str, range(13)), *EXTREME_INTS, *RANDOM_NUMBERS]
    values: dict[str, list[str]] = {
        "NAME": [*names, *EXTREME_NAMES, *RANDOM_NAMES],
        "INT": ints,
        "SIGNED": [*occurrences(kind, "SIGNED"), *ints, *(f"-{n}" for n in ints)],
        # a phase, a window kind: the names the rules compare strings with
        "STRING": [*occurrences(kind, "STRING"), *(f'"{n}"' for n in words.get("NAME", ())), *EXTREME_STRINGS,
                   *RANDOM_STRINGS],
        "PARA": [*words.get("PARA", ()), *(f"P{n}" for n in RANDOM_NUMBERS)],
        "SECTION": [*occurrences(kind, "SECTION"), *RANDOM_SECTIONS],
    }
    out: dict[str, st.SearchStrategy[str]] = {}
    for term in terminals:
        name, pattern = term.name, term.pattern
        if pattern.type == "str":
            out[name] = st.just(f" {pattern.value} ")
        elif name in values:
            out[name] = pool(values[name], newlines)
        elif name == "COMMENT":
            out[name] = st.just(" # fuzz\n" if newlines else " ")  # a comment runs to the end of its line
        elif name == "OLD":
            out[name] = st.just(" old")  # `old` before a parenthesis (a lookahead from_regex cannot draw)
        elif name == "_NL":
            out[name] = st.sampled_from(["\n", "\n\n", "  # fuzz\n", "\r\n", "\n  "])
        elif name in ignore:
            out[name] = st.sampled_from([" ", "\t", *(["\n"] if newlines else [])])
        elif alternatives(pattern.to_regexp()):  # a choice of a few words: `up`, `down`
            out[name] = pool(alternatives(pattern.to_regexp()), newlines)
        else:  # a terminal added to the grammar since: what the files use, or what from_lark makes of it
            out[name] = pool(words[name], newlines) if words.get(name) else st.from_regex(
                pattern.to_regexp(), fullmatch=True, alphabet=st.characters(codec="utf-8", exclude_characters="\n"))
    return out


RANDOM_PARAGRAPH = st.integers(0, 49).map(lambda n: n == 0)  # one paragraph in 50 from the PARA strategy


class BoundedLarkStrategy(LarkStrategy):
    """from_lark's strategy with a budget: after `budget` rules expanded, or `depth` rules deep, every rule
    takes one of its expansions that end soonest (`2 + 3` rather than `if A then B else C`).

    The expressions of the rules language nest without bound (an `if` expression holds three), so plain
    from_lark mostly overruns Hypothesis's buffer on them and throws the example away: from the rule `expr`
    it made 35 examples in 70 seconds, and the rules files it did make held trivial expressions only."""

    def __init__(self, grammar: Lark, start: str | None, explicit: dict[str, st.SearchStrategy[str]],
                 depth: int, budget: int) -> None:
        super().__init__(grammar, start, explicit, st.characters(codec="utf-8"))
        self.max_depth, self.budget = depth, budget
        self.depth = self.expanded = self.paragraph = 0
        expansions = {name: list(s.elements) for name, s in self.nonterminal_strategies.items()}
        height: dict[str, int] = {}  # the fewest levels of rules to terminals only
        changed = True
        while changed:
            changed = False
            for name, alternatives in expansions.items():
                for alternative in alternatives:
                    below = [0 if isinstance(x, Terminal) else height.get(x.name) for x in alternative]
                    if None not in below:
                        h = 1 + max((b for b in below if b is not None), default=0)
                        if h < height.get(name, h + 1):
                            height[name], changed = h, True
        self.shortest = {
            name: st.sampled_from([a for a in alternatives
                                   if all(isinstance(x, Terminal) or height[x.name] < height[name] for x in a)])
            for name, alternatives in expansions.items()}

    def do_draw(self, data: ConjectureData) -> str:
        self.depth = self.expanded = self.paragraph = 0
        return super().do_draw(data)

    def gen_ignore(self, data: ConjectureData, draw_state: list[str]) -> None:
        """No blanks or comments drawn after every symbol: the terminals bring their own (LAYOUTS)."""

    def draw_symbol(self, data: ConjectureData, symbol: Symbol, draw_state: list[str]) -> None:
        if isinstance(symbol, Terminal):
            if symbol.name == "PARA" and not data.draw(RANDOM_PARAGRAPH):
                # Paragraphs mostly go up through the file, as in a rulebook: a range (P5-P9) that does not
                # go up is an error of the parser, which would otherwise stop nearly every generated file.
                self.paragraph += data.draw(st.integers(1, 200) if self.paragraph == 0 else st.integers(1, 6))
                draw_state.append(f" P{self.paragraph} ")
                return
            super().draw_symbol(data, symbol, draw_state)
            return
        self.expanded += 1
        self.depth += 1
        try:
            if self.depth <= self.max_depth and self.expanded <= self.budget:
                super().draw_symbol(data, symbol, draw_state)
                return
            data.start_span(self.rule_label(symbol.name))
            for part in data.draw(self.shortest[symbol.name]):
                self.draw_symbol(data, part, draw_state)
                draw_state.append(" ")  # cheaper than drawing whether to put a blank or a comment
            data.stop_span()
        finally:
            self.depth -= 1


@cache
def generated(kind: str, start: str | None = None, newlines: bool = True, bounded: bool = True,
              depth: int = 40, budget: int = 200) -> st.SearchStrategy[str]:
    """Text of the grammar `kind` (rules or scenario) from its rule `start` (the whole file by default):
    from_lark with explicit terminal strategies, and (`bounded`) a budget for the nesting of expressions."""
    lark = uncached_grammar(kind)
    explicit = terminal_strategies(kind, newlines)
    if start is not None:
        terminals, _, ignore = lark.grammar.compile([start], ())
        used = {t.name for t in terminals} | set(ignore)
        explicit = {k: v for k, v in explicit.items() if k in used}
    if kind == "scenario" and "STRING" in explicit:
        # `expect value "EXPR" = VALUE`: the string is an expression of the rules language.
        expressions = generated("rules", "expr", newlines=False, depth=25, budget=60).map(quoted)
        explicit["STRING"] = st.one_of(explicit["STRING"], expressions.map(lambda e: f" {e} "))
    if not bounded:
        return from_lark(lark, start=start, explicit=explicit)
    return BoundedLarkStrategy(lark, start, explicit, depth, budget)


# ---------------------------------------------------------------- rules variants


@dataclass(frozen=True)
class Variant:
    """The default rules with the file `name` replaced by `text`, or added to them."""

    name: str
    text: str
    how: str

    def __repr__(self) -> str:  # what Hypothesis prints for a failing example: the file, whole
        return f"Variant({self.name!r}, {self.how!r}, text=\n{self.text}\n)"


# Declarations that the checker reads closely (names, kinds of values, arguments, phases): one of them added to a
# valid rules file meets the checker's every question, where a whole generated file mostly stops at its first
# declaration of a second deck or player count.
CHECKED = ("move_decl", "ability_decl", "step_decl", "routine_decl", "hook_decl", "define_decl", "var_decl",
           "invariant_decl", "progress_decl", "halt_decl", "protect_decl", "simultaneous_decl", "table_decl")


# A file added to the default rules (read after them, in name order).
ADDED = "10_fuzz.bao"


@st.composite
def rules_variant(draw: st.DrawFn, texts: st.SearchStrategy[str] | None = None) -> Variant:
    """A default rules file replaced by a generated file, or a generated file added to the default rules, or one
    generated declaration of a kind the checker reads closely added to them."""
    how = draw(st.sampled_from(["replace", "add", "declaration", "declaration"]))
    if texts is None and how == "declaration":
        text = draw(generated("rules", draw(st.sampled_from(CHECKED))))
    else:
        text = draw(texts if texts is not None else generated("rules"))
        how = "add" if how == "declaration" else how
    name = draw(st.sampled_from(RULES_FILES)).name if how == "replace" else ADDED
    return Variant(name, text, how)


@st.composite
def token_mutated_variant(draw: st.DrawFn) -> Variant:
    path = draw(st.sampled_from(RULES_FILES))
    return Variant(path.name, draw(token_mutated("rules", [path])), "tokens")


# ---------------------------------------------------------------- scenarios


@st.composite
def spliced_scenario(draw: st.DrawFn) -> str:
    """A project scenario with generated steps put into its play, or generated lines into its table: the replay
    meets them with a table set up (a whole generated scenario mostly stops at its setup)."""
    path = draw(st.sampled_from(SCENARIO_FILES))
    lines = source(path).splitlines(keepends=True)
    play = next(i for i, line in enumerate(lines) if line.strip() == "play")
    table = next((i for i, line in enumerate(lines[:play]) if line.strip() == "table"), None)
    if table is not None and draw(st.booleans()):
        part, at = "table_line", draw(st.integers(table + 1, play))
    else:
        part, at = "step", draw(st.integers(play + 1, len(lines)))
    new = draw(st.lists(generated("scenario", part), min_size=1, max_size=4))
    return "".join([*lines[:at], *new, *lines[at:]])


def generated_scenario() -> st.SearchStrategy[str]:
    """A whole scenario generated from the grammar (plain from_lark: the scenario grammar nests little), or a
    project scenario with generated lines."""
    return st.one_of(generated("scenario", bounded=False), spliced_scenario())


# ---------------------------------------------------------------- token mutations


# Replacing a token by another of its kind keeps the syntax and leaves the rest to the checker: the most of them.
OPERATIONS = ("delete", "repeat", "swap", "replace", "replace_same", "replace_same", "replace_same", "replace_same")


@st.composite
def token_mutated(draw: st.DrawFn, kind: str, paths: Sequence[Path] | None = None) -> str:
    """A project file with one to three token edits: delete, repeat, swap, replace."""
    path = draw(st.sampled_from(list(paths or FILES[kind])))
    text = source(path)
    toks = tokens_of(kind, path)
    # The text as [gap, token, gap, token, ..., gap]: comments and blanks stay where they were.
    texts = [str(t) for t in toks]
    starts = [t.start_pos or 0 for t in toks]
    ends = [t.end_pos or 0 for t in toks]
    gaps = [text[a:b] for a, b in zip([0, *ends], [*starts, len(text)], strict=True)]
    words = vocabulary(kind)
    others = [w for values in words.values() for w in values]
    n = len(texts)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, n - 1))
        op = draw(st.sampled_from(OPERATIONS))
        if op == "delete":
            texts[i] = ""
        elif op == "repeat":
            texts[i] = texts[i] + " " + texts[i]
        elif op == "swap":
            j = draw(st.one_of(st.integers(max(0, i - 4), min(n - 1, i + 4)), st.integers(0, n - 1)))
            texts[i], texts[j] = texts[j], texts[i]
        elif op == "replace_same":  # another token of the same kind: the checker's part
            same = words.get(toks[i].type, ())
            texts[i] = draw(st.sampled_from([*same, *EXTREME_VALUES.get(toks[i].type, ())] or [texts[i]]))
        else:
            texts[i] = draw(st.one_of(st.sampled_from(keywords(kind)), st.sampled_from(others),
                                      st.sampled_from([v for vs in EXTREME_VALUES.values() for v in vs])))
    return "".join(g + t for g, t in zip(gaps, [*texts, ""], strict=True))


TOO_LONG = "9" * 5000  # more digits than int() reads (sys.get_int_max_str_digits(): 4300)
EXTREME_VALUES: dict[str, tuple[str, ...]] = {
    "NAME": EXTREME_NAMES,
    "INT": (*EXTREME_INTS, TOO_LONG),
    "SIGNED": (*EXTREME_INTS, "-1", "-1000001", "-99999999999999999999999", "-" + TOO_LONG),
    "STRING": EXTREME_STRINGS,
    "PARA": ("P0", "P9999", "P99999999999999999999", "P" + TOO_LONG),
    "SECTION": ("§ 0", "§ 99.99", "§ A", "§1.1"),
}


# ---------------------------------------------------------------- deep nesting

# A scenario up to its play, for the nestings: a row for each player (`NAME:`, an empty tableau).
DEEP_TABLE = "scenario \"deep\"\ntable\n  players alice bob\n  alice:\n  bob:\nplay\n"
# (head, opening, inner, closing, tail) of a construct nested N deep: head + opening * N + inner + closing * N + tail.
NESTINGS: dict[str, tuple[tuple[str, str, str, str, str], ...]] = {
    "rules": (
        ("define deep = ", "(", "1", ")", ""),
        ("define deep = ", "not ", "true", "", ""),
        ("define deep = ", "- ", "1", "", ""),
        ("define deep = ", "abs(", "1", ")", ""),
        ("define deep = ", "if true then ", "1", " else 2", ""),
        ("define deep = ", "[x in ", "players", " where true]", ""),
        ("define deep = ", "old(", "1", ")", ""),
        ("define deep = players", "", "", "[0]", ""),
        ('routine deep "" § 1.1 [P1] { ', "if true { ", "", "} ", "}"),
        ('routine deep "" § 1.1 [P1] { ', "for p in players { ", "", "} ", "}"),
        ('routine deep "" § 1.1 [P1] { ', "if true { } else ", "{ }", "", "}"),
    ),
    "scenario": (
        (DEEP_TABLE + "  alice draw ", "[", "1", "]", "\n"),
        (DEEP_TABLE + "  expect value \"", "(", "1", ")", "\" = 1\n"),
        (DEEP_TABLE + "  expect value \"", "not ", "true", "", "\" = false\n"),
    ),
}


@st.composite
def nested(draw: st.DrawFn, kind: str, depth: st.SearchStrategy[int] | None = None) -> str:
    """One construct of the language nested `depth` deep, inside a valid declaration or scenario."""
    head, opening, inner, closing, tail = draw(st.sampled_from(NESTINGS[kind]))
    n = draw(depth if depth is not None else st.one_of(st.integers(1, 250), st.integers(250, 1200)))
    return head + opening * n + inner + closing * n + tail
