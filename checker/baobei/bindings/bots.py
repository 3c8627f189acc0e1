"""Bots that play BAO BEI through the OpenSpiel binding, and their measured win rates.

    python -m baobei.bindings.bots --players 2 --matches 40 --budgets 10,40     # a Markdown table on standard output

Each bot in turn takes one seat of a match (the seat rotates from match to match) against opponents who
all play `--opponent` (uniformly random actions by default); its win rate is the share of the matches it
won, with a 95% Wilson interval. Match i is dealt and played from seeds made of i alone, so the same
command gives the same table. The bots:

- `random`: a uniformly random legal action (OpenSpiel's uniform random bot);
- `memory`, or any other `policy` of the rules: the policy chooses a whole move from its player's view
  (play/policies.py) and the bot plays it action by action; a policy that waits passes;
- `ismcts-N`: OpenSpiel's IS-MCTS with N simulations per decision, random rollouts, UCT c = 2.
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pyspiel  # type: ignore[import-not-found, unused-ignore]
from open_spiel.python.algorithms import ismcts, mcts  # type: ignore[import-untyped, import-not-found, unused-ignore]

from ..engine.move import Move
from ..play.policies import make_policy
from .openspiel import BaoBeiGame, BaoBeiState
from .sequential import PASS

Chooser = Callable[[BaoBeiState], int]


class PolicyBot:
    """A policy of the rules (or the project's `random`/`kinds` play) as an OpenSpiel player."""

    def __init__(self, game: BaoBeiGame, policy: str, seed: int) -> None:
        self.views = game.baobei.views
        self.policy = make_policy(policy, self.views.engine)
        self.rng = random.Random(seed)
        self.plan: list[int] = []

    def __call__(self, state: BaoBeiState) -> int:
        table = state.table
        legal = table.legal_actions()
        if table.partial is not None and self.plan and self.plan[0] in legal:
            return self.plan.pop(0)
        self.plan = []
        forced = PASS not in legal or table.partial is not None
        move = self.policy.choose(self.views.view(table.st, table.current, forced), self.rng)
        if move is None or move.player != table.current or not table.eng.is_legal(table.st, move):
            if not forced:
                return PASS
            move = table.eng.random_move(table.st, self.rng, player=table.current)
        planned = self._actions(state, move) if move is not None else []
        if table.partial is None and planned and planned[0] in legal:
            self.plan = planned[1:]
            return planned[0]
        return self.rng.choice(legal)

    @staticmethod
    def _actions(state: BaoBeiState, move: Move) -> list[int]:
        table = state.table
        params = table.eng.moves[move.name].decl.params
        values = dict(move.args)
        return [table.actions.of_move(move.name),
                *(table.actions.of_value(p.kind, values.get(p.name)) for p in params)]


def uniform(seed: int) -> Chooser:
    rng = np.random.RandomState(seed)
    return lambda state: int(rng.choice(state.legal_actions()))


def ismcts_bot(game: BaoBeiGame, simulations: int, seed: int) -> Chooser:
    rng = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(game=game, evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
                           uct_c=2.0, max_simulations=simulations, random_state=rng,
                           final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)
    return lambda state: int(bot.step(state))


def make_bot(game: BaoBeiGame, name: str, seed: int) -> Chooser:
    if name == "random":
        return uniform(seed)
    if name.startswith("ismcts-"):
        return ismcts_bot(game, int(name.removeprefix("ismcts-")), seed)
    return PolicyBot(game, name, seed)


def play(game: BaoBeiGame, bots: Sequence[Chooser], seed: int) -> tuple[list[float], bool]:
    """One match; the returns and whether the rules ended it (not the action cap)."""
    chance = np.random.RandomState(seed)
    state: BaoBeiState = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(chance.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(bots[state.current_player()](state))
    return list(state.returns()), not state.table.truncated()


@dataclass
class Rate:
    bot: str
    players: int
    opponent: str
    matches: int = 0
    wins: int = 0
    cut: int = 0
    seconds: float = 0.0

    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of the win rate."""
        n, z = self.matches, 1.96
        if n == 0:
            return (0.0, 1.0)
        p = self.wins / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))


def measure(bot: str, players: int, opponent: str, matches: int, max_actions: int) -> Rate:
    game = pyspiel.load_game("python_baobei", {"players": players, "max_actions": max_actions})
    rate = Rate(bot, players, opponent)
    start = time.perf_counter()
    for i in range(matches):
        seat = i % players
        bots = [make_bot(game, bot if p == seat else opponent, 1000 * i + p) for p in range(players)]
        returns, ended = play(game, bots, i)
        rate.matches += 1
        rate.wins += int(returns[seat] == 1.0)
        rate.cut += int(not ended)
    rate.seconds = time.perf_counter() - start
    return rate


def table(rates: list[Rate]) -> str:
    lines = ["| bot | players | opponents | matches | win rate | 95% interval | chance level | cut | s per match |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rates:
        low, high = r.interval()
        lines.append(f"| {r.bot} | {r.players} | {r.opponent} | {r.matches} | {r.wins / max(r.matches, 1):.0%} | "
                     f"{low:.0%}–{high:.0%} | {1 / r.players:.0%} | {r.cut} | {r.seconds / max(r.matches, 1):.1f} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m baobei.bindings.bots", description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--bots", default="random,memory", help="comma-separated: random, a policy, ismcts-N")
    parser.add_argument("--budgets", default="10,40", help="IS-MCTS simulations per decision, comma-separated")
    parser.add_argument("--opponent", default="random")
    parser.add_argument("--max-actions", type=int, default=3000)
    args = parser.parse_args(argv)
    names = [b for b in args.bots.split(",") if b] + [f"ismcts-{n}" for n in args.budgets.split(",") if n]
    rates = []
    for players in args.players:
        for name in names:
            rate = measure(name, players, args.opponent, args.matches, args.max_actions)
            print(table([rate]).splitlines()[-1], flush=True)
            rates.append(rate)
    print()
    print(table(rates))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
