"""The desk's pages as HTML, drawn on the server: the table (the docs' SVG picture), the legal moves as buttons,
a refusal with every reason, the events of a move, who knows which card, the steps, the setup and load forms.

Every text of the rules or of the person is escaped. The pages link only the desk's own script and style
sheet (`/static/...`): nothing is fetched from another machine.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape

from ..docs.pictures import moved_cards, revealed_cards, step_arrows, table_svg
from ..engine.engine import Engine
from ..engine.move import Move
from ..engine.state import State
from ..engine.table_view import knowers
from ..language.errors import BaoError, Rejection
from ..referee.why import rule_text
from .session import Session
from .tables import EMPTY, NO_SLOT, TableForm, pile_labels, variable_fields
from .timeline import EXPECT, MOVE, REJECT, Frame

# A kind of move with more legal moves than this is folded (a pluck names every target and gift).
FOLD_OVER = 12


def page(title: str, body: str, notice: str = "") -> str:
    shown = f'<div class="notice" id="notice" role="alert">{escape(notice)}</div>' if notice else ""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)}</title><link rel=\"stylesheet\" href=\"/static/desk.css\">"
            "<script src=\"/static/desk.js\" defer></script></head><body>"
            f"<header><h1><a href=\"/\">BAO BEI rules desk</a></h1>{nav()}</header>{shown}{body}</body></html>\n")


def nav() -> str:
    return ('<nav><a href="/" id="nav-desk">Desk</a> <a href="/setup" id="nav-setup">Set up a table</a> '
            '<a href="/load" id="nav-load">Load a scenario or log</a></nav>')


def button(action: str, label: str, ident: str, disabled: bool = False, **fields: str) -> str:
    hidden = "".join(f'<input type="hidden" name="{escape(k)}" value="{escape(v)}">' for k, v in fields.items())
    off = " disabled" if disabled else ""
    return (f'<form method="post" action="{action}" class="inline">{hidden}'
            f'<button type="submit" id="{ident}"{off}>{escape(label)}</button></form>')


# ---------------------------------------------------------------- the desk
def desk_page(session: Session) -> str:
    eng, frame = session.eng, session.frame
    parts = [controls(session), '<main class="desk">',
             f'<section id="picture" class="panel">{picture(session)}</section>',
             '<section id="play" class="panel">', position_head(session), refusal_panel(eng, frame),
             problem_panel(session), events_panel(frame), moves_panel(eng, session.state), try_forms(),
             "</section>", '<section id="steps" class="panel">', steps_panel(session), "</section>",
             '<section id="knowledge" class="panel">', knowledge_panel(eng, session.state), "</section>",
             '<section id="export" class="panel">', export_form(session), table_text(session), "</section>",
             "</main>"]
    notice, session.notice = session.notice, ""
    return page("BAO BEI rules desk", "".join(parts), notice)


def controls(session: Session) -> str:
    at, last = session.at, len(session.frames) - 1
    return ('<div class="controls">'
            + button("/undo", "Undo", "undo", not session.undo_stack)
            + button("/redo", "Redo", "redo", not session.redo_stack)
            + button("/goto", "|< table", "first", at == 0, at="0")
            + button("/goto", "< back", "back", at == 0, at=str(at - 1))
            + button("/goto", "forward >", "forward", at == last, at=str(at + 1))
            + button("/goto", "end >|", "last", at == last, at=str(last))
            + f'<span class="where">step {at} of {last}</span></div>')


def picture(session: Session) -> str:
    eng, frame = session.eng, session.frame
    if session.at == 0 or frame.step is None or frame.step.kind != MOVE:
        title = "the table" if frame.step is None else f"step {session.at}: " + (
            f"refused: {frame.step.text} (the table stays)" if frame.step.kind == REJECT else frame.step.line())
        return table_svg(eng, frame.state, title=title)
    before = session.frames[session.at - 1].state
    moved = moved_cards(eng, before, frame.state)
    return table_svg(eng, frame.state, moved=moved, arrows=step_arrows(eng, before, frame.state, moved),
                     revealed=revealed_cards(before, frame.state), title=f"after: {frame.step.text}")


def position_head(session: Session) -> str:
    st, doc = session.state, session.doc
    source = f" · {escape(doc.meta.title or doc.meta.source)}" if doc.meta.title or doc.meta.source else ""
    head = (f'<h2 id="position">Round {st.round}, turn {st.turn}, phase {escape(st.phase)}, '
            f"{escape(st.names[st.active])} to play{source}</h2>")
    if session.replay_problem:
        head += f'<p class="problem" id="replay-problem">{escape(session.replay_problem)}</p>'
    return head


def reason_item(eng: Engine, reason: Rejection, rank: int) -> str:
    label = "decisive" if rank == 1 else "also"
    lasting = " (passing: it ends by itself)" if reason.passing else ""
    words = rule_text(eng.rules, reason.rule)
    rule = f'<div class="rule-words">{escape(words)}</div>' if words else ""
    return (f'<li class="reason {label}"><span class="label">{label}</span> '
            f'<span class="cite">{escape(str(reason.cite))}</span> ({escape(reason.rule)}){escape(lasting)}: '
            f'<span class="why">{escape(reason.reason)}</span>{rule}</li>')


def refusal_panel(eng: Engine, frame: Frame) -> str:
    """A refused move: the decisive rule in words with its section and paragraphs, then every other reason."""
    if frame.rejection is None or frame.step is None:
        return ""
    items = "".join(reason_item(eng, r, rank) for rank, r in enumerate(frame.rejection.all(), 1))
    return (f'<div id="refusal" class="refusal"><h3>Refused: <code>{escape(frame.rejection.move)}</code></h3>'
            f"<ol>{items}</ol></div>")


def problem_panel(session: Session) -> str:
    frame = session.frame
    if not frame.problem:
        return ""
    what = "expectation fails" if frame.step is not None and frame.step.kind == EXPECT else "replay problem"
    return f'<p class="problem" id="problem">{what}: {escape(frame.problem)}</p>'


def events_panel(frame: Frame) -> str:
    if not frame.events:
        return ""
    items = "".join(f'<li>{escape(e.text)} <span class="cite">[{escape(e.rule)}, {escape(str(e.cite))}]</span></li>'
                    for e in frame.events)
    return f'<div id="events"><h3>What the move did</h3><ul>{items}</ul></div>'


def move_places(eng: Engine, st: State, move: Move) -> list[str]:
    """The places a move names (its slots, the hand of a held card it names): a click on a card finds them."""
    kinds = {p.name: p.kind for p in eng.rules.moves[move.name].params}
    out = []
    for key, value in move.args:
        if isinstance(value, tuple) and len(value) == 2 and 0 <= value[0] < len(st.names):
            out.append(f"{st.names[value[0]]}.{value[1]}")
        elif kinds.get(key) == "held_card" and isinstance(value, int):
            out += [f"{st.names[p]}.hand" for p, hand in enumerate(st.hands) if value in hand]
    return out


def moves_panel(eng: Engine, st: State) -> str:
    """Every legal move of every player, out of turn too, as buttons grouped by player and kind."""
    by_player: dict[int, dict[str, list[Move]]] = {}
    for move in eng.legal_moves(st):
        by_player.setdefault(move.player, {}).setdefault(move.name, []).append(move)
    if not by_player:
        return '<div id="moves"><h3>Legal moves</h3><p>Nobody may move: the game is over or stuck.</p></div>'
    groups = []
    for p in sorted(by_player, key=lambda p: (p != st.active, p)):
        kinds = "".join(move_group(eng, st, name, moves) for name, moves in by_player[p].items())
        turn = " (to play)" if p == st.active else " (out of turn)"
        groups.append(f'<div class="player-moves" data-player="{escape(st.names[p])}">'
                      f"<h4>{escape(st.names[p])}{turn}</h4>{kinds}</div>")
    return ('<div id="moves"><h3>Legal moves</h3><p class="hint">Click a card in the picture to find the moves '
            '<span id="selected"></span> that name it.</p>'
            f'<form method="post" action="/move">{"".join(groups)}</form></div>')


def move_group(eng: Engine, st: State, name: str, moves: list[Move]) -> str:
    buttons = []
    for move in moves:
        text = eng.describe(st, move)
        places = " ".join(move_places(eng, st, move))
        buttons.append(f'<button type="submit" name="move" value="{escape(text)}" class="move" '
                       f'data-move="{escape(text)}" data-places="{escape(places)}">{escape(text)}</button>')
    words = eng.rules.moves[name].text
    summary = f'{escape(name)} ({len(moves)})<span class="rule-words"> {escape(words)}</span>'
    opened = "" if len(moves) > FOLD_OVER else " open"
    return f'<details class="kind"{opened}><summary>{summary}</summary>{"".join(buttons)}</details>'


def try_forms() -> str:
    return ('<form method="post" action="/move" id="try" class="line">'
            '<label for="try-move">Try a move (scenario notation, out of turn too):</label> '
            '<input id="try-move" name="move" size="40" placeholder="bob pluck target=alice.3 gift=bob.1" '
            'autocomplete="off"> <button type="submit" id="try-button">Try</button></form>'
            '<form method="post" action="/expect" id="expect" class="line">'
            '<label for="expect-text">Add an expectation:</label> '
            '<input id="expect-text" name="expect" size="40" placeholder="alice.1 is empty" autocomplete="off"> '
            '<button type="submit" id="expect-button">Expect</button></form>')


def steps_panel(session: Session) -> str:
    items = [step_item(session, 0, "the table", "")]
    for i, step in enumerate(session.doc.steps, 1):
        kind = {MOVE: "move", REJECT: "refused", EXPECT: "expect"}[step.kind]
        problem = ""
        if i < len(session.frames) and session.frames[i].problem:
            problem = f' <span class="problem">({escape(session.frames[i].problem)})</span>'
        elif i >= len(session.frames):
            problem = ' <span class="problem">(not replayed)</span>'
        items.append(step_item(session, i, f"{kind}: {step.line()}", problem))
    return f'<h3>Steps</h3><ol id="step-list" start="0">{"".join(items)}</ol>'


def step_item(session: Session, i: int, text: str, problem: str) -> str:
    current = ' class="current"' if i == session.at else ""
    go = button("/goto", text, f"step-{i}", i >= len(session.frames), at=str(i))
    mark = ""
    if i and session.doc.steps[i - 1].kind != EXPECT:
        label = "undecisive" if session.doc.steps[i - 1].decisive else "mark decisive"
        mark = button("/decisive", label, f"decisive-{i}", step=str(i))
    return f"<li{current}>{go}{problem} {mark}</li>"


def knowledge_panel(eng: Engine, st: State) -> str:
    """Every card on a slot or in a hand: which it is and who knows it; the piles by size."""
    rows = []
    for p, name in enumerate(st.names):
        places = [(f"{name}.{i}", c) for i, c in enumerate(st.tableaux[p], 1)]
        places += [(f"{name}.hand", c) for c in st.hands[p]]
        for place, card in places:
            if card is None:
                rows.append(f"<tr><td>{escape(place)}</td><td>empty</td><td></td><td></td></tr>")
                continue
            who = "everyone" if st.known[card] == st.everyone else knowers(st, card).replace("-", "nobody")
            rows.append(f'<tr data-place="{escape(place)}"><td>{escape(place)}</td>'
                        f"<td>{escape(eng.facts.label(card))}</td><td>{eng.facts.value[card]}</td>"
                        f'<td class="knowers">{escape(who)}</td></tr>')
    piles = ", ".join(f"{escape(name.replace('_', ' '))}: {len(st.piles[i])}" for i, name in enumerate(eng.pile_names))
    return ('<h3>Who knows which card</h3><table id="knows"><thead><tr><th>place</th><th>card</th><th>value</th>'
            f'<th>known to</th></tr></thead><tbody>{"".join(rows)}</tbody></table><p>Piles: {piles}</p>')


def export_form(session: Session) -> str:
    meta = session.doc.meta
    q, a = dict(meta.questions), dict(meta.answers)

    def field(name: str, label: str, value: str) -> str:
        return (f'<label for="x-{name}">{label}</label>'
                f'<input id="x-{name}" name="{name}" value="{escape(value)}" size="50">')

    fields = (field("title", "Title", meta.title) + field("question_de", "Frage (de)", q.get("de", ""))
              + field("answer_de", "Antwort (de)", a.get("de", "")) + field("question_en", "Question (en)",
                                                                            q.get("en", ""))
              + field("answer_en", "Answer (en)", a.get("en", "")))
    return ('<h3>Export as a scenario</h3><form method="get" action="/export" id="export-form" class="fields">'
            f'{fields}<label><input type="checkbox" name="expects" value="1" checked id="x-expects"> '
            "after each move, expect what it changed</label>"
            f'<button type="submit" id="export-button">Export steps 1 to {session.at} as .scenario</button>'
            "</form>")


def table_text(session: Session) -> str:
    try:
        lines = "\n".join(session.current_table())
    except BaoError as err:  # a state no table can state: say why instead of the lines
        lines = f"(no scenario table can state this position: {err})"
    return ('<details id="table-lines"><summary>This position as a scenario table</summary>'
            f"<pre>{escape(lines)}</pre></details>")


# ---------------------------------------------------------------- setup
def setup_page(eng: Engine, form: TableForm, names_state: State, error: str = "", lines: Sequence[str] = (),
               current: Sequence[str] = ()) -> str:
    species = list(eng.rules.species)
    shown_error = ""
    if error:
        numbered = "\n".join(f"{n:3}  {line}" for n, line in enumerate(lines, 1))
        shown_error = (f'<div class="problem" id="setup-error"><p>The table does not build: {escape(error)}</p>'
                       f"<pre>{escape(numbered)}</pre></div>")
    body = [shown_error, '<main class="setup"><form method="post" action="/setup" id="setup-form" class="fields">',
            '<label for="f-players">Players (names, in seating order)</label>'
            f'<input id="f-players" name="players" value="{escape(" ".join(form.players))}">',
            "<h3>Tableaux, held cards and who knows each card</h3>"]
    body += [tableau_fields(form, p, species) for p in range(len(form.players))]
    body += ["<h3>Piles</h3>", pile_fields(eng, form), "<h3>Turn</h3>", turn_fields(eng, form),
             "<h3>Variables of the rules</h3>", variable_inputs(eng, form, names_state),
             '<h3>Other lines of the table</h3><p class="hint">Open windows, waiting abilities, marks, protections, '
             "the players of the round (among), who knows a card in a pile or a hand: one table line each.</p>",
             f'<textarea name="other" id="f-other" rows="4" cols="60">{escape(chr(10).join(form.other))}</textarea>',
             '<button type="submit" id="setup-button">Use this table</button></form>', text_form(current),
             deal_form(), "</main>"]
    return page("Set up a table · BAO BEI rules desk", "".join(body))


def options(values: Iterable[tuple[str, str]], chosen: str) -> str:
    return "".join(f'<option value="{escape(v)}"{" selected" if v == chosen else ""}>{escape(label)}</option>'
                   for v, label in values)


def tableau_fields(form: TableForm, p: int, species: list[str]) -> str:
    name = form.players[p]
    row = form.rows[p] if p < len(form.rows) else []
    choices = [(NO_SLOT, "(no slot)"), (EMPTY, "(empty slot)"), *((s, s) for s in species)]
    cells = []
    for i in range(1, len(row) + 3):
        current = row[i - 1] if i <= len(row) else NO_SLOT
        seats = form.knows.get((p, i), set())
        boxes = "".join(f'<label class="knows"><input type="checkbox" name="knows:{p}:{i}" value="{q}"'
                        f'{" checked" if q in seats else ""}> {escape(other)}</label>'
                        for q, other in enumerate(form.players))
        cells.append(f'<div class="slot"><label for="slot-{p}-{i}">{escape(name)}.{i}</label>'
                     f'<select id="slot-{p}-{i}" name="slot:{p}:{i}">{options(choices, current)}</select>'
                     f'<div class="knowers">known to: {boxes}</div></div>')
    hand = form.hands[p][0] if p < len(form.hands) and form.hands[p] else ""
    held = options([("", "(nothing)"), *((s, s) for s in species)], hand)
    return (f'<fieldset class="tableau"><legend>{escape(name)}</legend>{"".join(cells)}'
            f'<div class="slot"><label for="hand-{p}">holds</label><select id="hand-{p}" name="hand:{p}">{held}'
            "</select></div></fieldset>")


def pile_fields(eng: Engine, form: TableForm) -> str:
    out = []
    for label in pile_labels(eng):
        order = "top first" if label.startswith("draw") else "bottom first, the last is the top"
        out.append(f'<label for="pile-{escape(label)}">{escape(label)} ({order}; species, comma separated)</label>'
                   f'<input id="pile-{escape(label)}" name="pile:{escape(label)}" size="70" '
                   f'value="{escape(form.piles.get(label, ""))}">')
    return "".join(out)


def turn_fields(eng: Engine, form: TableForm) -> str:
    players = options([(n, n) for n in form.players], form.active)
    phases = options([("", "(where a turn begins)"), *((p, p) for p in eng.rules.phase_names)], form.phase)
    return (f'<label for="f-active">Active player</label><select id="f-active" name="active">{players}</select>'
            f'<label for="f-phase">Phase</label><select id="f-phase" name="phase">{phases}</select>'
            f'<label for="f-round">Round</label><input id="f-round" name="round" value="{escape(form.round)}" '
            'placeholder="1" size="4">'
            f'<label for="f-turn">Turn</label><input id="f-turn" name="turn" value="{escape(form.turn)}" '
            'placeholder="1" size="4">'
            f'<label for="f-seed">Seed (shuffles)</label><input id="f-seed" name="seed" value="{escape(form.seed)}" '
            'placeholder="0" size="6">')


def variable_inputs(eng: Engine, form: TableForm, st: State) -> str:
    out = []
    for key, what, initial in variable_fields(eng, st):
        ident = "v-" + key.replace("[", "-").replace("]", "")
        value = escape(form.variables.get(key, ""))
        out.append(f'<label for="{escape(ident)}"><code>{escape(key)}</code>: {escape(what)}</label>'
                   f'<input id="{escape(ident)}" name="var:{escape(key)}" value="{value}" '
                   f'placeholder="{escape(initial)}" list="values">')
    values = "".join(f'<option value="{escape(v)}">' for v in [*form.players, "none", "true", "false"])
    return f'<div class="variables">{"".join(out)}</div><datalist id="values">{values}</datalist>'


def text_form(lines: Sequence[str]) -> str:
    return ('<form method="post" action="/setup-text" id="setup-text-form" class="fields"><h3>Or write the table '
            'as a scenario writes it</h3><textarea name="table" id="t-table" rows="14" cols="70">'
            f'{escape(chr(10).join(lines))}</textarea><button type="submit" id="setup-text-button">Use this table'
            "</button></form>")


def deal_form() -> str:
    return ('<form method="post" action="/deal" id="deal-form" class="fields"><h3>Or deal a new match</h3>'
            '<label for="d-players">Players</label><input id="d-players" name="players" value="alice bob carol">'
            '<label for="d-seed">Seed</label><input id="d-seed" name="seed" value="1" size="6">'
            '<button type="submit" id="deal-button">Deal</button></form>')


# ---------------------------------------------------------------- loading
def load_page(files: Sequence[str], error: str = "", text: str = "", name: str = "") -> str:
    shown = f'<div class="problem" id="load-error"><pre>{escape(error)}</pre></div>' if error else ""
    listed = options([("", "(choose a scenario)"), *((f, f) for f in files)], "")
    project = (f'<form method="post" action="/load" id="load-project" class="fields"><label for="l-path">A scenario '
               f'of this project</label><select id="l-path" name="path">{listed}</select>'
               '<button type="submit" id="load-path-button">Load</button></form>') if files else ""
    body = (f'{shown}<main class="load">{project}<form method="post" action="/load" id="load-form" class="fields">'
            '<label for="l-file">A scenario file (.scenario) or a game log (.jsonl) from this computer</label>'
            '<input type="file" id="l-file" accept=".scenario,.jsonl,.json,.txt">'
            f'<label for="l-name">Its name</label><input id="l-name" name="name" value="{escape(name)}">'
            '<label for="l-text">Its text (the file chosen above, or pasted)</label>'
            f'<textarea id="l-text" name="text" rows="16" cols="90">{escape(text)}</textarea>'
            '<button type="submit" id="load-button">Load</button></form></main>')
    return page("Load · BAO BEI rules desk", body)
