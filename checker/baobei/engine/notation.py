"""The canonical text of a move, and reading it back.

`alice pluck target=bob.2 gift=alice.1`: the player, the move, then each given
argument as NAME=VALUE in the move's declared order. Values are written as the
scenario language writes them: a slot `player.number`, a player by name,
`true`/`false`, a held card by its label `Species#n` (a bare species names the
first such card in the mover's hand). `parse_move_text(move_text(m)) == m`.
"""

from __future__ import annotations

import re
from typing import Any

from ..language import syntax as s
from ..language.errors import BaoError
from .move import Move
from .state import State

_SLOT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\.([0-9]+)$")
_CARD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)#([0-9]+)$")

# A literal as both the scenario language and move texts write it: (shape, data).
Literal = tuple[str, Any]


class NotationError(BaoError):
    """A move text or argument that does not name a move of these rules; `arg` is the index of the
    argument at fault (None when the move itself is)."""

    def __init__(self, message: str, arg: int | None = None) -> None:
        super().__init__(message)
        self.arg = arg


def value_text(st: State, kind: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if kind in ("slot", "own_slot", "free_slot") and isinstance(value, tuple) and _of_a_seat(st, value):
        return f"{st.names[value[0]]}.{value[1]}"
    if kind == "player" and isinstance(value, int) and 0 <= value < len(st.names):
        return st.names[value]
    if kind == "held_card" and isinstance(value, int):
        return st.facts.label(value)
    return str(value)


def move_text(moves: dict[str, s.MoveDecl], st: State, move: Move) -> str:
    player = st.names[move.player] if 0 <= move.player < len(st.names) else f"player{move.player + 1}"
    decl = moves.get(move.name)
    kinds = {p.name: p.kind for p in decl.params} if decl is not None else {}
    order = [p.name for p in decl.params] if decl is not None else [k for k, _ in move.args]
    given = dict(move.args)
    parts = [player, move.name]
    parts += [f"{name}={value_text(st, kinds.get(name, ''), given[name])}" for name in order
              if given.get(name) is not None]
    parts += [f"{k}={value_text(st, '', v)}" for k, v in move.args if k not in order and v is not None]
    return " ".join(parts)


def literal_of(token: str) -> Literal:
    """A value token of a move text as a literal."""
    if token in ("true", "false"):
        return ("bool", token == "true")
    if token == "none":
        return ("none", None)
    if re.fullmatch(r"-?[0-9]+", token):
        return ("int", int(token))
    slot = _SLOT.match(token)
    if slot:
        return ("slot", (slot.group(1), int(slot.group(2))))
    card = _CARD.match(token)
    if card:
        return ("card", token)
    return ("name", token)


def player_seat(st: State, name: str) -> int:
    if name not in st.names:
        raise NotationError(f"unknown player {name!r}; the players are: {', '.join(st.names)}")
    return st.names.index(name)


def arg_value(st: State, actor: int, kind: str, literal: Literal, used: set[int] | None = None) -> Any:
    """The engine's value of a move argument of the given kind; `used` are held cards named before it
    in the same move (naming one species twice names the first and the second such card held)."""
    shape, data = literal
    if shape == "none":
        return None
    if kind in ("slot", "own_slot", "free_slot"):
        if shape != "slot":
            raise NotationError(f"expected a slot like alice.2, found {data}")
        return (player_seat(st, data[0]), data[1])
    if kind == "player":
        if shape != "name":
            raise NotationError(f"expected a player name, found {data}")
        return player_seat(st, data)
    if kind == "bool":
        if shape != "bool":
            raise NotationError(f"expected true or false, found {data}")
        return data
    if kind == "held_card":
        return _held_card(st, actor, shape, data, used or set())
    raise NotationError(f"no argument of kind {kind!r}")


def _held_card(st: State, actor: int, shape: str, data: Any, used: set[int]) -> int:
    # A card already named earlier in the move is named again only when the hand holds no other of its
    # species: the rules then say why one card cannot serve twice.
    hand = [c for c in st.hands[actor] if c not in used] + [c for c in st.hands[actor] if c in used]
    if shape == "card":
        card = st.facts.by_label.get(data)
        if card is None:
            raise NotationError(f"no card {data!r} in the deck")
        return card
    if shape == "name":
        for card in hand:
            if st.facts.species[card] == data:
                return card
        if data not in st.facts.species:
            raise NotationError(f"unknown species {data!r}")
        raise NotationError(f"{st.names[actor]} holds no {data}")
    raise NotationError(f"expected a held card by species (or label, Species#2), found {data}")


def build_move(moves: dict[str, s.MoveDecl], st: State, player: str, name: str,
               args: list[tuple[str | None, Literal]]) -> Move:
    """A move from its parts; arguments by name or in declared order."""
    actor = player_seat(st, player)
    decl = moves.get(name)
    if decl is None:
        raise NotationError(f"unknown move {name!r}; the rules define: {', '.join(moves)}")
    params = list(decl.params)
    kinds = {p.name: p.kind for p in params}
    values: dict[str, Any] = {}
    for i, (key, literal) in enumerate(args):
        if key is None:
            if i >= len(params):
                raise NotationError(f"{name} takes {len(params)} argument(s)", i)
            key = params[i].name
        param = next((q for q in params if q.name == key), None)
        if key in values:
            raise NotationError(f"argument {key!r} of {name} is given twice", i)
        if param is None:
            raise NotationError(f"{name} has no argument {key!r}; it takes: "
                                f"{', '.join(q.name for q in params) or 'none'}", i)
        try:
            used = {v for k, v in values.items() if kinds[k] == "held_card"}
            values[key] = arg_value(st, actor, param.kind, literal, used)
        except NotationError as err:
            raise NotationError(str(err), i) from None
    return Move(actor, name, tuple((q.name, values.get(q.name)) for q in params))


def parse_move_text(moves: dict[str, s.MoveDecl], st: State, text: str) -> Move:
    """Read a move's text back (see the module's docstring)."""
    tokens = text.split()
    if len(tokens) < 2:
        raise NotationError(f"{text!r}: a move is written PLAYER MOVE [NAME=VALUE ...]")
    args: list[tuple[str | None, Literal]] = []
    for token in tokens[2:]:
        key, sep, raw = token.partition("=")
        args.append((key, literal_of(raw)) if sep else (None, literal_of(token)))
    return build_move(moves, st, tokens[0], tokens[1], args)


def _of_a_seat(st: State, value: tuple[Any, ...]) -> bool:
    """Whether a slot value names a seat of the match (a move given by its values may name anything)."""
    return len(value) == 2 and isinstance(value[0], int) and 0 <= value[0] < len(st.names)


LABELLED_HELD = re.compile(r"=([^\s=#.]+)#\d+")


def scenario_move_text(moves: dict[str, s.MoveDecl], st: State, move: Move) -> str:
    """The move's text as a scenario file can hold it: a held card by its species where that names the
    same card (a label's `#` would start a comment there); the canonical text where it does not."""
    text = move_text(moves, st, move)
    plain = LABELLED_HELD.sub(r"=\1", text)
    if plain == text:
        return text
    try:
        return plain if parse_move_text(moves, st, plain) == move else text
    except BaoError:
        return text
