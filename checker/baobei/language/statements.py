"""The statement registry: what each statement of the rules language does to cards, defined once.

The card-conservation proof follows a card through a rule's statements by these
declarations; a statement kind without an entry is an error there, never "moves
nothing". The docs list the statements from here.
"""

from __future__ import annotations

import enum
import typing
from dataclasses import dataclass

from . import syntax as s


class CardEffect(enum.Enum):
    NONE = "moves no card"
    MOVE = "moves one card from its place to another place"
    SWAP = "exchanges the places of two cards"
    DRAW = "moves the top card of the draw pile into a place (recycling first when the pile is empty)"
    SHUFFLE = "gathers the cards of its sources into a pile and shuffles it"
    NEW_ROUND = "starts a round: the round_start hook gathers and deals the cards"
    RUNS = "runs a routine, whose own statements move cards"
    CONTAINS = "runs the statements it contains"


@dataclass(frozen=True)
class StatementSpec:
    syntax: str
    effect: CardEffect
    doc: str


STATEMENTS: dict[type, StatementSpec] = {
    s.Let: StatementSpec("let NAME = EXPR", CardEffect.NONE, "Bind a name until the end of the block."),
    s.SetVar: StatementSpec("set VAR[INDEX] = EXPR", CardEffect.NONE, "Give a declared variable or the phase a value."),
    s.Draw: StatementSpec("draw into PLACE [as NAME]", CardEffect.DRAW,
                          "Draw the top card of the draw pile into a place; nothing when none can be drawn."),
    s.MoveCard: StatementSpec("move CARD to PLACE", CardEffect.MOVE,
                              "Move a card to a free slot, a pile or a hand; face-up piles show it to all."),
    s.Swap: StatementSpec("swap CARD with CARD", CardEffect.SWAP, "Two cards exchange their places."),
    s.Peek: StatementSpec("peek PLAYER CARD", CardEffect.NONE, "The player looks at the card secretly."),
    s.Show: StatementSpec("show CARD", CardEffect.NONE, "Every player sees the card."),
    s.Forget: StatementSpec("forget CARD", CardEffect.NONE, "Nobody can follow the card any more."),
    s.Mark: StatementSpec("mark MARK CARD", CardEffect.NONE, "Put a declared mark on a card."),
    s.OpenWindow: StatementSpec("open window KIND on CARD for PLAYERS", CardEffect.NONE,
                                "Open a window: the card becomes a reference the players may call on."),
    s.UseWindow: StatementSpec("use window", CardEffect.NONE, "Spend one attempt of the open window."),
    s.CloseWindow: StatementSpec("close window", CardEffect.NONE, "Close every open window."),
    s.Trigger: StatementSpec("trigger CARD for PLAYER [after window]", CardEffect.NONE,
                             "Queue the card's ability for the player."),
    s.Continue: StatementSpec("continue STEP(ARGS) for PLAYER", CardEffect.NONE,
                              "Queue a further step of the running ability, first in line."),
    s.Shuffle: StatementSpec("shuffle PILE [except top], ... into PILE", CardEffect.SHUFFLE,
                             "Gather cards face down into a pile and shuffle it; nobody can follow them."),
    s.StartTurn: StatementSpec("start turn of PLAYER", CardEffect.NONE,
                               "The player becomes the active player; marks that last a turn are cleared."),
    s.StartRound: StatementSpec("start round [with PLAYERS]", CardEffect.NEW_ROUND,
                                "Start the next round (among some players), running the round_start hook."),
    s.Pick: StatementSpec("pick NAME from LIST", CardEffect.NONE, "Choose an item at random (seeded)."),
    s.Say: StatementSpec("say TEXT(ARGS)", CardEffect.NONE,
                         "Tell the players something in words; each {} of the text shows the next argument."),
    s.Run: StatementSpec("run ROUTINE(ARGS)", CardEffect.RUNS, "Run a routine."),
    s.ForEach: StatementSpec("for NAME in LIST { ... }", CardEffect.CONTAINS, "Run a block once per item."),
    s.Repeat: StatementSpec("repeat COUNT { ... }", CardEffect.CONTAINS, "Run a block a number of times."),
    s.IfStmt: StatementSpec("if COND { ... } else { ... }", CardEffect.CONTAINS, "Run one of two blocks."),
}


def statement_kinds() -> tuple[type, ...]:
    """Every statement class of the language (the members of the closed union `syntax.Stmt`)."""
    return typing.get_args(s.Stmt)


def spec_of(node: s.Stmt) -> StatementSpec:
    try:
        return STATEMENTS[type(node)]
    except KeyError:
        raise KeyError(f"statement {type(node).__name__} has no entry in the statement registry") from None
