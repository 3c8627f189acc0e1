"""BAO BEI as a PettingZoo AEC environment with action masks: `baobei.bindings.pettingzoo.env(players=4)`.

Needs the `pettingzoo` extra (`pip install 'baobei[pettingzoo]'`). The game is the `Table` of
baobei.bindings.sequential, as in the OpenSpiel binding: one agent acts at a time (the out-of-turn calls are asked
in the order of decision D6, each agent but the last asked may PASS, action 0), a move is chosen in steps
(its kind, then each argument), and the random outcomes (draws, random picks) are drawn by the
environment from the generator `reset(seed=...)` seeds, so that the same seed and the same actions give
the same match. Each agent observes `{"observation": its view as a vector (baobei.bindings.vectors.Encoder),
"action_mask": int8 over the actions}`. The reward, at the end, is 1 for the winner the rules name and 0
for the others; a match cut at `max_actions` is truncated with no reward.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import gymnasium  # type: ignore[import-not-found, unused-ignore]
import numpy as np
from gymnasium import spaces  # type: ignore[import-not-found, unused-ignore]
from pettingzoo import AECEnv  # type: ignore[import-untyped, import-not-found, unused-ignore]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped, import-not-found, unused-ignore]

from ..game import Game
from .sequential import CHANCE, Table
from .vectors import Encoder

DEFAULT_MAX_ACTIONS = 3000


class raw_env(AECEnv):  # type: ignore[misc]
    """The environment (see the module): `players` agents `player_0` ... (seat i plays the table's p{i+1}),
    the rules of `rules` (a folder; the default rules when None), matches cut after `max_actions` actions of
    the agents."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "baobei_v0",
                                          "is_parallelizable": False}

    def __init__(self, players: int = 2, rules: str | None = None, max_actions: int = DEFAULT_MAX_ACTIONS,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.game = Game.load(rules)
        self.game.engine.check_player_count(players)
        self.players = players
        self.max_actions = max_actions
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]  # seat i: the rules' player p{i+1}
        self.table = Table(self.game, players, max_actions)
        self.encoder = Encoder(self.game.engine, players)
        self._action_spaces = {a: spaces.Discrete(self.table.actions.size) for a in self.possible_agents}
        self._observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.encoder.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.table.actions.size,), np.int8),
        }) for a in self.possible_agents}
        self._chance = random.Random(0)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:  # without one the generator goes on, as Gymnasium's reset does
            self._chance = random.Random(seed)
        self.table = Table(self.game, self.players, self.max_actions)
        self._resolve_chance()
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _resolve_chance(self) -> None:
        """Draw every random outcome due now (a uniform choice among the possible ones)."""
        while self.table.current == CHANCE:
            outcomes = self.table.chance_outcomes()
            self.table.apply(self._chance.choice(outcomes)[0])

    def _select(self) -> None:
        table = self.table
        if table.is_over():
            returns = table.returns()
            truncated = table.truncated()
            for i, agent in enumerate(self.possible_agents):
                self.rewards[agent] = returns[i]
                self.terminations[agent] = not truncated
                self.truncations[agent] = truncated
            self._accumulate_rewards()
            self.agent_selection = self.agents[0]
            return
        self.agent_selection = self.possible_agents[table.current]

    def observe(self, agent: str) -> dict[str, Any]:
        seat = self.possible_agents.index(agent)
        mask = np.zeros(self.table.actions.size, np.int8)
        if self.table.current == seat:
            mask[self.table.legal_actions()] = 1
        return {"observation": self.encoder.encode(self.table, seat), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        action = int(action)
        if action not in self.table.legal_actions():
            raise ValueError(f"{agent}: action {action} is not legal now; the action mask lists the legal ones")
        self._cumulative_rewards[agent] = 0.0
        self.table.apply(action)
        self._resolve_chance()
        for a in self.agents:
            self.rewards[a] = 0.0
        self._select()
        if self.render_mode == "human":
            self.render()

    def action_text(self, action: int) -> str:
        """The action in words for the agent asked now (`pass`, a move's name, `target=p2.3` ...)."""
        return self.table.action_text(self.table.current, action)

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() was called without a render_mode: make the env with "
                                  "render_mode='ansi' (the table as text) or 'human' (printed)")
            return None
        text = "\n".join(self.game_state().table())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def game_state(self) -> Any:
        """The table as a `baobei.MatchState` (for reading: play goes on through `step`)."""
        from ..game import MatchState

        return MatchState(self.game, self.table.st)

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's usual checks around it (an illegal action raises)."""
    environment: AECEnv = raw_env(**kwargs)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


__all__ = ["env", "raw_env"]
