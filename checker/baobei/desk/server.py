"""Serving the desk: uvicorn on a socket of this machine, the browser opened once the server listens.

The socket is bound here, before the server starts, so that a port in use is bad input said in one line
(and `--port 0` takes a free port, which the line names). Ctrl-C stops the server, and the command line
answers it as every command does (exit 130).

Ctrl-C is caught by a handler of ours from before the address is printed: it only asks the server to stop
(`should_exit`), whenever it comes. uvicorn's own handler does the same while it serves, and gives the
signal back to ours when it stops. So no KeyboardInterrupt is ever raised inside uvicorn or asyncio, where
one that came while the server was still starting could end up swallowed (a CI run saw the server run on);
once the server has stopped, `serve` raises it itself.
"""

from __future__ import annotations

import signal
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
    before = signal.signal(signal.SIGINT, lambda signum, frame: _stop(server))
    try:
        say(f"the rules desk is at {url} (Ctrl-C stops it)")
        if open_browser:
            threading.Thread(target=_open_when_listening, args=(server, url), daemon=True).start()
        server.run(sockets=[sock])
    finally:
        signal.signal(signal.SIGINT, before)
        sock.close()
    # Only Ctrl-C stops the server (or the same signal sent by another program): exit 130.
    raise KeyboardInterrupt


def _stop(server: uvicorn.Server) -> None:
    """Ctrl-C outside uvicorn's own handler (before it starts, or passed back after it stopped): the
    server stops at once if it has not started yet, else at its next tick."""
    server.should_exit = True


def _open_when_listening(server: uvicorn.Server, url: str) -> None:
    deadline = time.monotonic() + OPEN_WAIT
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    webbrowser.open(url)
