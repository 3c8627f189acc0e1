"""How one policy fares against another: seeded matches, a policy per seat (`simulate` gives all one).

    python tools/seat_match.py --policy shrewd --against random --players 3 --matches 300
    python tools/seat_match.py --policy shrewd --against memory,random --players 3 --matches 300 --seed 2

One player of `--policy` sits at the table with `players - 1` of `--against` (several names: one measure
each); its seat turns with the match. Who won is the value of `--winner`, a rules-language expression over
the state the match ended in (default: the rules' `winner` variable). The line printed per measure gives
the win rate, its 95 % interval and the rate an equal player would have (1 / players).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from baobei.engine.state import State
from baobei.language.source import Pos
from baobei.play.seats import measure, split_policies
from baobei.scenarios.expectations import compile_probe
from baobei.scenarios.runner import engine_for


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rules", metavar="DIR", default=None, help="rules directory (default: rules/)")
    parser.add_argument("--policy", required=True, help="the policy measured")
    parser.add_argument("--against", default="random", help="the opponents' policy (comma-separated: one run each)")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--matches", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-turns", type=int, default=1000)
    parser.add_argument("--winner", default="winner", help="the expression naming the winning player")
    args = parser.parse_args()
    eng = engine_for(Path(args.rules) if args.rules else None)
    eng.check_player_count(args.players)
    split_policies(args.policy, 1, eng)
    probe: dict[str, object] = {}

    def winner(st: State) -> int | None:
        if "fn" not in probe:
            probe["fn"] = compile_probe(eng, st, args.winner, Pos("--winner", 1, 1))[0]
        value = eng.evaluate(st, probe["fn"])  # type: ignore[arg-type]
        return value if isinstance(value, int) else None

    for against in split_policies(args.against, 1, eng) if "," not in args.against else \
            [name.strip() for name in args.against.split(",")]:
        split_policies(against, 1, eng)
        start = time.perf_counter()
        result = measure(eng, args.policy, against, args.players, args.matches, args.seed, winner, args.max_turns)
        print(f"{result.line()}  [{time.perf_counter() - start:.0f}s; wins by seat {result.by_seat}]", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
