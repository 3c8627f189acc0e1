"""BAO BEI in OpenSpiel (baobei.bindings.openspiel): OpenSpiel's own conformance checks, chance, information, IS-MCTS.

Needs the `openspiel` extra; skipped without it. About 25 s on the project's two-core machine."""

from __future__ import annotations

import pickle

import pytest

pyspiel = pytest.importorskip("pyspiel")
np = pytest.importorskip("numpy")

import baobei.bindings.openspiel  # noqa: E402  (registers the game once pyspiel is known to be there)
from baobei.bindings.sequential import CHANCE, PASS, Table, next_values  # noqa: E402
from baobei.engine.legality import CompiledMove  # noqa: E402
from baobei.engine.move import Move  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402


def load(players: int, **params: int | str) -> baobei.bindings.openspiel.BaoBeiGame:
    return pyspiel.load_game(baobei.bindings.openspiel.SHORT_NAME, {"players": players, **params})


def advance(state: baobei.bindings.openspiel.BaoBeiState, rng: np.random.RandomState, steps: int) -> None:
    for _ in range(steps):
        if state.is_terminal():
            return
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize(("players", "sims"), [(2, 5), (3, 2), (4, 2), (6, 1)])  # `-m slow`: 100 each
def test_openspiels_random_simulation_test_with_serialisation(players: int, sims: int) -> None:
    pyspiel.random_sim_test(load(players), num_sims=sims, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_openspiels_random_simulation_test_over_many_matches(players: int) -> None:
    pyspiel.random_sim_test(load(players), num_sims=100, serialize=True, verbose=False)


def test_games_sim_test_checks_pickles_clones_and_the_end() -> None:
    """The checks of OpenSpiel's python/tests/games_sim_test.py `sim_game`, on one whole match."""
    game = load(2)
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    assert pickle.loads(pickle.dumps(game.get_type())) == game.get_type()
    rng = np.random.RandomState(3)
    state = game.new_initial_state()
    actions = 0
    while not state.is_terminal():
        if actions in (1, 2, 4, 8, 16, 32, 64, 128):
            new_game, new_state = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
            assert str(new_game) == str(game) and str(new_state) == str(state)
            assert str(pickle.loads(pickle.dumps(state))) == str(state)
        if not state.is_chance_node():
            clone = state.clone()
            action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
            clone.apply_action(action)
            assert str(clone) == str(state) and clone.history() == state.history()
        else:
            advance(state, rng, 1)
        actions += 1
    assert state.legal_actions() == [] and all(state.legal_actions(p) == [] for p in range(2))
    assert sorted(state.returns()) == [0.0, 1.0]


def test_the_deal_is_chance_card_by_card_and_every_outcome_equally_likely() -> None:
    state = load(2).new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == len(state.table.eng.facts) and sum(p for _, p in outcomes) == pytest.approx(1.0)
    first = outcomes[0][0]
    state.apply_action(first)
    assert state.is_chance_node() and first not in {a for a, _ in state.chance_outcomes()}
    assert state.action_to_string(CHANCE, state.chance_outcomes()[0][0]).startswith("draw ")


def test_every_legal_move_of_the_engine_is_one_sequence_of_actions() -> None:
    """The actions offered at each step complete exactly the engine's legal moves (and a pass but for the last
    player asked)."""
    rng = np.random.RandomState(5)
    for players in (2, 4):
        game, checked = load(players), 0
        state = game.new_initial_state()
        while checked < 40:
            advance(state, rng, int(rng.randint(1, 4)))
            table: Table = state.table
            if state.is_terminal():
                state = game.new_initial_state()
            elif not state.is_chance_node() and table.partial is None:
                assert_moves_match(table)
                checked += 1


def assert_moves_match(table: Table) -> None:
    eng, seat = table.eng, table.current
    want = sorted(eng.describe(table.st, m) for m in eng.legal_moves(table.st, seat))
    got: list[str] = []

    def extend(cm: CompiledMove, prefix: tuple[object, ...]) -> None:
        params = cm.decl.params
        if len(prefix) == len(params):
            args = tuple((p.name, v) for p, v in zip(params, prefix, strict=True))
            got.append(eng.describe(table.st, Move(seat, cm.name, args)))
            return
        for value in next_values(eng, table.st, seat, cm, prefix):
            extend(cm, (*prefix, value))

    for action in table.legal_actions():
        if action != PASS:
            extend(eng.moves[table.actions.moves[action - 1]], ())
    assert sorted(got) == want
    assert (PASS in table.legal_actions()) == (table.index < len(table.order) - 1)


def test_out_of_turn_calls_are_asked_clockwise_from_the_active_player_who_is_asked_last() -> None:
    rng = np.random.RandomState(11)
    state = load(4).new_initial_state()
    seen = 0
    while not state.is_terminal() and seen < 20:
        advance(state, rng, 1)
        table = state.table
        if table.need is None and not table.is_over() and table.partial is None and table.index == 0 \
                and len(table.order) > 1:
            active = table.st.active
            assert table.order[-1] == active or active not in table.eng.movers(table.st)
            clockwise = table.st.seats_from(active)
            early = [p for p in table.order if p != active]
            assert early == sorted(early, key=clockwise.index)
            seen += 1
    assert seen >= 5


def test_information_reveals_only_what_the_player_knows() -> None:
    game = load(3)
    rng = np.random.RandomState(2)
    state = game.new_initial_state()
    advance(state, rng, 150)
    while state.is_chance_node() or state.is_terminal():
        state = game.new_initial_state()
        advance(state, rng, 150)
    player = state.current_player()
    other = (player + 1) % 3
    twin = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert twin.information_state_string(player) == state.information_state_string(player)
    assert twin.observation_string(player) == state.observation_string(player)
    assert np.array_equal(twin.information_state_tensor(player), state.information_state_tensor(player))
    assert twin.legal_actions() == state.legal_actions()
    # The cards the player does not know were dealt anew: the table itself differs, and so may other views.
    assert twin.table.st.tableaux != state.table.st.tableaux or twin.table.st.piles != state.table.st.piles
    assert state.information_state_string(other) != state.information_state_string(player)
    assert len(state.observation_tensor(player)) == game.observation_tensor_size()
    assert all(0.0 <= x <= 1.0 for x in state.observation_tensor(player))


def _choosing_a_held_card(players: int) -> baobei.bindings.openspiel.BaoBeiState:
    """The first state of seeded random play (match by match) in which a player has chosen a held card of a
    move not yet complete (a Schuhschnabel's exchange)."""
    game = load(players)
    for seed in range(50):
        rng, state = np.random.RandomState(seed), game.new_initial_state()
        while not state.is_terminal():
            partial = state.table.partial
            if not state.is_chance_node() and partial is not None and any(
                    p.kind == "held_card" for p in state.table.eng.moves[partial[1]].decl.params[:len(partial[2])]):
                return state
            advance(state, rng, 1)
    raise AssertionError("no held card was chosen in 50 matches")


def test_a_held_card_being_chosen_is_hidden_from_the_others_and_stays_the_choosers_in_a_twin() -> None:
    """While a Schuhschnabel's owner chooses its exchange, the drawn card already chosen is the owner's secret:
    another player's strings show `?` for it. A twin resampled for that other player deals the owner another
    card, and the move being chosen names that card, so it completes to a legal move."""
    state = _choosing_a_held_card(3)
    table = state.table
    chooser, name, prefix = table.partial
    kinds = [p.kind for p in table.eng.moves[name].decl.params]
    card = next(v for k, v in zip(kinds, prefix, strict=False) if k == "held_card")
    other = next(p for p in range(3) if p != chooser and not table.st.known[card] >> p & 1)
    label = table.st.facts.label(card)
    assert label in state.observation_string(chooser)
    assert label not in state.observation_string(other) and label not in state.information_state_string(other)
    for seed in range(10):
        twin = state.resample_from_infostate(other, pyspiel.UniformProbabilitySampler(float(seed) / 10, 1.0))
        chosen = next(v for k, v in zip(kinds, twin.table.partial[2], strict=False) if k == "held_card")
        assert chosen in twin.table.st.hands[chooser]
        assert twin.observation_string(other) == state.observation_string(other)
        while twin.table.partial is not None:
            twin.apply_action(twin.legal_actions()[0])
        assert twin.table.history[-1].startswith(f"{twin.table.st.names[chooser]} {name} ")


def test_every_variable_of_the_rules_is_in_the_tensor_within_zero_and_one() -> None:
    """A text variable (the shield: none, armed, active) and a set of players are encoded, and a negative
    number (a noted score) stays inside the space's [0, 1]."""
    from baobei.bindings.vectors import Encoder

    game = load(2)
    state = game.new_initial_state()
    advance(state, np.random.RandomState(0), 40)
    while state.is_chance_node():
        advance(state, np.random.RandomState(1), 1)
    table, encoder = state.table, Encoder(state.table.eng, 2)
    views = {}
    for shield in ("none", "armed", "active"):
        table.st.vars["shield"] = shield
        views[shield] = encoder.encode(table, 0).tobytes()
    assert len(set(views.values())) == 3
    before = encoder.encode(table, 0)
    table.st.vars["contenders"] = [1]
    assert not np.array_equal(encoder.encode(table, 0), before)
    table.st.pvars["noted"][0] = -30
    low = encoder.encode(table, 0)
    table.st.pvars["noted"][0] = -3
    assert low.min() >= 0.0 and low.max() <= 1.0 and not np.array_equal(low, encoder.encode(table, 0))


def test_an_observer_of_the_public_information_alone_is_refused() -> None:
    """OpenSpiel asks for observers by information type. The player's own view is offered; a public-only
    observer would otherwise get it, private cards and all."""
    from open_spiel.python.observation import make_observation

    game = load(2)
    own = make_observation(game, pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                                            private_info=pyspiel.PrivateInfoType.SINGLE_PLAYER))
    assert own.string_from(game.new_initial_state(), 0)
    with pytest.raises(ValueError, match="own view only"):
        make_observation(game, pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                                          private_info=pyspiel.PrivateInfoType.NONE))


def test_openspiels_ismcts_bot_plays_a_whole_match() -> None:
    game = load(2, max_actions=1500)
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game=game, evaluator=mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng),
                           uct_c=2.0, max_simulations=4, random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node() or state.current_player() == 1:
            advance(state, rng, 1)
        else:
            state.apply_action(bot.step(state))
    assert sorted(state.returns()) in ([0.0, 1.0], [0.0, 0.0])


def test_a_match_cut_at_the_action_cap_returns_nothing() -> None:
    game = load(2, max_actions=5)
    rng = np.random.RandomState(1)
    state = game.new_initial_state()
    advance(state, rng, 10_000)
    assert state.is_terminal() and state.table.truncated() and state.returns() == [0.0, 0.0]
    assert game.max_game_length() == 5


def test_a_variant_and_a_player_count_the_rules_refuse() -> None:
    with pytest.raises(Exception, match="players"):
        load(7)
    rules = str(baobei.bindings.openspiel.Game.load().rules_dir)
    assert load(2, rules=rules).baobei is baobei.bindings.openspiel.Game.load()
