"""The rules variants the tests use: edited copies of rules/, each a list of text edits.

An edit is (file, exact old text, new text): the old text must occur exactly once in the file,
so an edit that finds nothing cannot make a test pass for nothing. The file "*" means every
rules file, replacing every occurrence (at least one in all). Tests that play random games over
"every variant" take them from here.
"""

from __future__ import annotations

Edit = tuple[str, str, str]

# (a) Six cards each for two players.
SIX_CARDS: tuple[Edit, ...] = (("02_setup.bao", "  2: 5\n", "  2: 6\n"),)

# (b) A failed BAO notes at least 7.
BAO_MIN_SEVEN: tuple[Edit, ...] = (("07_scoring.bao", "define bao_failure_min = 5 ", "define bao_failure_min = 7 "),)

# (c) Spatz and Meise are one family.
ONE_FAMILY: tuple[Edit, ...] = (
    ("01_deck.bao", "card Spatz         value 1  count 5\n", "card Spatz         value 1  count 5 family Small\n"),
    ("01_deck.bao", "card Meise         value 2  count 5\n", "card Meise         value 2  count 5 family Small\n"),
)

# (d) The match ends at 30 for three players.
THRESHOLD_30: tuple[Edit, ...] = (("07_scoring.bao", "  3: 90\n", "  3: 30\n"),)

# A draw brings two cards into the hand: `keep` names the one kept, the other is discarded.
TWO_HELD: tuple[Edit, ...] = (
    ("03_turn.bao", "    draw into hand(actor) as c\n",
     "    draw into hand(actor) as c\n    draw into hand(actor) as second\n    peek actor second\n"),
    ("03_turn.bao", "  with slot: own_slot\n  require phase == \"drawn\" else \"keep",
     "  with card: held_card, slot: own_slot\n  require phase == \"drawn\" else \"keep"),
    ("03_turn.bao", "    let old = card_at(slot)\n    move old to discard_pile\n    move top(hand(actor)) to slot\n",
     "    let old = card_at(slot)\n    for other in [x in held(actor) where x != card] { move other to discard_pile }\n"
     "    move old to discard_pile\n    move card to slot\n"),
    ("03_turn.bao", "    let c = top(hand(actor))\n    move c to discard_pile\n",
     "    let c = top(hand(actor))\n    for other in held(actor) { move other to discard_pile }\n"),
    # A pluck with the own draw moves only the reference: the other drawn card is discarded when the turn
    # ends, so that every turn begins with empty hands (invariant hands_empty_at_turn_start).
    ("03_turn.bao", "  close window\n  set owed[active] = false\n",
     "  close window\n  for other in held(active) { move other to discard_pile }\n  set owed[active] = false\n"),
)

# Another set of phases: the end of a turn is called `finish`.
RENAMED_PHASE: tuple[Edit, ...] = (("*", "turn_end", "finish"),)

# Simultaneous calls count in seat order from the first seat, not clockwise from the active player.
SEAT_ORDER: tuple[Edit, ...] = (
    ("04_pluck.bao", "order seats_from(active)", "order seats_from(first p in players where true)"),
)

# Each reference allows two attempts.
# With a second attempt a window outlives a pluck that triggered abilities: the two lemmas that count what
# waits while an attempt is left are about one attempt, and say nothing here.
TWO_ATTEMPTS: tuple[Edit, ...] = (
    ("04_pluck.bao", "attempts 1 open 1", "attempts 2 open 1"),
    ("09_invariants.bao", 'window_kind == "own_draw" and not window_used\n  holds waiting == 0\n',
     'window_kind == "own_draw" and not window_used\n  holds true\n'),
    ("09_invariants.bao", "when window_ref != none and not window_used\n  holds waiting <= 1\n",
     "when window_ref != none and not window_used\n  holds true\n"),
)

# The discard pile lies face down: nobody learns a discarded card.
# The variant's own point is a hidden top discard: the property stating the opposite says nothing in it.
FACE_DOWN_DISCARD: tuple[Edit, ...] = (
    ("02_setup.bao", "pile discard_pile face up", "pile discard_pile face down"),
    ("09_invariants.bao", "  holds all p in players: knows(p, top(discard_pile))\n", "  holds true\n"),
)

# An invented ability that takes a card from another player, written with no line about the shield.
STEAL: tuple[Edit, ...] = (
    ("01_deck.bao", "card Kranich       value 11 count 5\n", "card Kranich       value 11 count 5 ability steal\n"),
    ("05_abilities.bao", "ability peek ", """ability steal "Invented: take any face-down card" § 6.3 [P127]
  with target: slot
  require occupied(target) and owner(target) != actor else "choose another player's card" § 6.3 [P127]
  do { move card_at(target) to free_slot(actor, none) }

ability peek """),
)

# An invented ability in two steps, the second chosen by another player: the chosen player gives one of
# their own cards to the ability's owner, who looks at it first and then keeps it or sends it under the pile.
TRIBUTE: tuple[Edit, ...] = (
    ("01_deck.bao", "card Kranich       value 11 count 5\n", "card Kranich       value 11 count 5 ability tribute\n"),
    ("05_abilities.bao", "ability peek ", """ability tribute "Invented: a player hands you a card" § 6.3 [P127]
  with giver: player
  require giver in others(actor) and size(cards(giver)) > 0 else "choose another player with cards" § 6.3 [P127]
  do { continue hand_over(actor) for giver }

step hand_over(taker: player) "Invented: give the taker one of your own cards, into the taker's hand" § 6.3 [P127]
  with card: own_slot
  require occupied(card) else "give a face-down card" § 6.3 [P127]
  do {
    let c = card_at(card)
    move c to hand(taker)
    peek taker c
    mark moved c
    continue keep_or_bury() for taker
  }

step keep_or_bury() "Invented: keep the handed card on a new slot, or put it under the discard pile" § 6.3 [P127]
  with held: held_card, keep_it: bool
  do { if keep_it { move held to free_slot(actor, none) } else { move held to under_pile } }

ability peek """),
    # The giver may know the handed card: a card in a hand is known to its holder, no longer to the holder alone.
    ("09_invariants.bao", "all c in held(p): knows(p, c) and (all q in others(p): not knows(q, c))\n",
     "all c in held(p): knows(p, c)\n"),
)

# Every variant that plays whole games (random play, JSON round trips, move texts).
PLAYABLE: dict[str, tuple[Edit, ...]] = {
    "six_cards": SIX_CARDS, "bao_min_seven": BAO_MIN_SEVEN, "one_family": ONE_FAMILY,
    "threshold_30": THRESHOLD_30, "two_held": TWO_HELD, "renamed_phase": RENAMED_PHASE,
    "seat_order": SEAT_ORDER, "two_attempts": TWO_ATTEMPTS, "face_down_discard": FACE_DOWN_DISCARD,
    "steal": STEAL, "tribute": TRIBUTE,
}
