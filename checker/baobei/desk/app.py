"""The desk's routes (Starlette): pages, the changes a person makes, the export, and the desk's own files.

One session per server: the desk is a local tool for one person. A change is a POST answered by a redirect
to the page (so reloading repeats nothing); bad input is said in the page, never as a traceback. Forms are
read from the request's body with the standard library (no form-parsing package needed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from ..language.errors import BaoError
from ..language.load import load_ruleset
from ..language.paths import default_rules_dir, default_scenarios_dir
from .export import ExportForm, scenario_text
from .loading import NotingEngine, load_any
from .pages import desk_page, load_page, setup_page
from .session import Session
from .tables import form_of, read_form, table_of
from .timeline import normal_table

Fields = dict[str, list[str]]

# Nothing but this machine: the pages may load the desk's own files only (and draw inline SVG).
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                               "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}
STATIC = {"desk.js": "text/javascript; charset=utf-8", "desk.css": "text/css; charset=utf-8"}
DEFAULT_PLAYERS, DEFAULT_SEED = ("alice", "bob", "carol"), 1
MAX_BODY = 20_000_000  # bytes: a long game log fits, a mistake does not fill the memory


@dataclass
class Desk:
    """What the routes share: the rules' engine, where the rules and the project's scenarios lie, the session."""

    eng: NotingEngine
    rules_dir: Path
    scenarios_dir: Path | None
    session: Session

    def scenario_files(self) -> list[str]:
        if self.scenarios_dir is None or not self.scenarios_dir.is_dir():
            return []
        return sorted(str(p.relative_to(self.scenarios_dir)) for p in self.scenarios_dir.rglob("*.scenario"))


def dealt_table(eng: NotingEngine, players: list[str], seed: int) -> tuple[str, ...]:
    st, _ = eng.new_match(players, seed, log=False)
    return normal_table(eng, st)


def html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status, headers=SECURITY_HEADERS)


def back(to: str = "/") -> RedirectResponse:
    return RedirectResponse(to, status_code=303)


async def read_fields(request: Request) -> Fields:
    """The request's form fields (application/x-www-form-urlencoded), each with its values in order."""
    body = await request.body()
    if len(body) > MAX_BODY:
        raise BaoError(f"the request is too large ({len(body)} bytes; at most {MAX_BODY})")
    try:
        return parse_qs(body.decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError:
        raise BaoError("the form's text is not UTF-8") from None


def one(fields: Fields, name: str) -> str:
    return (fields.get(name) or [""])[-1]


def create_app(rules_dir: Path | None = None, scenarios_dir: Path | None = None) -> Starlette:
    """The desk as an ASGI app; it starts with a match dealt to three players."""
    rules = (rules_dir or default_rules_dir()).resolve()
    eng = NotingEngine(load_ruleset(rules))
    scenarios = scenarios_dir if scenarios_dir is not None else default_scenarios_dir()
    desk = Desk(eng, rules, scenarios, Session.start(eng, dealt_table(eng, list(DEFAULT_PLAYERS), DEFAULT_SEED)))

    async def bad_input(request: Request, err: Exception) -> Response:
        # Bad input a handler did not catch itself (a form that is not UTF-8, one too large): the page's
        # notice, as for any refused change, never a server error.
        desk.session.notice = str(err)
        return back()

    app = Starlette(routes=routes(desk), exception_handlers={BaoError: bad_input})
    app.state.desk = desk
    return app


def routes(desk: Desk) -> list[Route]:
    """The routes; each reads `desk.session` when it runs."""

    async def index(request: Request) -> Response:
        return html(desk_page(desk.session))

    async def change(request: Request) -> Response:
        """A POST that changes the session; its error (bad input) is the page's notice."""
        fields = {} if request.url.path in ("/undo", "/redo") else await read_fields(request)
        try:
            act(desk, request.url.path, fields)
        except BaoError as err:
            desk.session.notice = str(err)
        return back()

    async def setup(request: Request) -> Response:
        s = desk.session
        try:
            lines = s.current_table()
            state = s.state
        except BaoError as err:  # a position no table states: set up the first table instead
            s.notice, lines, state = str(err), s.doc.table, s.frames[0].state
        return html(setup_page(desk.eng, form_of(desk.eng, state, lines), state, current=lines))

    async def setup_post(request: Request) -> Response:
        form = read_form(await read_fields(request))
        lines = table_of(form)
        try:
            desk.session.set_table(lines)
        except BaoError as err:
            return html(setup_page(desk.eng, form, desk.session.state, str(err), lines, current=lines), 400)
        return back()

    async def setup_text_post(request: Request) -> Response:
        lines = [line.rstrip() for line in one(await read_fields(request), "table").splitlines() if line.strip()]
        if not lines or lines[0].strip() != "table":
            lines.insert(0, "table")  # the block's first line may be left out
        lines[0] = "table"
        try:
            desk.session.set_table(tuple(lines))
        except BaoError as err:
            st = desk.session.frames[0].state
            form = form_of(desk.eng, st, desk.session.doc.table)
            return html(setup_page(desk.eng, form, st, str(err), lines, current=lines), 400)
        return back()

    async def load(request: Request) -> Response:
        return html(load_page(desk.scenario_files()))

    async def load_post(request: Request) -> Response:
        fields = await read_fields(request)
        name, text = one(fields, "name").strip() or "pasted", one(fields, "text")
        try:
            path = one(fields, "path")
            if path:
                name, text = path, read_listed(desk, path)
            doc, problem = load_any(desk.eng, text, name, desk.rules_dir)
            desk.session.load(doc, problem)
        except BaoError as err:
            return html(load_page(desk.scenario_files(), str(err), text, name), 400)
        return back()

    async def export(request: Request) -> Response:
        q = request.query_params
        s = desk.session
        form = ExportForm(q.get("title", ""), (("de", q.get("question_de", "")), ("en", q.get("question_en", ""))),
                          (("de", q.get("answer_de", "")), ("en", q.get("answer_en", ""))), q.get("expects") == "1")
        text = scenario_text(desk.eng, s.doc, s.frames, s.at, form)
        name = re.sub(r"[^A-Za-z0-9]+", "_", form.title or s.doc.meta.title or "desk").strip("_").lower() or "desk"
        headers = {**SECURITY_HEADERS, "Content-Disposition": f'attachment; filename="{name[:60]}.scenario"'}
        return PlainTextResponse(text, headers=headers)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return PlainTextResponse("no such file", status_code=404)
        text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
        return Response(text, media_type=STATIC[name], headers={"X-Content-Type-Options": "nosniff"})

    async def favicon(request: Request) -> Response:
        return Response(status_code=204)

    changes = ["/move", "/expect", "/undo", "/redo", "/goto", "/decisive", "/deal"]
    return [Route("/", index), Route("/setup", setup), Route("/setup", setup_post, methods=["POST"]),
            Route("/setup-text", setup_text_post, methods=["POST"]),
            Route("/load", load), Route("/load", load_post, methods=["POST"]), Route("/export", export),
            Route("/static/{name}", static), Route("/favicon.ico", favicon),
            *(Route(path, change, methods=["POST"]) for path in changes)]


def read_listed(desk: Desk, path: str) -> str:
    """A scenario of the project's list (no other file of the machine is read)."""
    if path not in desk.scenario_files() or desk.scenarios_dir is None:
        raise BaoError(f"{path}: not a scenario of this project")
    return (desk.scenarios_dir / path).read_text(encoding="utf-8")


def act(desk: Desk, path: str, fields: Fields) -> None:
    s = desk.session
    if path == "/move":
        s.play(one(fields, "move"))
    elif path == "/expect":
        s.expect(one(fields, "expect"))
    elif path == "/undo":
        s.undo()
    elif path == "/redo":
        s.redo()
    elif path == "/goto":
        s.goto(number(one(fields, "at"), "step"))
    elif path == "/decisive":
        s.toggle_decisive(number(one(fields, "step"), "step"))
    elif path == "/deal":
        players = one(fields, "players").replace(",", " ").split()
        s.set_table(dealt_table(desk.eng, players, number(one(fields, "seed"), "seed")))



def number(text: str, what: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise BaoError(f"{what}: expected a whole number, found {text!r}") from None
