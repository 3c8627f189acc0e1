"""The library's front door: load the rules, deal a match, make moves, read the outcome.

In the manner of python-chess's `Board` and OpenSpiel's `Game`/`State`: a `Game` is the rules, compiled
once; a `MatchState` is one table, changed in place by `push`.

>>> import baobei
>>> game = baobei.Game.load()                       # the default rules (or a variant folder)
>>> state = game.new_match(["ann", "ben"], seed=7)
>>> state.players, state.active
(['ann', 'ben'], 'ben')
>>> sorted({move.name for move in state.legal_moves()})   # the initial peek: everybody may look
['look']
>>> events = state.push("ann look slot=ann.1")     # a move as text, or a Move
>>> state.check("ann look slot=ann.1").reason      # refused, with the rule that refuses it
'each card is looked at only once'
>>> import random
>>> rng = random.Random(1)
>>> while not state.is_over():                     # random legal moves to the end of the match
...     _ = state.push(state.random_move(rng), log=False)
>>> state.outcome().winner, state.returns()
('ann', [1.0, 0.0])

Nothing here knows the game: the end of the match, the winner and the scores are read from the rules as
data (see `MatchState.is_over` and `Outcome`), so a rules variant plays through the same calls.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .engine.engine import Engine
from .engine.move import Move
from .engine.notation import parse_move_text
from .engine.runtime import Event
from .engine.state import State
from .engine.table_view import render_table
from .language import syntax as s
from .language.errors import BaoError, IllegalMove, Rejection
from .language.load import load_ruleset
from .language.paths import default_rules_dir
from .language.ruleset import Ruleset

if TYPE_CHECKING:
    from .play.view import ViewMaker

Player = str | int  # a player by name, or by seat (0 for the first name)

# Games compiled so far, by rules folder and the state of its files: loading the same rules is free.
_LOADED: dict[tuple[str, tuple[tuple[str, int, int], ...]], Game] = {}


@dataclass(frozen=True)
class Outcome:
    """How a match ended, read from the rules as data.

    - `halt`, `reason`: the rules' halt that ends the match, and its words;
    - `winner`: the player the rules name as the match's winner. The rules name a player in a variable:
      the one that is kept for the whole match, holds a single player and is shown to people (it has
      words); None when the rules have no such variable, or it names nobody;
    - `scores`: every per-player number the rules keep for the whole match (variable -> player -> value;
      the default rules keep the round's noted score and the total);
    - `values`: every definition of the rules over one player that gives each player a number, evaluated
      on the final table (definition -> player -> value; the default rules' round value among them).
    What each name means is in the rules' own words: `game.rules.variables[name].words`,
    `game.rules.defines[name].text`.
    """

    halt: str
    reason: str
    winner: str | None
    scores: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    values: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


class Game:
    """The rules of one folder, compiled once; deals any number of matches.

    >>> game = Game.load()
    >>> game.min_players, game.max_players
    (2, 6)
    """

    def __init__(self, engine: Engine, rules_dir: Path | None = None, view_of: Game | None = None) -> None:
        self.engine = engine
        self.rules_dir = rules_dir
        self.view_of = view_of  # for a view game (`view_game`): the game whose views it plays

    @classmethod
    def load(cls, rules: str | os.PathLike[str] | None = None) -> Game:
        """The game of a rules folder (the default rules when None). The same unchanged folder gives the
        same Game, compiled once; a malformed folder raises a BaoError naming file, line and column."""
        folder = Path(rules) if rules is not None else default_rules_dir()
        if not folder.is_dir():
            raise BaoError(f"{folder}: no such rules folder")
        files = tuple((f.name, f.stat().st_mtime_ns, f.stat().st_size) for f in sorted(folder.glob("*.bao")))
        key = (str(folder.resolve()), files)
        game = _LOADED.get(key)
        if game is None:
            game = _LOADED[key] = cls(Engine(load_ruleset(folder)), folder)
        return game

    @property
    def rules(self) -> Ruleset:
        """The checked rules: moves, variables, definitions, halts, policies ... with their citations."""
        return self.engine.rules

    @property
    def min_players(self) -> int:
        return self.engine.rules.min_players

    @property
    def max_players(self) -> int:
        return self.engine.rules.max_players

    @property
    def move_names(self) -> list[str]:
        """Every move the rules declare, abilities and their steps included, in declaration order."""
        return list(self.engine.rules.moves)

    def new_match(self, players: int | Sequence[str] = 2, seed: int = 0, *, log: bool = True) -> MatchState:
        """A match dealt from `seed` among the named players (or `p1` ... `pN` for a count): the same
        seed deals the same cards and draws the same random outcomes. `log`: keep the deal's events."""
        names = [f"p{i + 1}" for i in range(players)] if isinstance(players, int) else list(players)
        st, events = self.engine.new_match(names, seed, log)
        return MatchState(self, st, tuple(events))

    def state_from_json(self, data: str | Mapping[str, Any]) -> MatchState:
        """The state `MatchState.to_json` wrote (its random generator included: play goes on the same)."""
        loaded = json.loads(data) if isinstance(data, str) else dict(data)
        return MatchState(self, State.from_json(loaded, self.engine.facts, self.engine.pile_locs))

    @cached_property
    def views(self) -> ViewMaker:
        """Makes the players' views (compiled on first use: most callers never need one)."""
        from .play.view import ViewMaker

        return ViewMaker(self.engine)

    @cached_property
    def view_game(self) -> Game:
        """The game a view is a state of: these rules with one blank card per card of the deck."""
        return Game(self.views.engine, self.rules_dir, view_of=self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self  # the compiled rules never change: copies of states share them

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its rules folder: unpickling loads (and compiles) the rules there."""
        if self.view_of is not None:
            return (_view_game, (self.view_of,))
        return (Game.load, (None if self.rules_dir is None else str(self.rules_dir),))

    def __repr__(self) -> str:
        return f"<Game {self.rules_dir or self.engine.rules.source}>"


class MatchState:
    """One table of a match: changed in place by `push`; `copy` gives an independent one.

    `raw` is the engine's state (for the engine's own calls); `events` are those of the last move (of the
    deal, for a new match).
    """

    __slots__ = ("_generated", "events", "game", "raw")

    def __init__(self, game: Game, raw: State, events: tuple[Event, ...] = ()) -> None:
        self.game = game
        self.raw = raw
        self.events = events
        self._generated: Move | None = None  # the move `random_move` just gave: legal, not checked twice

    # ------------------------------------------------------------ who and where
    @property
    def players(self) -> list[str]:
        return list(self.raw.names)

    @property
    def active(self) -> str:
        """The player whose turn it is (others may still act out of turn)."""
        return self.raw.names[self.raw.active]

    @property
    def phase(self) -> str:
        return self.raw.phase

    @property
    def round(self) -> int:
        return self.raw.round

    @property
    def turn(self) -> int:
        return self.raw.turn

    def seat(self, player: Player) -> int:
        """A player's seat (0 for the first player) from a name or a seat; a BaoError for neither."""
        names = self.raw.names
        if isinstance(player, int) and 0 <= player < len(names):
            return player
        if isinstance(player, str) and player in names:
            return names.index(player)
        raise BaoError(f"no player {player!r}; the players are: {', '.join(names)}")

    # ------------------------------------------------------------ moves
    def legal_moves(self, player: Player | None = None) -> LegalMoves:
        """Every legal move now (out-of-turn calls included), or one player's: a live collection, computed
        when iterated, that answers `in` and `bool` without listing the others."""
        return LegalMoves(self, None if player is None else self.seat(player))

    def movers(self) -> list[str]:
        """Who may act now: the active player and anyone with an out-of-turn move."""
        return [self.raw.names[p] for p in self.game.engine.movers(self.raw)]

    def parse_move(self, text: str) -> Move:
        """A move from its text, `PLAYER MOVE [NAME=VALUE ...]` (`ben pluck target=ann.2 gift=ben.1`); a
        NotationError (a BaoError) when the text names no move of these rules."""
        return parse_move_text(self.game.engine.rules.moves, self.raw, text)

    def move_text(self, move: Move) -> str:
        """The move's canonical text: `parse_move(move_text(m)) == m`."""
        return self.game.engine.describe(self.raw, move)

    def _move(self, move: Move | str) -> Move:
        return self.parse_move(move) if isinstance(move, str) else move

    def check(self, move: Move | str) -> Rejection | None:
        """None when the move is legal now, else why not: the decisive rule first (`rule`, `cite`,
        `reason`), the further reasons in `others`."""
        return self.game.engine.check(self.raw, self._move(move))

    def is_legal(self, move: Move | str) -> bool:
        return self.game.engine.is_legal(self.raw, self._move(move))

    def push(self, move: Move | str, *, log: bool = True) -> list[Event]:
        """Make a legal move and return its events (each with the rule that caused it; none when `log` is
        false). An illegal move raises IllegalMove (its `rejection` says why) and changes nothing."""
        eng = self.game.engine
        if move is self._generated and move is not None:
            self._generated = None
            events = eng.push_checked(self.raw, move, log)  # `random_move` gave it for this very table
        else:
            self._generated = None
            events = eng.push(self.raw, self._move(move), log)
        self.events = tuple(events)
        return events

    def random_move(self, rng: random.Random, player: Player | None = None) -> Move | None:
        """A legal move drawn uniformly (of `player` only, when given); None when nobody may act. Pushing
        the very move returned next costs no second legality check."""
        seat = None if player is None else self.seat(player)
        move = self.game.engine.random_move(self.raw, rng, player=seat)
        self._generated = move
        return move

    # ------------------------------------------------------------ the end
    def halt(self) -> s.HaltDecl | None:
        """The rules' halt that holds now (while it holds only the moves it allows may be made)."""
        return self.game.engine.halt(self.raw)

    def is_over(self) -> bool:
        """The match is over: a halt of the rules holds and nobody has a legal move. (No phase or variable
        is named here: a halt that allows a move, like dealing the next round, does not end the match.)"""
        eng = self.game.engine
        return eng.halt(self.raw) is not None and eng.first_move(self.raw) is None

    def outcome(self) -> Outcome | None:
        """How the match ended (None while it goes on): see `Outcome`."""
        halt = self.halt()
        if halt is None or not self.is_over():
            return None
        return Outcome(halt.name, halt.text, self._winner(), self._scores(), self._values())

    def returns(self) -> list[float]:
        """Per seat: 1.0 for the winner and 0.0 for the others once the match is over; 0.0 each before."""
        winner = self._winner() if self.is_over() else None
        return [1.0 if name == winner else 0.0 for name in self.raw.names]

    def _winner(self) -> str | None:
        named = [self.raw.vars.get(v.name) for v in _winner_variables(self.game.engine.rules)]
        players = [p for p in named if isinstance(p, int) and 0 <= p < len(self.raw.names)]
        return self.raw.names[players[0]] if len(players) == 1 else None

    def _scores(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for v in self.game.engine.rules.variables.values():
            if v.per_player and v.whole_match and v.type == "int" and v.name in self.raw.pvars:
                out[v.name] = dict(zip(self.raw.names, self.raw.pvars[v.name], strict=True))
        return out

    def _values(self) -> dict[str, dict[str, int]]:
        eng, out = self.game.engine, {}
        for d in eng.rules.defines.values():
            if not d.formals or len(d.formals) != 1 or d.formals[0].type != "player":
                continue
            try:
                values = [eng.define_value(self.raw, d.name, p) for p in range(len(self.raw.names))]
            except Exception:  # a definition that means nothing on this table (it reads a value not set)
                continue
            if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                out[d.name] = dict(zip(self.raw.names, values, strict=True))
        return out

    # ------------------------------------------------------------ views, copies, JSON
    def view(self, player: Player) -> MatchState:
        """What `player` may know: this table with every card the player has not seen replaced by a blank
        (a state of `game.view_game`; tables that differ only in hidden cards give the same view)."""
        views = self.game.views
        return MatchState(self.game.view_game, views.view(self.raw, self.seat(player)).state)

    def copy(self) -> MatchState:
        return MatchState(self.game, self.raw.copy(), self.events)

    def to_json(self) -> str:
        """The whole state as JSON (random generator included); `Game.state_from_json` reads it back."""
        return self.game.engine.state_to_json(self.raw)

    def table(self, player: Player | None = None) -> list[str]:
        """The table in words, one line per player and pile (as `player` sees it, when given)."""
        viewer = None if player is None else self.seat(player)
        return render_table(self.game.engine, self.raw, viewer=viewer)

    def __str__(self) -> str:
        return "\n".join(self.table())

    def __repr__(self) -> str:
        return f"<MatchState round {self.round} turn {self.turn} phase {self.phase!r} active {self.active!r}>"


class LegalMoves:
    """The legal moves of a state (of one seat, or of everybody): computed when read, never stored."""

    __slots__ = ("_seat", "_state")

    def __init__(self, state: MatchState, seat: int | None) -> None:
        self._state = state
        self._seat = seat

    def __iter__(self) -> Iterator[Move]:
        return self._state.game.engine.legal_moves(self._state.raw, self._seat)

    def __contains__(self, move: object) -> bool:
        if isinstance(move, str):
            try:
                move = self._state.parse_move(move)
            except BaoError:
                return False
        if not isinstance(move, Move) or (self._seat is not None and move.player != self._seat):
            return False
        return self._state.game.engine.generates(self._state.raw, move)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return self._state.game.engine.first_move(self._state.raw, self._seat) is not None

    def texts(self) -> list[str]:
        return [self._state.move_text(m) for m in self]

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(self.texts())})>"


def _view_game(game: Game) -> Game:
    return game.view_game


def _winner_variables(rules: Ruleset) -> list[s.VarDecl]:
    """The variables that may name the match's winner: kept for the whole match, one player, and shown
    to people (a variable without words is bookkeeping, such as who started the last round)."""
    return [v for v in rules.variables.values()
            if v.type == "player" and v.whole_match and not v.per_player and v.words]


__all__ = ["Game", "IllegalMove", "LegalMoves", "MatchState", "Move", "Outcome", "Rejection"]
