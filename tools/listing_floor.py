"""How close listing the legal moves is to what Python needs to make that many moves at all.

    python tools/listing_floor.py [--players 2,4,6] [--states 150] [--repeats 5]

On the seeded states `tools/speed.py` times (the same matches, played as `baobei simulate` plays them),
three ways of producing every legal move of each state are timed, best of `--repeats`:

- the engine: `list(Engine.legal_moves(state))`, the rules' guards decided for every candidate;
- the Move floor: the same moves made again from their parts (player, rule, arguments) in one flat loop, as
  the engine's listers make a move (one call: `made_move`), no guard, no domain, nothing decided: the least
  this engine pays to hand out that many `Move` objects;
- the tuple floor: the same, as plain tuples.

It prints the legal moves per state, the share of the commonest rule among them, and the nanoseconds per
listed move of each way. The engine cannot list faster than its floor: where it is within a small factor of
it, the limit is the number of moves and the interpreter's cost of one object, not the rules' guards.
Ctrl-C: exit 130.
"""

from __future__ import annotations

import argparse
import collections
import gc
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

from speed import Worker  # noqa: E402  (tools/ is not a package: the side-by-side tool's worker)

EXIT_OK, EXIT_INTERRUPTED = 0, 130


def best(run: Callable[[], Any], repeats: int) -> float:
    """The fastest of `repeats` runs, in seconds (the others met a moment's load)."""
    times = []
    for _ in range(repeats):
        gc.collect()
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(worker: Worker, players: int, repeats: int) -> dict[str, Any]:
    from baobei.engine.move import Move, made_move

    eng, states = worker.eng, worker.states[players]
    listed = [list(eng.legal_moves(st)) for st in states]
    parts = [[(m.player, m.name, m.args) for m in moves] for moves in listed]
    count = sum(map(len, listed))
    kinds = collections.Counter(m.name for moves in listed for m in moves)
    rule, most = kinds.most_common(1)[0] if kinds else ("none", 0)

    def engine() -> None:
        for st in states:
            list(eng.legal_moves(st))

    def move_floor() -> None:
        # As the engine's listers make a move (in one call: move.py's `made_move`).
        for moves in parts:
            for p, n, a in moves:
                made_move(Move, (p, n, a))

    def tuple_floor() -> None:
        for moves in parts:
            [(p, n, a) for p, n, a in moves]

    per_move = {name: best(run, repeats) / max(count, 1) * 1e9
                for name, run in (("engine", engine), ("move", move_floor), ("tuple", tuple_floor))}
    return {"moves": count / max(len(states), 1), "rule": rule,
            "share": most / max(count, 1), **per_move}


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="2,4,6", help="player counts, comma-separated (default: 2,4,6)")
    parser.add_argument("--states", type=int, default=150, help="states per player count (default: 150)")
    parser.add_argument("--matches", type=int, default=2, help="seeded matches the states come from (default: 2)")
    parser.add_argument("--seed", type=int, default=1, help="the first match's seed (default: 1)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of each way (default: 5)")
    args = parser.parse_args(argv)
    try:
        worker = Worker(ROOT)
        print("players  moves/state  commonest rule        engine ns/move  Move floor  tuple floor  engine/Move floor")
        for players in (int(p) for p in args.players.split(",")):
            worker.play(players, args.matches, args.states, args.seed, "simulate")
            row = measure(worker, players, args.repeats)
            print(f"{players:>7}  {row['moves']:>11,.0f}  {row['rule']:<13} {row['share']:>5.1%}  "
                  f"{row['engine']:>14,.0f}  {row['move']:>10,.0f}  {row['tuple']:>11,.0f}  "
                  f"{row['engine'] / row['move']:>17.2f}x")
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
