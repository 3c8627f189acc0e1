"""Side by side: the engine of this checkout against the engine of another git revision, like for like.

    python tools/speed.py --against REV [--players 2,4,6] [--repeats 5] [--states 400]

REV is checked out into a temporary git worktree (removed at the end, also on Ctrl-C: exit 130). Each side
runs in a subprocess of its own that imports its own `baobei` package (this checkout's, or the worktree's)
and compiles its own rules. The old side plays seeded full-deck matches with uniformly random legal moves;
the new side replays the same moves, and every state after a move is compared (as the state's JSON) so both
time the very same states and moves. Then, for each player count, four operations are timed on those
states, old and new in turn, several times (the runs interleaved, so that the machine's load falls on both
alike), and the median of each side is shown:

- apply (checked): `Engine.push(state, move, log=False)`: the move is checked, then applied in place;
- apply (generated): `Engine.push_generated(state, move)`: a move the generator produced, not checked again;
- list legal moves: `list(Engine.legal_moves(state))`, every player's;
- random legal move: `Engine.random_move(state, rng)`, one uniformly random legal move.

The state copies an apply needs are made before the clock starts, the answers are written out after it
stops. The answers are compared too: the legal moves listed and the random moves drawn (same seed) must be
the same on both sides.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
OPERATIONS = {
    "apply": "apply a move (checked)",
    "generated": "apply a generated move (unchecked)",
    "list": "list every legal move",
    "random": "one random legal move",
}
EXIT_OK, EXIT_FAIL, EXIT_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
# How many times a timed run goes over the states: the cheap operations (a few µs) often, listing once.
ROUNDS = {"apply": 20, "generated": 20, "random": 20}
MOVE_CAP = 3000  # moves per match at most (the rules bound no round: D9)


# ---------------------------------------------------------------- the worker (runs inside one side)


class Worker:
    """One side: its engine, and per player count the states and moves it times."""

    def __init__(self, root: Path) -> None:
        sys.path.insert(0, str(root / "checker"))  # before the editable install's path: this side's package
        from baobei.engine.engine import Engine
        from baobei.language.load import load_ruleset

        self.eng: Any = Engine(load_ruleset(root / "rules"))
        self.states: dict[int, list[Any]] = {}
        self.moves: dict[int, list[Any]] = {}

    def play(self, players: int, matches: int, count: int, seed: int, policy: str) -> dict[str, Any]:
        """Seeded matches: every move of each (as JSON), and the state after each move as a digest."""
        trace: list[tuple[Any, Any]] = []
        moves: list[list[Any]] = []
        digests: list[str] = []
        for m in range(matches):
            played = self._match(players, seed + m, policy)
            trace += played
            moves.append([_move_json(move) for _, move in played])
            digests += [self._digest(after) for after in self._afters(played)]
        self._keep(players, trace, count)
        return {"moves": moves, "digests": digests}

    def _match(self, players: int, seed: int, policy: str) -> list[tuple[Any, Any]]:
        """One match: each state (a copy) with the move made in it. `simulate`: as `baobei simulate` plays it
        (the dealer, the rules' first policy, no invariants); `kinds`, `random`: random legal moves."""
        import random

        eng, names = self.eng, [f"p{i + 1}" for i in range(players)]
        if policy == "simulate":
            from baobei.play.dealer import Dealer, Match, MatchRecord

            played: list[tuple[Any, Any]] = []

            class Recording(Match):
                def step(self, move: Any) -> bool:
                    played.append((self.st.copy(), move))
                    return bool(super().step(move))

            dealer = Dealer(eng, next(iter(eng.rules.policies), "random"), invariants=False)
            st, _ = eng.new_match(names, seed, log=False)
            Recording(dealer, MatchRecord(0, seed), st, random.Random(f"policies/{seed}")).run()
            return played
        choose = eng.random_move if policy == "random" else eng.random_move_by_kind
        st, _ = eng.new_match(names, seed, log=False)
        rng, out = random.Random(seed), []
        for _ in range(MOVE_CAP):
            move = choose(st, rng)
            if move is None:
                break
            out.append((st.copy(), move))
            eng.push_generated(st, move)
        return out

    def _afters(self, played: list[tuple[Any, Any]]) -> Iterator[Any]:
        """The state after each move of a match (the state before the next, and after the last)."""
        for i, (st, move) in enumerate(played):
            if i + 1 < len(played):
                yield played[i + 1][0]
            else:
                last = st.copy()
                self.eng.push(last, move, log=False)
                yield last

    def replay(self, players: int, matches: int, count: int, seed: int, policy: str, moves: list[list[Any]]
               ) -> dict[str, Any]:
        """The other side's moves, each checked and applied (`push`): the state after each as a digest."""
        eng, digests = self.eng, []
        trace: list[tuple[Any, Any]] = []
        for m, match_moves in enumerate(moves):
            st, _ = eng.new_match([f"p{i + 1}" for i in range(players)], seed + m, log=False)
            for data in match_moves:
                move = _move_value(data)
                trace.append((st.copy(), move))
                eng.push(st, move, log=False)
                digests.append(self._digest(st))
        self._keep(players, trace, count)
        return {"digests": digests}

    def _keep(self, players: int, trace: list[tuple[Any, Any]], count: int) -> None:
        """`count` states evenly spaced over the matches, with the move made in each."""
        kept = trace[:: max(1, len(trace) // count)][:count]
        self.states[players] = [st for st, _ in kept]
        self.moves[players] = [move for _, move in kept]

    def _digest(self, st: Any) -> str:
        return hashlib.sha256(self.eng.state_to_json(st).encode()).hexdigest()[:16]

    def time(self, players: int, op: str, seed: int, rounds: int) -> dict[str, Any]:
        """One timed run of an operation, `rounds` times over every kept state (a cheap operation is run
        many times, so that a run lasts long enough for the clock and a moment's load): µs per operation,
        and a digest of the first round's answers."""
        states, moves = self.states[players], self.moves[players]
        run = self._operation(op, states, moves, seed, rounds)
        gc.collect()
        start = time.perf_counter()
        answers = run()
        seconds = time.perf_counter() - start
        return {"us": seconds / (len(states) * rounds) * 1e6, "answers": _answers_digest(_jsonable(answers))}

    def _operation(self, op: str, states: list[Any], moves: list[Any], seed: int, rounds: int
                   ) -> Callable[[], list[Any]]:
        """The operation as a function of no argument, its inputs prepared (copies made) outside the clock;
        it gives the first round's answers."""
        import random

        eng = self.eng
        if op in ("apply", "generated"):
            batches = [[st.copy() for st in states] for _ in range(rounds)]
            push = (lambda st, m: eng.push(st, m, False)) if op == "apply" else eng.push_generated

            def apply() -> list[Any]:
                for copies in batches:
                    for st, move in zip(copies, moves, strict=True):
                        push(st, move)
                return []

            return apply
        rng = random.Random(seed)

        def answer() -> list[Any]:
            if op == "list":
                return list(map(list, map(eng.legal_moves, states)))
            return [eng.random_move(st, rng) for st in states]

        def answers() -> list[Any]:
            first = answer()
            for _ in range(rounds - 1):
                answer()
            return first

        return answers


def _jsonable(answers: list[Any]) -> list[Any]:
    """The answers as JSON values (made after the clock stops): moves as lists, lists of moves as lists."""
    return [[_move_json(m) for m in a] if isinstance(a, list) else _move_json(a) for a in answers]


def _move_json(move: Any) -> Any:
    if move is None:
        return None
    return [move.player, move.name, [[k, list(v) if isinstance(v, tuple) else v] for k, v in move.args]]


def _move_value(data: Any) -> Any:
    from baobei.engine.move import Move

    player, name, args = data
    return Move(player, name, tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in args))


def _answers_digest(answers: list[Any]) -> str:
    return hashlib.sha256(json.dumps(answers, separators=(",", ":")).encode()).hexdigest()


def serve(root: Path) -> None:
    """The worker's loop: one JSON request a line on standard input, one JSON answer a line on standard output."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops the workers itself
    worker = Worker(root)
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        method = getattr(worker, request.pop("do"))
        print(json.dumps(method(**request)), flush=True)


# ---------------------------------------------------------------- the parent


class Side:
    """A worker subprocess for one side, asked one request at a time."""

    def __init__(self, label: str, root: Path) -> None:
        self.label = label
        env = {**os.environ, "PYTHONPATH": str(root / "checker")}
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker", str(root)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                                     start_new_session=True)  # Ctrl-C reaches the parent only
        self.ask_raw()

    def ask(self, do: str, **args: Any) -> dict[str, Any]:
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(json.dumps({"do": do, **args}) + "\n")
        stdin.flush()
        return self.ask_raw()

    def ask_raw(self) -> dict[str, Any]:
        stdout: IO[str] | None = self.proc.stdout
        assert stdout is not None
        line = stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.label} side stopped (exit {self.proc.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


@contextmanager
def worktree(rev: str) -> Iterator[Path]:
    """REV checked out in a temporary folder, removed (and unregistered) when done, whatever happens."""
    folder = Path(tempfile.mkdtemp(prefix="baobei-speed-"))
    path = folder / "tree"
    try:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(path), rev],
                       check=True, stdin=subprocess.DEVNULL)
        yield path
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not leave the worktree behind
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "prune"], stdin=subprocess.DEVNULL)


def prepare(old: Side, new: Side, players: int, args: argparse.Namespace) -> None:
    """Both sides hold the same states and moves, or this stops with where they first differ."""
    game = {"players": players, "matches": args.matches, "count": args.states, "seed": args.seed,
            "policy": args.policy}
    shown = old.ask("play", **game)
    got = new.ask("replay", moves=shown["moves"], **game)
    moves = [move for match in shown["moves"] for move in match]
    for i, (a, b) in enumerate(zip(shown["digests"], got["digests"], strict=True)):
        if a != b:
            raise Mismatch(f"{players} players: move {i + 1} ({moves[i]}) leaves different states on the two sides")
    print(f"{players} players: {min(args.states, len(moves))} states of {len(moves)} moves in {args.matches} "
          f"matches, the same on both sides", file=sys.stderr)


class Mismatch(Exception):
    """The two sides do not reach the same states: there is nothing like for like to time."""


def measure(old: Side, new: Side, players: int, args: argparse.Namespace) -> dict[str, tuple[float, float]]:
    """Per operation, the median µs of each side, the runs interleaved (old, new, new, old, ...)."""
    out: dict[str, tuple[float, float]] = {}
    for op in OPERATIONS:
        times: dict[str, list[float]] = {"old": [], "new": []}
        answers: dict[str, set[str]] = {"old": set(), "new": set()}
        for r in range(args.repeats):
            order = [("old", old), ("new", new)] if r % 2 == 0 else [("new", new), ("old", old)]
            for label, side in order:
                got = side.ask("time", players=players, op=op, seed=args.seed, rounds=ROUNDS.get(op, 1))
                times[label].append(got["us"])
                answers[label].add(got["answers"])
        if op in ("list", "random") and answers["old"] != answers["new"]:
            print(f"  note: {players} players, {OPERATIONS[op]}: the answers differ between the sides",
                  file=sys.stderr)
        out[op] = (statistics.median(times["old"]), statistics.median(times["new"]))
    return out


def table(rev: str, results: dict[int, dict[str, tuple[float, float]]]) -> list[str]:
    lines = [f"{'operation':<38} {'players':>7} {'old µs':>10} {'new µs':>10} {'ratio':>7}"]
    for op, words in OPERATIONS.items():
        for players, ops in results.items():
            old_us, new_us = ops[op]
            lines.append(f"{words:<38} {players:>7} {old_us:>10.1f} {new_us:>10.1f} {old_us / new_us:>6.2f}×")
    lines.append(f"old: {rev}; new: this checkout; ratio: old µs / new µs (above 1: the new engine is faster)")
    return lines


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--against", metavar="REV", help="the git revision to compare with (e.g. 04b7046)")
    parser.add_argument("--players", default="2,4,6", help="player counts, comma-separated (default: 2,4,6)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per side and operation (default: 5)")
    parser.add_argument("--states", type=int, default=150, help="states timed per player count (default: 150)")
    parser.add_argument("--matches", type=int, default=2, help="seeded matches the states come from (default: 2)")
    parser.add_argument("--seed", type=int, default=1, help="the first match's seed (default: 1)")
    parser.add_argument("--policy", choices=("simulate", "kinds", "random"), default="simulate",
                        help="how the matches are played: as `baobei simulate` plays them (the rules' first "
                             "policy; default), a kind of move first, or uniformly over every legal move")
    parser.add_argument("--worker", metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is None and args.against is None:
        parser.error("--against REV is required")
    try:
        args.player_counts = [int(p) for p in args.players.split(",")]
    except ValueError:
        parser.error(f"--players: a comma-separated list of numbers, not {args.players!r}")
    if args.repeats < 1 or args.states < 1 or args.matches < 1:
        parser.error("--repeats, --states and --matches take a number of at least 1")
    return args


def compare(args: argparse.Namespace) -> int:
    sides: list[Side] = []
    try:
        with worktree(args.against) as tree:
            sides += [Side("old", tree), Side("new", ROOT)]
            old, new = sides
            results = {}
            for players in args.player_counts:
                prepare(old, new, players, args)
                results[players] = measure(old, new, players, args)
            print("\n".join(table(args.against, results)))
    finally:
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # the workers go, even on a second Ctrl-C
        for side in sides:
            side.stop()
        signal.signal(signal.SIGINT, previous)
    return EXIT_OK


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.worker is not None:
        serve(Path(args.worker))
        return EXIT_OK
    try:
        return compare(args)
    except Mismatch as err:
        print(f"speed: {err}", file=sys.stderr)
        return EXIT_FAIL
    except subprocess.CalledProcessError as err:
        print(f"speed: git could not check out {args.against!r} ({err})", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("interrupted: the worktree and the workers are gone", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
