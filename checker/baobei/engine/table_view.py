"""Text pictures of a state: the table by slot, the piles, who knows which card."""

from __future__ import annotations

from .engine import Engine
from .state import State


def knowers(st: State, card: int) -> str:
    mask = st.known[card]
    if mask == st.everyone:
        return "all"
    return ",".join(st.names[p] for p in range(len(st.names)) if mask >> p & 1) or "-"


# How to read the lines render_table writes: `explain` prints it once before its trace.
LEGEND = (
    "How to read the tables:",
    "  *NAME          the active player; each player's line lists their slots, then the cards in hand",
    "  2:SPECIES#3    slot 2 holds the third copy of SPECIES in the deck (#N tells copies apart)",
    "  {alice,bob}    who knows that card: {-} nobody, {all} every player; `?` a card the viewer does not know",
    "  3:—            slot 3 is empty",
    "  holds CARD     a card in the player's hand (drawn, to keep or discard)",
    "  PILE N (top C) a pile with N cards; a face-up pile names its top card",
    "Under each move: the events it caused, each with the rule that caused it (by NAME, its section and "
    "paragraphs).",
)


def render_table(eng: Engine, st: State, knowledge: bool = True, viewer: int | None = None) -> list[str]:
    """One line per player and per pile; each card shows who knows it, e.g. SPECIES#1{alice}. With a
    `viewer` (a seat), a card that player does not know is shown as `?`."""
    lines: list[str] = []

    def label(card: int, unknown: str = "?") -> str:
        if viewer is None or st.known[card] >> viewer & 1:
            return eng.facts.label(card)
        return unknown

    width = max(len(n) for n in st.names)
    for p, name in enumerate(st.names):
        cells = []
        for i, card in enumerate(st.tableaux[p]):
            if card is None:
                cells.append(f"{i + 1}:—")
            else:
                cells.append(f"{i + 1}:{label(card)}" + (f"{{{knowers(st, card)}}}" if knowledge else ""))
        marker = "*" if p == st.active else " "
        held = st.hands[p]
        hand = f"   holds {', '.join(label(c) for c in held)}" if held else ""
        lines.append(f"{marker}{name:<{width}}  " + ("  ".join(cells) or "(no cards)") + hand)
    piles = []
    for i, name in enumerate(eng.pile_names):
        cards = st.piles[i]
        shown = name.replace("_", " ")
        top = f" (top {label(cards[-1])})" if cards and i in eng.effects.face_up else ""
        piles.append(f"{shown} {len(cards)}{top}")
    lines.append("  " + ", ".join(piles) + f"; phase {st.phase}")
    for w in st.windows:
        who = ", ".join(st.names[p] for p in range(len(st.names)) if w.players >> p & 1) or "nobody"
        lines.append(f"  {eng.effects.window_title} '{w.kind}' on {label(w.ref, 'a card')} for {who}"
                     + (" (used)" if w.attempts <= 0 else ""))
    for entry in st.waiting:
        lines.append(f"  waiting: {st.names[entry.owner]} must use '{entry.ability}' of {label(entry.card, 'a card')}"
                     + (" (after the window's calls)" if entry.after_window else ""))
    return lines
