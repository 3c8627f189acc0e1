"""The engine API: pure legality checks, untouched states on rejection, determinism, random play."""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from baobei.engine.engine import Engine
from baobei.engine.move import Move
from baobei.engine.state import State
from baobei.language.errors import IllegalMove, Rejection
from baobei.language.source import Citation

PHASES = {"peek", "turn", "drawn", "turn_end", "round_over", "decision_due", "match_over"}
MOVE_CAP = 5000  # a generous bound per match: even the patient policy ends a match in about a thousand moves


def names(n: int) -> list[str]:
    return [f"p{i + 1}" for i in range(n)]


def snapshot(st: State) -> str:
    """Everything a move could change: the state's JSON form (random generator included)."""
    return json.dumps(st.to_json(), sort_keys=True)


def every_card(st: State) -> list[int]:
    """Every card in play or in the box, once per place it lies in."""
    out = [c for row in st.tableaux for c in row if c is not None]
    out += [c for hand in st.hands for c in hand] + [c for pile in st.piles for c in pile] + st.box
    return sorted(out)


def patient_move(eng: Engine, st: State, rng: random.Random) -> Move | None:
    """random_move, but rarely calling BAO or plucking: rounds run long enough to recycle twice."""
    move = eng.random_move(st, rng)
    for _ in range(10):
        if move is None or move.name not in ("bao", "pluck", "double_pluck"):
            return move
        if rng.random() < (0.002 if move.name == "bao" else 0.1):
            return move
        move = eng.random_move(st, rng)
    return move


def random_states(eng: Engine, players: int, seed: int, moves: int, patient: bool = False) -> Iterator[State]:
    """The states of one seeded random match, one after each move (the state is reused: copy it to keep it)."""
    st, _ = eng.new_match(names(players), seed, log=False)
    rng = random.Random(seed)
    yield st
    for _ in range(moves):
        if st.phase == "match_over":
            return
        move = patient_move(eng, st, rng) if patient else eng.random_move(st, rng)
        assert move is not None, f"stuck in phase {st.phase!r}"
        eng.push(st, move, log=False)
        yield st


def some_legal_moves(eng: Engine, st: State, per_kind: int = 40) -> Iterator[Move]:
    """The first legal moves of every kind and player: a double pluck among many cards has
    hundreds of thousands, which a test need not list."""
    for p in range(len(st.names)):
        for cm in eng.candidates(st, p):
            yield from itertools.islice(eng.moves_of(st, p, cm), per_kind)


def arbitrary_move(eng: Engine, st: State, rng: random.Random) -> Move:
    """Any move of the rules with arguments of the right shape, legal or not."""
    name = rng.choice(sorted(eng.moves))
    player = rng.randrange(len(st.names))
    args: list[tuple[str, Any]] = []
    for p in eng.moves[name].decl.params:
        if p.kind == "player":
            value: Any = rng.randrange(len(st.names))
        elif p.kind == "bool":
            value = rng.choice([False, True])
        elif p.kind == "held_card":
            value = rng.randrange(len(eng.facts))
        else:
            value = (rng.randrange(len(st.names)), rng.randint(1, 7))
        if p.optional and rng.random() < 0.5:
            value = None
        args.append((p.name, value))
    return Move(player, name, tuple(args))


def citations_in(node: object) -> set[Citation]:
    """Every citation written anywhere in the parsed rules files."""
    if isinstance(node, Citation):
        return {node}
    if isinstance(node, (list, tuple)):
        return {c for item in node for c in citations_in(item)}
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        return {c for f in dataclasses.fields(node) for c in citations_in(getattr(node, f.name))}
    return set()


def match_events(eng: Engine, seed: int, move_seed: int, players: int = 3) -> list[str]:
    st, events = eng.new_match(names(players), seed)
    texts = [e.text for e in events]
    rng = random.Random(move_seed)
    for _ in range(400):
        if st.phase == "match_over":
            break
        move = eng.random_move(st, rng)
        assert move is not None
        texts += [str(e) for e in eng.push(st, move)]
    return texts


# ---------------------------------------------------------------- apply and rejection


def test_apply_never_changes_the_given_state(default_engine: Engine) -> None:
    eng = default_engine
    rng = random.Random(5)
    applied = 0
    for st in random_states(eng, 4, seed=5, moves=300, patient=True):
        before = snapshot(st)
        move = eng.random_move(st, random.Random(rng.random()))
        if move is None:
            continue
        result = eng.apply(st, move)
        assert not isinstance(result, Rejection), result
        new, events = result
        assert snapshot(st) == before, f"apply changed the given state: {eng.describe(st, move)}"
        assert new is not st and events
        applied += 1
    assert applied > 50


def test_a_rejected_move_changes_nothing_and_explains_itself(default_engine: Engine) -> None:
    eng = default_engine
    rng = random.Random(11)
    rejected = 0
    # A reason may join the citations of two rules (how a card came somewhere, and why that starts no
    # ability): every section and paragraph it cites is one the rules cite.
    cited = {(sec, p) for c in citations_in(eng.rules.files) for sec in c.sections for p in c.paras_of(sec)}
    states = (st for seed in range(8) for st in random_states(eng, 3, seed=seed, moves=200, patient=seed % 2 == 1))
    for st in states:
        for _ in range(4):
            move = arbitrary_move(eng, st, rng)
            rejection = eng.check(st, move)
            if rejection is None:
                continue
            rejected += 1
            before = snapshot(st)
            assert eng.apply(st, move) == rejection
            with pytest.raises(IllegalMove) as info:
                eng.push(st, move)
            assert snapshot(st) == before, f"a rejected move changed the state: {rejection}"
            assert info.value.rejection == rejection
            assert rejection.move.startswith(f"{st.names[move.player]} {move.name}")
            assert rejection.rule.strip(), rejection
            assert {(sec, p) for sec in rejection.cite.sections for p in rejection.cite.paras_of(sec)} <= cited
            assert rejection.cite.section and rejection.cite.paras, rejection
            assert rejection.reason.strip(), rejection
            assert str(rejection.cite) in str(info.value)
    assert rejected > 500


def test_a_rejection_cites_the_broken_guard(default_engine: Engine) -> None:
    eng = default_engine
    st, _ = eng.new_match(names(2), 1, log=False)
    assert st.phase == "peek"
    # Drawing during the initial peek breaks one of draw's guards: the rejection quotes that guard.
    rejection = eng.check(st, Move(st.active, "draw"))
    assert rejection is not None and rejection.rule == "draw"
    guards = {(req.cite, req.reason) for req in eng.rules.moves["draw"].requires}
    assert (rejection.cite, rejection.reason) in guards


def test_an_unknown_move_is_rejected_not_raised(default_engine: Engine) -> None:
    st, _ = default_engine.new_match(names(2), 1, log=False)
    rejection = default_engine.check(st, Move(0, "fly"))
    assert rejection is not None and "fly" in rejection.reason


# ---------------------------------------------------------------- determinism


def test_same_seed_and_moves_give_identical_events(default_engine: Engine) -> None:
    first = match_events(default_engine, seed=7, move_seed=70)
    second = match_events(default_engine, seed=7, move_seed=70)
    assert len(first) > 50
    assert first == second


def test_a_different_seed_gives_a_different_match(default_engine: Engine) -> None:
    assert match_events(default_engine, seed=7, move_seed=70) != match_events(default_engine, seed=8, move_seed=70)


EVENTS_SCRIPT = """
import random
from baobei.scenarios.runner import engine_for
eng = engine_for(None)
st, events = eng.new_match(["a", "b", "c", "d"], 5)
rng = random.Random(50)
while st.phase != "match_over" and len(events) < 3000:
    events += eng.push(st, eng.random_move(st, rng))
print("\\n".join(str(e) for e in events))
"""


def test_events_do_not_depend_on_the_process_hash_seed() -> None:
    """Set and dict orders must not leak into play: two processes with different hash seeds agree."""
    outputs = []
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", EVENTS_SCRIPT], env=env, capture_output=True, text=True,
                              timeout=60, check=True)
        outputs.append(done.stdout)
    assert outputs[0].count("\n") > 100
    assert outputs[0] == outputs[1]


def test_a_copied_state_plays_on_identically(default_engine: Engine) -> None:
    eng = default_engine
    st, _ = eng.new_match(names(4), 3, log=False)
    copy = st.copy()
    rng_a, rng_b = random.Random(1), random.Random(1)
    for _ in range(200):
        if st.phase == "match_over":
            break
        a, b = eng.random_move(st, rng_a), eng.random_move(copy, rng_b)
        assert a is not None and a == b
        assert [str(e) for e in eng.push(st, a)] == [str(e) for e in eng.push(copy, a)]
    assert snapshot(st) == snapshot(copy)


# ---------------------------------------------------------------- generation


def test_every_generated_move_passes_check(default_engine: Engine) -> None:
    eng = default_engine
    checked = 0
    names_seen: set[str] = set()
    for players in (2, 5):
        for st in random_states(eng, players, seed=players, moves=250, patient=True):
            for move in some_legal_moves(eng, st):
                assert eng.check(st, move) is None, eng.describe(st, move)
                names_seen.add(move.name)
                checked += 1
    assert checked > 1000
    assert {"look", "draw", "keep", "discard", "take", "pluck", "end_turn", "bao"} <= names_seen


def test_moves_found_illegal_are_not_generated(default_engine: Engine) -> None:
    eng = default_engine
    rng = random.Random(3)
    for st in random_states(eng, 3, seed=3, moves=150, patient=True):
        for _ in range(6):
            move = arbitrary_move(eng, st, rng)
            assert (eng.check(st, move) is None) == eng.generates(st, move), eng.describe(st, move)


def test_check_and_legal_moves_agree_on_pluck_arguments(default_engine: Engine) -> None:
    """legal_moves promises every legal move: a pluck that check accepts must be among them.

    The slot numbers go a little past each tableau's end, where a named penalty slot
    cannot be a free slot of the player.
    """
    eng = default_engine
    rng = random.Random(8)
    tried = 0
    disagreements: list[str] = []
    for seed in range(2):
        for st in random_states(eng, 3, seed=seed, moves=300, patient=True):
            if st.window is None or st.window.attempts <= 0:
                continue
            for p in range(len(st.names)):
                pluck = eng.moves["pluck"]
                legal = set(eng.moves_of(st, p, pluck)) if pluck in eng.candidates(st, p) else set()
                targets = [sl for q in range(len(st.names)) for sl in st.occupied_slots(q)]
                gifts: list[Any] = [None, *st.occupied_slots(p)]
                places: list[Any] = [None, *((p, n) for n in range(1, len(st.tableaux[p]) + 3))]
                for _ in range(25):
                    move = Move(p, "pluck", (("target", rng.choice(targets)), ("gift", rng.choice(gifts)),
                                             ("place", rng.choice(places))))
                    tried += 1
                    if (eng.check(st, move) is None) != (move in legal):
                        disagreements.append(f"{eng.describe(st, move)} with tableau {st.tableaux[p]}: "
                                             f"check {'accepts' if move not in legal else 'rejects'} it, "
                                             f"legal_moves {'does not list' if move not in legal else 'lists'} it")
    assert tried > 1000
    assert not disagreements, f"{len(disagreements)} disagreements, e.g.:\n" + "\n".join(disagreements[:5])


def _past_the_peek(eng: Engine, players: int, seed: int) -> State:
    st, _ = eng.new_match(names(players), seed, log=False)
    while st.phase == "peek":
        look = next(m for m in eng.legal_moves(st) if m.name == "look")
        eng.push(st, look, log=False)
    assert st.phase == "turn"
    return st


def test_movers_include_out_of_turn_pluckers_after_a_discard(default_engine: Engine) -> None:
    eng = default_engine
    st = _past_the_peek(eng, 3, seed=4)
    active = st.active
    assert eng.movers(st) == [active]
    eng.push(st, Move(active, "draw"))
    # After an own draw only the drawer may act (pluck, keep or discard).
    assert eng.movers(st) == [active]
    eng.push(st, Move(active, "discard"))
    assert st.phase == "turn_end"
    assert eng.movers(st) == [0, 1, 2]
    for p in range(3):
        if p != active:
            assert any(m.name == "pluck" for m in eng.legal_moves(st, p))
    # The active player may end the turn at once (closing the window), or must first use the ability.
    own = {m.name for m in eng.legal_moves(st, active)}
    assert own == ({st.waiting[0].ability} if st.waiting else {"end_turn", "bao"})


# ---------------------------------------------------------------- random play


def check_consistency(eng: Engine, st: State, card_count: int) -> None:
    assert every_card(st) == list(range(card_count)), "a card was lost or duplicated"
    assert st.phase in PHASES and st.phase in eng.phases
    holders = [p for p, hand in enumerate(st.hands) if hand]
    assert holders == ([st.active] if st.phase == "drawn" else []), (st.phase, holders)
    w = st.window
    if st.phase in ("peek", "turn", "round_over", "match_over"):
        assert w is None and not st.waiting, st.phase
    if st.phase == "drawn":
        assert w is not None and w.kind == "own_draw" and w.attempts > 0 and w.players == 1 << st.active
    if w is not None:
        assert w.kind in ("own_draw", "discard")
        if w.kind == "discard":
            assert st.phase == "turn_end"
            assert w.players == st.in_round & ~(1 << st.active)
        else:
            assert w.players == 1 << st.active
            assert st.phase == ("turn_end" if w.attempts <= 0 else "drawn")
    if st.waiting:
        check_waiting(eng, st)
    # Knowledge: the discard pile is face up, the draw pile is shuffled face down, a drawer saw the card.
    assert all(st.known[c] == st.everyone for c in st.piles[eng.pile_index["discard_pile"]])
    assert all(st.known[c] == 0 for c in st.piles[eng.pile_index["draw_pile"]])
    assert all(st.knows(p, c) for p, hand in enumerate(st.hands) for c in hand)


def check_waiting(eng: Engine, st: State) -> None:
    """A waiting ability blocks everything else: only its owner acts, by using it; one that waits for
    the window lets the window's players call first."""
    assert st.phase == "turn_end"
    first = st.waiting[0]
    names = {cm.name for p in range(len(st.names)) for cm in eng.candidates(st, p) if eng.first_legal(st, p, cm)}
    if first.after_window and st.window is not None and st.window.attempts > 0:
        assert names <= {first.ability, "pluck"} and first.ability in names
    else:
        assert eng.movers(st) == [first.owner]
        assert names == {first.ability}


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("patient", [False, True], ids=["random", "patient"])
def test_random_play_never_sticks_and_conserves_cards(default_engine: Engine, players: int, patient: bool) -> None:
    eng = default_engine
    card_count = len(eng.facts)
    finished = recycled = final_phases = 0
    seeds = range(6) if patient else range(12)
    for seed in seeds:
        st, _ = eng.new_match(names(players), seed, log=False)
        rng = random.Random(1000 + seed)
        check_consistency(eng, st, card_count)
        for _ in range(MOVE_CAP):
            if st.phase == "match_over":
                finished += 1
                break
            move = patient_move(eng, st, rng) if patient else eng.random_move(st, rng)
            assert move is not None, f"seed {seed}: no legal move in phase {st.phase!r}"
            assert eng.check(st, move) is None
            eng.push(st, move, log=False)
            check_consistency(eng, st, card_count)
            recycled |= st.vars["recycles"] > 0
            final_phases += st.vars["final_phase"] is True and move.name == "end_turn"
    assert finished >= len(seeds) - 2, f"only {finished} of {len(seeds)} matches ended within {MOVE_CAP} moves"
    if patient:
        # The long rounds must reach the deep paths: recycling and the automatic final phase.
        assert recycled and final_phases, (recycled, final_phases)


def test_push_generated_equals_push_for_generated_moves(default_engine: Engine) -> None:
    """The simulator's unchecked push plays a generated move exactly as the checked one does."""
    rng = random.Random(11)
    for seed in range(4):
        st, _ = default_engine.new_match(["a", "b", "c"], seed, log=False)
        for _ in range(300):
            move = default_engine.random_move(st, rng)
            if move is None:
                break
            twin = st.copy()
            default_engine.push(st, move, log=False)
            default_engine.push_generated(twin, move)
            assert snapshot(twin) == snapshot(st), move
