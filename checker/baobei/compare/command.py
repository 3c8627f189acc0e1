"""`baobei compare --rules OLD --rules NEW`: the command's arguments and its run (the work: run.py).

Exit 0 when the versions give the same answers, properties and play; 1 when they differ; 2 for bad input
(a BaoError, turned into exit 2 by the command line).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from ..language.errors import BaoError
from ..language.options import at_least, named

EXIT_SAME, EXIT_DIFFERENT = 0, 1


def rules_folder(text: str) -> str:
    """An argparse type for --rules, shared by every command: an empty path names no folder, and would else be
    read as no --rules at all, the default rules judged in silence in place of the variant meant."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path names no rules folder (leave --rules out for the default "
                                         "rules/)")
    return text


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", metavar="DIR", action="append", default=None, type=rules_folder,
                   help="a rules folder, or git:REV[:PATH] for one of a git revision (PATH default: rules); "
                        "give it twice: OLD, then NEW")
    p.add_argument("--scenarios", metavar="PATH", action="append", default=None,
                   help="scenario files or folders to replay under both (default: scenarios/); repeat for more")
    p.add_argument("--players", type=at_least(1), default=3,
                   help="players at the table of the searches' deals and of the matches played")
    p.add_argument("--seed", type=int, default=1, help="the first deal's seed, and the campaigns' seed")
    p.add_argument("--matches", type=at_least(0), default=40,
                   help="matches played under each version, the same seeds for both (0: leave play out)")
    p.add_argument("--policy", type=named, default=None,
                   help="how the simulated players choose (default: OLD's first policy when NEW declares it too, "
                        "else random)")
    p.add_argument("--max-turns", type=at_least(1), default=1000,
                   help="the turn cap of a simulated round (the rules set none)")
    p.add_argument("--workers", type=at_least(1), default=None,
                   help="worker processes for the matches (default: every core)")
    p.add_argument("--depth", type=at_least(0), default=8,
                   help="moves after a seeded deal that the searches follow (properties, situations)")
    p.add_argument("--deals", type=at_least(1), default=1, help="seeded deals the searches start from")
    p.add_argument("--table-depth", type=at_least(0), default=2,
                   help="moves after each scenario's table that the search for a situation follows")
    p.add_argument("--max-states", type=at_least(1), default=3000,
                   help="states each search judges at most (per version; per search for the situation)")
    p.add_argument("--bmc-depth", type=at_least(0), default=4,
                   help="moves Z3 unrolls over the two versions' transition relations side by side, from every "
                        "deal of the small deck, for a parting move shorter than the searches found (0: none)")
    p.add_argument("--bmc-seconds", type=at_least(1), default=60,
                   help="seconds Z3 may take over the two relations (the report gives the depth reached)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON (schema: "
                   "docs/compare.schema.json; also written to OUT/compare.json); the lines for people go to "
                   "standard error")
    p.add_argument("--out", metavar="DIR", default="comparison",
                   help="where compare.json, the situation's scenario, the counterexamples and the plots go")


def run_compare(args: argparse.Namespace) -> int:
    # Imported here: the command line builds every command's options at each start, and the comparison's
    # machinery (engine, search, campaign) would cost every other command half a second.
    from ..play.explore import check_state_budget
    from .report import print_report, to_text
    from .revision import resolve
    from .run import compare, out_dir, readable, request_of, scenario_paths, write_files

    rules = args.rules if isinstance(args.rules, list) else []
    if len(rules) != 2:
        raise BaoError("compare needs two rules folders: --rules OLD --rules NEW")
    if args.matches == 0 and (args.policy is not None or args.workers is not None):
        raise BaoError("--matches 0 leaves play out: --policy and --workers choose how the matches are played")
    check_state_budget(args.max_states)  # a limit the memory cannot hold is refused before any work
    scenarios = readable(scenario_paths(args.scenarios))  # likewise a scenario that does not parse
    out = out_dir(Path(args.out))
    with contextlib.ExitStack() as stack:  # removes the folders of git revisions when done
        old, new = (resolve(spec, stack) for spec in rules)
        comparison = compare(request_of(args, old, new, scenarios))
        write_files(comparison, out)
    if args.json:
        print(to_text(comparison), end="")
        with contextlib.redirect_stdout(sys.stderr):
            print_report(comparison)
    else:
        print_report(comparison)
    return EXIT_DIFFERENT if comparison.differs else EXIT_SAME
