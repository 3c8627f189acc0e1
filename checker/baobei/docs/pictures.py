"""SVG pictures of the table before and after a step, for FAQ answers that a reader should see at a glance.

The text tables of `trace.py` are exact but slow to read: a picture shows the seats with their slots as
cards (face up when some player knows the card, with who knows it; a card back when nobody does; a dashed
outline for an empty slot), the piles, the held cards, and the rules' variables in the words the rules give
them (a variable without words is bookkeeping and is not drawn). The cards a step moved are outlined and an
arrow runs from each old place to the new one, so a pluck, gift, swap or draw is visible without reading the
trace. An arrow never crosses a word: it leaves a card at its bottom edge into a track of the free strip
below the card's line, and runs from line to line in a lane right of everything written.

Generic like the engine: it names no species, value, variable or pile of the rules; it draws what the
state and the deck declare. A species is written only on a card that some player knows (or on the top of
a face-up pile), so the picture never names a card that nobody has seen. The output is deterministic (no
ids, no timestamps, fixed number formatting) and self-contained (no fonts, scripts or stylesheets), with
a viewBox so that it scales to a phone's width.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from ..engine.engine import Engine
from ..engine.state import State
from ..language import syntax as s
from ..language.output import write_output
from ..scenarios.runner import ScenarioResult
from .trace import Shot

SVG_NS = "http://www.w3.org/2000/svg"

# Geometry, in viewBox units (about CSS pixels on a phone: the picture is 360 wide).
WIDTH = 360
MAX_WIDTH = 560  # CSS pixels: the picture does not grow beyond this on a wide screen
PAD = 12
CARD_W, CARD_H, GAP = 60, 84, 6
PER_LINE = (WIDTH - 2 * PAD + GAP) // (CARD_W + GAP)  # cards per line: 5
TITLE_SIZE, TEXT_SIZE, SMALL_SIZE, TINY_SIZE = 14, 11, 10, 9
LINE = 15  # height of a line of legend text
NAME_LINE = 18  # height of a player's name line
WRAP = 56  # characters per line of legend text
# Arrows: the head's length, the first track's depth below a card line, the distance between tracks (and
# between lanes), and how far apart the arrows leaving or entering one card are.
HEAD, TRACK_TOP, TRACK, SPREAD = 9, 13, 5, 10
CLEAR = 6  # free space between the deepest track and whatever follows the line (a pile's caption: its letters)
LANE_X = WIDTH - PAD + 6  # the first lane: right of every card and every line of text (text fits WIDTH - 2 * PAD)

# Colours.
INK, MUTED, PAPER = "#222222", "#666666", "#ffffff"
KNOWN_ALL, KNOWN_SOME = "#ffffff", "#fdf3d7"
BACK, BACK_LINE, BACK_TEXT = "#34495e", "#6f8aa6", "#dfe6ee"
NEGATIVE = "#b03a2e"
MOVED = "#d62728"
REVEALED = "#1f77b4"
ACTIVE_ROW = "#eef5ea"
ACTIVE_MARK = "#2e7d32"

BOX = "box"  # the place of a card out of play


# ---------------------------------------------------------------- places
def places(eng: Engine, st: State) -> dict[int, str]:
    """Every card's place label (cards in the box included)."""
    out = {c: BOX for c in range(len(st.known))}
    for p, row in enumerate(st.tableaux):
        for i, card in enumerate(row):
            if card is not None:
                out[card] = f"{st.names[p]}.{i + 1}"
    for p, hand in enumerate(st.hands):
        for card in hand:
            out[card] = f"{st.names[p]}.hand"
    for i, pile in enumerate(st.piles):
        for card in pile:
            out[card] = eng.pile_names[i]
    return out


def moved_cards(eng: Engine, before: State, after: State) -> frozenset[int]:
    """The cards whose place differs between the two states."""
    old, new = places(eng, before), places(eng, after)
    return frozenset(c for c in old if old[c] != new[c])


def step_arrows(eng: Engine, before: State, after: State, moved: Iterable[int]) -> tuple[tuple[str, str], ...]:
    """One arrow per distinct (old place, new place) of the moved cards, in a stable order."""
    old, new = places(eng, before), places(eng, after)
    return tuple(sorted({(old[c], new[c]) for c in moved}))


def revealed_cards(before: State, after: State) -> frozenset[int]:
    """The cards that some player knows after the step and did not know before."""
    return frozenset(c for c, mask in enumerate(after.known) if mask & ~before.known[c])


# ---------------------------------------------------------------- SVG text
def num(value: float) -> str:
    """A coordinate with at most one decimal, never `-0`: the same bytes on every run."""
    text = f"{value:.1f}".removesuffix(".0")
    return "0" if text == "-0" else text


def attrs(**values: object) -> str:
    """XML attributes in the given order; `font_size` is written `font-size`."""
    return "".join(f" {k.replace('_', '-')}={quoteattr(str(v))}" for k, v in values.items())


def text_width(text: str, size: float) -> float:
    """A generous estimate of the width of sans-serif text (no font metrics: the font is the reader's)."""
    return len(text) * size * 0.58


def svg_text(x: float, y: float, text: str, size: float, *, fill: str = INK, anchor: str = "start",
             bold: bool = False, fit: float = 0) -> str:
    """A line of text; a smaller font when it would be wider than `fit` units, and squeezed to `fit` when
    even the smallest font (60 %) would be far wider (the estimate is generous: squeezing text that is in
    fact narrower would stretch it)."""
    if not text:
        return ""
    extra: dict[str, object] = {}
    if anchor != "start":
        extra["text_anchor"] = anchor
    if bold:
        extra["font_weight"] = "bold"
    if fit and text_width(text, size) > fit:
        size = max(size * fit / text_width(text, size), size * 0.6)
        if text_width(text, size) > 1.25 * fit:
            extra["textLength"] = num(fit)
            extra["lengthAdjust"] = "spacingAndGlyphs"
    return f"<text{attrs(x=num(x), y=num(y), font_size=num(size), fill=fill, **extra)}>{escape(text)}</text>"


def wrap(text: str, width: int = WRAP) -> list[str]:
    """Word-wrap a line of legend text."""
    return pack(text.split(), " ", width)


def pack(parts: Iterable[str], separator: str, width: int = WRAP) -> list[str]:
    """Join parts with a separator into lines of at most `width` characters (a longer part stands alone)."""
    lines: list[str] = []
    current = ""
    for part in parts:
        if current and len(current) + len(separator) + len(part) > width:
            lines.append(current)
            current = part
        else:
            current = f"{current}{separator}{part}" if current else part
    return [*lines, current] if current else lines


# ---------------------------------------------------------------- layout
@dataclass(frozen=True)
class Anchor:
    """Where an arrow meets a place: the card's centre line and bottom edge, and its line of cards."""

    x: float
    bottom: float
    line: int  # the card lines counted down the picture


@dataclass
class Canvas:
    """The picture under construction: elements in drawing order, the anchor of every place, and the track
    each arrow takes below each line of cards it starts or ends on."""

    eng: Engine
    st: State
    moved: frozenset[int]
    revealed: frozenset[int]
    arrows: tuple[tuple[str, str], ...]  # (old place, new place), between places the picture draws
    y: float = PAD
    body: list[str] = field(default_factory=list)
    anchors: dict[str, Anchor] = field(default_factory=dict)
    tracks: dict[tuple[int, int], int] = field(default_factory=dict)  # (arrow, line) -> track
    lines_drawn: int = 0

    @property
    def referenced(self) -> set[str]:
        return {label for pair in self.arrows for label in pair}

    def add(self, element: str) -> None:
        if element:  # an empty text draws nothing
            self.body.append(element)

    def lines(self, texts: Iterable[str], size: float = SMALL_SIZE, fill: str = MUTED) -> None:
        """Lines of legend text, each wrapped at word boundaries."""
        self.rows([line for text in texts for line in wrap(text)], size, fill)

    def rows(self, lines: Iterable[str], size: float = SMALL_SIZE, fill: str = MUTED) -> None:
        """Lines of text as they are."""
        for line in lines:
            self.y += LINE
            self.add(svg_text(PAD, self.y - 4, line, size, fill=fill, fit=WIDTH - 2 * PAD))


def knowers(st: State, card: int) -> str:
    mask = st.known[card]
    if mask == st.everyone:
        return "all"
    return ",".join(st.names[p] for p in range(len(st.names)) if mask >> p & 1)


def is_known(st: State, card: int) -> bool:
    return st.known[card] != 0


def card_title(eng: Engine, st: State, card: int, place: str) -> str:
    """The tooltip of a card: its label only when someone knows it."""
    if not is_known(st, card):
        return f"{place}: face down, known to nobody"
    return f"{place}: {eng.facts.label(card)}, value {eng.facts.value[card]}, known to {knowers(st, card)}"


def outline(cv: Canvas, cards: Iterable[int]) -> tuple[str, str, str]:
    """(stroke colour, width, class) of a card's rectangle: moved beats revealed beats plain."""
    held = set(cards)
    if held & cv.moved:
        return MOVED, "3", "moved"
    if held & cv.revealed:
        return REVEALED, "3", "revealed"
    return INK, "1", "card"


def rect(x: float, y: float, fill: str, stroke: str, width: str, cls: str, dashed: bool = False) -> str:
    extra: dict[str, object] = {"stroke_dasharray": "5 4"} if dashed else {}
    return (f"<rect{attrs(x=num(x), y=num(y), width=CARD_W, height=CARD_H, rx=6, fill=fill, stroke=stroke)}"
            f"{attrs(stroke_width=width, **extra)}{attrs(**{'class': cls})}/>")


def marks_of(cv: Canvas, card: int) -> str:
    bits = cv.st.marks[card]
    return ",".join(name for name, bit in cv.eng.facts.mark_bits.items() if bits >> bit & 1)


def draw_face(cv: Canvas, x: float, y: float, card: int, corner: str, place: str, pile: Iterable[int] = ()) -> None:
    """A face-up card: corner text, species, value, marks, who knows it."""
    eng, st = cv.eng, cv.st
    stroke, width, cls = outline(cv, [card, *pile])
    fill = KNOWN_ALL if st.known[card] == st.everyone else KNOWN_SOME
    value = eng.facts.value[card]
    cx = x + CARD_W / 2
    cv.add(f"<g><title>{escape(card_title(eng, st, card, place))}</title>")
    cv.add(rect(x, y, fill, stroke, width, cls))
    cv.add(svg_text(x + 5, y + 12, corner, TINY_SIZE, fill=MUTED, fit=CARD_W - 10))
    cv.add(svg_text(cx, y + 30, eng.facts.species[card], TEXT_SIZE, anchor="middle", bold=True, fit=CARD_W - 6))
    cv.add(svg_text(cx, y + 55, str(value), 20, anchor="middle", bold=True, fill=NEGATIVE if value < 0 else INK))
    cv.add(svg_text(cx, y + 67, marks_of(cv, card), TINY_SIZE, anchor="middle", fill=MUTED, fit=CARD_W - 6))
    cv.add(svg_text(cx, y + CARD_H - 6, knowers(st, card), TINY_SIZE, anchor="middle", fill=MUTED,
                    fit=CARD_W - 6))
    cv.add("</g>")


def draw_back(cv: Canvas, x: float, y: float, card: int | None, corner: str, place: str, middle: str = "",
              pile: Iterable[int] = ()) -> None:
    """A face-down card (or a face-down pile): a dark back with an inner frame, nothing of its face."""
    cards = [*([] if card is None else [card]), *pile]
    stroke, width, cls = outline(cv, cards)
    tip = f"{place}: face down, known to nobody" if card is not None else f"{place}: {middle} face down"
    cv.add(f"<g><title>{escape(tip)}</title>")
    cv.add(rect(x, y, BACK, stroke, width, cls))
    cv.add(f"<rect{attrs(x=num(x + 5), y=num(y + 16), width=CARD_W - 10, height=CARD_H - 22, rx=4, fill='none')}"
           f"{attrs(stroke=BACK_LINE, stroke_width=1)}/>")
    cv.add(svg_text(x + 5, y + 12, corner, TINY_SIZE, fill=BACK_TEXT, fit=CARD_W - 10))
    if middle:
        cv.add(svg_text(x + CARD_W / 2, y + 52, middle, 16, anchor="middle", bold=True, fill=BACK_TEXT,
                        fit=CARD_W - 12))
    if card is not None and marks_of(cv, card):
        cv.add(svg_text(x + CARD_W / 2, y + 70, marks_of(cv, card), TINY_SIZE, anchor="middle", fill=BACK_TEXT,
                        fit=CARD_W - 12))
    cv.add("</g>")


def draw_empty(cv: Canvas, x: float, y: float, corner: str, place: str, note: str = "empty") -> None:
    cv.add(f"<g><title>{escape(f'{place}: {note}')}</title>")
    cv.add(rect(x, y, "none", MUTED, "1", "empty", dashed=True))
    cv.add(svg_text(x + 5, y + 12, corner, TINY_SIZE, fill=MUTED, fit=CARD_W - 10))
    cv.add(svg_text(x + CARD_W / 2, y + CARD_H / 2 + 4, note, TINY_SIZE, anchor="middle", fill=MUTED,
                    fit=CARD_W - 8))
    cv.add("</g>")


def draw_card(cv: Canvas, x: float, y: float, card: int | None, corner: str, place: str) -> None:
    if card is None:
        draw_empty(cv, x, y, corner, place)
    elif is_known(cv.st, card):
        draw_face(cv, x, y, card, corner, place)
    else:
        draw_back(cv, x, y, card, corner, place)


def card_lines(places: list[str]) -> list[list[str]]:
    """The places of cards drawn side by side, PER_LINE to a line."""
    return [places[i:i + PER_LINE] for i in range(0, len(places), PER_LINE)]


def arrows_on(cv: Canvas, places: list[str]) -> list[int]:
    """The arrows (by index) that start or end at one of these places."""
    here = set(places)
    return [k for k, (source, target) in enumerate(cv.arrows) if source in here or target in here]


def meeting_x(cv: Canvas, k: int, line: list[str]) -> float:
    """Where along a line of cards arrow k meets it (its old place when both of its places are on it)."""
    place = next(place for place in cv.arrows[k] if place in line)
    return line.index(place) * (CARD_W + GAP) + spread(cv, k, place)


def depth(track: int) -> float:
    """How far below the bottom of its cards a track runs: the first clears an arrow's head."""
    return TRACK_TOP + track * TRACK


def room(cv: Canvas, places: list[str]) -> float:
    """The strip below a line of cards: the gap between lines, and more where arrows run below it."""
    count = len(arrows_on(cv, places))
    return max(GAP, depth(count - 1) + CLEAR) if count else GAP


def lines_height(cv: Canvas, places: list[str]) -> float:
    return sum(CARD_H + room(cv, line) for line in card_lines(places))


def grid(cv: Canvas, places: list[str]) -> list[tuple[float, float]]:
    """Top-left corners of the cards at these places, line by line from the cursor, with each place's anchor
    (the first card of a place, for a hand of several) and each arrow's track below the line; moves the
    cursor past the lines and the strips below them."""
    spots: list[tuple[float, float]] = []
    for line in card_lines(places):
        for i, place in enumerate(line):
            spots.append((PAD + i * (CARD_W + GAP), cv.y))
            cv.anchors.setdefault(place, Anchor(spots[-1][0] + CARD_W / 2, cv.y + CARD_H, cv.lines_drawn))
        # The arrow meeting the line furthest right runs nearest to it: every run below the line goes right
        # (to the lane) or stays under the line, so a deeper run passes under no card another arrow meets.
        ordered = sorted(arrows_on(cv, line), key=lambda k: -meeting_x(cv, k, line))
        for track, k in enumerate(ordered):
            cv.tracks[(k, cv.lines_drawn)] = track
        cv.lines_drawn += 1
        cv.y += CARD_H + room(cv, line)
    return spots


# ---------------------------------------------------------------- parts of the picture
def draw_title(cv: Canvas, title: str, one_line: bool = False) -> None:
    """The step the picture is about: a bold heading, or (`one_line`, a refusal with its rule) one line of
    plain text, made smaller to fit rather than wrapped."""
    if one_line:
        cv.y += NAME_LINE
        cv.add(svg_text(PAD, cv.y - 4, title, TEXT_SIZE, fit=WIDTH - 2 * PAD))
        return
    for line in wrap(title, 44):
        cv.y += NAME_LINE
        cv.add(svg_text(PAD, cv.y - 4, line, TITLE_SIZE, bold=True))


def variable_lines(eng: Engine, st: State) -> list[str]:
    """Phase, round and turn, then the rules' variables of the table in their words, in declaration order."""
    parts = [f"phase: {st.phase.replace('_', ' ')}", f"round: {st.round}", f"turn: {st.turn}"]
    for name, decl in eng.rules.variables.items():
        if not decl.per_player and name in st.vars:
            words = var_words(eng, st, decl, st.vars[name])
            if words is not None:
                parts.append(words)
    return pack(parts, " · ")


def var_words(eng: Engine, st: State, decl: s.VarDecl, value: Any) -> str | None:
    """A variable as people read it: its words in the rules with `{}` its value, a true/false variable's
    words without `{}` while it is true. None when there is nothing to say: a variable without words (the
    rules' bookkeeping), one without a value, a value too long or one that could tell of a hidden card."""
    if not decl.words or value is None:
        return None
    if "{}" not in decl.words:
        return decl.words if value is True else None
    shown = short_value(eng, st, decl.type, value)
    return None if shown is None else decl.words.replace("{}", shown)


def short_value(eng: Engine, st: State, vtype: str, value: Any) -> str | None:
    """A variable's value in a few characters, or None when it does not fit or could tell of a hidden card."""
    if "card" in vtype or isinstance(value, dict):
        return None
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, str | int | list | tuple) and value is not None:
        return None
    text = eng.format_value(st, vtype, value)
    return text if len(text) <= 24 else None


def label_if_known(eng: Engine, st: State, card: int, unknown: str = "a face-down card") -> str:
    return eng.facts.label(card) if is_known(st, card) else unknown


def situation_lines(eng: Engine, st: State) -> list[str]:
    """The open windows and the abilities waiting to be used (cards named only when someone knows them)."""
    lines = []
    for w in st.windows:
        who = ", ".join(st.names[p] for p in range(len(st.names)) if w.players >> p & 1) or "nobody"
        used = " (used)" if w.attempts <= 0 else ""
        kind = w.kind.replace("_", " ")  # a word, as the phase is
        lines.append(f"{eng.effects.window_title} '{kind}' on {label_if_known(eng, st, w.ref)} for {who}{used}")
    for entry in st.waiting:
        lines.append(f"waiting: {st.names[entry.owner]} must use '{entry.ability}' of "
                     f"{label_if_known(eng, st, entry.card)}")
    return lines


def draw_piles(cv: Canvas) -> None:
    eng, st = cv.eng, cv.st
    cv.y += 4
    spots = grid(cv, eng.pile_names)
    lines = card_lines(eng.pile_names)
    for i, (name, spot) in enumerate(zip(eng.pile_names, spots, strict=True)):
        cards = st.piles[i]
        x, y = spot
        below = y + CARD_H + room(cv, lines[i // PER_LINE])  # the caption goes under the arrows' tracks
        if not cards:
            draw_empty(cv, x, y, "", name, "none left")
        elif i in eng.effects.face_up:
            draw_face(cv, x, y, cards[-1], "top", name, pile=cards)
        else:
            draw_back(cv, x, y, None, "", name, str(len(cards)), pile=cards)
        for k, caption in enumerate((name.replace("_", " "), f"{len(cards)} card" + ("" if len(cards) == 1 else "s"))):
            cv.add(svg_text(x + CARD_W / 2, below + 5 + k * 11, caption, TINY_SIZE, anchor="middle",
                            fill=MUTED, fit=CARD_W))
    cv.y += 2 * 11


def player_vars(eng: Engine, st: State, p: int) -> str:
    parts = []
    for name, decl in eng.rules.variables.items():
        if decl.per_player and name in st.pvars:
            words = var_words(eng, st, decl, st.pvars[name][p])
            if words is not None:
                parts.append(words)
    if st.is_protected(p):
        parts.append("protected")
    return " · ".join(parts)


def draw_name(cv: Canvas, p: int, cards_height: float) -> None:
    """The player's name line (a marker and bold for the active player) and their variables."""
    st = cv.st
    active = p == st.active
    seated = bool(st.in_round >> p & 1)
    extra = player_vars(cv.eng, st, p)
    height = NAME_LINE + (LINE if extra else 0) + cards_height + 2
    if active:
        cv.add(f"<rect{attrs(x=PAD // 2, y=num(cv.y + 2), width=WIDTH - PAD, height=num(height), rx=6)}"
               f"{attrs(fill=ACTIVE_ROW, **{'class': 'active'})}/>")
    cv.y += NAME_LINE
    name = st.names[p] + ("" if seated else " (not in this round)")
    if active:
        top = cv.y - 15
        cv.add(f"<polygon{attrs(points=f'{PAD},{num(top)} {PAD + 9},{num(top + 5.5)} {PAD},{num(top + 11)}')}"
               f"{attrs(fill=ACTIVE_MARK)}/>")
        cv.add(svg_text(PAD + 13, cv.y - 4, f"{name} (active)", 13, bold=True))
    else:
        cv.add(svg_text(PAD, cv.y - 4, name, 13, fill=INK if seated else MUTED))
    if extra:
        cv.y += LINE
        cv.add(svg_text(PAD, cv.y - 4, extra, SMALL_SIZE, fill=MUTED, fit=WIDTH - 2 * PAD))


def highest_slot(labels: Iterable[str], name: str) -> int:
    """The highest slot number of a player that the place labels name (0 for none)."""
    numbers = [int(number) for owner, _, number in (label.rpartition(".") for label in labels)
               if owner == name and number.isdigit()]
    return max(numbers, default=0)


def draw_player(cv: Canvas, p: int) -> None:
    """A player's slots (with slots an arrow names that the row lacks, drawn empty) and held cards."""
    st, name = cv.st, cv.st.names[p]
    row = list(st.tableaux[p])
    row += [None] * max(0, highest_slot(cv.referenced, name) - len(row))
    hand = st.hands[p]
    hand_boxes = len(hand) or (1 if f"{name}.hand" in cv.referenced else 0)
    places = [f"{name}.{i + 1}" for i in range(len(row))] + [f"{name}.hand"] * hand_boxes
    draw_name(cv, p, lines_height(cv, places) if places else LINE)
    if not places:
        cv.y += LINE
        cv.add(svg_text(PAD, cv.y - 4, "(no cards)", SMALL_SIZE, fill=MUTED))
        return
    spots = grid(cv, places)
    for i, card in enumerate(row):
        place = places[i]
        if i < len(st.tableaux[p]):
            draw_card(cv, *spots[i], card, str(i + 1), place)
        else:  # a slot the step creates
            draw_empty(cv, *spots[i], str(i + 1), place, "new slot")
    hand_spots = spots[len(row):]
    for card, spot in zip(hand, hand_spots, strict=False):
        draw_card(cv, *spot, card, "held", f"{name}.hand")
    if not hand and hand_spots:
        draw_empty(cv, *hand_spots[0], "held", f"{name}.hand", "no card")


def draw_key(cv: Canvas) -> None:
    cv.y += 4
    cv.rows(pack(["white: known to all", "cream: known to the players named on it", "dark: known to nobody",
                  "dashed: empty", "red outline: moved", "blue outline: newly known"], " · ", 62), TINY_SIZE)


# ---------------------------------------------------------------- arrows
def spread(cv: Canvas, k: int, place: str) -> float:
    """Where along a card's bottom edge arrow k meets it: side by side when several arrows meet one card."""
    here = [j for j, pair in enumerate(cv.arrows) if place in pair]
    return (here.index(k) - (len(here) - 1) / 2) * SPREAD


def route(cv: Canvas, k: int) -> list[tuple[float, float]]:
    """The corners of arrow k: down from the old place's card into its track, along the strip below the
    line (and, between lines, up or down its lane right of everything written), up into the new place's
    card. Strips, lanes and cards' edges hold no text, so the arrow crosses no word."""
    source, target = cv.arrows[k]
    a, b = cv.anchors[source], cv.anchors[target]
    ax, bx = a.x + spread(cv, k, source), b.x + spread(cv, k, target)
    ay, by = a.bottom + depth(cv.tracks[(k, a.line)]), b.bottom + depth(cv.tracks[(k, b.line)])
    if a.line == b.line:
        return [(ax, a.bottom), (ax, ay), (bx, ay), (bx, b.bottom)]
    lane = LANE_X + k * TRACK
    return [(ax, a.bottom), (ax, ay), (lane, ay), (lane, by), (bx, by), (bx, b.bottom)]


def arrow(cv: Canvas, k: int) -> str:
    """Arrow k as a path of straight runs, its head a triangle pointing up into the new place's card (no
    marker ids), over a pale halo that keeps it apart from the cards and arrows it passes."""
    points = route(cv, k)
    tip_x, tip_y = points[-1]
    points[-1] = (tip_x, tip_y + HEAD)  # the line stops where the head begins
    path = "M" + " L".join(f"{num(x)},{num(y)}" for x, y in points)
    head = " ".join(f"{num(x)},{num(y)}" for x, y in ((tip_x, tip_y), (tip_x - 5, tip_y + HEAD),
                                                        (tip_x + 5, tip_y + HEAD)))
    source, target = cv.arrows[k]
    return (f"<g{attrs(**{'class': 'arrow'})}><title>{escape(f'{source} -> {target}')}</title>"
            f"<path{attrs(d=path, fill='none', stroke=PAPER, stroke_width=5, stroke_opacity=0.7)}/>"
            f"<path{attrs(d=path, fill='none', stroke=MOVED, stroke_width=2.5, stroke_linejoin='round')}/>"
            f"<polygon{attrs(points=head, fill=MOVED)}/></g>")


def drawn_arrows(cv: Canvas) -> list[int]:
    """The arrows whose both places the picture drew (every place but the box is drawn: a safeguard)."""
    return [k for k, pair in enumerate(cv.arrows) if all(place in cv.anchors for place in pair)]


def lanes_width(cv: Canvas) -> float:
    """How much wider than the table the picture is: the lanes of the arrows that go from line to line."""
    used = [k for k in drawn_arrows(cv) if cv.anchors[cv.arrows[k][0]].line != cv.anchors[cv.arrows[k][1]].line]
    return LANE_X + max(used) * TRACK + 2 * TRACK - WIDTH if used else 0


# ---------------------------------------------------------------- the API
def table_svg(eng: Engine, st: State, *, moved: frozenset[int] = frozenset(),
              arrows: tuple[tuple[str, str], ...] = (), title: str = "",
              revealed: frozenset[int] = frozenset(), one_line: bool = False) -> str:
    """One picture of a state: title, phase, round and the rules' variables in their words, open windows, the piles,
    then every seat in seating order with its slots and held cards. `moved` cards get a red outline,
    `revealed` ones a blue one; each arrow runs between two place labels (`alice.2`, `alice.hand`, a pile;
    one that names the box, which is not drawn, is left out). `one_line`: the title is one line of plain text
    (a refusal), not a heading."""
    drawable = tuple(pair for pair in arrows if BOX not in pair and pair[0] != pair[1])
    cv = Canvas(eng, st, moved, revealed, drawable)
    if title:
        draw_title(cv, title, one_line)
    cv.rows(variable_lines(eng, st))
    cv.lines(situation_lines(eng, st), fill=INK)
    draw_piles(cv)
    for p in range(len(st.names)):
        draw_player(cv, p)
    draw_key(cv)
    drawn = [arrow(cv, k) for k in drawn_arrows(cv)]
    height = int(cv.y + PAD)
    width = WIDTH + int(lanes_width(cv))
    label = title or "the table"
    head = (f"<svg{attrs(xmlns=SVG_NS, viewBox=f'0 0 {width} {height}', width='100%')}"
            f"{attrs(style=f'max-width:{MAX_WIDTH * width // WIDTH}px;height:auto', role='img', aria_label=label)}"
            f"{attrs(font_family='sans-serif')}>")
    background = f"<rect{attrs(x=0, y=0, width=width, height=height, fill=PAPER)}/>"
    return "\n".join([head, f"<title>{escape(label)}</title>", background, *cv.body, *drawn, "</svg>"]) + "\n"


def step_pictures(eng: Engine, before: State, after: State, step_text: str,
                  refused: bool = False) -> tuple[str, str]:
    """(before, after): the table around one step, the moved cards outlined and arrows from old to new places;
    a `refused` step is titled by one plain line."""
    moved = moved_cards(eng, before, after)
    arrows = step_arrows(eng, before, after, moved)
    revealed = revealed_cards(before, after)
    return (table_svg(eng, before, moved=moved, arrows=arrows, title=f"before: {step_text}", one_line=refused),
            table_svg(eng, after, moved=moved, arrows=arrows, revealed=revealed, title=f"after: {step_text}",
                      one_line=refused))


def shot_pictures(eng: Engine, shot: Shot, numbered: bool = True) -> tuple[str, str] | None:
    """The pictures of a decisive step of the docs, when its replay kept the states (snapshots); `numbered`:
    the title names the step's line."""
    if shot.before_state is None or shot.after_state is None:
        return None
    title = f"line {shot.line}: {shot.heading}" if numbered else shot.heading
    return step_pictures(eng, shot.before_state, shot.after_state, title, refused=shot.refusal is not None)


def write_step_pictures(eng: Engine, result: ScenarioResult, directory: Path, stem: str) -> list[Path]:
    """Write `{stem}-step{N}-before.svg` and `-after.svg` for every move of a replay run with snapshots
    (N: the move's line; a second move on one line gets `-2`), and return the paths written."""
    if not result.trace or result.trace[0].state is None:
        raise ValueError("the scenario was replayed without snapshots: run_scenario(..., snapshots=True)")
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    seen: dict[int, int] = {}
    state = result.trace[0].state
    for entry in result.trace[1:]:
        if entry.state is None:
            continue  # a rejection or an expectation: the table did not change
        line = entry.pos.line
        seen[line] = seen.get(line, 0) + 1
        name = f"{stem}-step{line}" + (f"-{seen[line]}" if seen[line] > 1 else "")
        before, after = step_pictures(eng, state, entry.state, f"line {line}: {entry.text}")
        for suffix, svg in (("before", before), ("after", after)):
            path = directory / f"{name}-{suffix}.svg"
            write_output(path, svg)
            written.append(path)
        state = entry.state
    return written
