"""Ctrl-C during a proof: it stops the command at once, wherever it lands, and is never taken for an answer.

Z3 would catch SIGINT for itself during any call and, outside a solver check, drop it, and the command would
go on; a check it cuts short answers "unknown", which a prover must not read as a result. `watch_interrupts`
sets this right once per process; `terms.check` and `terms.simplify`, the Z3 calls of every prover, honour it
with `interrupted` and `sigint_held`.

How Ctrl-C is caught changes no proof: this module is left out of the induction record's key
(certificate.py), so mending it does not make the record stale. What can change a proof, how a check's answer
is read, is in terms.py, which is in the key: here an edit can only make a run stop, never answer.
"""

from __future__ import annotations

import _thread
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import z3  # type: ignore[import-untyped]

Z = Any  # a Z3 term

# Z3 answers "unknown" when Ctrl-C arrives during a check: a prover must not mistake that for an answer.
# ("canceled" is no interrupt: Z3 says so when a check's timeout ends it.)
INTERRUPTED = frozenset({"interrupted from keyboard"})


AGAIN_AFTER_S = 0.01  # how long after the hook a Ctrl-C it kept is raised again (`_interrupt_main_later`)
CTRL_C = threading.Event()  # set by the watcher when Ctrl-C came (see `watch_interrupts`)
_WATCHING: list[bool] = []


def unraisable_in_a_proof(unraisable: Any) -> None:
    """A Ctrl-C that lands inside the making of a Z3 object leaves it without its context, and its `__del__`
    fails when it is collected at exit: a leftover of the interrupt, which said what it had to, not an error.
    A Ctrl-C whose KeyboardInterrupt Python raised inside a `__del__` (a Z3 object collected while the
    engine searches, say) would be dropped there by Python, and the command would go on: it is raised again
    in the main thread once the `__del__` is over, and kept for the next `check` too. Everything else is
    reported as Python reports it."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        CTRL_C.set()
        _interrupt_main_later()
        return
    where = unraisable.object
    if isinstance(unraisable.exc_value, AttributeError) and getattr(where, "__module__", "").startswith("z3") \
            and getattr(where, "__name__", "") == "__del__":
        return
    sys.__unraisablehook__(unraisable)


def _interrupt_main_later() -> None:
    """Ctrl-C raised again in the main thread, by a thread of its own a moment later. Raised from the hook
    itself (`_thread.interrupt_main()` there), Python runs the handler at once, inside the hook, and reports
    and drops what the hook raises, with a traceback: the moment lets the hook return first."""
    def later() -> None:
        time.sleep(AGAIN_AFTER_S)
        _thread.interrupt_main()

    threading.Thread(target=later, name="ctrl-c again", daemon=True).start()


def watch_interrupts() -> None:
    """Make Ctrl-C stop a proof at once, wherever it lands. Z3 would otherwise catch SIGINT for itself during
    any call and, outside a check, drop it (the command went on). So Z3 is told to leave SIGINT alone
    (`ctrl_c` off); Python's own handler raises KeyboardInterrupt between calls, and a watcher thread, woken
    by the signal through the wakeup fd, interrupts a running Z3 call, whose "unknown" `check` then raises
    as KeyboardInterrupt. Once per process, from the main thread."""
    if _WATCHING or threading.current_thread() is not threading.main_thread():
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:  # made whole: a context that Ctrl-C cut short in its making fails again when it is collected
        z3.main_ctx()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
    z3.set_param("ctrl_c", False)
    sys.unraisablehook = unraisable_in_a_proof
    read, write = os.pipe()
    os.set_blocking(write, False)
    signal.set_wakeup_fd(write)

    def watch() -> None:
        while True:
            signals = os.read(read, 64)
            if signal.SIGINT in signals:
                CTRL_C.set()
                z3.main_ctx().interrupt()

    threading.Thread(target=watch, name="ctrl-c watcher", daemon=True).start()
    _WATCHING.append(True)


def interrupted(solver: Any) -> bool:
    """Whether an "unknown" answer of this solver's check is Ctrl-C's (now, or one dropped before: see
    `unraisable_in_a_proof`), not Z3's own."""
    return CTRL_C.is_set() or solver.reason_unknown() in INTERRUPTED


@contextlib.contextmanager
def sigint_held() -> Iterator[None]:
    """Ctrl-C held back until the block ends: for a Z3 call that would take the interrupt for itself and drop
    it (a simplification has no "unknown" to tell), so that the command would not stop."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
