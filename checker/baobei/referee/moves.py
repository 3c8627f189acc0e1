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

import json
import re
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


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
PLAYER, NAME = "player", "name"  # the parts of a move an error may be about, besides an argument (its index)
Part = str | int | None


class MovePartError(NotationError):
    """A move's error with the part it is about: PLAYER, NAME, the index of an argument as the log gives it
    (before `?` arguments are set aside), or None (the move as a whole)."""

    def __init__(self, message: str, part: Part) -> None:
        super().__init__(message)
        self.part = part


def move_parts(raw: str | dict[str, Any]) -> tuple[str, str, list[Arg]]:
    """The player, the move's name and its arguments (by name, or None: in order) of a logged move."""
    if isinstance(raw, str):
        tokens = raw.split()
        if len(tokens) < 2:
            raise MovePartError("a move is written PLAYER MOVE [NAME=VALUE ...]", None)
        args: list[Arg] = []
        for i, token in enumerate(tokens[2:]):
            key, sep, value = token.partition("=")
            args.append((key, _read(value, i)) if sep else (None, _read(token, i)))
        return tokens[0], tokens[1], args
    return raw["player"], raw["name"], [(k, _literal(v, i)) for i, (k, v) in enumerate(raw.get("args", {}).items())]


def _read(token: str, index: int) -> Literal:
    try:
        return literal_of(token)
    except ValueError as err:  # a number too long to read: the argument's error, not a crash
        raise MovePartError(f"not a value this referee reads: {err}", index) from None


def _literal(value: object, index: int) -> Literal:
    if value is None:
        return ("none", None)
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    return _read(str(value), index)


def where_in_move(raw: str | dict[str, Any], params: list[str], part: Part) -> tuple[str, str]:
    """The part of a logged move an error is about, in words, and (for a move text) a caret excerpt under it:
    the line's position is the line's start, so the words say where in the move the error is. A text says
    the part's character; an object the field's path, as the schema's errors do. Read from the logged move
    itself, since the error may come before its arguments were all read."""
    if isinstance(raw, dict):
        keys = [str(k) for k in raw.get("args", {})]
        if isinstance(part, int) and part < len(keys):
            key = keys[part]
            # A key that is no name (the schema allows any) is quoted, so that the path reads one way.
            return f"at move.args.{key}" if _NAME.match(key) else f"at move.args[{json.dumps(key)}]", ""
        return ("move", "") if part is None or isinstance(part, int) else (f"at move.{part}", "")
    spans = [m.span() for m in re.finditer(r"\S+", raw)]  # the tokens of raw.split(), with their places
    token = None if part is None else 0 if part == PLAYER else 1 if part == NAME else 2 + int(part)
    if token is None or token >= len(spans):
        return f"move {quoted(raw)}", ""
    if isinstance(part, int):
        key, sep, _ = raw[slice(*spans[token])].partition("=")
        label = f"argument {key}" if sep else \
            f"argument {params[part]}" if part < len(params) else f"argument {part + 1} (given in order)"
    else:
        label = f"its {part}"
    column = spans[token][0] + 1
    # A caret under the part, when the text is one line of plain characters (else the caret would miss it).
    excerpt = f"    {raw}\n    {' ' * (column - 1)}^" if raw.isprintable() else ""
    return f"move {quoted(raw)}, {label}, at its character {column}", excerpt


class MoveReader:
    """Reads the moves of one log: `viewer` is the seat whose view it is (None: a full log)."""

    def __init__(self, eng: Engine, viewer: int | None) -> None:
        self.eng = eng
        self.viewer = viewer

    def read(self, st: State, raw: str | dict[str, Any], pos: Pos) -> Move | Refused:
        name = ""  # the move's name, once read: an error names a positional argument by it
        try:
            player, name, args = move_parts(raw)
            kept, unseen, given = self._split_unseen(name, args)
            try:
                actor = player_seat(st, player)
            except NotationError as err:
                raise MovePartError(str(err), PLAYER) from None
            args_or_refused = self._unheld(st, actor, name, kept)
            if isinstance(args_or_refused, Refused):
                return args_or_refused
            try:
                move = build_move(self.eng.rules.moves, st, player, name, args_or_refused)
            except NotationError as err:
                # build_move names an argument by its index among the arguments it was given (the `?` ones
                # set aside); none: the move's name (its player is known to be right by now).
                raise MovePartError(str(err), NAME if err.arg is None else given[err.arg]) from None
        except NotationError as err:
            part = err.part if isinstance(err, MovePartError) else None
            decl = self.eng.rules.moves.get(name)
            where, excerpt = where_in_move(raw, [p.name for p in decl.params] if decl else [], part)
            raise LogError(pos, f"{where}: {err}", excerpt) from None
        except ValueError as err:  # a value no part of the move could read: said of the move as a whole
            raise LogError(pos, f"{where_in_move(raw, [], None)[0]}: {err}") from None
        return self._choose_unseen(st, move, unseen) if unseen else move

    # ------------------------------------------------------------ `?`: a held card the viewer has not seen
    def _split_unseen(self, name: str, args: list[Arg]) -> tuple[list[Arg], list[str], list[int]]:
        """The arguments without the `?` ones, the names of those (each a held card), and the index among
        `args` of each argument kept (an error about one names it as the log gives it)."""
        everyone = list(range(len(args)))
        if _UNSEEN_LITERAL not in [literal for _, literal in args]:
            return args, [], everyone
        decl = self.eng.rules.moves.get(name)
        if decl is None:
            return args, [], everyone  # build_move says the move is unknown
        params = list(decl.params)
        # By name from here: dropping a `?` given in order would shift the arguments after it.
        named = [(key if key is not None or i >= len(params) else params[i].name, literal)
                 for i, (key, literal) in enumerate(args)]
        kinds = {p.name: p.kind for p in params}
        unseen = [i for i, (_, literal) in enumerate(named) if literal == _UNSEEN_LITERAL]
        for i in unseen:
            key = named[i][0]
            if kinds.get(key or "") != HELD:
                raise MovePartError(f"`{UNSEEN}` stands for a held card the log's viewer has not seen; "
                                    f"{key or 'this argument'} of {name} is no held card", i)
        if self.viewer is None:
            raise MovePartError(f"`{UNSEEN}` (a held card not seen) is only for a player's view (`view` in the "
                                "header); a full log names every card", unseen[0])
        kept = [i for i in everyone if i not in unseen]
        return [named[i] for i in kept], [named[i][0] or "" for i in unseen], kept

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
