"""BAO BEI as an OpenSpiel game: `import baobei.bindings.openspiel`, then `pyspiel.load_game("python_baobei")`.

Needs the `openspiel` extra (`pip install 'baobei[openspiel]'`). The game is the `Table` of
baobei.bindings.sequential: sequential, explicit chance (every draw from the face-down pile and every random pick
of the rules is a chance node, each outcome equally likely), imperfect information, the out-of-turn calls
asked one player at a time in the order of decision D6 (each may pass but the last asked). Parameters:

- `players` (2): the player count, within what the rules allow;
- `rules` (""): a rules folder, the default rules when empty;
- `max_actions` (3000): the players' actions after which a match is cut (its returns are then 0 each);
  OpenSpiel needs a bound, and the rules set none on a round (decision D9).

Returns: 1 for the winner the rules name, 0 for the others (`baobei.Outcome`). Observations reveal only
what the player knows: the observation is the player's view (play/view.py: every card the player has not
seen is a blank; who knows which card is public); the information state adds every move and pass since
the deal, with the cards the player does not know hidden. The tensors encode the view (see `Encoder`).
`resample_from_infostate` deals the cards the player does not know anew among their places, which is
what OpenSpiel's IS-MCTS needs. States serialise to JSON (`serialize` / `game.deserialize_state`) and
pickle.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found, unused-ignore]

from ..game import Game
from .sequential import PASS, Actions, Table
from .vectors import Encoder

SHORT_NAME = "python_baobei"
DEFAULT_MAX_ACTIONS = 3000

_PARAMETERS: dict[str, Any] = {"players": 2, "rules": "", "max_actions": DEFAULT_MAX_ACTIONS}

GAME_TYPE = pyspiel.GameType(
    short_name=SHORT_NAME,
    long_name="BAO BEI (rules as data)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMETERS,
)


class BaoBeiGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game (see the module)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = {**_PARAMETERS, **(params or {})}
        self.players = int(given["players"])
        self.rules_folder = str(given["rules"])
        self.max_actions = int(given["max_actions"])
        self.baobei = Game.load(self.rules_folder or None)
        self.baobei.engine.check_player_count(self.players)
        table_actions = Actions(tuple(self.baobei.engine.rules.moves), self.players, len(self.baobei.engine.facts))
        self.encoder = Encoder(self.baobei.engine, self.players)
        info = pyspiel.GameInfo(
            num_distinct_actions=table_actions.size,
            max_chance_outcomes=max(len(self.baobei.engine.facts), self.players),
            num_players=self.players,
            min_utility=0.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=self.max_actions,
        )
        super().__init__(GAME_TYPE, info, given)

    def new_initial_state(self) -> BaoBeiState:
        return BaoBeiState(self, Table(self.baobei, self.players, self.max_actions))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        if iig_obs_type is not None and (iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
                                         or not iig_obs_type.public_info):
            # A view of the public information alone (or of another's private one) is not built: giving the
            # player's own view instead would hand an algorithm that asked for public states private cards.
            raise ValueError(f"{SHORT_NAME} observes a player's own view only (public and single-player private "
                             f"information), not {iig_obs_type}")
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return Observer(self, recall)

    def deserialize_state(self, text: str) -> BaoBeiState:
        """The state `BaoBeiState.serialize` wrote."""
        data = json.loads(text)
        table = Table.from_json(self.baobei, self.players, self.max_actions, data["table"])
        return BaoBeiState(self, table)


class BaoBeiState(pyspiel.State):  # type: ignore[misc]
    """One match (see the module); `table` is the baobei.bindings.sequential.Table it plays."""

    def __init__(self, game: BaoBeiGame, table: Table) -> None:
        super().__init__(game)
        self.table = table

    def current_player(self) -> int:
        return int(self.table.current)

    def _legal_actions(self, player: int) -> list[int]:
        return self.table.legal_actions() if player == self.table.current else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.table.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        self.table.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.table.action_text(player, int(action))

    def is_terminal(self) -> bool:
        return self.table.is_over()

    def returns(self) -> list[float]:
        return self.table.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> BaoBeiState:
        """A state the player cannot tell from this one (the cards it does not know dealt anew)."""
        seed = int(probability_sampler() * 2**31) if callable(probability_sampler) else random.getrandbits(31)
        new: BaoBeiState = self.clone()
        new.table = self.table.resample(player_id, random.Random(seed))
        return new

    def serialize(self) -> str:
        return json.dumps({"table": self.table.to_json(), "history": self.history()})

    def __str__(self) -> str:
        from ..engine.table_view import render_table

        table = self.table
        head = f"round {table.st.round} turn {table.st.turn} phase {table.st.phase}; asked: {table.current}"
        return "\n".join([head, *render_table(table.eng, table.st), *table.history[-3:]])


class Observer:
    """OpenSpiel's observer: the observation (the player's view) or, with perfect recall, the information
    state (the view and every move and pass since the deal). Both tensors are the view's (`Encoder`)."""

    def __init__(self, game: BaoBeiGame, recall: bool) -> None:
        self.encoder = game.encoder
        self.recall = recall
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = {"view": self.tensor}

    def set_from(self, state: BaoBeiState, player: int) -> None:
        self.tensor[:] = self.encoder.encode(state.table, player)

    def string_from(self, state: BaoBeiState, player: int) -> str:
        table = state.table
        return table.information_text(player) if self.recall else table.observation_text(player)


pyspiel.register_game(GAME_TYPE, BaoBeiGame)

__all__ = ["GAME_TYPE", "PASS", "SHORT_NAME", "BaoBeiGame", "BaoBeiState", "Encoder"]
