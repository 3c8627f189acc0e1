"""The Pygments lexers of the rules and scenario languages: every file of the project lexes without an
error token, the entry points find them, words get the intended token types, and a stray character is an
error (so the lex-everything test can fail)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from baobei.docs.lexers import (
    RULES_WORDS,
    SCENARIO_WORDS,
    RulesLexer,
    ScenarioLexer,
    highlight_html,
    highlight_terminal,
)
from baobei.language.paths import default_rules_dir, default_scenarios_dir, grammar_dir
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    String,
    Whitespace,
    _TokenType,
)

ROOT = default_rules_dir().parent
RULES_FILES = sorted(default_rules_dir().glob("*.bao"))
SCENARIO_FILES = sorted(default_scenarios_dir().rglob("*.scenario"))

Tokens = list[tuple[_TokenType, str]]


def tokens(lexer: Lexer, text: str) -> Tokens:
    return [(t, v) for t, v in lexer.get_tokens(text) if t is not Whitespace]


def errors(lexer: Lexer, text: str) -> list[str]:
    """Each error token as `line:column: text`."""
    out = []
    for pos, token, value in lexer.get_tokens_unprocessed(text):
        if token in Error:
            line = text.count("\n", 0, pos) + 1
            out.append(f"{line}:{pos - text.rfind(chr(10), 0, pos)}: {value!r}")
    return out


def test_the_globs_find_the_files() -> None:
    assert len(RULES_FILES) > 1 and len(SCENARIO_FILES) > 10


@pytest.mark.parametrize(
    ("path", "lexer"),
    [(p, RulesLexer) for p in RULES_FILES] + [(p, ScenarioLexer) for p in SCENARIO_FILES],
    ids=lambda x: str(x.relative_to(ROOT)) if isinstance(x, Path) else "",
)
def test_every_file_lexes_without_an_error_token(path: Path, lexer: type[Lexer]) -> None:
    found = errors(lexer(), path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(ROOT)}: error tokens at\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("lexer", "text"),
    [
        (RulesLexer, "define f = 1 $ 2\n"),
        (RulesLexer, "define f = `x`\n"),
        (RulesLexer, 'define f = "never closed\n'),
        (RulesLexer, "define größe = 1\n"),
        (ScenarioLexer, "play\n  alice take slot=alice.1 $\n"),
        (ScenarioLexer, "table\n  set x = (1)\n"),
    ],
)
def test_a_character_the_grammar_refuses_is_an_error(lexer: type[Lexer], text: str) -> None:
    assert errors(lexer(), text)


@pytest.mark.parametrize(
    ("find", "name", "lexer"),
    [
        (get_lexer_by_name, "bao", RulesLexer),
        (get_lexer_by_name, "baobei-rules", RulesLexer),
        (get_lexer_for_filename, "x.bao", RulesLexer),
        (get_lexer_by_name, "scenario", ScenarioLexer),
        (get_lexer_by_name, "baobei-scenario", ScenarioLexer),
        (get_lexer_for_filename, "x.scenario", ScenarioLexer),
    ],
)
def test_the_entry_points_find_the_lexers(find: Callable[[str], Lexer], name: str, lexer: type[Lexer]) -> None:
    assert isinstance(find(name), lexer)


def grammar_words(name: str) -> set[str]:
    text = (grammar_dir() / f"{name}.lark").read_text(encoding="utf-8")
    return {w for literal in re.findall(r'"([a-z][a-z ]*)"', text) for w in literal.split()}


@pytest.mark.parametrize(("grammar", "words"), [("rules", RULES_WORDS), ("scenario", SCENARIO_WORDS)])
def test_every_word_of_the_grammar_is_known_to_the_lexer(grammar: str, words: frozenset[str]) -> None:
    literals = grammar_words(grammar)
    assert {"by", "holds"} <= literals  # the scan reads the grammar
    assert literals <= words, f"{grammar}.lark words the lexer does not know: {sorted(literals - words)}"


RULES_SAMPLE = """\
# a comment
match player var total: int = 0
move take "Take the top card" § 2.3 [P20, P29-P32]
  by actor == active else "only the active player"
  with slot: own_slot?
  require size(cards(actor)) > 0 and not done else "nothing to take" § B [P3]
  do {
    let old = card_at(slot)
    move old to discard_pile
    set total[actor] = old(total[actor]) + 1
    start turn of first p in players where ready(p)
  }
reachable invariant keeps "..." § 1 [P1] { holds all p in players: total[p] >= 0 }
phases setup, turn_end § 1 [P1]
"""


def test_rules_words_get_their_token_types() -> None:
    found = tokens(RulesLexer(), RULES_SAMPLE)
    expected = [
        (Comment.Single, "# a comment"),
        (Keyword.Declaration, "match"), (Keyword.Declaration, "player"), (Keyword.Declaration, "var"),
        (Name.Variable, "total"), (Keyword.Type, "int"),
        (Keyword.Declaration, "move"), (Name.Function, "take"), (String.Double, '"Take the top card"'),
        (Name.Label, "§ 2.3"), (Name.Label, "[P20, P29-P32]"), (Name.Label, "§ B"), (Name.Label, "[P3]"),
        (Keyword, "by"), (Name.Builtin.Pseudo, "actor"), (Operator, "=="), (Keyword, "else"),
        (Keyword, "with"), (Name.Variable, "slot"), (Keyword.Type, "own_slot"), (Operator, "?"),
        (Keyword, "require"), (Name.Builtin, "size"), (Name.Builtin, "cards"), (Number.Integer, "0"),
        (Operator.Word, "and"), (Operator.Word, "not"), (Name, "done"),
        (Keyword, "let"), (Name, "old"), (Name.Builtin, "card_at"), (Keyword, "move"), (Keyword, "to"),
        (Keyword.Pseudo, "old"), (Keyword, "start"), (Keyword, "turn"), (Keyword, "of"), (Keyword, "first"),
        (Name.Builtin.Pseudo, "players"), (Keyword, "where"), (Name.Function, "ready"),
        (Keyword.Declaration, "reachable"), (Keyword.Declaration, "invariant"), (Name.Constant, "keeps"),
        (Keyword, "holds"), (Keyword, "all"),
        (Keyword.Declaration, "phases"), (Name.Constant, "setup"), (Name.Constant, "turn_end"),
    ]
    missing = [pair for pair in expected if pair not in found]
    assert not missing, f"not lexed as expected: {missing}\nlexed: {found}"
    assert (Keyword.Type, "players") not in found  # `in players: ...` is a quantifier, not a kind


SCENARIO_SAMPLE = """\
scenario "Taking a card"
cites § 2.3 [P20-P22]; § FAQ [P9]
tags take, window
assumes X1
answers P9
question en "May I take it?"

table
  players alice bob
  alice: One, Two, _
  alice knows alice.1
  set total[bob] = -4

play
  decisive alice take slot=alice.1
  reject bob take slot=bob.1 by § 2.3 [P20]
  expect alice.1 is empty
  expect total[bob] = 40
  expect value "size(cards(alice))" = 2
  simultaneous
    bob call target=bob.2
  end
"""


def test_scenario_words_get_their_token_types() -> None:
    found = tokens(ScenarioLexer(), SCENARIO_SAMPLE)
    expected = [
        (Keyword.Declaration, "scenario"), (String.Double, '"Taking a card"'),
        (Keyword.Declaration, "cites"), (Name.Label, "§ 2.3"), (Name.Label, "[P20-P22]"), (Name.Label, "§ FAQ"),
        (Keyword.Declaration, "tags"), (Name.Tag, "take"), (Name.Tag, "window"),
        (Keyword.Declaration, "assumes"), (Name.Constant, "X1"),
        (Keyword.Declaration, "answers"), (Name.Label, "P9"),
        (Keyword.Declaration, "question"), (Name.Attribute, "en"),
        (Keyword.Declaration, "table"), (Keyword, "players"), (Name.Variable, "alice"), (Name, "One"),
        (Keyword, "knows"), (Keyword, "set"), (Number.Integer, "-4"),
        (Keyword.Declaration, "play"), (Keyword, "decisive"), (Name, "alice"), (Name.Function, "take"),
        (Name.Attribute, "slot"), (Operator, "="), (Number.Integer, "1"),
        (Keyword, "reject"), (Keyword, "by"),
        (Keyword, "expect"), (Keyword, "is"), (Keyword, "empty"), (Name.Variable, "total"),
        (Keyword, "value"), (String.Double, '"size(cards(alice))"'),
        (Keyword, "simultaneous"), (Name, "bob"), (Name.Function, "call"), (Keyword, "end"),
    ]
    missing = [pair for pair in expected if pair not in found]
    assert not missing, f"not lexed as expected: {missing}\nlexed: {found}"
    assert (Keyword, "window") not in found  # a tag, not the expectation's keyword


ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize(("text", "language"), [(RULES_SAMPLE, "rules"), (SCENARIO_SAMPLE, "scenario")])
def test_highlight_terminal_colours_the_text_and_keeps_it(text: str, language: str) -> None:
    out = highlight_terminal(text, language)
    assert re.search(r"\x1b\[[0-9;]*m§ 2\.3", out), "citations are coloured"
    assert ANSI.sub("", out) == text


def test_highlight_html_wraps_classed_spans() -> None:
    out = highlight_html(RULES_SAMPLE, "rules")
    assert out.startswith('<div class="highlight"><pre>')
    assert '<span class="kd">move</span>' in out and '<span class="nl">§ 2.3</span>' in out


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown language"):
        highlight_html("x", "python")
