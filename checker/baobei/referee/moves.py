"""Reading a logged move: its text or JSON object, as the engine's Move.

Two things a log may say that the engine's notation does not read:

- `?` for a held card the log's viewer has not seen (another player's exchange of cards only that
  player drew). The referee takes, for each `?`, one of the mover's held cards the viewer does not
  know, the first choice in the order the cards were drawn that makes the move legal. To the viewer
  those cards are alike: any of them may still be named by a later reveal (outcomes.py exchanges
  cards the viewer does not know), so every consistent log is accepted whichever card is taken.
- a held card by a species the mover does not hold. That is an illegal move, not a malformed log:
  the move names a card of that species the mover does not hold, and the rules refuse it with their
  own reason and citation. In a player's view, naming a card of another player's hand the viewer has
  not seen says more than the viewer knows, and is refused as such.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations
from typing import Any

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.notation import Literal, NotationError, build_move, literal_of, player_seat
from ..engine.state import State
from ..language.source import Pos
from .logfile import LogError
from .quote import quoted

UNSEEN = "?"  # a held card the log's viewer has not seen (docs/log.schema.json)
HELD = "held_card"  # the argument kind of a card in the mover's hand
_UNSEEN_LITERAL: Literal = literal_of(UNSEEN)
Arg = tuple[str | None, Literal]


@dataclass(frozen=True)
class Refused:
    """A move line refused before it is played: the kind of finding and why."""

    kind: str
    why: str


def move_parts(raw: str | dict[str, Any], pos: Pos) -> tuple[str, str, list[Arg]]:
    """The player, the move's name and its arguments (by name, or None: in order) of a logged move."""
    if isinstance(raw, str):
        tokens = raw.split()
        if len(tokens) < 2:
            raise LogError(pos, f"move {quoted(raw)}: a move is written PLAYER MOVE [NAME=VALUE ...]")
        args: list[Arg] = []
        for token in tokens[2:]:
            key, sep, value = token.partition("=")
            args.append((key, literal_of(value)) if sep else (None, literal_of(token)))
        return tokens[0], tokens[1], args
    return raw["player"], raw["name"], [(k, _literal(v)) for k, v in raw.get("args", {}).items()]


def _literal(value: object) -> Literal:
    if value is None:
        return ("none", None)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    return literal_of(str(value))


class MoveReader:
    """Reads the moves of one log: `viewer` is the seat whose view it is (None: a full log)."""

    def __init__(self, eng: Engine, viewer: int | None) -> None:
        self.eng = eng
        self.viewer = viewer

    def read(self, st: State, raw: str | dict[str, Any], pos: Pos) -> Move | Refused:
        try:
            player, name, args = move_parts(raw, pos)
            args, unseen = self._split_unseen(name, args, pos)
            actor = player_seat(st, player)
            args_or_refused = self._unheld(st, actor, name, args)
            if isinstance(args_or_refused, Refused):
                return args_or_refused
            move = build_move(self.eng.rules.moves, st, player, name, args_or_refused)
        except (NotationError, ValueError) as err:  # ValueError: a number too long to read
            raise LogError(pos, f"move: {err}") from None
        return self._choose_unseen(st, move, unseen) if unseen else move

    # ------------------------------------------------------------ `?`: a held card the viewer has not seen
    def _split_unseen(self, name: str, args: list[Arg], pos: Pos) -> tuple[list[Arg], list[str]]:
        """The arguments without the `?` ones, and the names of those (each a held card)."""
        if _UNSEEN_LITERAL not in [literal for _, literal in args]:
            return args, []
        decl = self.eng.rules.moves.get(name)
        if decl is None:
            return args, []  # build_move says the move is unknown
        params = list(decl.params)
        # By name from here: dropping a `?` given in order would shift the arguments after it.
        named = [(key if key is not None or i >= len(params) else params[i].name, literal)
                 for i, (key, literal) in enumerate(args)]
        kinds = {p.name: p.kind for p in params}
        unseen = [key or "" for key, literal in named if literal == _UNSEEN_LITERAL]
        for key in unseen:
            if kinds.get(key) != HELD:
                raise LogError(pos, f"move: `{UNSEEN}` stands for a held card the log's viewer has not seen; "
                               f"{key or 'an argument'} of {name} is no held card")
        if self.viewer is None:
            raise LogError(pos, f"move: `{UNSEEN}` (a held card not seen) is only for a player's view (`view` "
                           "in the header); a full log names every card")
        return [(key, literal) for key, literal in named if literal != _UNSEEN_LITERAL], unseen

    def _choose_unseen(self, st: State, move: Move, unseen: list[str]) -> Move | Refused:
        viewer = self.viewer
        assert viewer is not None  # _split_unseen refused `?` in a full log
        named = {value for key, value in move.args if key not in unseen and value is not None
                 and self._held(move, key)}
        hidden = [c for c in st.hands[move.player] if not st.known[c] >> viewer & 1 and c not in named]
        if len(hidden) < len(unseen):
            return Refused("wrong claim", f"the log writes `{UNSEEN}` for {len(unseen)} held card(s) of "
                           f"{st.names[move.player]} that {st.names[viewer]} has not seen, but there are "
                           f"{len(hidden)} such card(s)")
        first: Move | None = None
        for cards in permutations(hidden, len(unseen)):
            chosen = dict(zip(unseen, cards, strict=True))
            candidate = Move(move.player, move.name, tuple((k, chosen.get(k, v)) for k, v in move.args))
            first = first or candidate
            if self.eng.check(st, candidate) is None:
                return candidate
        assert first is not None  # hidden holds at least len(unseen) cards
        return first  # illegal whichever card: the rules say why

    def _held(self, move: Move, key: str) -> bool:
        decl = self.eng.rules.moves[move.name]
        return any(p.name == key and p.kind == HELD for p in decl.params)

    # ------------------------------------------------------------ a held card the mover does not hold
    def _unheld(self, st: State, actor: int, name: str, args: list[Arg]) -> list[Arg] | Refused:
        """The arguments with each held card named by a species the mover does not hold (more often than
        named) replaced by a card of that species not held: the rules then refuse the move. In a player's
        view a held card must be one the viewer has seen: the others are `?`."""
        decl = self.eng.rules.moves.get(name)
        if decl is None:
            return args
        params = list(decl.params)
        kinds = {p.name: p.kind for p in params}
        hidden = self._hidden_hand(st, actor)
        seen = [c for c in st.hands[actor] if c not in hidden]
        out: list[Arg] = []
        for i, (key, literal) in enumerate(args):
            param = key if key is not None else params[i].name if i < len(params) else None
            if kinds.get(param or "") != HELD or not _names_a_card(st, literal):
                out.append((key, literal))  # not a held card of the deck: the notation says what is wrong
                continue
            held = next((c for c in seen if _is(st, c, literal)), None)
            if held is not None:
                seen.remove(held)  # naming the species twice names two such cards
                out.append((key, literal))
            elif hidden:
                return Refused("wrong claim", f"the log names {literal[1]} as a held card of {st.names[actor]}, "
                               f"but {self._viewer_name(st)} has not seen every card {st.names[actor]} holds: a "
                               f"card the viewer has not seen is written `{UNSEEN}`")
            else:  # not held: a label names that card, a species one of its cards; the rules refuse either
                out.append((key, literal if literal[0] == "card" else ("card", self._not_held(st, actor, literal[1]))))
        return out

    def _hidden_hand(self, st: State, actor: int) -> list[int]:
        """The mover's held cards the log's viewer has not seen (none in a full log)."""
        viewer = self.viewer
        if viewer is None:
            return []
        return [c for c in st.hands[actor] if not st.known[c] >> viewer & 1]

    def _viewer_name(self, st: State) -> str:
        return "" if self.viewer is None else st.names[self.viewer]

    @staticmethod
    def _not_held(st: State, actor: int, species: str) -> str:
        """A card of the species the mover does not hold; if the mover holds every one (named more often
        than the deck has it), one of those: the rules then say one card cannot serve twice."""
        copies = [c for c in range(len(st.known)) if st.facts.species[c] == species]
        return st.facts.label(next((c for c in copies if c not in st.hands[actor]), copies[0]))


def _names_a_card(st: State, literal: Literal) -> bool:
    shape, data = literal
    return (shape == "card" and data in st.facts.by_label) or (shape == "name" and data in st.facts.species)


def _is(st: State, card: int, literal: Literal) -> bool:
    """Whether the card is the one a literal names: by label, or by species."""
    shape, data = literal
    named: str = st.facts.label(card) if shape == "card" else st.facts.species[card]
    return bool(named == data)  # data: a JSON value
