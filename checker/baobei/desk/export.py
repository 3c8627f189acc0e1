"""The session as a scenario file that `baobei check` replays as it is: the header (title, citations, the FAQ's
question and answer in German and English for the person to fill in), the table and the play.

The table and the citations are written by `scenarios/write.py`, as every scenario the project writes; a
move's draws are written only where the replay would not draw the same cards by itself (a table's draw pile
is drawn top first; a shuffle's order is the generator's), and, when asked, each move is followed by
`expect` lines for what it changed (the claims a game log writes, `referee/write.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

from ..engine.engine import Engine
from ..language.errors import BaoError
from ..referee.write import claims_of
from ..scenarios.write import cites_line
from .timeline import MOVE, REJECT, Document, Frame, drawn_species, play_move, read_move

LANGUAGES = ("de", "en")
DEFAULT_TITLE = "A situation at the rules desk"


@dataclass(frozen=True)
class ExportForm:
    """What the person gives the export: the title, the questions and answers by language (empty: left for
    them to fill in), and whether each move is followed by what it changed."""

    title: str = ""
    questions: tuple[tuple[str, str], ...] = ()
    answers: tuple[tuple[str, str], ...] = ()
    expects: bool = True


def quoted(text: str) -> str:
    """A scenario string: one line, quotes and backslashes escaped."""
    one_line = " ".join(text.split())
    return '"' + one_line.replace("\\", "\\\\").replace('"', '\\"') + '"'


def scenario_text(eng: Engine, doc: Document, frames: list[Frame], upto: int, form: ExportForm) -> str:
    """The document's table and its first `upto` steps (those replayed into `frames`) as a scenario."""
    frames = frames[: upto + 1]
    lines = ["# Exported from the BAO BEI rules desk (baobei serve); `baobei check FILE` replays it.",
             "# Fill in the question and the answer in both languages; `decisive` marks the steps that answer it."]
    lines += header_lines(eng, doc, frames, form)
    lines += ["", *doc.table, "", "play"]
    lines += play_lines(eng, frames, form.expects)
    return "\n".join(lines) + "\n"


def header_lines(eng: Engine, doc: Document, frames: list[Frame], form: ExportForm) -> list[str]:
    meta = doc.meta
    lines = [f"scenario {quoted(form.title or meta.title or DEFAULT_TITLE)}"]
    played = [f.step for f in frames[1:] if f.step is not None]
    refused = [s.cite.replace(" §", "; §") for s in played if s.kind == REJECT]
    names = [s.text.split()[1] for s in played if s.kind == MOVE]  # PLAYER MOVE ...: the rule's name
    ruled = [str(eng.rules.moves[name].cite) for name in reversed(names) if name in eng.rules.moves]
    cites = ", ".join(meta.cites) if meta.cites else ", ".join(dict.fromkeys([*refused, *ruled]))
    lines.append(cites_line(eng, cites, names))
    if meta.faq:
        lines.append("answers " + ", ".join(meta.faq))
    lines.append("tags " + ", ".join(dict.fromkeys([*meta.tags, "desk"])))
    if meta.assumes:
        lines.append("assumes " + ", ".join(meta.assumes))
    given_q, given_a = dict(form.questions), dict(form.answers)
    old_q, old_a = dict(meta.questions), dict(meta.answers)
    for lang in LANGUAGES:
        lines.append(f"question {lang} {quoted(given_q.get(lang) or old_q.get(lang, ''))}")
        lines.append(f"answer {lang} {quoted(given_a.get(lang) or old_a.get(lang, ''))}")
    return lines


def play_lines(eng: Engine, frames: list[Frame], expects: bool) -> list[str]:
    out: list[str] = []
    for before, frame in pairwise(frames):
        step = frame.step
        if step is None:
            continue
        if step.kind == MOVE and step.draws and not draws_by_themselves(eng, before, frame):
            out.append("  draws " + ", ".join(step.draws))
        out.append(f"  {step.line()}")
        if expects and step.kind == MOVE and not frame.problem:
            out += [f"  expect {claim}" for claim in changed_claims(eng, before, frame)]
    return out


def draws_by_themselves(eng: Engine, before: Frame, after: Frame) -> bool:
    """Whether the move, replayed without its draws named, draws the same species (then no `draws` line)."""
    assert after.step is not None
    try:
        _, events = play_move(eng, before.state, read_move(eng, before.state, after.step.text))
    except BaoError:
        return False
    return drawn_species(eng, events) == after.step.draws


def changed_claims(eng: Engine, before: Frame, after: Frame) -> list[str]:
    """What the move changed, as expectations: the table, the variables, who knows which card."""
    old, new = claims_of(eng, before.state), claims_of(eng, after.state)
    return [text for key, text in new.items() if old.get(key) != text]
