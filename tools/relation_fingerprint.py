"""Whether an edit changes what induction asks Z3: a fingerprint of the induction relation's terms.

    python tools/relation_fingerprint.py [--players 2] [--rules rules]

Every edit of the code in the proof record's key (`baobei.proofs.certificate.meaning()`) costs a
re-certification, and its time depends on the questions Z3 is asked, not on the code. This builds the
relation induction builds (`proofs/induction.Relation` with free cards: the deal, then every move of the
rules from one arbitrary state) and prints a digest of its side constraints, of the dealt state, and of
each move's step (when it is allowed, and every value of the state after it). Run it on the old and the
new commit: equal digests mean the same terms, so the same questions and the same certification time
(the Houdini loop, the claims and the facts aside). Different digests say nothing about the size of the
change: time a player count to know.

Each term is digested exactly (`baobei.proofs.seal.TermDigest`: SHA-256 over its whole structure), per
move, so that a record `baobei verify --carry` refuses to carry shows which moves changed. Building the
relation takes about 2-3 minutes at 2 players on the project's machine. Ctrl-C: exit 130.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import sys
import time
from pathlib import Path
from typing import Any

from baobei.cli import caused_by_interrupt
from baobei.language.errors import BaoError
from baobei.language.load import load_ruleset
from baobei.play.explore import NAMES  # the names verify gives induction
from baobei.proofs.induction import Relation, Step
from baobei.proofs.interrupts import watch_interrupts
from baobei.proofs.report import check_players
from baobei.proofs.seal import TermDigest

TERMS = TermDigest()  # one for the run: a subterm shared by two moves is digested once


def term_digest(value: Any) -> bytes:
    """A Z3 term by its exact digest; anything else (a Python value of the store) by its repr."""
    if not hasattr(value, "as_ast"):
        return repr(value).encode()
    TERMS.alive.append(value)
    return TERMS.node(value.as_ast())


def store_digest(table: dict[Any, Any]) -> str:
    out = hashlib.sha256()
    for name in sorted(table, key=repr):
        out.update(repr(name).encode())
        out.update(term_digest(table[name]))
    return out.hexdigest()[:12]


def step_digest(step: Step) -> str:
    out = hashlib.sha256(term_digest(step.allowed))
    out.update(store_digest(step.post.t).encode())
    return out.hexdigest()[:12]


def fingerprint(rules_dir: Path, players: int) -> list[str]:
    """The lines to print: the relation's totals, then one digest per move of the rules."""
    rules = load_ruleset(rules_dir)
    check_players(rules, players)
    began = time.perf_counter()
    rel = Relation(rules, players, list(NAMES[:players]))
    dealt = store_digest(rel.initial().t)
    steps = rel.build(lambda: None)
    side = hashlib.sha256()
    for constraint in rel.side:
        side.update(term_digest(constraint))
    parts = {step.cm.name: step_digest(step) for step in steps}
    total = hashlib.sha256(side.digest() + dealt.encode() + "".join(parts.values()).encode()).hexdigest()[:16]
    return [f"{players} players: relation {total} ({len(rel.side)} side constraints {side.hexdigest()[:12]}, "
            f"dealt {dealt}, {len(steps)} moves; built in {time.perf_counter() - began:.0f} s)",
            *(f"  {name:<20} {digest}" for name, digest in parts.items())]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rules", type=Path, default=Path("rules"))
    args = parser.parse_args(argv)
    watch_interrupts()  # as verify does: Z3 would otherwise take Ctrl-C for itself and go on
    try:
        print("\n".join(fingerprint(args.rules, args.players)))
    except BaoError as err:
        print(f"relation_fingerprint: {err}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, ctypes.ArgumentError) as err:
        if not caused_by_interrupt(err):  # Ctrl-C inside a Z3 call surfaces as ctypes' ArgumentError
            raise
        print("interrupted: no fingerprint", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
