"""Pygments lexers for the project's two languages: the rules language (.bao) and the scenario language.

Why: the docs site, the README, editors and the terminal show rules and scenarios to people. Registered
under the `pygments.lexers` entry point (pyproject.toml), the lexers let every Pygments user colour them
the same way: a fence tagged `bao` or `scenario`, `pygmentize -l bao`, `highlight_terminal`.

The words follow the string literals of grammar/rules.lark and grammar/scenario.lark
(tests/test_lexers.py fails when a literal is missing here); builtins and state names come from the
builtin registry, so a new builtin is coloured without an edit. Like the engine, the lexers know nothing
of the game itself: no card, no section, no paragraph. A character neither grammar allows (`$`, a
backtick, a non-ASCII letter outside strings and comments) is an error token, so the lexer test over
every rules file and scenario also catches text the parser would refuse.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pygments import highlight  # type: ignore[import-untyped]
from pygments.formatters import HtmlFormatter, TerminalFormatter  # type: ignore[import-untyped]
from pygments.formatters.terminal import TERMINAL_COLORS  # type: ignore[import-untyped]
from pygments.lexer import RegexLexer, bygroups, default  # type: ignore[import-untyped]
from pygments.token import (  # type: ignore[import-untyped]
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from ..language.builtins import BUILTINS, ENGINE_NAMES, STATE_NAMES

Rule = tuple[Any, ...]  # a Pygments rule: (regex, action[, new state]), or default(new state)

NAME = r"[A-Za-z_][A-Za-z0-9_]*"
STRING = r'"(?:[^"\\\n]|\\.)*"'
# A citation: a section id (a number, a letter or a word in capitals, with a sub-number) and a paragraph list.
SECTION = r"§\s*[0-9A-Z]+(?:\.[0-9]+)?"
_PARA = r"P[0-9]+(?:\s*-\s*P[0-9]+)?"
PARAGRAPHS = rf"\[\s*{_PARA}(?:\s*,\s*{_PARA})*\s*\]"

# ---------------------------------------------------------------- the rules language's words
# Declarations begin a line; those that name what they declare, with the token of the name.
RULES_NAMED_DECLARATIONS = {
    Name.Function: "move ability step routine on define",
    Name.Variable: "var table pile",
    Name.Constant: "assumption invariant lemma progress halt protect mark statistic policy",
}
RULES_DECLARATIONS = "players deck hand phases window waiting untriggered implicit simultaneous"
RULES_DECLARATION_PREFIXES = "match player reachable no choice"  # before another word: `match player var`
RULES_KEYWORDS = (
    "by else with require do let set draw into as to move swap mark peek show forget open window on for use"
    " close pick from trigger after continue shuffle except start of run say repeat if then first where when"
    " holds allow order tableau face up down kinds attempts until choice reason card value count family"
    " ability all any sum most least outcome prefer avoid best"
)
# Words a rule may also use as names: keywords only in the phrases of `_rules_phrases`.
RULES_CONTEXT_WORDS = "turn round top moves old"
RULES_OPERATOR_WORDS = "and or not in"
CONSTANTS = "true false none"
RULES_WORDS = frozenset(" ".join([
    *RULES_NAMED_DECLARATIONS.values(), RULES_DECLARATIONS, RULES_DECLARATION_PREFIXES, RULES_KEYWORDS,
    RULES_CONTEXT_WORDS, RULES_OPERATOR_WORDS, CONSTANTS,
]).split())


def alternatives(words: str | list[str]) -> str:
    """A regex group matching any of the words, longest first, each a whole word."""
    items = words.split() if isinstance(words, str) else words
    return "(" + "|".join(sorted(items, key=lambda w: (-len(w), w))) + r")\b"


def _rules_declarations() -> list[Rule]:
    named: list[Rule] = [
        (rf"^(?:(match)(\s+))?(?:(player)(\s+))?(var)(\s+)({NAME})(\s*)(:)(\s*)({NAME})",
         bygroups(Keyword.Declaration, Whitespace, Keyword.Declaration, Whitespace, Keyword.Declaration,
                  Whitespace, Name.Variable, Whitespace, Punctuation, Whitespace, Keyword.Type)),
        (rf"^(?:(reachable)(\s+))?(invariant)(\s+)({NAME})",
         bygroups(Keyword.Declaration, Whitespace, Keyword.Declaration, Whitespace, Name.Constant)),
        (r"^(no)(\s+)(choice)\b", bygroups(Keyword.Declaration, Whitespace, Keyword.Declaration)),
        (r"^(hand)(\s+)(holds)\b", bygroups(Keyword.Declaration, Whitespace, Keyword)),
        (r"^(phases)\b", Keyword.Declaration, "phases"),
        (r"^(implicit)\b", Keyword.Declaration, "moves"),
    ]
    for token, words in RULES_NAMED_DECLARATIONS.items():
        named.append((rf"^{alternatives(words)}(\s+)({NAME})", bygroups(Keyword.Declaration, Whitespace, token)))
    return [*named, ("^" + alternatives(RULES_DECLARATIONS), Keyword.Declaration)]


def _rules_phrases() -> list[Rule]:
    """Words that are keywords next to others (`start turn`, `except top`) and names elsewhere."""
    return [
        (r"(start)(\s+)(turn|round)\b", bygroups(Keyword, Whitespace, Keyword)),
        (r"(until)(\s+)(turn)\b", bygroups(Keyword, Whitespace, Keyword)),
        (r"(except)(\s+)(top)\b", bygroups(Keyword, Whitespace, Keyword)),
        (r"(on)(\s+)(ability)(\s+)(moves)\b", bygroups(Keyword, Whitespace, Keyword, Whitespace, Keyword)),
        (r"(old)(?=\s*\()", Keyword.Pseudo),
        (rf"(ability|run|continue|prefer|avoid)([ \t]+)({NAME})", bygroups(Keyword, Whitespace, Name.Function)),
        (rf"^([ \t]+)(card)([ \t]+)({NAME})", bygroups(Whitespace, Keyword, Whitespace, Name.Constant)),
        (r"(allow)\b", Keyword, "moves"),
        # A formal or parameter and its kind (`p: player`, `slot: own_slot?`); not a quantifier's `in xs: e`.
        (rf"(?<!\bin )({NAME})(\s*)(:)(\s*)({NAME})(\??)(?=\s*(?:[,)]|=(?!=)|$))",
         bygroups(Name.Variable, Whitespace, Punctuation, Whitespace, Keyword.Type, Operator)),
    ]


def _name_list(token: Any) -> list[Rule]:
    """A comma-separated list of names (phases, moves): it ends with the first name not followed by a comma."""
    return [
        (r"\s+", Whitespace),
        (r"#[^\n]*", Comment.Single),
        (rf"({NAME})(\s*)(,)", bygroups(token, Whitespace, Punctuation)),
        (NAME, token, "#pop"),
        default("#pop"),
    ]


class RulesLexer(RegexLexer):  # type: ignore[misc]
    """The rules language of grammar/rules.lark."""

    name = "BAO BEI rules"
    filenames: ClassVar[list[str]] = ["*.bao"]
    # The short alias is the files' extension (a fence tagged with it); spelt through the extension, since the
    # same word names a move of the rules, which a variant may rename.
    aliases: ClassVar[list[str]] = [filenames[0].removeprefix("*."), "baobei-rules"]
    mimetypes: ClassVar[list[str]] = ["text/x-baobei-rules"]

    tokens: ClassVar[dict[str, list[Rule]]] = {
        "root": [
            (r"\s+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (STRING, String.Double),
            (SECTION, Name.Label),
            (PARAGRAPHS, Name.Label),
            *_rules_declarations(),
            *_rules_phrases(),
            (alternatives(list(BUILTINS)) + r"(?=\s*\()", Name.Builtin),
            (alternatives(RULES_OPERATOR_WORDS), Operator.Word),
            (alternatives(CONSTANTS), Keyword.Constant),
            (alternatives(RULES_KEYWORDS), Keyword),
            (NAME + r"(?=\s*\()", Name.Function),
            (alternatives([*STATE_NAMES, *ENGINE_NAMES]), Name.Builtin.Pseudo),
            (NAME, Name),
            (r"[0-9]+", Number.Integer),
            (r"==|!=|<=|>=|//|\.\.|[<>+\-*%=?]", Operator),
            (r"[(){}\[\],:]", Punctuation),
        ],
        "phases": _name_list(Name.Constant),
        "moves": _name_list(Name.Function),
    }


# ---------------------------------------------------------------- the scenario language's words
SCENARIO_HEADER = "scenario cites tags assumes question answer answers table deal play"
SCENARIO_LANGUAGES = "de en"
SCENARIO_SETUP = "seed players active among phase knows holds set"
# The further words of a table's lines: round and turn, windows, waiting abilities, marks, and a card named by
# where it lies (`discard top`, `alice hand 1`, `box SPECIES`).
SCENARIO_TABLE = "round turn not marked window on for nobody attempts waiting of after with protected top hand box"
SCENARIO_PLAY = "decisive reject by expect simultaneous end draws"
SCENARIO_EXPECT = (
    "is empty holds nothing top size phase active knows not cards window open for used closed pending of"
    " value said"
)
SCENARIO_WORDS = frozenset(" ".join([
    SCENARIO_HEADER, SCENARIO_LANGUAGES, SCENARIO_SETUP, SCENARIO_TABLE, SCENARIO_PLAY, SCENARIO_EXPECT, CONSTANTS,
]).split())
_ALONE = r"(?=[ \t]*(?:#[^\n]*)?$)"  # nothing else on the line (a section header: `table`, `play`)
_NEWLINE = r"\r?\n"


def _scenario_common() -> list[Rule]:
    return [
        (r"[ \t]+", Whitespace),
        (r"#[^\n]*", Comment.Single),
        (STRING, String.Double),
        (SECTION, Name.Label),
        (PARAGRAPHS, Name.Label),
        (alternatives(CONSTANTS), Keyword.Constant),
        (rf"({NAME})(\.)([0-9]+)", bygroups(Name.Variable, Punctuation, Number.Integer)),  # a slot
        (rf"({NAME})([ \t]*)(=)", bygroups(Name.Attribute, Whitespace, Operator)),  # a named argument
        (NAME, Name),
        (r"-?[0-9]+", Number.Integer),
        ("=", Operator),
        (r"[\[\],;:]", Punctuation),
    ]


def _scenario_list(token: Any) -> list[Rule]:
    """The rest of a header line: names or paragraph ids separated by commas."""
    return [(_NEWLINE, Whitespace, "#pop"), (r"[ \t]+", Whitespace), (r"#[^\n]*", Comment.Single),
            (",", Punctuation), (NAME, token)]


class ScenarioLexer(RegexLexer):  # type: ignore[misc]
    """The scenario language of grammar/scenario.lark."""

    name = "BAO BEI scenario"
    aliases: ClassVar[list[str]] = ["baobei-scenario", "scenario"]
    filenames: ClassVar[list[str]] = ["*.scenario"]
    mimetypes: ClassVar[list[str]] = ["text/x-baobei-scenario"]

    tokens: ClassVar[dict[str, list[Rule]]] = {
        "root": [  # the header, and a seeded deal
            (_NEWLINE, Whitespace),
            (r"(table)" + _ALONE, Keyword.Declaration, "table"),
            (r"(play)" + _ALONE, Keyword.Declaration, "play"),
            (r"(tags)\b", Keyword.Declaration, "tags"),
            (r"(assumes)\b", Keyword.Declaration, "assumptions"),
            (r"(answers)\b", Keyword.Declaration, "paragraphs"),
            (rf"(question|answer)([ \t]+){alternatives(SCENARIO_LANGUAGES)}",
             bygroups(Keyword.Declaration, Whitespace, Name.Attribute)),
            (alternatives(SCENARIO_HEADER), Keyword.Declaration),
            (alternatives(SCENARIO_SETUP), Keyword),
            *_scenario_common(),
        ],
        "table": [
            (_NEWLINE, Whitespace),
            (r"^(play)" + _ALONE, Keyword.Declaration, ("#pop", "play")),
            (alternatives(f"{SCENARIO_SETUP} {SCENARIO_TABLE}"), Keyword),
            (rf"({NAME})([ \t]*)(:)", bygroups(Name.Variable, Whitespace, Punctuation)),  # a tableau or pile
            *_scenario_common(),
        ],
        "play": [
            (_NEWLINE, Whitespace),
            (r"^([ \t]*)(expect)\b", bygroups(Whitespace, Keyword), "expect"),
            # A move: its player and its name, after `decisive` and `reject`.
            (r"^([ \t]*)(draws)\b", bygroups(Whitespace, Keyword), "draws"),
            (rf"^([ \t]*)(?:(decisive)([ \t]+))?(?:(reject)([ \t]+))?(?!(?:simultaneous|end)\b)({NAME})"
             rf"([ \t]+)({NAME})",
             bygroups(Whitespace, Keyword, Whitespace, Keyword, Whitespace, Name, Whitespace, Name.Function)),
            (alternatives(SCENARIO_PLAY), Keyword),
            *_scenario_common(),
        ],
        "expect": [
            (_NEWLINE, Whitespace, "#pop"),
            (alternatives(SCENARIO_EXPECT), Keyword),
            (rf"({NAME})(?=[ \t]*(?:\[[^\]\n]*\][ \t]*)?=)", Name.Variable),  # VAR = VALUE, VAR[PLAYER] = ...
            *_scenario_common(),
        ],
        "tags": _scenario_list(Name.Tag),
        "draws": _scenario_list(Name.Class),
        "assumptions": _scenario_list(Name.Constant),
        "paragraphs": _scenario_list(Name.Label),
    }


# ---------------------------------------------------------------- highlighting
# The terminal's 16 colours (they follow the user's theme), with the citations and declarations stressed:
# Pygments' own scheme leaves labels uncoloured.
TERMINAL_COLOURS = {
    **TERMINAL_COLORS,
    Name.Label: ("*magenta*", "*brightmagenta*"),
    Keyword.Declaration: ("*blue*", "*brightblue*"),
}
LEXERS: dict[str, type[RulesLexer] | type[ScenarioLexer]] = {"rules": RulesLexer, "scenario": ScenarioLexer}


def lexer_for(language: str) -> RulesLexer | ScenarioLexer:
    """A lexer for "rules" or "scenario"; ValueError for any other language."""
    if language not in LEXERS:
        raise ValueError(f"unknown language {language!r}: expected one of {', '.join(LEXERS)}")
    return LEXERS[language]()


def highlight_terminal(text: str, language: str) -> str:
    """The text with ANSI colours for a terminal (whether to colour at all is the caller's choice)."""
    return str(highlight(text, lexer_for(language), TerminalFormatter(colorscheme=TERMINAL_COLOURS)))


def highlight_html(text: str, language: str) -> str:
    """The text as HTML: a `div.highlight` of spans with Pygments' short CSS classes."""
    return str(highlight(text, lexer_for(language), HtmlFormatter(nowrap=False, cssclass="highlight")))
