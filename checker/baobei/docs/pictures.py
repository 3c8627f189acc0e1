"""SVG pictures of the table before and after a step, for FAQ answers that a reader should see at a glance.

The text tables of `trace.py` are exact but slow to read: a picture shows the seats with their slots as
cards (face up when some player knows the card, with who knows it; a card back when nobody does; a dashed
outline for an empty slot), the piles, the held cards, and the rules' short variables. The cards a step
moved are outlined and an arrow runs from each old place to the new one, so a pluck, gift, swap or draw is
visible without reading the trace.

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
from ..language.errors import write_output
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
@dataclass
class Canvas:
    """The picture under construction: elements in drawing order and the anchor of every place."""

    eng: Engine
    st: State
    moved: frozenset[int]
    revealed: frozenset[int]
    referenced: set[str]
    y: float = PAD
    body: list[str] = field(default_factory=list)
    anchors: dict[str, tuple[float, float]] = field(default_factory=dict)

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


def grid(cv: Canvas, count: int) -> list[tuple[float, float]]:
    """Top-left corners of `count` cards, PER_LINE to a line, starting at the cursor; moves the cursor."""
    spots: list[tuple[float, float]] = [(PAD + (i % PER_LINE) * (CARD_W + GAP), cv.y + (i // PER_LINE) * (CARD_H + GAP))
                                        for i in range(count)]
    lines = max(1, -(-count // PER_LINE))
    cv.y += lines * (CARD_H + GAP)
    return spots


def anchor(cv: Canvas, place: str, spot: tuple[float, float]) -> None:
    cv.anchors.setdefault(place, (spot[0] + CARD_W / 2, spot[1] + CARD_H / 2))


# ---------------------------------------------------------------- parts of the picture
def draw_title(cv: Canvas, title: str) -> None:
    for line in wrap(title, 44):
        cv.y += NAME_LINE
        cv.add(svg_text(PAD, cv.y - 4, line, TITLE_SIZE, bold=True))


def variable_lines(eng: Engine, st: State) -> list[str]:
    """Phase and round, then every short scalar variable of the rules as `name: value`, in declaration order."""
    parts = [f"phase: {st.phase}", f"round: {st.round}", f"turn: {st.turn}"]
    for name, decl in eng.rules.variables.items():
        if not decl.per_player and name in st.vars:
            shown = short_value(eng, st, decl.type, st.vars[name])
            if shown is not None:
                parts.append(f"{name}: {shown}")
    return pack(parts, " · ")


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
        lines.append(f"{eng.effects.window_title} '{w.kind}' on {label_if_known(eng, st, w.ref)} for {who}{used}")
    for entry in st.waiting:
        lines.append(f"waiting: {st.names[entry.owner]} must use '{entry.ability}' of "
                     f"{label_if_known(eng, st, entry.card)}")
    return lines


def draw_piles(cv: Canvas) -> None:
    eng, st = cv.eng, cv.st
    cv.y += 4
    spots = grid(cv, len(eng.pile_names))
    for i, (name, spot) in enumerate(zip(eng.pile_names, spots, strict=True)):
        cards = st.piles[i]
        x, y = spot
        anchor(cv, name, spot)
        if not cards:
            draw_empty(cv, x, y, "", name, "none left")
        elif i in eng.effects.face_up:
            draw_face(cv, x, y, cards[-1], "top", name, pile=cards)
        else:
            draw_back(cv, x, y, None, "", name, str(len(cards)), pile=cards)
        for k, caption in enumerate((name.replace("_", " "), f"{len(cards)} card" + ("" if len(cards) == 1 else "s"))):
            cv.add(svg_text(x + CARD_W / 2, y + CARD_H + GAP + 5 + k * 11, caption, TINY_SIZE, anchor="middle",
                            fill=MUTED, fit=CARD_W))
    cv.y += 2 * 11


def player_vars(eng: Engine, st: State, p: int) -> str:
    parts = []
    for name, decl in eng.rules.variables.items():
        if decl.per_player and name in st.pvars:
            shown = short_value(eng, st, decl.type, st.pvars[name][p])
            if shown is not None:
                parts.append(f"{name} {shown}")
    if st.is_protected(p):
        parts.append("protected")
    return " · ".join(parts)


def draw_name(cv: Canvas, p: int, rows: int) -> None:
    """The player's name line (a marker and bold for the active player) and their variables."""
    st = cv.st
    active = p == st.active
    seated = bool(st.in_round >> p & 1)
    extra = player_vars(cv.eng, st, p)
    height = NAME_LINE + (LINE if extra else 0) + rows * (CARD_H + GAP) + 2
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
    count = len(row) + hand_boxes
    draw_name(cv, p, max(1, -(-count // PER_LINE)))
    if not count:
        cv.y += LINE
        cv.add(svg_text(PAD, cv.y - 4, "(no cards)", SMALL_SIZE, fill=MUTED))
        return
    spots = grid(cv, count)
    for i, card in enumerate(row):
        place = f"{name}.{i + 1}"
        anchor(cv, place, spots[i])
        if i < len(st.tableaux[p]):
            draw_card(cv, *spots[i], card, str(i + 1), place)
        else:  # a slot the step creates
            draw_empty(cv, *spots[i], str(i + 1), place, "new slot")
    hand_spots = spots[len(row):]
    if hand_spots:
        anchor(cv, f"{name}.hand", hand_spots[0])
    for card, spot in zip(hand, hand_spots, strict=False):
        draw_card(cv, *spot, card, "held", f"{name}.hand")
    if not hand and hand_spots:
        draw_empty(cv, *hand_spots[0], "held", f"{name}.hand", "no card")


def draw_key(cv: Canvas) -> None:
    cv.y += 4
    cv.rows(pack(["white: known to all", "cream: known to the players named on it", "dark: known to nobody",
                  "dashed: empty", "red outline: moved", "blue outline: newly known"], " · ", 62), TINY_SIZE)


# ---------------------------------------------------------------- arrows
def clip(center: tuple[float, float], toward: tuple[float, float]) -> tuple[float, float]:
    """The point where the line from a card's centre toward a point leaves the card."""
    dx, dy = toward[0] - center[0], toward[1] - center[1]
    if dx == 0 and dy == 0:
        return center
    half_w, half_h = CARD_W / 2 + 2, CARD_H / 2 + 2
    scale = min(half_w / abs(dx) if dx else float("inf"), half_h / abs(dy) if dy else float("inf"), 1.0)
    return center[0] + dx * scale, center[1] + dy * scale


def arrow(cv: Canvas, source: str, target: str) -> str | None:
    """A curved arrow from one place to another, its head drawn as a triangle (no marker ids)."""
    if source not in cv.anchors or target not in cv.anchors:
        return None
    a, b = cv.anchors[source], cv.anchors[target]
    if a == b:
        return None
    mid_x, mid_y = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    length = (dx * dx + dy * dy) ** 0.5
    # neighbours get a high arc, so that the arrow leaves and enters over the cards' edges and stays visible
    bend = 70.0 if length < CARD_H + GAP + 20 else min(40.0, 0.25 * length)
    ctrl = (mid_x + dy / length * bend, mid_y - dx / length * bend)
    start, end = clip(a, ctrl), clip(b, ctrl)
    tx, ty = end[0] - ctrl[0], end[1] - ctrl[1]
    norm = (tx * tx + ty * ty) ** 0.5 or 1.0
    ux, uy = tx / norm, ty / norm
    base = (end[0] - ux * 11, end[1] - uy * 11)
    left = (base[0] - uy * 5, base[1] + ux * 5)
    right = (base[0] + uy * 5, base[1] - ux * 5)
    path = f"M{num(start[0])},{num(start[1])} Q{num(ctrl[0])},{num(ctrl[1])} {num(base[0])},{num(base[1])}"
    head = " ".join(f"{num(px)},{num(py)}" for px, py in (end, left, right))
    return (f"<g{attrs(**{'class': 'arrow'})}><title>{escape(f'{source} -> {target}')}</title>"
            f"<path{attrs(d=path, fill='none', stroke=PAPER, stroke_width=5, stroke_opacity=0.7)}/>"
            f"<path{attrs(d=path, fill='none', stroke=MOVED, stroke_width=2.5, stroke_linecap='round')}/>"
            f"<polygon{attrs(points=head, fill=MOVED)}/></g>")


# ---------------------------------------------------------------- the API
def table_svg(eng: Engine, st: State, *, moved: frozenset[int] = frozenset(),
              arrows: tuple[tuple[str, str], ...] = (), title: str = "",
              revealed: frozenset[int] = frozenset()) -> str:
    """One picture of a state: title, phase, round and the rules' short variables, open windows, the piles,
    then every seat in seating order with its slots and held cards. `moved` cards get a red outline,
    `revealed` ones a blue one; each arrow runs between two place labels (`alice.2`, `alice.hand`, a pile)."""
    referenced = {label for pair in arrows for label in pair}
    cv = Canvas(eng, st, moved, revealed, referenced)
    if title:
        draw_title(cv, title)
    cv.rows(variable_lines(eng, st))
    cv.lines(situation_lines(eng, st), fill=INK)
    draw_piles(cv)
    for p in range(len(st.names)):
        draw_player(cv, p)
    draw_key(cv)
    drawn = [svg for source, target in arrows if (svg := arrow(cv, source, target)) is not None]
    height = int(cv.y + PAD)
    label = title or "the table"
    head = (f"<svg{attrs(xmlns=SVG_NS, viewBox=f'0 0 {WIDTH} {height}', width='100%')}"
            f"{attrs(style=f'max-width:{MAX_WIDTH}px;height:auto', role='img', aria_label=label)}"
            f"{attrs(font_family='sans-serif')}>")
    background = f"<rect{attrs(x=0, y=0, width=WIDTH, height=height, fill=PAPER)}/>"
    return "\n".join([head, f"<title>{escape(label)}</title>", background, *cv.body, *drawn, "</svg>"]) + "\n"


def step_pictures(eng: Engine, before: State, after: State, step_text: str) -> tuple[str, str]:
    """(before, after): the table around one step, the moved cards outlined and arrows from old to new places."""
    moved = moved_cards(eng, before, after)
    arrows = step_arrows(eng, before, after, moved)
    revealed = revealed_cards(before, after)
    return (table_svg(eng, before, moved=moved, arrows=arrows, title=f"before: {step_text}"),
            table_svg(eng, after, moved=moved, arrows=arrows, revealed=revealed, title=f"after: {step_text}"))


def shot_pictures(eng: Engine, shot: Shot) -> tuple[str, str] | None:
    """The pictures of a decisive step of the docs, when its replay kept the states (snapshots)."""
    if shot.before_state is None or shot.after_state is None:
        return None
    return step_pictures(eng, shot.before_state, shot.after_state, f"line {shot.line}: {shot.text}")


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
