"""Playing at the terminal (`baobei play --human`): scripted people against bots and each other.

A scripted person answers the prompts as a person at the keyboard would: a number from the list, a typed move,
Enter to pass or to pass the screen on. The transcript is what a terminal shows (the prompts with their answers).
"""

from __future__ import annotations

import io
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.notation import parse_move_text
from baobei.engine.state import State
from baobei.language.errors import BaoError
from baobei.language.paths import default_rules_dir
from baobei.play.choice import Chooser
from baobei.play.human import HumanPlay, Screen, human_seats, run_human_play
from baobei.play.seats import measure, play_seated, seated_dealer, split_policies
from baobei.play.view import ViewMaker
from baobei.referee.judge import Referee, referee
from baobei.referee.logfile import parse_log, read_log
from baobei.referee.why import rule_text
from rich.console import Console

RULES = default_rules_dir()
LABEL = re.compile(r"\b[A-Z][A-Za-z]*#[0-9]+\b")
CLEAR = "\x1b[2J\x1b[H\x1b[3J"  # the visible screen, the cursor home, the scrollback

Answer = Callable[[str, str], str]


def console(out: io.StringIO, terminal: bool = False) -> Console:
    """A console writing to `out`: plain text, or (terminal) the control codes a terminal gets, without colour."""
    return Console(file=out, force_terminal=terminal, color_system=None, width=160, highlight=False, markup=False)


def first_or_pass(prompt: str, shown: str) -> str:
    """Enter to pass (or to go on) where that is offered, else the first line of the list shown last."""
    if not prompt.endswith("> "):
        return ""
    start = max(shown.rfind("your legal moves"), shown.rfind(": choose"))
    return "" if "  Enter  pass" in shown[start:] else "1"


class Script:
    """A scripted person at the keyboard: answers each prompt, writing prompt and answer to the transcript;
    after `limit` prompts the input ends (as Ctrl-D ends it)."""

    def __init__(self, out: io.StringIO, answer: Answer = first_or_pass, limit: int = 2000,
                 typed: list[str] | None = None) -> None:
        self.out, self.answer, self.limit = out, answer, limit
        self.typed = list(typed or [])  # answers given first, at the first move prompts
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        if len(self.prompts) >= self.limit:
            raise EOFError
        self.prompts.append(prompt)
        typed = self.typed and prompt.endswith("> ")
        text = self.typed.pop(0) if typed else self.answer(prompt, self.out.getvalue())
        self.out.write(prompt + text + "\n")
        return text


def final_state(eng: Engine, path: Path) -> State:
    """The state at the end of a game log, as the referee replays it."""
    judge = Referee(eng, read_log(path), RULES)
    assert judge.run().legal
    return judge.st


def judge_log(eng: Engine, path: Path) -> None:
    verdict = referee(eng, parse_log(path.read_text(encoding="utf-8"), str(path)), RULES, False)
    assert verdict.legal, verdict.findings[:1]
    assert verdict.moves > 20


# ---------------------------------------------------------------- a whole match against two bots


def test_a_scripted_person_plays_a_whole_match_against_two_bots(default_engine: Engine, tmp_path: Path) -> None:
    out, log = io.StringIO(), tmp_path / "game.jsonl"
    script = Script(out)
    code = run_human_play(default_engine, RULES, 3, [0], "shrewd,memory", 1, log, script, console(out))
    text = out.getvalue()
    assert code == 0
    assert "at the table: p1 (you), p2 (bot: shrewd), p3 (bot: memory)" in text
    # The match ended as the rules say (the halt that holds in the log's last state), and the log was written.
    halt = default_engine.halt(final_state(default_engine, log))
    assert halt is not None and " wins the match  [" in text
    moves = len(log.read_text(encoding="utf-8").splitlines()) - 2
    assert text.endswith(f"{halt.text} ({halt.cite})\nwrote {log}: a game log of {moves} moves (baobei referee "
                         "reads it)\n")
    # Every round's end: every tableau turned up with values, the round values, BAO's result and the totals.
    ends = len(re.findall(r" round \d+ is over ─", text))
    assert ends >= 1 and text.count("every tableau, turned up:") == ends
    assert text.count("has a round value of") == 3 * ends and text.count("'s total is") == 3 * ends
    assert re.search(r"BAO by p\d (succeeded|failed)", text)
    assert re.search(r"^  p1  1:\w+#\d+ = -?\d+", text, re.M)  # a tableau with its values
    # The person chose from numbered lists, and was asked out of turn when a window opened.
    assert "your legal moves" in text and "p1 passes" in text and "is open on" in text
    assert len(script.prompts) > 10
    judge_log(default_engine, log)


def test_every_seat_may_be_a_person_or_a_bot_of_its_own(default_engine: Engine) -> None:
    assert human_seats("p1,p3", 4) == [0, 2] and human_seats("2", 3) == [1]
    for bad, message in (("p4", "p4 is no player"), ("p1,p1", "p1 is named twice"), ("", "is no player")):
        with pytest.raises(BaoError, match=message):
            human_seats(bad, 3)
    assert split_policies("memory", 2, default_engine) == ["memory", "memory"]
    assert split_policies("random, shrewd", 2, default_engine) == ["random", "shrewd"]
    with pytest.raises(BaoError, match="no such policy 'nobody'; there are: random, kinds, memory"):
        split_policies("nobody", 2, default_engine)
    with pytest.raises(BaoError, match="3 policies named for 2 seats"):
        split_policies("random,random,random", 2, default_engine)


# ---------------------------------------------------------------- a refused move


def test_a_refused_typed_move_shows_its_rule_and_play_goes_on(default_engine: Engine, tmp_path: Path) -> None:
    out, log = io.StringIO(), tmp_path / "game.jsonl"
    # The deal begins with the initial peek: a draw is refused; then a typed legal move without the name.
    script = Script(out, limit=60, typed=["draw", "look slot=p1.2"])
    game = HumanPlay(default_engine, RULES, 3, [0], ["memory", "memory"], 4, script, Screen(console(out)))
    expected = default_engine.check(game.st, parse_move_text(default_engine.rules.moves, game.st, "p1 draw"))
    assert expected is not None
    assert game.run() == 0
    text = out.getvalue()
    refusal = text.index("refused: p1 draw")
    after = text[refusal:]
    assert after.index(f"  the rule: {expected.cite} ({expected.rule}): {expected.reason}") < 200
    assert f"    {rule_text(default_engine.rules, expected.rule)}\n" in after
    assert "the game goes on: choose again" in after
    assert "> p1 look slot=p1.2" in after and "p1 looks secretly at" in after  # the typed move, then more play
    assert text.count("> ") > 10
    assert "the game stops here: the input ended" in text
    (tmp_path / "game.jsonl").write_text(game.writer.text(), encoding="utf-8")
    judge_log(default_engine, log)


def test_a_typed_move_that_names_nothing_or_another_player_is_explained(default_engine: Engine) -> None:
    out = io.StringIO()
    script = Script(out, limit=4, typed=["p2 look slot=p2.1", "fly away", "look slot=p9.1"])
    HumanPlay(default_engine, RULES, 3, [0], ["memory", "memory"], 4, script, Screen(console(out))).run()
    text = out.getvalue()
    assert "you play p1: a move of p2 is theirs to make" in text
    assert "not a move: unknown move 'fly'" in text
    assert "not a move: unknown player 'p9'" in text


# ---------------------------------------------------------------- what a person sees


class Watched(HumanPlay):
    """A game that notes, after every move, which cards each person knows, so that a test can check that what
    was shown to a person between two prompts named no card that person did not know at some point then."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.known: dict[int, set[str]] = {p: set() for p in self.humans}
        self.note()

    def note(self) -> None:
        st = self.st
        for p in self.humans:
            self.known[p] |= {st.facts.label(c) for c in range(len(st.facts)) if st.known[c] >> p & 1}

    def play(self, move: Move) -> None:
        super().play(move)
        self.note()

    def forget(self) -> None:
        self.known = {p: set() for p in self.humans}
        self.note()


def checked_script(out: io.StringIO, game: list[Watched], limit: int) -> Script:
    """A scripted person who checks, at every prompt, that the text since the last prompt names only cards
    known to whoever holds the screen (the person asked; between people, every person)."""
    seen = [0]

    def answer(prompt: str, shown: str) -> str:
        g = game[0]
        text = shown[seen[0]:]
        holder = g.at_screen
        readers = [holder] if holder is not None else g.humans
        allowed = set.intersection(*(g.known[p] for p in readers))
        hidden = set(LABEL.findall(text)) - allowed
        assert not hidden, f"{hidden} shown to {[g.name(p) for p in readers]} before {prompt!r}:\n{text}"
        seen[0] = len(shown) + len(prompt) + 2
        g.forget()
        return first_or_pass(prompt, shown)

    return Script(out, answer, limit)


def test_a_person_sees_only_their_view(default_engine: Engine) -> None:
    out = io.StringIO()
    holder: list[Watched] = []
    script = checked_script(out, holder, 400)
    game = Watched(default_engine, RULES, 3, [1], ["memory", "shrewd"], 3, script, Screen(console(out)))
    holder.append(game)
    game.run()
    text = out.getvalue()
    first = text[text.index("p2's view"):]
    table = first[:first.index("your cards you know")]
    assert re.search(r"p1  1:\?\{[-p13,]+\}  2:\?\{", table)  # others' cards unseen: ?, whoever looked at them
    assert "p1 looks secretly at a card" in text  # others' looks: "a card"
    assert len(script.prompts) > 30


# ---------------------------------------------------------------- hot-seat


def test_passing_the_screen_hides_the_previous_view(default_engine: Engine, tmp_path: Path) -> None:
    out = io.StringIO()
    holder: list[Watched] = []
    script = checked_script(out, holder, 300)
    game = Watched(default_engine, RULES, 3, [0, 1], ["shrewd"], 2, script, Screen(console(out, terminal=True)))
    holder.append(game)
    game.run()
    text = out.getvalue()
    assert "at the table: p1 (a person), p2 (a person), p3 (bot: shrewd)" in text
    handovers = list(re.finditer(r"Pass the screen to (p\d)\. p\d, press Enter when only you can see it: \n", text))
    assert len(handovers) >= 3
    for m in handovers:
        # A person's view was cleared once they asked to hide it; a screen for everyone (the start, a round's
        # end) stays until the next person confirms.
        cleared = text[:m.start()].endswith(CLEAR)
        before = text[:m.start()].removesuffix(CLEAR).rstrip("\n").rsplit("\n", 1)[-1]
        if cleared:
            assert re.fullmatch(r"p\d, press Enter to hide your view: ", before), before
        else:
            public = r"type \? for help, q to stop|Press Enter to deal round \d+ \(everyone\), or q to stop: "
            assert re.fullmatch(public, before), before
        # Then the next person's view, and nobody else's, until the screen is cleared again.
        screen = text[m.end():].split(CLEAR, 1)[0]
        views = set(re.findall(r"(p\d)'s view", screen))
        assert views == {m.group(1)}
    (tmp_path / "game.jsonl").write_text(game.writer.text(), encoding="utf-8")
    judge_log(default_engine, tmp_path / "game.jsonl")


# ---------------------------------------------------------------- choosing and completing


def test_many_moves_are_chosen_argument_by_argument_and_typed_ones_complete(default_engine: Engine) -> None:
    st, _ = default_engine.new_match(["p1", "p2", "p3"], 1, log=False)
    maker = ViewMaker(default_engine)
    # Play on until a window is open for p1 out of turn.
    rng = random.Random(3)
    while not (st.windows and st.windows[-1].players & 1 and st.active != 0 and st.windows[-1].attempts):
        move = default_engine.random_move(st, rng)
        assert move is not None
        default_engine.push(st, move)
    chooser = Chooser(maker.view(st, 0))
    names = {cm.name for cm in chooser.kinds}
    assert names == {"pluck", "double_pluck"}
    first = chooser.options()
    assert all(o.move is None for o in first)  # too many to list: a line per kind
    targets = chooser.narrow("pluck", {})
    assert targets[0].value is not None and targets[0].value[0] == "target"
    assert chooser.complete("pl") == ["pluck"]
    assert chooser.complete("p1 plu") == ["pluck"]
    on_p2 = chooser.complete("pluck target=p2.")
    assert on_p2 and on_p2 == [w for w in chooser.complete("pluck t") if w.startswith("target=p2.")]
    assert all(w.startswith("target=") for w in chooser.complete("pluck "))


# ---------------------------------------------------------------- the shrewd bot


def test_the_shrewd_policy_plays_whole_matches_judged_by_the_rules(default_engine: Engine) -> None:
    dealer = seated_dealer(default_engine, ["shrewd", "memory", "random"], invariants=True)
    for index in range(2):
        record, st = play_seated(dealer, index, 11 + index, 3)
        assert record.finished and not record.findings and not record.refused
        assert default_engine.halt(st) is not None


def test_one_policy_is_measured_against_another(default_engine: Engine) -> None:
    def winner(st: State) -> int | None:
        totals = st.pvars["total"]
        return min(range(len(totals)), key=lambda p: totals[p])

    result = measure(default_engine, "shrewd", "random", 3, 3, 1, winner)
    assert result.matches == 3 and result.finished == 3 and sum(result.by_seat) == result.wins
    low, high = result.interval()
    assert 0 <= low <= result.rate <= high <= 1
    assert "shrewd against 2 x random, 3 players: won" in result.line()
