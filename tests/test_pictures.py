"""SVG pictures of a step: valid, self-contained, deterministic XML that outlines what moved, draws an arrow
for it, and never writes the species of a card that nobody knows."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import pytest
from baobei.docs.index import ScenarioDoc
from baobei.docs.pictures import (
    SVG_NS,
    moved_cards,
    shot_pictures,
    step_arrows,
    step_pictures,
    table_svg,
    write_step_pictures,
)
from baobei.docs.trace import decisive
from baobei.engine.engine import Engine
from baobei.engine.state import State
from baobei.language.paths import PROJECT_ROOT
from baobei.scenarios.parser import parse_scenario_file
from baobei.scenarios.runner import ScenarioResult, engine_for, run_scenario
from conftest import around

NS = {"svg": SVG_NS}

# (scenario, line of the step, an arrow the step must show)
PLUCK = ("pluck/defensive_own_draw.scenario", 25)
GIFT = ("pluck/offensive_gift.scenario", 27)
SWAP = ("birds/ara_swaps_unseen.scenario", 32)
DRAW = ("recycle/first_recycle.scenario", 33)
STEPS = [PLUCK, GIFT, SWAP, DRAW]


@pytest.fixture(scope="module")
def eng() -> Engine:
    return engine_for(None)


def replay(name: str, snapshots: bool = True) -> ScenarioResult:
    path = PROJECT_ROOT / "scenarios" / name
    result = run_scenario(parse_scenario_file(path), engine_for(None), snapshots=snapshots)
    assert result.passed, name
    return result


@cache
def cached(name: str) -> ScenarioResult:
    return replay(name)




def pictures(eng: Engine, name: str, line: int) -> tuple[str, str]:
    before, after, text = around(cached(name), line)
    return step_pictures(eng, before, after, text)


def arrows_of(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return [g.findtext("svg:title", namespaces=NS) or "" for g in root.iter(f"{{{SVG_NS}}}g")
            if g.get("class") == "arrow"]


def texts(svg: str) -> str:
    """Everything a reader (or a screen reader) gets to see: text, titles and attribute values."""
    root = ET.fromstring(svg)
    return " ".join([*root.itertext(), *(v for el in root.iter() for v in el.attrib.values())])


@pytest.mark.parametrize(("name", "line"), STEPS)
def test_pictures_are_scalable_xml(eng: Engine, name: str, line: int) -> None:
    for svg in pictures(eng, name, line):
        root = ET.fromstring(svg)
        assert root.tag == f"{{{SVG_NS}}}svg"
        assert re.fullmatch(r"0 0 \d+ \d+", root.get("viewBox", ""))
        assert root.get("width") == "100%" and "max-width" in root.get("style", "")
        assert root.get("font-family") == "sans-serif"


@pytest.mark.parametrize(("name", "line"), STEPS)
def test_pictures_are_self_contained(eng: Engine, name: str, line: int) -> None:
    for svg in pictures(eng, name, line):
        assert "http" not in svg.replace(SVG_NS, "")
        assert not re.search(r"<script|<image|href|@import|url\(|<foreignObject", svg)


@pytest.mark.parametrize(("name", "line"), STEPS)
def test_pictures_are_the_same_bytes_every_time(eng: Engine, name: str, line: int) -> None:
    before, after, text = around(replay(name), line)  # a fresh replay: new states, the same pictures
    assert step_pictures(eng, before, after, text) == pictures(eng, name, line)


@pytest.mark.parametrize(("name", "line", "arrow"), [
    (*PLUCK, "alice.1 -> discard_pile"),
    (*GIFT, "bob.2 -> carol.3"),
    (*GIFT, "carol.3 -> discard_pile"),
    (*SWAP, "bob.1 -> carol.2"),
    (*SWAP, "carol.2 -> bob.1"),
    (*DRAW, "under_pile -> bob.hand"),
])
def test_a_move_shows_as_an_arrow_and_outlined_cards(eng: Engine, name: str, line: int, arrow: str) -> None:
    for svg in pictures(eng, name, line):
        assert arrow in arrows_of(svg)
        assert 'class="moved"' in svg


def test_moved_cards_are_the_cards_whose_place_changed(eng: Engine) -> None:
    before, after, _ = around(cached(GIFT[0]), GIFT[1])
    gift, target = before.card_at((1, 2)), before.card_at((2, 3))
    assert gift is not None and target is not None
    assert moved_cards(eng, before, after) == {gift, target}
    assert step_arrows(eng, before, after, {gift, target}) == (("bob.2", "carol.3"), ("carol.3", "discard_pile"))
    assert moved_cards(eng, before, before) == frozenset()


def test_a_card_nobody_knows_is_a_card_back(eng: Engine) -> None:
    before, _, _ = around(cached(PLUCK[0]), PLUCK[1])
    svg = table_svg(eng, before)
    seen = visible_species(eng, before)
    hidden = {eng.facts.species[c] for row in before.tableaux for c in row
              if c is not None and before.known[c] == 0} - seen
    assert hidden and seen, "the scenario should show both known and unknown species"
    shown = texts(svg)
    for species in hidden:
        assert not re.search(rf"\b{re.escape(species)}\b", shown), species
    for species in seen:
        assert re.search(rf"\b{re.escape(species)}\b", shown), species


def visible_species(eng: Engine, st: State) -> set[str]:
    """The species a picture may name: of cards someone knows, and of the top cards of face-up piles."""
    known = {c for c in range(len(st.known)) if st.known[c] and st.locate(c) is not None}
    tops = {pile[-1] for i, pile in enumerate(st.piles) if pile and i in eng.effects.face_up}
    return {eng.facts.species[c] for c in known | tops}


@pytest.mark.parametrize(("name", "line"), STEPS)
def test_no_picture_names_a_species_nobody_can_see(eng: Engine, name: str, line: int) -> None:
    before, after, _ = around(cached(name), line)
    for st in (before, after):
        shown = texts(table_svg(eng, st))  # no title: a move's text may name the species it is about
        allowed = visible_species(eng, st)
        named = {sp for sp in eng.rules.species if re.search(rf"\b{re.escape(sp)}\b", shown)}
        assert named <= allowed, named - allowed


def test_the_active_player_and_the_rules_variables_are_shown(eng: Engine) -> None:
    before, _, _ = around(cached(PLUCK[0]), PLUCK[1])
    shown = texts(table_svg(eng, before))
    assert f"{before.names[before.active]} (active)" in shown
    assert f"phase: {before.phase.replace('_', ' ')}" in shown
    # Each variable in its words: a value in place of {}, a true/false one without {} only while true.
    worded = [(decl.words, before.vars[name]) for name, decl in eng.rules.variables.items()
              if not decl.per_player and decl.words and before.vars.get(name) is not None]
    assert any("{}" in words for words, _ in worded) and any("{}" not in words for words, _ in worded)
    for words, value in worded:
        if "{}" in words:
            assert words.replace("{}", str(value)) in shown, words
        else:
            assert (words in shown) == (value is True), words


def test_a_slot_the_step_creates_is_drawn_in_the_picture_before(eng: Engine) -> None:
    before, after, text = around(cached("birds/riesentukan_adds_card.scenario"), 26)
    first, second = step_pictures(eng, before, after, text)
    assert "draw_pile -> bob.6" in arrows_of(first) and "draw_pile -> bob.6" in arrows_of(second)
    assert "new slot" in texts(first)


def test_write_step_pictures_writes_two_files_per_move(eng: Engine, tmp_path: Path) -> None:
    result = cached(PLUCK[0])
    paths = write_step_pictures(eng, result, tmp_path, "defensive")
    moves = [e.pos.line for e in result.trace[1:] if e.state is not None]
    assert [p.name for p in paths] == [f"defensive-step{n}-{s}.svg" for n in moves for s in ("before", "after")]
    before, after = (tmp_path / f"defensive-step{PLUCK[1]}-{s}.svg" for s in ("before", "after"))
    b, a, text = around(result, PLUCK[1])
    assert (before.read_text(encoding="utf-8"), after.read_text(encoding="utf-8")) == \
        step_pictures(eng, b, a, f"line {PLUCK[1]}: {text}")


def test_write_step_pictures_needs_snapshots(eng: Engine, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="snapshots"):
        write_step_pictures(eng, replay(PLUCK[0], snapshots=False), tmp_path, "x")


def test_the_docs_decisive_steps_carry_their_states(eng: Engine) -> None:
    path = PROJECT_ROOT / "scenarios" / GIFT[0]
    result = cached(GIFT[0])
    doc = ScenarioDoc(path, GIFT[0], result.scenario, result)
    shots, _ = decisive(doc)
    assert shots and all(s.before_state is not None and s.after_state is not None for s in shots)
    drawn = shot_pictures(eng, shots[-1])
    assert drawn is not None and "bob.2 -> carol.3" in arrows_of(drawn[1])
