"""What the commands print and draw reads as words for people (issue 29): the simulation's tables say what
they count, `play` says whose cards are shown and always shows a BAO call, citations write long runs of
paragraphs as ranges, and the docs' pictures show the rules' words, a refusal as one line, and arrows that
cross no word."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest
from baobei.docs.index import ScenarioDoc
from baobei.docs.pictures import (
    SVG_NS,
    TITLE_SIZE,
    num,
    short_value,
    shot_pictures,
    step_pictures,
    table_svg,
    text_width,
    var_words,
)
from baobei.docs.site import step_line
from baobei.docs.trace import Shot, decisive
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language.errors import RulesError
from baobei.language.load import load_ruleset
from baobei.language.parser import parse_rules_text
from baobei.language.paths import PROJECT_ROOT
from baobei.language.source import Citation
from baobei.play.figures import StatisticInfo, statistic_figures
from baobei.play.report import print_summary, statistic_table
from baobei.play.simulate import View, lines_of_play
from baobei.play.statistics import Key, Statistics, Value
from baobei.scenarios.parser import parse_scenario_file, parse_scenario_text
from baobei.scenarios.runner import ScenarioResult, engine_for, run_scenario
from conftest import around

MakeVariant = Callable[..., Path]
NS = {"svg": SVG_NS}
PERCENT = re.compile(r"\d+\.\d%")


# ---------------------------------------------------------------- 1. the simulation's tables
def infos(eng: Engine) -> list[StatisticInfo]:
    return [StatisticInfo(decl, kinds, outcome) for decl, kinds, outcome in Statistics(eng).kinds()]


def info_where(eng: Engine, dimensions: bool, outcome: str | None) -> StatisticInfo:
    """A statistic of the rules of a shape: with or without dimensions, with this kind of outcome."""
    return next(i for i in infos(eng) if bool(i.kinds) == dimensions and i.outcome == outcome)


def tally(counts: dict[tuple[Key, Value], int]) -> Counter[tuple[Key, Value]]:
    return Counter(counts)


def test_a_yes_no_statistic_counts_yes_and_no_in_words(default_engine: Engine) -> None:
    """Scored rounds of which none had the outcome: 19 counted, 0 yes, 19 no, not "count 19, share 100%"."""
    info = info_where(default_engine, dimensions=False, outcome="bool")
    header, rows = statistic_table("x", statistic_figures(info, tally({((), False): 19})))
    assert header == ("count", "yes", "no", "% yes")
    assert rows == [("19", "0", "19", "0.0%")]


def test_a_yes_no_statistic_by_dimension_totals_its_answers(default_engine: Engine) -> None:
    info = info_where(default_engine, dimensions=True, outcome="bool")
    width = len(info.kinds)
    key_a, key_b = (1,) * width, (2,) * width
    stat = statistic_figures(info, tally({(key_a, True): 3, (key_a, False): 1, (key_b, False): 4}))
    header, rows = statistic_table("x", stat)
    assert "rate of true" not in header and header[-3:] == ("yes", "no", "% yes")
    assert rows[0][width:] == ("4", "50.0%", "3", "1", "75.0%")
    assert rows[-1] == ("in total", *[""] * (width - 1), "8", "100.0%", "3", "5", "37.5%")


def test_a_count_of_nothing_claims_no_share(default_engine: Engine, capsys: pytest.CaptureFixture[str]) -> None:
    """A statistic without dimensions or outcome that never happened: "count: 0", never "0, 100%"."""
    info = info_where(default_engine, dimensions=False, outcome=None)
    stat = statistic_figures(info, tally({}))
    assert statistic_table("x", stat) == (("count",), [("0",)])
    print_summary(figures_with({info.decl.ident: stat}))
    out = capsys.readouterr().out
    assert f"{info.decl.ident}: " in out and "\ncount: 0\n" in out and "100%" not in out


def test_the_total_row_reads_as_a_total_with_one_percentage_format(default_engine: Engine) -> None:
    info = info_where(default_engine, dimensions=True, outcome=None)
    width = len(info.kinds)
    stat = statistic_figures(info, tally({((1,) * width, None): 1, ((2,) * width, None): 3}))
    _, rows = statistic_table("x", stat)
    assert rows[-1][0] == "in total" and "all" not in rows[-1]
    assert [row[width + 1] for row in rows] == ["25.0%", "75.0%", "100.0%"]
    assert all(PERCENT.fullmatch(row[width + 1]) for row in rows)


def figures_with(statistics: dict[str, object]) -> dict[str, object]:
    """The figures of an empty campaign around some statistics: what print_summary reads."""
    nothing = {"count": 0}
    return {"players": 2, "matches_played": 0, "seed": 1, "policy": "random", "invariants_checked": True,
            "finished_matches": 0, "capped_matches": 0, "failed_matches": 0, "moves": 0, "turn_cap": 10,
            "capped_cycles": 0, "refused_proposals": 0, "rounds_per_match": nothing, "turns_per_round": nothing,
            "statistics": statistics, "longest_rounds": [], "findings": []}


# ---------------------------------------------------------------- 2. `baobei play`
@cache
def played(verbose: bool = False, viewer: int | None = None) -> tuple[str, ...]:
    eng = engine_for(None)
    return tuple(lines_of_play(eng, 3, 7, 1, view=View(verbose=verbose, viewer=viewer)))


SHOWN_ALONE = re.compile(r"^  \S+#\d+ is shown to everyone")
SHOWN_GROUP = re.compile(r"^  (\S+)'s cards are shown to everyone: (.*?)  \[")


@pytest.mark.parametrize("viewer", [None, 1])
def test_the_round_end_says_whose_cards_are_shown(viewer: int | None) -> None:
    lines = played(viewer=viewer)
    assert not [line for line in lines if SHOWN_ALONE.match(line)]
    groups = [m for line in lines if (m := SHOWN_GROUP.match(line))]
    owners = [m.group(1) for m in groups]
    assert {"p1", "p2", "p3"} <= set(owners)
    for m in groups:  # every card of a player's line lies with that player
        places = re.findall(r"\((\S+?)\.\d+\)", m.group(2))
        assert places and set(places) == {m.group(1)}, m.group(0)


def test_a_card_shown_alone_says_where_it_lies() -> None:
    alone = [line for line in played() if "is shown to everyone" in line and "'s cards" not in line]
    assert alone and all(re.match(r"^  \S+#\d+ \(p\d\.\d+\) is shown to everyone", line) for line in alone)


@pytest.mark.parametrize(("verbose", "viewer"), [(False, None), (False, 0), (True, None)])
def test_a_bao_call_is_always_shown_in_words(verbose: bool, viewer: int | None) -> None:
    lines = played(verbose, viewer)
    calls = [i for i, line in enumerate(lines) if re.fullmatch(r"> p\d bao", line)]
    assert calls
    for i in calls:  # the call's words come first, before any bookkeeping
        caller = lines[i].split()[1]
        assert lines[i + 1].startswith(f"  {caller} calls BAO: "), lines[i + 1]


# ---------------------------------------------------------------- 3. citations
@pytest.mark.parametrize(("section", "paras", "text"), [
    ("3.5", [f"P{n}" for n in range(67, 76)], "§ 3.5 [P67-P75]"),
    ("4.1", ["P89", "P92"], "§ 4.1 [P89, P92]"),
    ("5.1", ["P102", "P103"], "§ 5.1 [P102, P103]"),  # two in a row are as short as their range
    ("2.3", ["P20", "P29", "P30", "P31", "P32"], "§ 2.3 [P20, P29-P32]"),
    ("4.2", ["P99", "P100", "P101", "P94", "P95"], "§ 4.2 [P99-P101, P94, P95]"),  # the order is kept
    ("K", ["P07", "P08", "P09"], "§ K [P07, P08, P09]"),  # ids not written as numbers stay as written
])
def test_runs_of_three_or_more_paragraphs_are_ranges(section: str, paras: list[str], text: str) -> None:
    assert str(Citation(section, tuple(paras))) == text


def test_a_multi_section_citation_is_compact_in_each_part() -> None:
    cite = Citation.of([("3.6", ("P84",)), ("3.5", tuple(f"P{n}" for n in range(67, 76)))])
    assert str(cite) == "§ 3.6 [P84]; § 3.5 [P67-P75]"


def test_a_compact_citation_reads_back_as_the_same_paragraphs() -> None:
    cite = Citation("3.5", ("P53", *(f"P{n}" for n in range(67, 76)), "P89", "P92"))
    rules = parse_rules_text(f"players 2..6 {cite}\n", "inline.bao")
    assert rules.decls[0].cite == cite  # type: ignore[union-attr]
    scenario = parse_scenario_text(f'scenario "t"\ncites {cite}\ndeal seed 1 players a b\nplay\n', "t.scenario")
    assert scenario.cites == (cite,)


def test_play_prints_citations_compactly() -> None:
    assert any("§ 3.5 [P67-P75]" in line for line in played())
    assert not [line for line in played() if consecutive_run(line)]


def consecutive_run(line: str) -> bool:
    """Whether the line lists three consecutive paragraphs one by one."""
    for group in re.findall(r"\[([^\]]*)\]", line):
        numbers = [int(n) for n in re.findall(r"(?<![-\w])P(\d+)(?![-\d])", group)]
        if any(b == a + 1 and c == b + 1 for a, b, c in zip(numbers, numbers[1:], numbers[2:], strict=False)):
            return True
    return False


# ---------------------------------------------------------------- 4. the docs' pictures
@cache
def replayed(name: str) -> ScenarioResult:
    result = run_scenario(parse_scenario_file(PROJECT_ROOT / "scenarios" / name), engine_for(None), snapshots=True)
    assert result.passed, name
    return result


def around_line(name: str, line: int) -> tuple[State, State, str]:
    return around(replayed(name), line)


def svg_texts(svg: str) -> list[ET.Element]:
    return list(ET.fromstring(svg).iter(f"{{{SVG_NS}}}text"))


def shown_words(svg: str) -> str:
    return " | ".join(el.text or "" for el in svg_texts(svg))


# Steps with arrows of every kind: to a pile, between players, a swap, a draw, two plucks at once.
ARROW_STEPS = [("pluck/defensive_own_draw.scenario", 25), ("pluck/offensive_gift.scenario", 27),
               ("birds/ara_swaps_unseen.scenario", 32), ("recycle/first_recycle.scenario", 33),
               ("double_pluck/failure_own_draw.scenario", 27), ("birds/riesentukan_adds_card.scenario", 26)]


@pytest.mark.parametrize(("name", "line"), ARROW_STEPS[:3])
def test_pictures_show_the_rules_words_for_variables_not_their_names(default_engine: Engine, name: str,
                                                                    line: int) -> None:
    """No `owed no`, `contenders: none`, `shield: armed`: a variable as its name and raw value (the old
    pictures) appears nowhere; a variable with words appears in them."""
    eng = default_engine
    for st in around_line(name, line)[:2]:
        words = shown_words(table_svg(eng, st))
        for var, decl in eng.rules.variables.items():
            values = st.pvars[var] if decl.per_player else [st.vars.get(var)]
            for value in values:
                raw = short_value(eng, st, decl.type, value)
                old = f"{var} {raw}" if decl.per_player else f"{var}: {raw}"  # how the old pictures said it
                if raw is not None and old not in (var_words(eng, st, decl, value) or ""):
                    assert not re.search(rf"(?<!\w){re.escape(old)}(?!\w)", words), old


def test_a_variable_is_drawn_in_the_words_the_rules_give_it(make_variant: MakeVariant) -> None:
    rules = make_variant(("08_recycle.bao", 'var recycles: int = 0 "discard pile recycled: {}"',
                          'var recycles: int = 0 "Mischungen bisher: {}"'),
                         ("06_bao.bao", 'player var owed: bool = false "owed a last turn"',
                          "player var owed: bool = false"))
    eng = Engine(load_ruleset(rules))
    st, _ = eng.new_match(["alice", "bob"], 3, log=False)
    st.pvars["owed"][1] = True
    words = shown_words(table_svg(eng, st))
    assert "Mischungen bisher: 0" in words and "recycled" not in words
    assert "owed" not in words  # without words it is bookkeeping, not drawn


@pytest.mark.parametrize(("words", "message"), [
    ('"{} and {}"', "need one {} for its value"),
    ('"the shield"', "need one {} for its value"),  # only a true/false variable may leave out its value
])
def test_a_variables_words_must_show_its_value_once(words: str, message: str) -> None:
    with pytest.raises(RulesError, match=re.escape(message)):
        parse_rules_text(f'var shield: str = "none" {words}\n', "inline.bao")


def refusal_shot() -> tuple[ScenarioDoc, Shot]:
    name = "pluck/illegal_target_no_attempt.scenario"
    result = replayed(name)
    doc = ScenarioDoc(PROJECT_ROOT / "scenarios" / name, f"scenarios/{name}", result.scenario, result)
    shots, _ = decisive(doc)
    return doc, next(shot for shot in shots if shot.kind == "reject")


def test_a_refusal_is_one_plain_line_over_its_pictures(default_engine: Engine) -> None:
    _, shot = refusal_shot()
    assert shot.refusal is not None
    pictures = shot_pictures(default_engine, shot)
    assert pictures is not None
    for svg in pictures:
        titled = [el for el in svg_texts(svg) if "refused" in (el.text or "")]
        assert len(titled) == 1 and titled[0].get("font-weight") != "bold"
        assert str(shot.refusal.cite) in (titled[0].text or "") and shot.refusal.move in (titled[0].text or "")
        assert not [el for el in svg_texts(svg) if el.get("font-size") == num(TITLE_SIZE)], "no heading"


def test_a_refusal_is_one_normal_line_on_the_scenario_page() -> None:
    _, shot = refusal_shot()
    assert shot.refusal is not None
    line = step_line(shot)
    assert "\n" not in line and line.startswith(f"**Line {shot.line}:** refused: `{shot.refusal.move}`")
    assert line.endswith(f"{shot.refusal.reason} ({shot.refusal.cite})")


def text_boxes(svg: str) -> Iterator[tuple[float, float, float, float]]:
    """(left, top, right, bottom) of every text of the picture, as wide as a generous estimate (the
    picture's own, or the length it is squeezed to)."""
    for el in svg_texts(svg):
        x, y, size = float(el.get("x", 0)), float(el.get("y", 0)), float(el.get("font-size", 0))
        width = float(el.get("textLength") or text_width(el.text or "", size))
        left = {"middle": x - width / 2, "end": x - width}.get(el.get("text-anchor", ""), x)
        yield left, y - 0.8 * size, left + width, y + 0.2 * size


def arrow_points(svg: str) -> Iterator[tuple[str, tuple[float, float]]]:
    """Points every unit or so along the drawn line of every arrow (M, L and Q path commands)."""
    for group in ET.fromstring(svg).iter(f"{{{SVG_NS}}}g"):
        if group.get("class") != "arrow":
            continue
        title = group.findtext("svg:title", namespaces=NS) or ""
        path = next(p for p in group.iter(f"{{{SVG_NS}}}path") if p.get("stroke") != "#ffffff")
        for point in sample(path.get("d", "")):
            yield title, point


def sample(d: str) -> Iterator[tuple[float, float]]:
    tokens = re.findall(r"[MLQ]|-?\d+(?:\.\d+)?", d)
    current = (0.0, 0.0)
    i = 0
    while i < len(tokens):
        command = tokens[i]
        count = 4 if command == "Q" else 2
        values = [float(v) for v in tokens[i + 1:i + 1 + count]]
        i += 1 + count
        points = [(values[k], values[k + 1]) for k in range(0, count, 2)]
        if command != "M":
            steps = 60
            for n in range(steps + 1):
                t = n / steps
                if command == "L":
                    yield (current[0] + (points[0][0] - current[0]) * t, current[1] + (points[0][1] - current[1]) * t)
                else:
                    (cx, cy), (ex, ey) = points
                    yield ((1 - t) ** 2 * current[0] + 2 * (1 - t) * t * cx + t * t * ex,
                           (1 - t) ** 2 * current[1] + 2 * (1 - t) * t * cy + t * t * ey)
        current = points[-1]


@pytest.mark.parametrize(("name", "line"), ARROW_STEPS)
def test_arrows_cross_no_words(default_engine: Engine, name: str, line: int) -> None:
    before, after, text = around_line(name, line)
    for svg in step_pictures(default_engine, before, after, text):
        boxes = list(text_boxes(svg))
        assert any(title for title, _ in arrow_points(svg))
        for title, (x, y) in arrow_points(svg):
            crossed = [box for box in boxes if box[0] - 1 <= x <= box[2] + 1 and box[1] - 1 <= y <= box[3] + 1]
            assert not crossed, f"{title} crosses a text at ({x:.0f}, {y:.0f})"
