"""Serving the desk: uvicorn on a socket of this machine, the browser opened once the server listens.

The socket is bound here, before the server starts, so that a port in use is bad input said in one line
(and `--port 0` takes a free port, which the line names). Ctrl-C stops the server; uvicorn then raises
the interrupt again, and the command line answers it as every command does (exit 130).
"""

from __future__ import annotations

import socket
import threading
import time
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from ..language.errors import BaoError

if TYPE_CHECKING:
    import uvicorn

# How long the browser waits for the server to listen before it is opened anyway.
OPEN_WAIT = 10.0


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on host:port, or a BaoError saying why not (a port in use, a host unknown)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as err:
        raise BaoError(f"--host {host}: {err.strerror}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as err:
        sock.close()
        raise BaoError(f"cannot listen on {host}:{port}: {err.strerror} (another --port?)") from None
    sock.listen(128)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def serve(rules_dir: Path | None, host: str, port: int, open_browser: bool,
          say: Callable[[str], None] = print) -> NoReturn:
    """Serve the desk until Ctrl-C; it ends in KeyboardInterrupt (exit 130) however the server was stopped."""
    try:  # the `desk` extra: imported only by this command
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as err:
        raise BaoError(f"baobei serve needs the desk extra ({err.name} is missing): pip install 'baobei[desk]'") \
            from None

    from .app import create_app

    app = create_app(rules_dir)
    sock = bind(host, port)
    url = url_of(sock)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    say(f"the rules desk is at {url} (Ctrl-C stops it)")
    if open_browser:
        threading.Thread(target=_open_when_listening, args=(server, url), daemon=True).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    # Only a signal stops the server. uvicorn raises it again once stopped, but not when it came while the
    # server was still starting (seen under load: exit 0): a stop is Ctrl-C's, exit 130, either way.
    raise KeyboardInterrupt


def _open_when_listening(server: uvicorn.Server, url: str) -> None:
    deadline = time.monotonic() + OPEN_WAIT
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    webbrowser.open(url)
