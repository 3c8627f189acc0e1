"""`baobei play --human p1[,p2 ...] [--bots POLICY]`: BAO BEI at the terminal, hot-seat or against bots.

The table is dealt from the seed as `baobei play` deals it and played on a game log's writer
(referee/write.py), so that the game is written as a log `baobei referee` accepts. Who is asked for a move
follows the simulated dealer (play/dealer.py): the players with a legal move, those out of turn first in
the rules' order of simultaneous calls (decision D6), the active player last. A bot answers by its policy
from its view; a person is shown their view and chooses (play/choice.py), or passes when the move is out
of turn and somebody else could act. A person who passed is not asked again until their situation changes
(a new window, a new turn): a window that opens asks every person who may call on it, once.

Each person sees only what their player knows: the table with every card they have not seen as `?`, and
the moves and events since they last looked, with such cards as "a card". With several people (hot-seat)
the screen is cleared before it is passed on, and the next player confirms they alone look at it.

A refused move (typed, or picked from a list made from the view) shows its decisive rule: section,
paragraphs, the reason and the rule's words, then the other reasons; the same player chooses again.
At the end of a round every tableau is shown with its values, then the rules' own words on the round:
values, the BAO result and the totals (the `say` statements of the rules).
"""

from __future__ import annotations

import builtins
import random
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.notation import NotationError, parse_move_text
from ..engine.runtime import Event
from ..engine.state import State
from ..engine.table_view import render_table
from ..language.errors import BaoError, Rejection
from ..language.output import write_output
from ..language.words import plural
from ..referee.why import rule_text
from ..referee.write import LogWriter
from .choice import Chooser, Option
from .policies import Policy, make_policy
from .seats import split_policies
from .simulate import shown_together, stalled
from .view import PlayerView, ViewMaker

if TYPE_CHECKING:
    from rich.console import Console

InputFn = Callable[[str], str]

HELP = (
    "How to choose: type the number of a move in the list, or type the move as a scenario writes it",
    "  (`keep slot=p1.2`, `pluck target=p2.3 gift=p1.1`; your name in front may be left out; Tab completes).",
    "  A number that opens a kind of move lists its arguments next; `b` goes back to the first list.",
    "  Enter alone passes when you are asked out of turn (a GERUPFT! window, say) and need not act.",
    "Other commands: `t` the table again, `d` the deck (values, families, abilities), `?` this help,",
    "  `q` stop the game (the log written so far is kept).",
    "In the table: ? is a card you have not seen; {p1,p2} who has seen a card ({all}: everyone, {-}: nobody);",
    "  * marks the active player; `holds` the card in a player's hand.",
)


class Quit(Exception):
    """A person stopped the game (`q`, or the end of the input)."""


@dataclass(frozen=True)
class Reader:
    """Who reads a line: a set of seats (a bit mask). A card is named only when every one of them knows it;
    else it is "a card". A person is a reader of one seat; the table between rounds, of every person's."""

    mask: int

    def knows(self, knowers: int) -> bool:
        return knowers & self.mask == self.mask

    def event(self, e: Event, text: str | None = None) -> str:
        text = e.text if text is None else text
        for label, knowers in e.cards:
            if not self.knows(knowers):
                text = re.sub(re.escape(label) + r"(?![0-9])", "a card", text)
        return text

    def events(self, events: Sequence[Event], indent: str = "  ") -> list[str]:
        """The events as `baobei play` prints them (the rules' bookkeeping left out), each with its rule; a run
        of events of one rule that differ in their last word only is one line (a deal's cards to each slot)."""
        lines: list[tuple[str, str]] = []  # (text, rule)
        for group in shown_together([e for e in events if e.kind != "set"]):
            first = group[0]
            if len(group) > 1:
                cards = ", ".join(self.event(e, f"{e.cards[0][0]} ({e.place})") for e in group)
                text = f"{first.owner}'s cards are shown to everyone: {cards}"
            else:
                text = self.event(first)
            rule = f"[{first.rule}, {first.cite}]"
            head, _, last = text.rpartition(" ")
            if lines and head and lines[-1][1] == rule and lines[-1][0].startswith(head + " ") \
                    and " " not in lines[-1][0][len(head) + 1:].replace(", ", ","):
                lines[-1] = (f"{lines[-1][0]}, {last}", rule)
            else:
                lines.append((text, rule))
        return [f"{indent}{text}  {rule}" for text, rule in lines]

    def move(self, st: State, text: str) -> str:
        """A move's text with every card label the readers do not all know replaced by "a card"."""
        def hide(match: re.Match[str]) -> str:
            card = st.facts.by_label.get(match.group(0))
            return match.group(0) if card is None or self.knows(st.known[card]) else "a card"

        return re.sub(r"[^\s=,:;()\[\]{}]+#[0-9]+", hide, text)


# Styles by meaning, as the other commands colour their lines (on a terminal only).
STYLES = {"head": "bold", "pass": "green", "fail": "bold red", "warn": "yellow", "dim": "dim"}


class Screen:
    """The terminal: lines (styled on a terminal only), headers, and clearing, which hides what was shown
    (the visible screen and, on terminals that keep it, the scrollback)."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def say(self, text: str = "", style: str | None = None) -> None:
        self.console.print(text, style=STYLES.get(style or ""), markup=False, highlight=False,
                           soft_wrap=True, emoji=False)

    def head(self, title: str) -> None:
        self.console.rule(title, style="dim")

    def clear(self) -> None:
        if self.console.is_terminal:
            self.console.clear()
            self.console.file.write("\x1b[3J")  # the scrollback too, where terminals keep one
            self.console.file.flush()
        else:
            self.say("---- the screen is cleared here (on a terminal the previous view disappears) ----")


def human_seats(text: str, players: int) -> list[int]:
    """Seats from `p1,p3` (or `1,3`): each a player of the table, none twice."""
    seats: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        number = part.removeprefix("p")
        if not number.isdigit() or not 1 <= int(number) <= players:
            raise BaoError(f"--human {text}: {part or 'an empty name'} is no player; the players are p1 to p{players}")
        if int(number) - 1 in seats:
            raise BaoError(f"--human {text}: {part} is named twice")
        seats.append(int(number) - 1)
    return seats


@dataclass
class HumanPlay:
    """One match at the terminal: people at some seats, bots of a policy at the others."""

    eng: Engine
    rules_dir: Path
    players: int
    humans: list[int]
    bots: list[str]  # a policy per bot seat, in seat order
    seed: int
    input_fn: InputFn
    screen: Screen
    max_turns: int | None = None
    writer: LogWriter = field(init=False)
    views: ViewMaker = field(init=False)
    policies: dict[int, Policy] = field(init=False)
    backlog: dict[int, list[str]] = field(init=False)
    public: list[str] = field(init=False, default_factory=list)  # lines for every person since one last chose
    passed: dict[int, tuple[Any, ...]] = field(init=False, default_factory=dict)
    at_screen: int | None = field(init=False, default=None)  # whose view the screen shows (None: nobody's)
    result: list[Event] = field(init=False, default_factory=list)  # the words of the round just scored
    chooser: Chooser | None = field(init=False, default=None)  # the legal moves of the person choosing now

    def __post_init__(self) -> None:
        names = [f"p{i + 1}" for i in range(self.players)]
        self.writer = LogWriter(self.eng, self.rules_dir, names, self.seed)
        self.views = ViewMaker(self.eng)
        bot_seats = [p for p in range(self.players) if p not in self.humans]
        self.policies = {p: make_policy(name, self.views.engine) for p, name in zip(bot_seats, self.bots, strict=True)}
        self.rng = random.Random(f"policies/{self.seed}")
        self.backlog = {p: [] for p in self.humans}
        self.everyone = Reader(sum(1 << p for p in self.humans))
        self.round_turn = self.st.turn

    @property
    def st(self) -> State:
        return self.writer.st

    @property
    def hotseat(self) -> bool:
        return len(self.humans) > 1

    def name(self, seat: int) -> str:
        return self.st.names[seat]

    # ------------------------------------------------------------ the match
    def run(self) -> int:
        self.introduce()
        self.record(None, self.writer.deal_events)
        try:
            while self.step():
                pass
        except Quit as stop:
            self.screen.say(f"the game stops here: {stop}", "warn")
        return 0

    def introduce(self) -> None:
        seats = ", ".join(f"{self.name(p)} ({self.who(p)})" for p in range(self.players))
        self.screen.head(f"BAO BEI, seed {self.seed}")
        self.screen.say(f"at the table: {seats}")
        self.screen.say("type ? for help, q to stop", "dim")

    def who(self, seat: int) -> str:
        if seat in self.humans:
            return "a person" if self.hotseat else "you"
        bots = [p for p in range(self.players) if p not in self.humans]
        return f"bot: {self.bots[bots.index(seat)]}"

    def step(self) -> bool:
        """One move, or the end of a round; false once the match is over."""
        st, eng = self.st, self.eng
        halt = eng.halt(st)
        if halt is not None:
            return self.between_rounds()
        if self.max_turns is not None and st.turn - self.round_turn >= self.max_turns:
            self.screen.say(f"stopped after {self.max_turns:,} turns of this round (--max-turns): the rules set no "
                            "limit to a round", "warn")
            return False
        movers = eng.movers(st)
        if not movers:
            stalled(eng, st)  # raises: nobody may act and no halt says the game is over
            return False
        move = self.next_move(movers)
        self.play(move)
        return True

    def next_move(self, movers: list[int]) -> Move:
        """Ask the players who may act, out of turn first in the rules' order of calls, the active player last;
        the first who does not wait moves. When every one waits, the last must."""
        st = self.st
        calls = self.eng.call_order(st)
        calls = calls if calls is not None else st.seats_from(st.active)
        order = [p for p in calls if p in movers and p != st.active]
        order += [st.active] if st.active in movers else []
        for seat in order:
            move = self.ask(seat, forced=False)
            if move is not None:
                return move
        move = self.ask(order[-1], forced=True)
        assert move is not None
        return move

    def ask(self, seat: int, forced: bool) -> Move | None:
        if seat in self.humans:
            return self.ask_person(seat, forced or seat == self.st.active)
        view = self.views.view(self.st, seat, forced)
        move = self.policies[seat].choose(view, self.rng)
        if move is not None and (move.player != seat or not self.eng.is_legal(self.st, move)):
            move = None  # legal in the bot's view, not on the table: it waits (forced: it moves at random)
        if move is None and forced:
            move = self.eng.random_move(self.st, self.rng, player=seat)
        return move

    def play(self, move: Move) -> None:
        """Make the move on the log's state, and tell every person what they may know of it."""
        st, eng = self.st, self.eng
        texts = {p: Reader(1 << p).move(st, eng.describe(st, move)) for p in self.humans}
        public = self.everyone.move(st, eng.describe(st, move))
        round_before = st.round
        events = self.writer.move(move)
        if st.round != round_before:
            self.round_turn = st.turn
        ending = eng.halt(st) is not None and st.round == round_before
        if ending:  # the round is scored: its words and shown cards are said once, to everyone, by the summary
            self.result = [e for e in events if e.kind == "say"]
            events = [e for e in events if e.kind not in ("say", "show")]
        self.record(move, events[1:], texts, public)
        if self.at_screen == move.player and not ending:  # the person who moved sees what it did at once
            self.flush(move.player)

    def record(self, move: Move | None, events: Sequence[Event], texts: dict[int, str] | None = None,
               public: str = "") -> None:
        for p in self.humans:
            lines = [f"> {texts[p]}"] if move is not None and texts is not None else []
            self.backlog[p] += lines + Reader(1 << p).events(events)
        self.public += ([f"> {public}"] if move is not None else []) + self.everyone.events(events)

    def flush(self, seat: int) -> None:
        for line in self.backlog[seat]:
            self.screen.say(line, "head" if line.startswith(">") else None)
        self.backlog[seat] = []

    # ------------------------------------------------------------ the screen between people
    def take_screen(self, seat: int) -> None:
        """Give the screen to a person: in hot-seat, hide the view shown and let the next one confirm."""
        if not self.hotseat or self.at_screen == seat:
            self.at_screen = seat
            return
        self.hide()
        self.prompt(f"Pass the screen to {self.name(seat)}. {self.name(seat)}, press Enter when only you can see it: ")
        self.at_screen = seat

    def hide(self) -> None:
        """Hide the view on the screen (its owner confirms first, to read the last events); a screen that shows
        only what everyone may see (the start, a round's end) stays."""
        if self.at_screen is not None:
            self.prompt(f"{self.name(self.at_screen)}, press Enter to hide your view: ")
            self.screen.clear()
        self.at_screen = None

    def prompt(self, text: str) -> str:
        try:
            answer = self.input_fn(text)
        except EOFError:
            raise Quit("the input ended") from None
        if answer.strip().lower() in ("q", "quit"):
            raise Quit(f"{'someone' if self.at_screen is None else self.name(self.at_screen)} stopped it")
        return answer.strip()

    # ------------------------------------------------------------ a person's choice
    def situation(self, seat: int) -> tuple[Any, ...]:
        """What a person who passed would be asked again for: a new window, turn, phase, waiting ability."""
        st = self.st
        return (st.round, st.turn, st.phase, tuple((w.kind, w.ref, w.players, w.attempts) for w in st.windows),
                tuple((w.ability, w.card, w.owner) for w in st.waiting), tuple(st.hands[seat]))

    def ask_person(self, seat: int, forced: bool) -> Move | None:
        if not forced and self.passed.get(seat) == self.situation(seat):
            return None
        chooser = Chooser(self.views.view(self.st, seat, forced))
        if not chooser.kinds:  # the view shows nothing legal (it lacks what the table holds): the table's moves
            if not forced:
                return None
            chooser = Chooser(PlayerView(seat, self.st, self.eng, forced))
        only = chooser.only() if forced else None
        if only is not None and self.eng.is_legal(self.st, only):  # no choice: made without asking
            self.backlog[seat].append(f"(the one legal move, made for you: {chooser.text(only)})")
            return only
        self.take_screen(seat)
        self.public = []
        self.flush(seat)
        self.show_view(seat)
        self.chooser = chooser
        try:
            move = self.choose(seat, chooser, can_pass=not forced)
        finally:
            self.chooser = None
        if move is None:
            self.passed[seat] = self.situation(seat)
        return move

    def show_view(self, seat: int) -> None:
        st, name = self.st, self.name(seat)
        self.screen.head(f"{name}'s view: round {st.round}, phase {st.phase}")
        for line in render_table(self.eng, st, knowledge=True, viewer=seat):
            self.screen.say(f"  {line}")
        known = [(i + 1, c) for i, c in enumerate(st.tableaux[seat]) if c is not None and st.known[c] >> seat & 1]
        unseen = sum(1 for c in st.tableaux[seat] if c is not None and not st.known[c] >> seat & 1)
        words = ", ".join(f"{i}: {st.facts.label(c)} = {st.facts.value[c]}" for i, c in known) or "none"
        total = sum(st.facts.value[c] for _, c in known)
        self.screen.say(f"  your cards you know: {words}; together {total}"
                        + (f", and {plural(unseen, 'card')} you have not seen" if unseen else ""))
        self.screen.say(f"  {self.situation_words(seat)}", "head")

    def situation_words(self, seat: int) -> str:
        st, eng, name = self.st, self.eng, self.name(seat)
        first = st.waiting[0] if st.waiting else None
        if first is not None and first.owner == seat and not (first.after_window and eng.window_callable(st)):
            decl = eng.rules.moves[first.ability]
            return f"{name}: use '{decl.name}' of {st.facts.label(first.card)}: {decl.text}"
        window = st.windows[-1] if st.windows else None
        if window is not None and window.players >> seat & 1 and window.attempts > 0 and seat != st.active:
            ref = Reader(1 << seat).move(st, st.facts.label(window.ref))
            return (f"{name}: the {eng.effects.window_title} '{window.kind}' is open on {ref}: call, or press Enter "
                    "to pass")
        if seat == st.active:
            return f"{name}: your turn"
        return f"{name}: you may act out of turn, or press Enter to pass"

    def choose(self, seat: int, chooser: Chooser, can_pass: bool) -> Move | None:
        """The person's move (None: passed). A refused move is shown with its rule, and they choose again."""
        options = chooser.options()
        fixed: dict[str, Any] = {}
        kind = ""
        self.list_options(chooser, options, can_pass)
        while True:
            answer = self.prompt(f"{self.name(seat)}> ")
            if answer == "":
                if can_pass:
                    self.screen.say(f"{self.name(seat)} passes", "dim")
                    return None
                self.screen.say("you must act now: choose a number or type a move (? for help)", "warn")
                continue
            if answer in ("?", "h", "help"):
                for line in HELP:
                    self.screen.say(line)
                continue
            if answer in ("t", "table"):
                self.show_view(seat)
                self.list_options(chooser, options, can_pass)
                continue
            if answer in ("d", "deck"):
                self.show_deck()
                continue
            if answer in ("b", "back"):
                options, fixed, kind = chooser.options(), {}, ""
                self.list_options(chooser, options, can_pass)
                continue
            if answer.isdigit():
                if not 1 <= int(answer) <= len(options):
                    self.screen.say(f"choose 1 to {len(options)}, type a move, or ? for help", "warn")
                    continue
                picked = options[int(answer) - 1]
                if picked.move is not None:
                    if self.accepted(picked.move):
                        return picked.move
                    continue
                if picked.value is not None:
                    fixed[picked.value[0]] = picked.value[1]
                else:
                    kind, fixed = picked.kind, {}
                options = chooser.narrow(kind, fixed)
                if len(options) == 1 and options[0].move is not None:  # the choices made name one move
                    if self.accepted(options[0].move):
                        return options[0].move
                    options, fixed, kind = chooser.options(), {}, ""
                self.list_options(chooser, options, can_pass, f"{kind}: choose" + "".join(
                    f", {k} = {chooser.value_words(self.param_kind(kind, k), v)}" for k, v in fixed.items()))
                continue
            move = self.typed(seat, answer)
            if move is not None and self.accepted(move):
                return move

    def param_kind(self, move: str, param: str) -> str:
        return next(p.kind for p in self.eng.rules.moves[move].params if p.name == param)

    def list_options(self, chooser: Chooser, options: list[Option], can_pass: bool, title: str = "") -> None:
        self.screen.say(title or "your legal moves (a number, or type a move; ? for help):")
        kind = None
        for i, option in enumerate(options, 1):
            if option.move is not None and option.kind != kind and not title:
                kind = option.kind
                cm = self.eng.moves[kind]
                self.screen.say(f"  {chooser.kind_words(cm)}", "dim")
            self.screen.say(f"  {i:>3}  {option.label}")
        if can_pass:
            self.screen.say("  Enter  pass", "dim")

    def typed(self, seat: int, text: str) -> Move | None:
        """A move typed in the scenario notation (the player's name may be left out), or None after saying
        why it names no move."""
        words = text.split()
        if words[0] not in self.st.names:
            words.insert(0, self.name(seat))
        try:
            move = parse_move_text(self.eng.rules.moves, self.st, " ".join(words))
        except NotationError as err:
            self.screen.say(f"not a move: {err}", "warn")
            return None
        if move.player != seat:
            self.screen.say(f"you play {self.name(seat)}: a move of {self.name(move.player)} is theirs to make", "warn")
            return None
        return move

    def accepted(self, move: Move) -> bool:
        """Whether the table takes the move; if not, its decisive rule and the other reasons are shown."""
        rejection = self.eng.check(self.st, move)
        if rejection is None:
            return True
        self.show_refusal(rejection)
        return False

    def show_refusal(self, rejection: Rejection) -> None:
        self.screen.say(f"refused: {rejection.move}", "fail")
        for rank, reason in enumerate(rejection.all(), 1):
            label = "the rule" if rank == 1 else "also"
            self.screen.say(f"  {label}: {reason.cite} ({reason.rule}): {reason.reason}", "fail" if rank == 1 else None)
            words = rule_text(self.eng.rules, reason.rule)
            if words and rank == 1:
                self.screen.say(f"    {words}")
        self.screen.say("the game goes on: choose again", "dim")

    def show_deck(self) -> None:
        for sp in self.eng.rules.species.values():
            family = f", family {sp.family}" if sp.family != sp.name else ""
            ability = f", ability {sp.ability}" if sp.ability else ""
            self.screen.say(f"  {sp.name}: value {sp.value}, {sp.count} in the deck{family}{ability}")

    # ------------------------------------------------------------ between rounds
    def between_rounds(self) -> bool:
        """A halt holds: the round was scored. Show it to everyone; deal the next one if the match goes on."""
        st, eng = self.st, self.eng
        if self.hotseat:
            self.hide()
        else:
            for p in self.humans:
                self.flush(p)
        if self.result or self.public:
            if self.hotseat:
                for line in self.public:
                    self.screen.say(line, "head" if line.startswith(">") else None)
            self.summary()
        for p in self.humans:
            self.backlog[p] = []
        self.public, self.result = [], []
        deal = next((m for p in [*self.humans, *range(self.players)] if (m := eng.first_move(st, p)) is not None), None)
        halt = eng.halt(st)
        if deal is None:
            assert halt is not None
            self.screen.say(f"{halt.text} ({halt.cite})", "head")
            return False
        self.prompt(f"Press Enter to deal round {st.round + 1}{' (everyone)' if self.hotseat else ''}, or q to stop: ")
        self.play(deal)
        self.at_screen = None
        return True

    def summary(self) -> None:
        st = self.st
        self.screen.head(f"round {st.round} is over")
        self.screen.say("every tableau, turned up:")
        width = max(len(n) for n in st.names)
        for p, name in enumerate(st.names):
            cells = []
            for i, card in enumerate(st.tableaux[p], 1):
                if card is None:
                    continue
                known = self.everyone.knows(st.known[card])
                cells.append(f"{i}:{st.facts.label(card)} = {st.facts.value[card]}" if known else f"{i}:?")
            self.screen.say(f"  {name:<{width}}  " + ("  ".join(cells) or "(no cards)"))
        self.screen.say("the result:")
        for e in self.result:
            self.screen.say(f"  {self.everyone.event(e)}  [{e.rule}, {e.cite}]", "head")


def run_human_play(eng: Engine, rules_dir: Path, players: int, humans: Sequence[int], bots: str, seed: int,
                   log_path: Path | None = None, input_fn: InputFn = builtins.input,
                   output: Console | None = None, max_turns: int | None = None) -> int:
    """Play a match at the terminal: people at the seats `humans` (0 for p1), bots of `bots` at the others (one
    policy for all, or one per bot seat: `memory,random`). Moves are read with `input_fn` (completion on a
    terminal), everything is shown on `output` (a rich Console; default: standard output). With `log_path`,
    the game is written there as a game log, also when it stops early. Exit code 0."""
    from rich.console import Console

    eng.check_player_count(players)
    if not humans or len(set(humans)) != len(humans) or not all(0 <= p < players for p in humans):
        raise BaoError(f"--human: name each person's seat once, p1 to p{players}")
    bot_count = players - len(set(humans))
    names = split_policies(bots, bot_count, eng) if bot_count else []
    console = output if output is not None else Console(highlight=False, markup=False, emoji=False)
    game = HumanPlay(eng, rules_dir, players, list(humans), names, seed, input_fn, Screen(console), max_turns)
    if input_fn is builtins.input and sys.stdin.isatty():
        with_completion(lambda: game.chooser)
    try:
        return game.run()
    finally:
        if log_path is not None:  # what was played is logged, also when the game stops early
            write_output(log_path, game.writer.text())
            game.screen.say(f"wrote {log_path}: a game log of {plural(len(game.writer.lines) - 2, 'move')} "
                            "(baobei referee reads it)", "dim")


def with_completion(current: Callable[[], Chooser | None]) -> None:
    """Tab completes the words of a typed move from the legal moves of the person choosing (readline)."""
    try:
        import readline
    except ImportError:  # no readline on this platform: numbers and typed moves still work
        return
    found: list[str] = []

    def complete(text: str, state: int) -> str | None:
        if state == 0:
            chooser = current()
            line = readline.get_line_buffer()[:readline.get_endidx()]
            found[:] = chooser.complete(line) if chooser is not None else []
        return found[state] + " " if state < len(found) else None

    readline.set_completer_delims(" ")
    readline.set_completer(complete)
    readline.parse_and_bind("tab: complete")
