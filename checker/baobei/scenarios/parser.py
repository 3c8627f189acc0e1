"""Parse scenario files into the dataclasses of scenarios/syntax.py (errors with file:line:col)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from lark import Token, v_args
from lark.exceptions import UnexpectedInput

from ..language.errors import ScenarioError, caret_excerpt, read_source
from ..language.parser import PARSE_CACHE, SourceBuilder, build, grammar, parse_tree, pos_of, syntax_error, unquote
from ..language.source import Citation, Pos
from . import syntax as sc
from .wellformed import check_player_names, check_rows, reserved_player_in

SCENARIO_SUFFIX = ".scenario"


@v_args(meta=True, inline=True)
class ScenarioBuilder(SourceBuilder):
    error = ScenarioError

    def __init__(self, path: str, text: str) -> None:
        super().__init__(path)
        self.text = text
        self.lines = text.split("\n")  # as the parser counts lines (caret_excerpt)

    def _tp(self, tok: Token) -> Any:
        return pos_of(self.path, tok)

    def _line(self, meta: Any) -> str:
        line = getattr(meta, "line", 0) or 0
        return self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""

    # --- header
    def start(self, meta: Any, header: dict[str, Any], setup: Any, steps: tuple[sc.Step, ...]) -> sc.Scenario:
        assumes = header["assumes"]
        scenario = sc.Scenario(self.path, header["pos"], header["title"], tuple(header["cites"]),
                               tuple(header["tags"]), tuple(name for name, _ in assumes), header["questions"],
                               header["answers"], setup, steps, tuple(header["faq"]),
                               tuple(pos for _, pos in assumes))
        self._check_faq(scenario, header["faq_pos"])
        self._check_setup(setup)
        return scenario

    def _check_setup(self, setup: sc.Table | sc.Deal) -> None:
        """A scenario file's players have names the language reads as names, and a table a row for each player
        of the round. Only a scenario file is held to this: a game log's or the desk's table, read by
        parse_table_lines, is what its reader (the referee, the desk) accepts."""
        check_player_names(setup.players, setup.players_pos, self.text)
        if isinstance(setup, sc.Table):
            check_rows(setup, self.text)

    def _check_faq(self, scenario: sc.Scenario, pos: Any) -> None:
        """An `answers` line publishes this scenario's answer under a rulebook FAQ question: it must
        carry a question and answer in both languages, and cite that paragraph."""
        if not scenario.faq:
            return
        if set(scenario.answers) != {"de", "en"} or set(scenario.questions) != {"de", "en"}:
            raise ScenarioError(pos, "a scenario that answers a rulebook FAQ question needs `question de/en` "
                                "and `answer de/en`")
        if not any(isinstance(step, (sc.Expect, sc.Reject)) for step in scenario.steps):
            raise ScenarioError(pos, "a scenario that answers a rulebook FAQ question must prove it: "
                                "it needs at least one `expect` or `reject` step")
        cited = {p for c in scenario.cites for p in c.paras}
        for para in scenario.faq:
            if para not in cited:
                raise ScenarioError(pos, f"the scenario answers {para} but its `cites` line does not cite it")

    def header(self, meta: Any, title: Token, *metas: tuple[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"pos": self._p(meta), "title": unquote(title), "cites": [], "tags": [],
                               "assumes": [], "questions": {}, "answers": {}, "faq": [], "faq_pos": None}
        for key, value in metas:
            if key in ("questions", "answers"):
                lang, text, pos = value
                if lang in out[key]:  # a second one would replace the first in silence
                    raise ScenarioError(pos, f"a second `{key[:-1]} {lang}` line: a scenario asks and answers once")
                out[key][lang] = text
            elif key == "faq":
                out["faq"].extend(value[0])
                out["faq_pos"] = value[1]
            else:
                out[key].extend(value)
        return out

    def m_cites(self, meta: Any, *cites: Citation) -> tuple[str, Any]:
        return ("cites", cites)

    def m_tags(self, meta: Any, *names: Token) -> tuple[str, Any]:
        return ("tags", [str(n) for n in names])

    def m_assumes(self, meta: Any, *names: Token) -> tuple[str, Any]:
        return ("assumes", [(str(n), self._tp(n)) for n in names])

    def m_answers_faq(self, meta: Any, *paras: Token) -> tuple[str, Any]:
        return ("faq", ([str(p) for p in paras], self._p(meta)))

    def m_question(self, meta: Any, lang: Token, text: Token) -> tuple[str, Any]:
        return ("questions", (str(lang), unquote(text), self._p(meta)))

    def m_answer(self, meta: Any, lang: Token, text: Token) -> tuple[str, Any]:
        return ("answers", (str(lang), unquote(text), self._p(meta)))

    # --- setup
    def deal(self, meta: Any, seed: Token, *players: Token) -> sc.Deal:
        return sc.Deal(self._p(meta), int(seed), tuple(str(p) for p in players),
                       tuple(self._tp(p) for p in players))

    def table(self, meta: Any, *lines: tuple[str, Any]) -> sc.Table:
        parts: dict[str, list[Any]] = {k: [] for k in ("players", "tableau", "active", "phase", "seed", "knows",
                                                         "holds", "set", "among", "round", "turn", "marked",
                                                         "window", "waiting", "protected")}
        for key, value in lines:
            parts[key].append(value)
        for key in ("active", "phase", "seed", "among", "round", "turn"):
            if len(parts[key]) > 1:  # each says one thing of the table: a second one is a mistake, not an update
                raise ScenarioError(parts[key][1][-1], f"the table gives `{key}` twice")

        def last(key: str) -> Any:
            return parts[key][-1] if parts[key] else None

        players = [p for group in parts["players"] for p in group]
        phase, seed = last("phase"), last("seed")
        return sc.Table(self._p(meta), tuple(name for name, _ in players), tuple(parts["tableau"]), last("active"),
                        phase and phase[0], seed[0] if seed else 0, tuple(parts["knows"]), tuple(parts["holds"]),
                        tuple(parts["set"]), last("among"), last("round"), last("turn"), tuple(parts["marked"]),
                        tuple(parts["window"]), tuple(parts["waiting"]), last("protected"),
                        tuple(pos for _, pos in players), phase and phase[1])

    def t_players(self, meta: Any, *names: Token) -> tuple[str, Any]:
        return ("players", [(str(n), self._tp(n)) for n in names])

    def card_list(self, meta: Any, *names: Token | None) -> tuple[str | None, ...]:
        return tuple(None if str(n) == "_" else str(n) for n in names if n is not None)

    def t_tableau(self, meta: Any, player: Token, cards: tuple[str | None, ...]) -> tuple[str, Any]:
        return ("tableau", (str(player), cards, self._p(meta)))

    def t_among(self, meta: Any, *names: Token) -> tuple[str, Any]:
        return ("among", (tuple(str(n) for n in names), self._p(meta)))

    def t_active(self, meta: Any, name: Token) -> tuple[str, Any]:
        return ("active", (str(name), self._tp(name)))

    def t_phase(self, meta: Any, name: Token) -> tuple[str, Any]:
        return ("phase", (str(name), self._tp(name)))

    def t_seed(self, meta: Any, seed: Token) -> tuple[str, Any]:
        return ("seed", (int(seed), self._tp(seed)))

    def t_round(self, meta: Any, number: Token) -> tuple[str, Any]:
        return ("round", (int(number), self._tp(number)))

    def t_turn(self, meta: Any, number: Token) -> tuple[str, Any]:
        return ("turn", (int(number), self._tp(number)))

    def t_knows(self, meta: Any, player: Token, *refs: sc.Ref) -> tuple[str, Any]:
        return ("knows", (str(player), refs, self._tp(player), True))

    def t_knows_not(self, meta: Any, player: Token, *refs: sc.Ref) -> tuple[str, Any]:
        return ("knows", (str(player), refs, self._tp(player), False))

    def t_marked(self, meta: Any, mark: Token, *refs: sc.Ref) -> tuple[str, Any]:
        return ("marked", (str(mark), refs, self._tp(mark)))

    def t_window(self, meta: Any, kind: tuple[str, Pos], ref: sc.Ref, players: tuple[tuple[str, Pos], ...],
                 attempts: Token | None) -> tuple[str, Any]:
        return ("window", sc.WindowLine(kind[0], ref, players, None if attempts is None else int(attempts),
                                        kind[1]))

    def window_kind(self, meta: Any, kind: Token) -> tuple[str, Pos]:
        return (unquote(kind) if kind.type == "STRING" else str(kind), self._tp(kind))

    def who_names(self, meta: Any, *names: Token) -> tuple[tuple[str, Pos], ...]:
        return tuple((str(n), self._tp(n)) for n in names)

    def who_nobody(self, meta: Any) -> tuple[tuple[str, Pos], ...]:
        return ()

    def t_waiting(self, meta: Any, ability: Token, card: sc.Ref, owner: Token, after: bool | None,
                  values: tuple[sc.Value, ...] | None) -> tuple[str, Any]:
        return ("waiting", sc.WaitingLine(str(ability), card, (str(owner), self._tp(owner)), bool(after),
                                          values or (), self._tp(ability)))

    def after_window(self, meta: Any) -> bool:
        return True

    def with_values(self, meta: Any, *values: Any) -> tuple[sc.Value, ...]:
        return tuple(self._value(v) for v in values)

    def t_protected(self, meta: Any, players: tuple[tuple[str, Pos], ...]) -> tuple[str, Any]:
        return ("protected", players)

    # --- a card named by where it lies
    def r_slot(self, meta: Any, place: sc.Place) -> sc.Ref:
        return sc.Ref("slot", place.player, place.slot, place.pos)

    def r_pile_top(self, meta: Any, pile: Token) -> sc.Ref:
        return sc.Ref("pile", str(pile), None, self._tp(pile))

    def r_pile(self, meta: Any, pile: Token, number: Token) -> sc.Ref:
        return sc.Ref("pile", str(pile), int(number), self._tp(pile))

    def r_hand(self, meta: Any, player: Token, number: Token) -> sc.Ref:
        return sc.Ref("hand", str(player), int(number), self._tp(player))

    def r_box(self, meta: Any, species: Token, number: Token | None) -> sc.Ref:
        return sc.Ref("box", str(species), 1 if number is None else int(number), self._p(meta))

    def t_holds(self, meta: Any, player: Token, species: Token) -> tuple[str, Any]:
        return ("holds", (str(player), str(species), self._tp(species)))

    def t_set(self, meta: Any, name: Token, index: Token | None, value: Any) -> tuple[str, Any]:
        # A place (alice.2) comes as a Place: a value like any other (a slot).
        return ("set", (str(name), str(index) if index is not None else None, self._value(value), self._tp(name)))

    # --- values
    def place(self, meta: Any, player: Token, slot: Token) -> sc.Place:
        return sc.Place(str(player), int(slot), self._tp(player))

    def v_name(self, meta: Any, tok: Token) -> sc.Value:
        return sc.Value("name", str(tok), self._tp(tok))

    def v_int(self, meta: Any, tok: Token) -> sc.Value:
        return sc.Value("int", int(tok), self._tp(tok))

    def v_true(self, meta: Any) -> sc.Value:
        return sc.Value("bool", True, self._p(meta))

    def v_false(self, meta: Any) -> sc.Value:
        return sc.Value("bool", False, self._p(meta))

    def v_none(self, meta: Any) -> sc.Value:
        return sc.Value("none", None, self._p(meta))

    def v_list(self, meta: Any, *items: Any) -> sc.Value:
        values = tuple(self._value(v) for v in items if v is not None)
        return sc.Value("list", values, self._p(meta))

    def named_arg(self, meta: Any, name: Token, value: Any) -> tuple[str | None, sc.Value]:
        return (str(name), self._value(value))

    def pos_arg(self, meta: Any, value: Any) -> tuple[str | None, sc.Value]:
        return (None, self._value(value))

    @staticmethod
    def _value(value: Any) -> sc.Value:
        if isinstance(value, sc.Place):
            return sc.Value("slot", value, value.pos)
        if isinstance(value, sc.Ref):
            return sc.Value("card", value, value.pos)
        assert isinstance(value, sc.Value)
        return value

    # --- play
    def play(self, meta: Any, *steps: sc.Step) -> tuple[sc.Step, ...]:
        return steps

    def do_move(self, meta: Any, player: Token, move: Token, *args: tuple[str | None, sc.Value]) -> sc.Step:
        return sc.DoMove(self._p(meta), str(player), str(move), args)

    def sim_call(self, meta: Any, player: Token, move: Token, *args: tuple[str | None, sc.Value]) -> sc.DoMove:
        return sc.DoMove(self._p(meta), str(player), str(move), args)

    def simultaneous(self, meta: Any, *calls: sc.DoMove) -> sc.Step:
        return sc.Simultaneous(self._p(meta), calls)

    def draws(self, meta: Any, *cards: Token) -> sc.Step:
        return sc.Draws(self._p(meta), tuple(str(c) for c in cards))

    def reject(self, meta: Any, player: Token, move: Token, *rest: Any) -> sc.Step:
        *args, cite = rest
        return sc.Reject(self._p(meta), str(player), str(move), tuple(args), cite)

    def decisive_move(self, meta: Any, player: Token, move: Token, *args: tuple[str | None, sc.Value]) -> sc.Step:
        return sc.DoMove(self._p(meta), str(player), str(move), args, decisive=True)

    def decisive_reject(self, meta: Any, player: Token, move: Token, *rest: Any) -> sc.Step:
        *args, cite = rest
        return sc.Reject(self._p(meta), str(player), str(move), tuple(args), cite, decisive=True)

    def _expect(self, meta: Any, kind: str, *args: Any) -> sc.Expect:
        return sc.Expect(self._p(meta), kind, args, self._line(meta))

    def x_slot_is(self, meta: Any, place: sc.Place, species: Token) -> sc.Step:
        return self._expect(meta, "slot_is", place, str(species))

    def x_slot_empty(self, meta: Any, place: sc.Place) -> sc.Step:
        return self._expect(meta, "slot_is", place, None)

    def x_holds(self, meta: Any, player: Token, species: Token) -> sc.Step:
        return self._expect(meta, "holds", str(player), str(species))

    def x_holds_nothing(self, meta: Any, player: Token) -> sc.Step:
        return self._expect(meta, "holds", str(player), None)

    def x_pile_top(self, meta: Any, pile: Token, species: Token) -> sc.Step:
        return self._expect(meta, "pile_top", str(pile), str(species), self._p(meta))

    def x_pile_empty(self, meta: Any, pile: Token) -> sc.Step:
        return self._expect(meta, "pile_top", str(pile), None, self._p(meta))

    def x_pile_size(self, meta: Any, pile: Token, size: Token) -> sc.Step:
        return self._expect(meta, "pile_size", str(pile), int(size), self._p(meta))

    def x_phase(self, meta: Any, name: Token) -> sc.Step:
        return self._expect(meta, "phase", str(name))

    def x_active(self, meta: Any, name: Token) -> sc.Step:
        return self._expect(meta, "active", str(name))

    def x_knows(self, meta: Any, player: Token, place: sc.Place) -> sc.Step:
        return self._expect(meta, "knows", str(player), place, True)

    def x_knows_not(self, meta: Any, player: Token, place: sc.Place) -> sc.Step:
        return self._expect(meta, "knows", str(player), place, False)

    def x_cards(self, meta: Any, player: Token, count: Token) -> sc.Step:
        return self._expect(meta, "cards", str(player), int(count))

    def x_window_open(self, meta: Any, *names: Token) -> sc.Step:
        return self._expect(meta, "window_open", tuple(str(n) for n in names))

    def x_window_used(self, meta: Any) -> sc.Step:
        return self._expect(meta, "window_used")

    def x_window_closed(self, meta: Any) -> sc.Step:
        return self._expect(meta, "window_closed")

    def x_pending(self, meta: Any, ability: Token, species: Token | None, player: Token) -> sc.Step:
        return self._expect(meta, "pending", str(ability), str(species) if species is not None else None,
                            str(player))

    def x_no_pending(self, meta: Any) -> sc.Step:
        return self._expect(meta, "no_pending")

    def x_value(self, meta: Any, expr: Token, value: Any) -> sc.Step:
        return self._expect(meta, "value", unquote(expr), self._value(value), pos_of(self.path, expr))

    def x_said(self, meta: Any, text: Token) -> sc.Step:
        return self._expect(meta, "said", unquote(text))

    def x_var(self, meta: Any, name: Token, index: Token | None, value: Any) -> sc.Step:
        return self._expect(meta, "var", str(name), str(index) if index is not None else None,
                            self._value(value))


@lru_cache(maxsize=PARSE_CACHE)  # a scenario is parsed once per text and path (see PARSE_CACHE)
def parse_scenario_text(text: str, path: str) -> sc.Scenario:
    """Parse one scenario; raises ScenarioError with file:line:col on bad input."""
    source = text if text.endswith("\n") else text + "\n"
    try:
        tree = parse_tree("scenario", source)
    except UnexpectedInput as err:
        # A player named by a word of the language breaks the parse where the name is read as the word:
        # the name is the mistake, so it is reported in its place rather than the token that follows it.
        raise reserved_player_in(source, path) or syntax_error(err, path, source, grammar("scenario"),
                                                               ScenarioError, "scenario") from None
    result: sc.Scenario = build(tree, ScenarioBuilder(path, source))
    return result


def parse_claim(text: str, where: str) -> sc.Expect:
    """One expectation of the scenario language on its own (a game log's claim, `alice.1 is SPECIES`)."""
    lark = grammar("scenario:expectation")
    try:
        tree = lark.parse(text)
    except UnexpectedInput as err:
        raise syntax_error(err, where, text, lark, ScenarioError) from None
    result: sc.Expect = build(tree, ScenarioBuilder(where, text))
    return result


def parse_table_lines(lines: list[str], where: str) -> sc.Table:
    """A scenario's `table` block from its lines (a game log's initial table)."""
    lark = grammar("scenario:setup")
    source = "table\n" + "".join(line + "\n" for line in lines)
    try:
        tree = lark.parse(source)
    except UnexpectedInput as err:  # a reserved word as a player's name is reported as in a scenario file
        raise reserved_player_in(source, where) or syntax_error(err, where, source, lark, ScenarioError) from None
    result = build(tree, ScenarioBuilder(where, source))
    if not isinstance(result, sc.Table):
        raise ScenarioError(Pos(where, 1, 1), "expected the lines of a table")
    return result


def parse_scenario_file(path: Path) -> sc.Scenario:
    return parse_scenario_text(read_source(path, ScenarioError), str(path))


def scenario_files(paths: list[Path]) -> list[Path]:
    """Scenario files under the given files and directories, sorted (deterministic)."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir():  # regular files only: reading a stray named pipe would wait for a writer forever
            out.extend(sorted(f for f in p.rglob(f"*{SCENARIO_SUFFIX}") if f.is_file()))
        elif p.exists():
            out.append(p)
        else:
            raise ScenarioError(pos_of(str(p), None), "no such file or directory")
    return out


__all__ = ["SCENARIO_SUFFIX", "caret_excerpt", "parse_scenario_file", "parse_scenario_text", "scenario_files"]
