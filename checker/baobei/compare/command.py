"""`baobei compare --rules OLD --rules NEW`: the command's arguments and its run."""

from __future__ import annotations

import argparse

from ..language.errors import BaoError


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", metavar="DIR", action="append", default=None,
                   help="a rules folder, or git:REV[:PATH] for one of a git revision; give it twice: OLD, then NEW")


def run_compare(args: argparse.Namespace) -> int:
    rules = args.rules if isinstance(args.rules, list) else []
    if len(rules) != 2:
        raise BaoError("compare needs two rules folders: --rules OLD --rules NEW")
    raise BaoError("compare is not built yet")
