"""Writing a game log (baobei-log/1) of a game the engine plays, with claims after every move.

The header gives the deal, every line a move, the cards it drew and the random picks it made
(a recorder in place of the state's generator notes them), a new round's deal when the move
dealt one, and claims: what the move changed on the table, in the variables and in who knows
which card. The first line after the header claims the whole table. `baobei referee` replays
such a log clean; tests mutate it to see the referee catch each kind of error.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.runtime import Event
from ..engine.state import Chance, State
from .judge import DRAW_PILE, rules_digest
from .logfile import FORMAT
from .moves import HELD, UNSEEN
from .outcomes import pick_text

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


class Recorder(Chance):
    """The state's seeded generator (the same outcomes as `random.Random(seed)`), noting each pick."""

    def __init__(self, seed: int, st: State) -> None:
        super().__init__(seed)
        self.st = st
        self.picks: list[str] = []

    def pick(self, items: list[Any], kind: str) -> Any:
        item = self.choice(items)
        self.picks.append(pick_text(self.st, item, kind))
        return item

    def take_picks(self) -> list[str]:
        picks, self.picks = self.picks, []
        return picks


def seen(st: State, card: int | None, viewer: int | None) -> str | None:
    """A card's label for the log, or None when the log's viewer does not know it (or there is none)."""
    if card is None or (viewer is not None and not st.known[card] >> viewer & 1):
        return None
    return st.facts.label(card)


def deal_of(eng: Engine, st: State, picks: list[str], viewer: int | None = None) -> dict[str, Any]:
    """The cards a deal put on each slot and on each pile but the draw pile (whose order nobody knows: each
    draw names its card), by label, and its random picks."""
    dealt = [name for name in eng.rules.piles if name != DRAW_PILE and st.piles[eng.pile_index[name]]]
    deal: dict[str, Any] = {
        "tableaux": {name: [seen(st, c, viewer) for c in st.tableaux[p]] for p, name in enumerate(st.names)},
        "piles": {name: [seen(st, c, viewer) for c in st.piles[eng.pile_index[name]]] for name in dealt},
    }
    if picks:
        deal["picks"] = picks
    return deal


def _value(st: State, vtype: str, value: Any) -> str | None:
    """A variable's value as a scenario writes it, or None when the scenario language cannot."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if vtype == "player" and isinstance(value, int):
        return st.names[value]
    if vtype == "card" and isinstance(value, int):
        return st.facts.species[value]
    if vtype == "players" and isinstance(value, (list, tuple)):
        return "[" + ", ".join(st.names[v] for v in value) + "]"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and _PLAIN.match(value):
        return value  # a word, `none`, `true` and `false` included: a word variable's claim reads them as words
    return None


def claims_of(eng: Engine, st: State, viewer: int | None = None) -> dict[tuple[Any, ...], str]:
    """Every claim a log can make about the state, by what it is about (so that changes can be found).
    From a player's view, a card that player does not know is claimed only to be there."""
    out: dict[tuple[Any, ...], str] = {("phase",): f"phase {st.phase}", ("active",): f"active {st.names[st.active]}"}
    for p, name in enumerate(st.names):
        out[("cards", p)] = f"{name} cards {len(st.cards_of(p))}"
        for i, card in enumerate(st.tableaux[p], 1):
            if card is None or seen(st, card, viewer) is not None:
                out[("slot", p, i)] = f"{name}.{i} is {st.facts.species[card] if card is not None else 'empty'}"
            for q, other in enumerate(st.names):
                if card is not None:
                    knows = "knows" if st.known[card] >> q & 1 else "knows not"
                    out[("knows", q, p, i)] = f"{other} {knows} {name}.{i}"
        held = st.hands[p]
        if not held or seen(st, held[-1], viewer) is not None:
            out[("holds", p)] = f"{name} holds {st.facts.species[held[-1]] if held else 'nothing'}"
    for pile, index in eng.pile_index.items():
        cards = st.piles[index]
        out[("size", pile)] = f"{pile} size {len(cards)}"
        if eng.rules.piles[pile].face_up:
            out[("top", pile)] = f"{pile} top is {st.facts.species[cards[-1]] if cards else 'empty'}"
    for var in eng.rules.variables.values():
        if var.per_player:
            for p, name in enumerate(st.names):
                shown = _value(st, var.type, st.pvars[var.name][p])
                if shown is not None:
                    out[("var", var.name, p)] = f"{var.name}[{name}] = {shown}"
        else:
            shown = _value(st, var.type, st.vars[var.name])
            if shown is not None:
                out[("var", var.name)] = f"{var.name} = {shown}"
    return out


def _changed(before: dict[tuple[Any, ...], str], after: dict[tuple[Any, ...], str]) -> list[str]:
    return [text for key, text in after.items() if before.get(key) != text]


class LogWriter:
    """Builds the log of a game move by move: `start` after the deal, `move` after each move."""

    def __init__(self, eng: Engine, rules_dir: Path, names: list[str], seed: int, viewer: int | None = None) -> None:
        self.eng = eng
        self.rules_dir = rules_dir
        self.viewer = viewer  # a player's view: cards that player does not know are left out (null)
        self.st = eng.blank_state(names, seed)
        self.recorder = Recorder(seed, self.st)
        self.st.use_chance(self.recorder)
        self.deal_events: list[Event] = []
        eng.start_round(self.st, self.deal_events)
        self.claims = claims_of(eng, self.st, viewer)
        header: dict[str, Any] = {"log": FORMAT, "players": names,
                                  "rules": {"name": rules_dir.name, "digest": rules_digest(rules_dir)}}
        if viewer is not None:
            header["view"] = names[viewer]
        header["dealt"] = deal_of(eng, self.st, self.recorder.take_picks(), viewer)
        self.lines = [json.dumps(header, ensure_ascii=False), json.dumps({"claims": list(self.claims.values())},
                                                                           ensure_ascii=False)]

    def move(self, move: Move) -> list[Event]:
        """Play a legal move on the writer's state, log it, and return its events."""
        st, eng, viewer = self.st, self.eng, self.viewer
        text, round_before = self._move_text(move), st.round
        unseen = self._unseen_places(st)
        events = eng.push(st, move)
        line: dict[str, Any] = {"move": text}
        dealt = next((i for i, e in enumerate(events) if e.rule == "round"), len(events))
        drawn = [st.facts.by_label[label] for e in events[:dealt] if e.kind == "draw" for label, _ in e.cards]
        if st.round != round_before:
            line["dealt"] = deal_of(eng, st, [], viewer)  # a new round's draws are its deal, given as a whole
        if drawn:
            line["draws"] = [seen(st, c, viewer) for c in drawn]
        reveals = {place: st.facts.label(c) for c, place in unseen.items() if seen(st, c, viewer) is not None}
        if reveals and st.round == round_before:
            line["reveals"] = reveals
        picks = self.recorder.take_picks()
        if picks:
            line["picks"] = picks
        after = claims_of(eng, st, viewer)
        line["claims"] = _changed(self.claims, after)
        self.claims = after
        self.lines.append(json.dumps(line, ensure_ascii=False))
        return events

    def _move_text(self, move: Move) -> str:
        """The move's text; from a player's view, a held card that player has not seen is `?` (another
        player's exchange of cards only that player drew)."""
        st, viewer = self.st, self.viewer
        text = self.eng.describe(st, move)
        if viewer is None:
            return text
        held = {p.name for p in self.eng.rules.moves[move.name].params if p.kind == HELD}
        hidden = {f"{key}={st.facts.label(card)}" for key, card in move.args
                  if key in held and card is not None and not st.known[card] >> viewer & 1}
        return " ".join(f"{token.partition('=')[0]}={UNSEEN}" if token in hidden else token for token in text.split())

    def _unseen_places(self, st: State) -> dict[int, str]:
        """From a player's view: the cards on slots and in hands that player does not know, by place (a
        move that shows one of them reveals it)."""
        viewer = self.viewer
        if viewer is None:
            return {}
        out: dict[int, str] = {}
        for p, name in enumerate(st.names):
            for i, card in enumerate(st.tableaux[p], 1):
                if card is not None and not st.known[card] >> viewer & 1:
                    out[card] = f"{name}.{i}"
            if st.hands[p] and not st.known[st.hands[p][-1]] >> viewer & 1:
                out[st.hands[p][-1]] = f"{name}.hand"
        return out

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)
