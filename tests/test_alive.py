"""Ids that key a cache or a fresh answer name one term for the whole run (proofs/alive.py).

Z3 gives a freed term's id to the next term it makes: a cache keyed by raw ids would answer a new question
with an old one's entry (one fresh answer for two questions, a path judged by another path's condition)."""

from __future__ import annotations

from pathlib import Path

import z3  # type: ignore[import-untyped]
from baobei.language.load import load_ruleset
from baobei.language.syntax import NOWHERE
from baobei.proofs.alive import term_id, value_id
from baobei.proofs.arguments import fresh_maker
from baobei.proofs.store import Codes, fresh_free_store
from baobei.proofs.translate import CardV, SlotV

RULES = Path(__file__).resolve().parents[1] / "rules"


def test_z3_reuses_a_freed_terms_id_and_a_taken_id_is_never_reused() -> None:
    raw: dict[int, str] = {}
    reused = False
    for n in range(200):
        gone = z3.Int(f"gone{n}") + n
        raw[gone.get_id()] = str(gone)
        del gone
        new = z3.Int(f"new{n}") * (n + 2)
        reused |= raw.get(new.get_id(), str(new)) != str(new)
    assert reused  # why the keys need this module at all
    taken: dict[int, str] = {}
    for n in range(200):
        gone = z3.Int(f"taken{n}") + n
        taken[term_id(gone)] = str(gone)
        del gone
        new = z3.Int(f"other{n}") * (n + 2)
        assert taken.get(term_id(new), str(new)) == str(new)
    assert term_id(z3.Int("taken3") + 3) in taken  # built again while kept: the same term, the same id


def test_a_value_id_names_one_value_while_the_run_lasts() -> None:
    first = value_id(object())
    assert all(value_id(object()) != first for _ in range(200))


def test_a_question_about_a_freed_slot_is_not_answered_for_a_new_one() -> None:
    """The free store answers `card_at` by the ids of the slot's terms: a question about a slot whose terms
    were freed must not give its answer to the next slot built."""
    store = fresh_free_store(Codes(load_ruleset(RULES), 2), "t")
    store.fresh = fresh_maker("t")
    answers: dict[str, str] = {}
    for n in range(100):
        slot = SlotV(z3.Int(f"p{n}") + 0 * n, z3.Int(f"s{n}") + n)
        card = store.card_at(slot, NOWHERE)
        assert isinstance(card, CardV)
        answers[str(card.term)] = f"{slot.player} {slot.number}"
        del slot, card
    assert len(answers) == 100  # a fresh answer per slot
