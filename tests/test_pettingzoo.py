"""BAO BEI in PettingZoo (baobei.bindings.pettingzoo): the API test, the seed test, masks and rewards.

Needs the `pettingzoo` extra; skipped without it. A few seconds."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("pettingzoo")
np = pytest.importorskip("numpy")

from baobei.bindings.pettingzoo import env, raw_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoos_api_test(players: int) -> None:
    with warnings.catch_warnings():
        # Like every environment with action masks, the observation is a dict: PettingZoo warns by name.
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        warnings.filterwarnings("ignore", message="Observation space for each agent probably")
        api_test(env(players=players), num_cycles=400)


@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoos_seed_test(players: int) -> None:
    seed_test(lambda: env(players=players), num_cycles=400)


def test_a_whole_match_by_the_masks_ends_with_the_winners_reward() -> None:
    environment = env(players=3)
    environment.reset(seed=7)
    rewards = dict.fromkeys(environment.possible_agents, 0.0)
    steps = 0
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, _ = environment.last()
        rewards[agent] += reward
        if termination or truncation:
            action = None
        else:
            mask = observation["action_mask"]
            assert mask.dtype == np.int8 and mask.sum() >= 1
            action = environment.action_space(agent).sample(mask)
        environment.step(action)
        steps += 1
    assert sorted(rewards.values()) == [0.0, 0.0, 1.0] and steps > 10


def test_only_the_agent_asked_has_legal_actions_and_an_illegal_action_is_refused() -> None:
    environment = raw_env(players=2)
    environment.reset(seed=1)
    asked = environment.agent_selection
    other = next(a for a in environment.agents if a != asked)
    assert environment.observe(other)["action_mask"].sum() == 0
    mask = environment.observe(asked)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match="not legal"):
        environment.step(illegal)
    assert environment.action_text(int(np.flatnonzero(mask)[0]))


def test_render_gives_the_table_as_text_only_when_asked_for_a_render_mode() -> None:
    """Gymnasium's convention: without a render_mode, render() warns and gives nothing."""

    text = raw_env(players=2, render_mode="ansi")
    text.reset(seed=1)
    assert "p1" in (text.render() or "")
    silent = raw_env(players=2)
    silent.reset(seed=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert silent.render() is None
    assert any("render_mode" in str(w.message) for w in caught)


def test_a_reset_without_a_seed_goes_on_with_the_generator_of_the_last_seed() -> None:
    """`reset(seed=5)` then `reset()` twice: the same matches each time, as Gymnasium's reset does."""

    def matches() -> list[list[int]]:
        environment = raw_env(players=2)
        environment.reset(seed=5)
        out = []
        for _ in range(2):
            environment.reset()
            out.append([int(x) for x in environment.observe(environment.agent_selection)["observation"].nonzero()[0]])
        return out

    first = matches()
    assert first == matches() and first[0] != first[1]
