"""Text pictures of a state: the table by slot, the piles, who knows which card."""

from __future__ import annotations

from .engine import Engine
from .state import State


def knowers(st: State, card: int) -> str:
    mask = st.known[card]
    if mask == st.everyone:
        return "all"
    return ",".join(st.names[p] for p in range(len(st.names)) if mask >> p & 1) or "-"


def render_table(eng: Engine, st: State, knowledge: bool = True) -> list[str]:
    """One line per player and per pile; each card shows who knows it, e.g. SPECIES#1{alice}."""
    lines: list[str] = []
    width = max(len(n) for n in st.names)
    for p, name in enumerate(st.names):
        cells = []
        for i, card in enumerate(st.tableaux[p]):
            if card is None:
                cells.append(f"{i + 1}:—")
            else:
                label = eng.facts.label(card)
                cells.append(f"{i + 1}:{label}" + (f"{{{knowers(st, card)}}}" if knowledge else ""))
        marker = "*" if p == st.active else " "
        held = st.hands[p]
        hand = f"   holds {eng.facts.label(held)}" if held is not None else ""
        lines.append(f"{marker}{name:<{width}}  " + ("  ".join(cells) or "(no cards)") + hand)
    top = eng.facts.label(st.discard[-1]) if st.discard else "—"
    lines.append(f"  draw pile {len(st.draw)}, discard pile {len(st.discard)} (top {top}), "
                 f"under-pile {len(st.under)}; phase {st.phase}")
    if st.window is not None:
        w = st.window
        who = ", ".join(st.names[p] for p in range(len(st.names)) if w.players >> p & 1) or "nobody"
        lines.append(f"  pluck window '{w.kind}' on {eng.facts.label(w.ref)} for {who}"
                     + (" (used)" if w.used else ""))
    for ability, card, owner in st.pending:
        lines.append(f"  waiting: {st.names[owner]} must use '{ability}' of {eng.facts.label(card)}")
    return lines
