"""BAO BEI as a turn-based game of small integer actions, with explicit chance: what the OpenSpiel and
PettingZoo bindings (baobei.bindings.openspiel, baobei.bindings.pettingzoo) share.

A table of the rules lets several players act at once (out-of-turn calls into a window, the initial
peek). Game-playing frameworks ask one player at a time, so a `Table` asks in a fixed order, the order
the project's simulation asks in (play/dealer.py): every player who has a legal move now, those acting
out of turn first in the rules' order of simultaneous calls (decision D6: clockwise from the active
player), the active player last. Each may PASS but the last, who must move. A move made starts the
asking again on the new table; a pass hands the question to the next player in that order.

A move is chosen in steps, so that the action space stays small: first its kind (the move's name), then
each argument in declared order (a slot, a player, a held card, yes or no, or none for an optional one).
Only values that some legal move completes are offered, so a chosen kind always ends in a legal move.

Chance is explicit. Every random outcome of the rules is a chance node: which card a draw from the
face-down pile gives (every card there is equally likely; nobody knows any of them, since only a shuffle
puts cards there) and which item a random `pick` of the rules chooses. A shuffle itself decides nothing:
the draws that follow it are the outcomes. The engine makes a move in one piece, so a move with random
outcomes is run on a copy of the table, outcome by outcome: it stops at the first outcome not chosen yet
(a chance node), and once every outcome is chosen it runs to its end and the table moves on.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, MutableSequence
from dataclasses import dataclass
from typing import Any

from ..engine.engine import Engine
from ..engine.legality import CompiledMove
from ..engine.move import Move
from ..engine.runtime import Ctx
from ..engine.state import Chance, State
from ..game import Game, MatchState
from ..play.view import map_cards

PASS = 0  # the action of a player who does not act now
TERMINAL = -4  # the values OpenSpiel gives these (pyspiel.PlayerId)
CHANCE = -1
_LABEL = re.compile(r"[^\s=,:;()\[\]{}]+#[0-9]+")


class NeedOutcome(Exception):
    """A move asks for a random outcome that has not been chosen: `options` are the possible ones."""

    def __init__(self, kind: str, options: list[int], label: Callable[[int], str]) -> None:
        super().__init__(kind)
        self.kind = kind
        self.options = options
        self.label = label  # an outcome in words (asked only when somebody reads it)


class Scripted(Chance):
    """The random outcomes of one move, chosen one by one from outside: the card a draw gives (by number),
    the item a pick chooses (by index). Asking for one beyond those chosen raises NeedOutcome."""

    def __init__(self, outcomes: list[int]) -> None:
        self.gauss_next = None  # never seeded (a seed costs more than the move): it draws no numbers
        self.outcomes = outcomes
        self.used = 0

    def _next(self, kind: str, options: list[int], label: Callable[[int], str]) -> int:
        if self.used == len(self.outcomes):
            raise NeedOutcome(kind, options, label)
        self.used += 1
        return self.outcomes[self.used - 1]

    def shuffle(self, x: MutableSequence[Any], random: Any = None) -> None:
        """No outcome: each draw from the shuffled pile is one."""

    def before_draw(self, st: State, pile: list[int]) -> None:
        card = self._next("draw", sorted(pile), st.facts.label)
        pile.remove(card)
        pile.append(card)

    def pick(self, items: list[Any], kind: str) -> Any:
        return items[self._next("pick", list(range(len(items))), lambda i: str(items[i]))]


@dataclass(frozen=True)
class Actions:
    """The integer actions of one game (rules and player count): PASS, a move's kind, an argument's value.

    0 PASS | 1.. a move, in the rules' order | none | false, true | a player by seat | a slot (seat, number)
    | a card by number. Slots are numbered up to the deck size (no tableau can hold more cards)."""

    moves: tuple[str, ...]
    players: int
    deck: int

    @property
    def none(self) -> int:
        return 1 + len(self.moves)

    @property
    def bools(self) -> int:
        return self.none + 1

    @property
    def seats(self) -> int:
        return self.bools + 2

    @property
    def slots(self) -> int:
        return self.seats + self.players

    @property
    def cards(self) -> int:
        return self.slots + self.players * self.deck

    @property
    def size(self) -> int:
        return self.cards + self.deck

    def of_move(self, name: str) -> int:
        return 1 + self.moves.index(name)

    def of_value(self, kind: str, value: Any) -> int:
        if value is None:
            return self.none
        if kind == "bool":
            return self.bools + int(bool(value))
        if kind == "player":
            return self.seats + int(value)
        if kind == "held_card":
            return self.cards + int(value)
        seat, number = value
        return int(self.slots + seat * self.deck + number - 1)

    def value(self, kind: str, action: int) -> Any:
        """The argument value of an action (the inverse of `of_value` for that kind)."""
        if action == self.none:
            return None
        if kind == "bool":
            return action == self.bools + 1
        if kind == "player":
            return action - self.seats
        if kind == "held_card":
            return action - self.cards
        seat, number = divmod(action - self.slots, self.deck)
        return (seat, number + 1)


def next_values(eng: Engine, st: State, seat: int, cm: CompiledMove, prefix: tuple[Any, ...]) -> list[Any]:
    """The values of argument `len(prefix)` that some legal move of this kind, with these first arguments,
    has (the engine's own guards, decided as soon as the arguments they read are chosen)."""
    names = [p.name for p in cm.decl.params]
    domains = [([None] if optional else []) + eng.domain(st, kind, seat) for kind, optional in cm.arg_kinds]
    ctx = Ctx(st, eng.env_for(st, cm, seat, ()), None)
    env = ctx.env
    env.update(zip(names, prefix, strict=False))

    def fits(depth: int, value: Any) -> bool:
        env[names[depth]] = value
        return all(fn(ctx) for fn in cm.levels[depth]) and completes(depth + 1)

    def completes(depth: int) -> bool:
        if depth == len(names):
            return eng.blocked_step(st, cm, env) is None
        found = any(fits(depth, value) for value in domains[depth])
        for name in names[depth:]:
            env[name] = None
        return found

    depth = len(prefix)
    if depth == len(names):
        return []
    out = [value for value in domains[depth] if fits(depth, value)]
    for name in names[depth:]:
        env[name] = None
    return out


class Table:
    """One match as a turn-based game with explicit chance (see the module). `current` is a seat, CHANCE
    or TERMINAL; `legal_actions`, `apply` and `chance_outcomes` move it on."""

    def __init__(self, game: Game, players: int, max_actions: int) -> None:
        self.game = game
        self.eng = game.engine
        self.actions = Actions(tuple(self.eng.rules.moves), players, len(self.eng.facts))
        self.max_actions = max_actions
        names = [f"p{i + 1}" for i in range(players)]
        self.st = self.eng.blank_state(names, 0)
        self.base = self.st
        self.pending: Move | None = None  # the move waiting for its random outcomes (None: the deal)
        self.dealing = True
        self.outcomes: list[int] = []
        self.need: NeedOutcome | None = None
        self.order: list[int] = []  # who is asked now, in order; `index` is the one asked
        self.index = 0
        self.partial: tuple[int, str, tuple[Any, ...]] | None = None  # a move being chosen: seat, name, values
        self.decisions = 0  # actions of the players so far (the cap counts these)
        self.history: list[str] = []  # what everybody saw happen: the moves' texts and the passes
        self.ended = False  # nobody may act on the table (a halt of the rules ends the match)
        self._run()

    # ------------------------------------------------------------ copies
    def copy(self) -> Table:
        new = Table.__new__(Table)
        new.__dict__.update(self.__dict__)
        new.st = self.st.copy()
        new.outcomes = list(self.outcomes)
        new.order = list(self.order)
        new.history = list(self.history)
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self.copy()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its JSON form and the game's rules folder (the compiled rules are not pickled)."""
        folder = None if self.game.rules_dir is None else str(self.game.rules_dir)
        return (_table_from_json, (folder, self.actions.players, self.max_actions, self.to_json()))

    # ------------------------------------------------------------ whose turn
    @property
    def current(self) -> int:
        if self.need is not None:
            return CHANCE
        if self.is_over():
            return TERMINAL
        return self.partial[0] if self.partial is not None else self.order[self.index]

    def is_over(self) -> bool:
        """Nobody may act (a halt of the rules ends the match), or the match was cut at `max_actions`."""
        return self.need is None and (self.ended or self.decisions >= self.max_actions)

    def truncated(self) -> bool:
        """Cut at `max_actions` before the rules ended it (every return is then 0)."""
        return self.is_over() and not self.game_over()

    def game_over(self) -> bool:
        """The rules ended the match: a halt holds and nobody may act."""
        return self.need is None and self.ended and self.eng.halt(self.st) is not None

    def returns(self) -> list[float]:
        if not self.game_over():
            return [0.0] * self.actions.players
        return MatchState(self.game, self.st).returns()

    # ------------------------------------------------------------ the players' actions
    def legal_actions(self) -> list[int]:
        seat = self.current
        if seat < 0:
            return []
        if self.partial is not None:
            _, name, prefix = self.partial
            cm = self.eng.moves[name]
            kind = cm.decl.params[len(prefix)].kind
            return sorted(self.actions.of_value(kind, v) for v in next_values(self.eng, self.st, seat, cm, prefix))
        kinds = [self.actions.of_move(cm.name) for cm in self.eng.candidates(self.st, seat)
                 if self._has_move(seat, cm)]
        may_pass = self.index < len(self.order) - 1
        return ([PASS] if may_pass else []) + sorted(kinds)

    def _has_move(self, seat: int, cm: CompiledMove) -> bool:
        return self.eng.first_legal(self.st, seat, cm) is not None

    def apply(self, action: int) -> None:
        if self.need is not None:
            self.outcomes.append(action)
            self._run()
            return
        seat = self.current
        self.decisions += 1
        if self.partial is None and action == PASS:
            self.history.append(f"{self.st.names[seat]} passes")
            self.index += 1
        elif self.partial is None:
            self.partial = (seat, self.actions.moves[action - 1], ())
        else:
            _, name, prefix = self.partial
            kind = self.eng.moves[name].decl.params[len(prefix)].kind
            self.partial = (seat, name, (*prefix, self.actions.value(kind, action)))
        self._complete()

    def _complete(self) -> None:
        """A move whose every argument is chosen is made."""
        if self.partial is None:
            return
        seat, name, values = self.partial
        params = self.eng.moves[name].decl.params
        if len(values) < len(params):
            return
        self.partial = None
        move = Move(seat, name, tuple((p.name, v) for p, v in zip(params, values, strict=True)))
        self.history.append(self.eng.describe(self.st, move))
        self.base, self.pending, self.outcomes = self.st, move, []
        self._run()

    # ------------------------------------------------------------ chance
    def chance_outcomes(self) -> list[tuple[int, float]]:
        assert self.need is not None
        p = 1.0 / len(self.need.options)
        return [(o, p) for o in self.need.options]

    def _run(self) -> None:
        """Run the pending move (or the deal) with the outcomes chosen so far: a chance node when it needs
        one more, else the table moves on."""
        work = self.base.copy()
        work.use_chance(Scripted(self.outcomes))
        try:
            if self.dealing:
                self.eng.start_round(work, None)
            else:
                assert self.pending is not None
                self.eng.push_checked(work, self.pending, False)
        except NeedOutcome as need:
            self.need = need
            return
        self.st, self.need, self.pending, self.dealing, self.outcomes = work, None, None, False, []
        self._ask()

    def _ask(self) -> None:
        """Who is asked on the new table, in order (see the module)."""
        st, eng = self.st, self.eng
        movers = eng.movers(st)
        call = eng.call_order(st) or st.seats_from(st.active)
        order = [p for p in call if p in movers and p != st.active]
        order += [p for p in movers if p not in order and p != st.active]
        order += [st.active] if st.active in movers else []
        self.order, self.index = order, 0
        self.ended = not order

    def outcome_text(self, action: int) -> str:
        need = self.need
        if need is None or action not in need.options:
            return f"outcome {action}"
        return f"{need.kind} {need.label(action)}"

    # ------------------------------------------------------------ words
    def action_text(self, seat: int, action: int) -> str:
        if seat == CHANCE:
            return self.outcome_text(action)
        if action == PASS and self.partial is None:
            return "pass"
        if self.partial is None:
            return self.actions.moves[action - 1] if 0 < action <= len(self.actions.moves) else f"action {action}"
        _, name, prefix = self.partial
        param = self.eng.moves[name].decl.params[len(prefix)]
        value = self.actions.value(param.kind, action)
        from ..engine.notation import value_text

        return f"{param.name}={'none' if value is None else value_text(self.st, param.kind, value)}"

    def observation_text(self, seat: int) -> str:
        """What the player sees now: the table as the player's view (play/view.py), who is asked, and the
        move being chosen."""
        view = self.game.views.view_json(self.st, seat)
        view.pop("rng", None)
        asked = "nobody" if self.current < 0 else self.st.names[self.current]
        parts = [json.dumps(view, sort_keys=True, separators=(",", ":")), f"asked: {asked}"]
        if self.partial is not None:
            parts.append(self._hidden(seat, f"choosing: {self._choosing_text()}"))
        return "\n".join(parts)

    def _choosing_text(self) -> str:
        """The move being chosen, in the scenario notation: a held card by its label (hidden per viewer)."""
        from ..engine.notation import value_text

        assert self.partial is not None
        who, name, prefix = self.partial
        params = self.eng.moves[name].decl.params
        args = [f"{p.name}={'none' if v is None else value_text(self.st, p.kind, v)}"
                for p, v in zip(params, prefix, strict=False)]
        return " ".join([self.st.names[who], name, *args])

    def _hidden(self, seat: int, text: str) -> str:
        """The text with every card the player does not know shown as `?`."""
        known, labels = self.st.known, self.st.facts.by_label

        def hide(match: re.Match[str]) -> str:
            card = labels.get(match.group(0))
            return match.group(0) if card is None or known[card] >> seat & 1 else "?"

        return _LABEL.sub(hide, text)

    def information_text(self, seat: int) -> str:
        """The observation and everything the player saw happen since the deal (each move's text with
        the cards the player does not know hidden)."""
        seen = [self._hidden(seat, line) for line in self.history]
        return self.observation_text(seat) + "\n" + "\n".join(seen)

    # ------------------------------------------------------------ states the player cannot tell apart
    def resample(self, seat: int, rng: random.Random) -> Table:
        """A table the player cannot tell from this one: the cards it does not know dealt anew among their
        places (who knows each card and its marks stay with the place). Only at a player's decision."""
        assert self.need is None, "resampling is for a player's decision, not a chance node"
        new = self.copy()
        hidden = [c for c in range(len(self.st.known)) if not self.st.known[c] >> seat & 1]
        shuffled = list(hidden)
        rng.shuffle(shuffled)
        relabel = dict(zip(hidden, shuffled, strict=True))
        new.st = _relabelled(self, relabel)
        new.base = new.st
        label = self.st.facts.label
        names = {label(c): label(d) for c, d in relabel.items()}
        new.history = [_LABEL.sub(lambda m: names.get(m.group(0), m.group(0)), line) for line in self.history]
        if self.partial is not None:  # a held card already chosen is the card now in its place
            who, name, prefix = self.partial
            params = self.eng.moves[name].decl.params
            new.partial = (who, name, tuple(relabel.get(v, v) if p.kind == "held_card" else v
                                            for p, v in zip(params, prefix, strict=False)))
        return new

    # ------------------------------------------------------------ serialisation
    def to_json(self) -> dict[str, Any]:
        return {"state": self.st.to_json(), "base": self.base.to_json(), "dealing": self.dealing,
                "pending": None if self.pending is None else _move_json(self.pending),
                "outcomes": self.outcomes, "order": self.order, "index": self.index,
                "partial": None if self.partial is None else [self.partial[0], self.partial[1],
                                                              [_value_json(v) for v in self.partial[2]]],
                "decisions": self.decisions, "history": self.history, "ended": self.ended}

    @classmethod
    def from_json(cls, game: Game, players: int, max_actions: int, data: dict[str, Any]) -> Table:
        new = cls.__new__(cls)
        new.game, new.eng = game, game.engine
        new.actions = Actions(tuple(game.engine.rules.moves), players, len(game.engine.facts))
        new.max_actions = max_actions
        facts, piles = new.eng.facts, new.eng.pile_locs
        new.st, new.base = State.from_json(data["state"], facts, piles), State.from_json(data["base"], facts, piles)
        new.dealing = data["dealing"]
        new.pending = None if data["pending"] is None else _move_from(data["pending"])
        new.outcomes, new.order, new.index = list(data["outcomes"]), list(data["order"]), data["index"]
        partial = data["partial"]
        new.partial = None if partial is None else (partial[0], partial[1], tuple(_value_from(v) for v in partial[2]))
        new.decisions, new.history, new.ended = data["decisions"], list(data["history"]), data["ended"]
        new.need = None
        if new.dealing or new.pending is not None:
            new._run()
        return new


def _table_from_json(folder: str | None, players: int, max_actions: int, data: dict[str, Any]) -> Table:
    return Table.from_json(Game.load(folder), players, max_actions, data)


def _relabelled(table: Table, relabel: dict[int, int]) -> State:
    """The table's state with each card c renamed relabel[c] (who knows a card and its marks stay with
    its place); the rest of the state as it was."""
    eng, st = table.eng, table.st
    views = table.game.views
    data = map_cards(st.to_json(), lambda c: relabel.get(c, c), views.card_args, views.card_vars)
    known, marks = list(st.known), list(st.marks)
    for c, d in relabel.items():
        known[d], marks[d] = st.known[c], st.marks[c]
    data["known"], data["marks"] = known, marks
    return State.from_json(data, eng.facts, eng.pile_locs)


def _value_json(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _value_from(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _move_json(move: Move) -> list[Any]:
    return [move.player, move.name, [[k, _value_json(v)] for k, v in move.args]]


def _move_from(data: list[Any]) -> Move:
    player, name, args = data
    return Move(player, name, tuple((k, _value_from(v)) for k, v in args))
