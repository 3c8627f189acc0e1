"""The decisive steps of a scenario's replay, as compact text pictures of the table before and after.

The scenario says which steps carry its answer: each is a move or a rejection marked `decisive`,
shown with the expectations that follow it. No guess from citations: a scenario with a question
that marks nothing is refused by the docs, so that the picture always shows what the answer is about.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.state import State
from ..language import syntax as s
from ..language.errors import Rejection
from ..scenarios import syntax as sc
from ..scenarios.runner import TraceEntry
from .index import ScenarioDoc

MAX_SHOTS = 4


@dataclass
class Shot:
    """One step of a replay: the table before, what happened and the table after.

    kind is "move", "reject" (the table does not change) or "setup" (only the table after).
    """

    kind: str
    line: int
    text: str
    before: list[str]
    events: list[str]
    after: list[str]
    cites: list[s.Citation]
    checked: list[str] = field(default_factory=list)
    marked: bool = False  # the scenario marks the step `decisive`
    before_state: State | None = None  # copies of the states (replays with snapshots), for pictures
    after_state: State | None = None
    refusal: Rejection | None = None  # a refused move: what and why, for words rather than a heading

    @property
    def heading(self) -> str:
        """The step in a few words over its pictures: a refusal as the move refused and the rule refusing it
        (its reason is too long for a heading)."""
        if self.refusal is None:
            return self.text
        return f"refused {self.refusal.move} ({self.refusal.cite})"

    def render(self, previous: Shot | None = None) -> list[str]:
        lines = [f"line {self.line}: {self.text}"]
        if self.kind == "setup":
            lines += ["table:", *(f"  {row}" for row in self.after)]
            return lines + [f"  checked: {c}" for c in self.checked]
        if previous is not None and previous.after == self.before:
            lines.append(f"before: the table after line {previous.line}")
        else:
            lines += ["before:", *(f"  {row}" for row in self.before)]
        if self.kind == "reject":
            lines.append("rejected: the table does not change")
        else:
            # an indented event belongs to the call above it (simultaneous calls)
            lines += [f"    {e}" if e.startswith("  ") else f"  - {e}" for e in self.events]
            lines += ["after:", *(f"  {row}" for row in self.after)]
        return lines + [f"  checked: {c}" for c in self.checked]


def _events(entry: TraceEntry) -> list[str]:
    return [f"{e.text}  ({e.rule}, {e.cite})" for e in entry.events if e.text != entry.text]


def _simultaneous(group: sc.Simultaneous, entry: TraceEntry, before: list[str], shot: Shot | None,
                  state: State | None = None) -> Shot:
    """Calls made at one moment form one step: each call's outcome in the order they were replayed."""
    if shot is None:
        calls = ", ".join(f"{c.player} {c.move}" for c in group.calls)
        shot = Shot("move", group.pos.line, f"simultaneous: {calls}", before, [], before, [],
                    before_state=state, after_state=state)
    if entry.table:  # a legal call: its effects and the table after it
        shot.events += [f"{entry.text}:", *(f"  {e}" for e in _events(entry))]
        shot.after = entry.table
        shot.after_state = entry.state
        shot.cites += [e.cite for e in entry.events]
    else:  # no longer legal when its turn came (the reference was used): rejected
        shot.events.append(entry.text)
    return shot


def shots(doc: ScenarioDoc) -> tuple[Shot | None, list[Shot]]:
    """(the setup, when a deal or table is all there is to show; every move and rejection of the replay)."""
    steps = {step.pos.line: step for step in doc.scenario.steps}
    groups = {call.pos.line: step for step in doc.scenario.steps if isinstance(step, sc.Simultaneous)
              for call in step.calls}
    trace = doc.result.trace
    if not trace:
        return None, []
    table = trace[0].table
    state = trace[0].state
    deal = doc.scenario.setup
    text = f"deal seed {deal.seed} players {' '.join(deal.players)}" if isinstance(deal, sc.Deal) else "table"
    setup = Shot("setup", trace[0].pos.line, text, [], [], table, [], after_state=state)
    out: list[Shot] = []
    for entry in trace[1:]:
        line = entry.pos.line
        step = steps.get(line)
        if line in groups:
            group = groups[line]
            current = out[-1] if out and out[-1].line == group.pos.line else None
            shot = _simultaneous(group, entry, table, current, state)
            if current is None:
                out.append(shot)
            table, state = shot.after, shot.after_state
        elif isinstance(step, sc.DoMove):
            out.append(Shot("move", line, entry.text, table, _events(entry), entry.table,
                            [e.cite for e in entry.events], marked=step.decisive,
                            before_state=state, after_state=entry.state))
            table, state = entry.table, entry.state
        elif isinstance(step, sc.Reject):
            out.append(Shot("reject", line, entry.text, table, [], table, [step.cite],
                            marked=step.decisive, before_state=state, after_state=state, refusal=entry.rejection))
        elif isinstance(step, sc.Expect):
            (out[-1] if out else setup).checked.append(entry.text.removeprefix("expect "))
    return setup, out


def decisive(doc: ScenarioDoc, limit: int = MAX_SHOTS) -> tuple[list[Shot], int]:
    """(the decisive shots, at most `limit`, and how many more there were): the steps the scenario
    marks `decisive`. A scenario that plays no step (it only deals) shows its setup; a scenario that
    plays steps and marks none shows nothing, and the docs refuse to publish its answer."""
    setup, every = shots(doc)
    marked = [shot for shot in every if shot.marked]
    if not every and setup is not None:
        return [setup], 0
    return marked[:limit], max(0, len(marked) - limit)


def unmarked(doc: ScenarioDoc) -> bool:
    """Whether the scenario plays steps but marks none of them `decisive`."""
    _, every = shots(doc)
    return bool(every) and not any(shot.marked for shot in every)
