"""Planted bugs: rules variants that each break one thing, and the property that must catch it.

The same edit format as variants.py: (file, exact old text, new text), the old text occurring exactly
once. Each entry names the property `baobei explore` must find violated, as its report labels it
("invariant NAME", "progress NAME", or "rules" for a legal move the engine cannot carry out), and a
comment says what the bug breaks. tests/test_explore.py runs explore on each; `SEARCH` gives the
depth and the deals that reach the bug from the small deck's deals with two players.
"""

from __future__ import annotations

from dataclasses import dataclass

Edit = tuple[str, str, str]


@dataclass(frozen=True)
class Planted:
    edits: tuple[Edit, ...]
    expected: str  # the property explore finds violated first
    depth: int  # how deep explore searches for it
    deals: int = 1  # from how many seeded deals
    seed: int = 1  # the first deal's seed
    also: tuple[str, ...] = ()  # further properties found violated at the same time
    # The scenario (under scenarios/) whose table the search starts from, for a bug that lies too deep
    # after a deal (a round must be scored first); "": from the small deck's seeded deals.
    table: str = ""
    players: int = 2  # the players of that table


# ---------------------------------------------------------------- the eight bugs of the issue

# 1. end_round notes the plain round value for everyone, the caller too: a failed BAO notes too little
# (not twice the value, not the minimum). Caught by failed_bao_noted when the round is scored.
NOTED_ROUND_VALUE = Planted((
    ("07_scoring.bao", "  for p in players { set noted[p] = noted_score(p) }\n",
     "  for p in players { set noted[p] = round_value(p) }\n"),), "invariant failed_bao_noted", 8)

# 2. The deal gives every player seven cards more than the hand size. The small deck is sized from
# the deal the rules make, so it still fits (two players take 2 x 12 + 1 of 28 cards). Caught by
# deal_gives_hand_size in the dealt state.
DEAL_SEVEN_MORE = Planted((
    ("02_setup.bao", "    repeat dealt_hand { draw into free_slot(p, none) }\n",
     "    repeat dealt_hand + 7 { draw into free_slot(p, none) }\n"),),
    "invariant deal_gives_hand_size", 0)

# 3. No shuffle before the deal: the cards stay out of play, nobody gets one, and the initial peek
# can never finish: nobody has a legal move. Caught by deal_gives_hand_size and progress no_deadlock
# in the dealt state (the emitted scenario shows the invariant: a replay cannot show that nobody can
# move before a first move). Dealing the cards in deck order instead, unshuffled but dealt, would
# break no property of a single round: a fixed deal is one of the possible deals.
NO_SHUFFLE = Planted((("02_setup.bao", "  shuffle all_cards into draw_pile\n", ""),),
                     "invariant deal_gives_hand_size", 0, also=("progress no_deadlock",))

# 4. `take` puts the taken card on the slot before the old card has left it: the engine refuses to
# cover a card, so the first take fails ("rules": a legal move the engine cannot carry out).
TAKE_COVERS = Planted((
    ("03_turn.bao", "    move old to discard_pile\n    move c to slot\n",
     "    move c to slot\n    move old to discard_pile\n"),), "rules", 5)

# 5. `keep` leaves the old card where it is and puts the drawn card on its slot: again a covered card,
# refused by the engine at the first keep ("rules").
KEEP_SKIPS_OLD = Planted((
    ("03_turn.bao", "    move old to discard_pile\n    move top(hand(actor)) to slot\n",
     "    move top(hand(actor)) to slot\n"),), "rules", 6)

# 6. `draw` draws two cards into the hand: one is kept or discarded, the other stays in the hand into
# the next turn. Caught by hands_empty_at_turn_start when the next turn begins.
TWO_DRAWS = Planted((
    ("03_turn.bao", "    draw into hand(actor) as c\n",
     "    draw into hand(actor)\n    draw into hand(actor) as c\n"),),
    "invariant hands_empty_at_turn_start", 7)

# 7. BAO may be called in the automatic final phase. Caught by bao_caller_fixed, but only after two
# recycles, some 16 moves after the deal: out of reach of a breadth-first search from the deal, found
# from a scenario's table one draw before the second recycle (`explore --from`, see test_explore.py).
# The scenarios that reject such a call catch it too (scenarios/recycle/*).
BAO_IN_FINAL_PHASE = Planted((
    ("06_bao.bao", '  require not final_phase else "nobody may call BAO in the automatic final phase" § 7.2 [P167]\n',
     ""),), "invariant bao_caller_fixed", 16)

# 8. A slip in the phase a turn hands on to: the next turn begins in the phase of the initial peek,
# which everybody has finished, so nobody can act. (A phase name that is not declared, "turnn", is
# refused when the rules load.) Caught by progress no_deadlock after the first end of a turn.
STALL = Planted((
    ("03_turn.bao", "    start turn of first p in seats_after(active) where (not last_turns) or owed[p]\n"
                    "    set phase = turn_start_phase\n",
     "    start turn of first p in seats_after(active) where (not last_turns) or owed[p]\n"
     '    set phase = "peek"\n'),), "progress no_deadlock", 6)

ISSUE: dict[str, Planted] = {
    "noted_round_value": NOTED_ROUND_VALUE, "deal_seven_more": DEAL_SEVEN_MORE, "no_shuffle": NO_SHUFFLE,
    "take_covers": TAKE_COVERS, "keep_skips_old": KEEP_SKIPS_OLD, "two_draws": TWO_DRAWS,
    "bao_in_final_phase": BAO_IN_FINAL_PHASE, "stall": STALL,
}

# ---------------------------------------------------------------- one per invariant, through a move or routine
# Invariants some bug above already breaks: failed_bao_noted (1), deal_gives_hand_size (2),
# hands_empty_at_turn_start (6), bao_caller_fixed (7, out of reach; see SECOND_BAO), no_deadlock (3, 8).

# The initial peek forgets its limit: a player may look at a third own card.
LOOK_WITHOUT_LIMIT = Planted((
    ("02_setup.bao", '  require peeked[actor] < initial_peek else "each player looks at exactly two own cards, once" '
                     "§ 1.2 [P9]\n", ""),), "invariant peek_limit", 3)

# The caller is owed a last turn too (a misreading of [P90]): set after the turn is handed on.
CALLER_OWED = Planted((
    ("06_bao.bao", "    run finish_turn\n  }\n", "    run finish_turn\n    set owed[actor] = true\n  }\n"),),
    "invariant caller_not_owed", 6)

# The automatic final phase starts with the first recycle. The first recycle needs the draw pile
# emptied and a discard below the top, 11 moves after the deal at the least.
FINAL_PHASE_AT_FIRST_RECYCLE = Planted((
    ("08_recycle.bao", "    if recycles == final_phase_recycle {", "    if recycles == 1 {"),),
    "invariant final_phase_after_second_recycle", 11)

# A sign slip in end_round: scores are noted as minus points, so several players note a negative score.
NEGATIVE_SCORES = Planted((
    ("07_scoring.bao", "  for p in players { set noted[p] = noted_score(p) }\n",
     "  for p in players { set noted[p] = 0 - noted_score(p) }\n"),), "invariant one_negative_noted", 8)

# BAO may be called a second time in the same round (the guard of [P88] is gone): the caller changes.
SECOND_BAO = Planted((
    ("06_bao.bao", '  require bao_caller == none else "BAO was already called this round" § 4.1 [P88]\n', ""),),
    "invariant bao_caller_fixed", 8)

# The shield lasts one turn: ending a turn disarms an active shield again. The shield is active only
# after another player changed the caller's tableau: with two players that takes a deal in which the
# other player draws a card matching one of the caller's, 9 moves deep (the deal of seed 14).
SHIELD_ONE_TURN = Planted((
    ("03_turn.bao", "  close window\n  set owed[active] = false\n",
     '  close window\n  set owed[active] = false\n  if shield == "active" { set shield = "armed" }\n'),),
    "invariant shield_stays_active", 9, 1, 14)

# A normal round adds the plain round value to the totals, not the score noted (a BAO's result lost).
TOTALS_ADD_ROUND_VALUE = Planted((
    ("07_scoring.bao", "    set total[p] = total[p] + noted[p]\n", "    set total[p] = total[p] + round_value(p)\n"),),
    "invariant totals_change_at_round_end", 8)

# A failed BAO notes the plain value, not doubled: bao_score is the scoring rule end_round applies
# (through noted_score), not a definition of the invariant's own. The invariant reads the score a
# call would note now, so it fails as soon as a BAO is called that would fail.
BAO_SCORE_NOT_DOUBLED = Planted((
    ("07_scoring.bao", "else max(2 * round_value(p), bao_failure_min) §",
     "else max(round_value(p), bao_failure_min) §"),),
    "invariant bao_score_bounds", 6, 4)

# Everyone is scored like the caller (the `p == bao_caller` test is gone from noted_score, which
# end_round applies): after a successful BAO everyone notes 0, the caller is no longer lowest.
EVERYONE_SCORED_AS_CALLER = Planted((
    ("07_scoring.bao", "if bao_counts and p == bao_caller then bao_score(p)", "if bao_counts then bao_score(p)"),),
    "invariant caller_notes_lowest", 6, 2)

# `keep` sends the replaced card to a slot number instead of the discard pile. card_conservation
# itself cannot break: the rules checker refuses a destination that is no place when the rules load
# (tests/test_rules_input.py), so no search is needed and it is in no list of this file.
KEEP_LOSES_CARD = Planted((
    ("03_turn.bao", "    move old to discard_pile\n    move top(hand(actor)) to slot\n",
     "    move old to slot_no(slot)\n    move top(hand(actor)) to slot\n"),), "rules", 6)

# The first look of the initial peek also turns the neutral discard onto the slot looked at: a covered
# card, refused by the engine at the first move ("rules"). The shallowest failing rule: verify's whole
# command finds it in seconds (test_relation.py), where take_covers needs BMC to depth 5.
LOOK_COVERS = Planted((
    ("02_setup.bao", "    peek actor card_at(slot)\n",
     "    peek actor card_at(slot)\n    move top(discard_pile) to slot\n"),), "rules", 1)

# ---------------------------------------------------------------- the value claims, through a routine
# Each claim about every state (single_negative, negative_caller_succeeds, bao_score_bounds,
# caller_notes_lowest, deal_fits_deck, tables_defined) reads the deck, the tables and the definitions,
# which no move writes. Its counterpart about what the rules record (rules/09_invariants.bao) reads
# what end_round, round_start and decide write; each variant below edits one of those routines only.
# The scored ones lie a whole round after a deal: the search starts one move before the scoring, from
# the table of the scenario written for the claim (verify's search from the scenario tables finds them).

# end_round keeps nobody's negative score (a misreading of [P105]): a caller with the Goldtukan notes 0.
NEGATIVE_NOT_KEPT = Planted((
    ("07_scoring.bao", "  for p in players { set noted[p] = noted_score(p) }\n",
     "  for p in players { set noted[p] = max(noted_score(p), 0) }\n"),),
    "invariant negative_caller_noted", 1, also=("invariant successful_bao_noted",),
    table="properties/negative_caller_noted")

# end_round forgets the bonus of a successful call: the caller notes the plain round value.
BAO_BONUS_FORGOTTEN = Planted((
    ("07_scoring.bao", "  for p in players { set noted[p] = noted_score(p) }\n",
     "  for p in players { set noted[p] = if bao_counts and bao_success then round_value(p) "
     "else noted_score(p) }\n"),),
    "invariant successful_bao_noted", 1, table="properties/successful_bao_noted", players=3)

# end_round gives everyone the caller's bonus after a successful call: all note 0, nobody is lowest.
BONUS_FOR_EVERYONE = Planted((
    ("07_scoring.bao", "  for p in players { set noted[p] = noted_score(p) }\n",
     "  for p in players { set noted[p] = if bao_counts and bao_success then noted_score(bao_caller) "
     "else noted_score(p) }\n"),),
    "invariant caller_noted_lowest", 1, table="properties/caller_noted_lowest")

# round_start turns up no neutral first card: the discard pile starts empty.
NO_NEUTRAL_CARD = Planted((
    ("02_setup.bao", "  draw into discard_pile\n", ""),), "invariant neutral_card_dealt", 0)

# decide is reached only once every total reached the threshold (`all` for `any`): the match goes on.
THRESHOLD_FOR_ALL = Planted((
    ("07_scoring.bao", "  if any p in players: total[p] >= threshold[player_count] {",
     "  if all p in players: total[p] >= threshold[player_count] {"),),
    "invariant match_ends_at_threshold", 1, table="properties/match_ends_at_threshold")

# Whoever reaches the threshold wins (a misreading of [P116]), not the lowest total.
THRESHOLD_REACHER_WINS = Planted((
    ("07_scoring.bao", "    run decide(lowest_totals)\n",
     "    run decide([p in players where total[p] >= threshold[player_count]])\n"),),
    "invariant winner_has_lowest_total", 1, table="properties/match_ends_at_threshold")

PER_INVARIANT: dict[str, Planted] = {
    "look_without_limit": LOOK_WITHOUT_LIMIT, "caller_owed": CALLER_OWED,
    "final_phase_at_first_recycle": FINAL_PHASE_AT_FIRST_RECYCLE, "negative_scores": NEGATIVE_SCORES,
    "second_bao": SECOND_BAO, "shield_one_turn": SHIELD_ONE_TURN, "totals_add_round_value": TOTALS_ADD_ROUND_VALUE,
    "bao_score_not_doubled": BAO_SCORE_NOT_DOUBLED, "everyone_scored_as_caller": EVERYONE_SCORED_AS_CALLER,
    "look_covers": LOOK_COVERS, "negative_not_kept": NEGATIVE_NOT_KEPT,
    "bao_bonus_forgotten": BAO_BONUS_FORGOTTEN, "bonus_for_everyone": BONUS_FOR_EVERYONE,
    "no_neutral_card": NO_NEUTRAL_CARD, "threshold_for_all": THRESHOLD_FOR_ALL,
    "threshold_reacher_wins": THRESHOLD_REACHER_WINS,
}

# Invariants no move or routine can break, so no variant here:
# - single_negative, negative_caller_succeeds, bao_score_bounds, caller_notes_lowest, deal_fits_deck,
#   tables_defined: they read the deck, the tables and the definitions only (a definition or deck
#   variant breaks them: tests/test_verify.py); their counterparts about what is recorded have the
#   routine variants above.
# - card_conservation: the engine moves cards only from one place to another and refuses a destination
#   that is no place, and the rules checker refuses such a destination when the rules load
#   (KEEP_LOSES_CARD shows the refusal).
# - protected_tableau_unchanged: the engine itself refuses every change of a protected tableau by
#   another player, whatever the rule making it; only a change the owner's own rule makes during
#   another player's move would break it, and no rule of these makes one.

# ---------------------------------------------------------------- the planted mistakes of the proofs issue
# Slips a rules editor could make in rules/*.bao: each edit keeps the rules loadable and plays another game than
# the rulebook's. Where no older property states the rule broken, rules/09_invariants.bao has one for it (the
# last block), with its scenario in scenarios/properties/. Those that need cards a deal of the small deck rarely
# brings together (a Schuhschnabel, a BAO call, a recycle, a decision round) are found from a scenario's table.
# Not among them: mistakes that only change who knows a card (a Weisspelikan's `peek` made a `show`, a `forget`
# after the Ara's swap). A property reading `knows` would put knowledge into every state key of `baobei
# explore` (play/explore.py merges it outside the initial peek): for the default rules, `explore --players 2
# --depth 8 --deals 3` would grow from 2,280 states in 4 s to 1.5 million states in nearly 10 minutes.

# Everyone may pluck with the card the active player drew secretly: the drawer's window is opened for all
# players ([P46]). Caught by pluck_window_players as soon as a card is drawn.
OWN_DRAW_WINDOW_FOR_ALL = Planted((
    ("03_turn.bao", '      open window "own_draw" on c for [p in players where p == actor]\n',
     '      open window "own_draw" on c for players\n'),), "invariant pluck_window_players", 5)

# The active player may pluck with the own discarded card: `players` for `others(actor)` in `discard` ([P47]).
# Caught by pluck_window_players at the first discard.
ACTIVE_PLUCKS_OWN_DISCARD = Planted((
    ("03_turn.bao", '    move c to discard_pile\n    open window "discard" on c for others(actor)\n',
     '    move c to discard_pile\n    open window "discard" on c for players\n'),),
    "invariant pluck_window_players", 6)

# An offensive pluck forgets the gift: the victim's slot stays empty and the plucker keeps the card ([P64,
# P65]). Caught by pluck_changes_only_the_plucker at the first successful offensive pluck (the deal of seed 2).
GIFT_NOT_GIVEN = Planted((("04_pluck.bao", "  if victim != actor { run give(gift, target) }\n", ""),),
                         "invariant pluck_changes_only_the_plucker", 6, 1, 2)

# The penalty card is drawn only after a pluck with an own drawn reference: the draw slipped into the
# `if kind == "own_draw"` block (a misreading of [P73], which gives the penalty card alone). A failed pluck on
# another player's card costs nothing. Caught by pluck_changes_only_the_plucker.
PENALTY_ONLY_AFTER_OWN_DRAW = Planted((
    ("04_pluck.bao",
     '    set phase = "turn_end"\n  }\n  # [P71], [P72], [P74]: drawn unseen onto a free slot (or a new one); '
     "it triggers nothing.\n  draw into free_slot(actor, place)\n}\n",
     '    set phase = "turn_end"\n    # [P71], [P72], [P74]: drawn unseen onto a free slot (or a new one); '
     "it triggers nothing.\n    draw into free_slot(actor, place)\n  }\n}\n"),),
    "invariant pluck_changes_only_the_plucker", 6)

# After a failed pluck with the own drawn card the reference is not laid on the discard pile: it stays in the
# drawer's hand (read from [P84]'s "it stays where it is", said of another player's discard). Caught by
# drawn_card_decision_discards at the failed pluck (the pluck decided on the drawn card and laid nothing face up),
# and by hands_empty_at_turn_start when the next turn begins.
REFERENCE_KEPT_AFTER_FAILURE = Planted((
    ("04_pluck.bao",
     "    # [P70]: the drawn reference triggers nothing and opens no window.\n    move ref to discard_pile\n", ""),),
    "invariant drawn_card_decision_discards", 6)

# The Ara's swap written as two moves through a helper name, the way a program swaps two values: the first move
# puts b's card onto a, which still holds its own. The engine refuses to cover a card ("rules").
ARA_SWAP_AS_MOVES = Planted((
    ("05_abilities.bao", "  do { swap card_at(a) with card_at(b) }\n\nability look_and_swap",
     "  do {\n    let x = card_at(a)\n    move card_at(b) to a\n    move x to b\n  }\n\nability look_and_swap"),),
    "rules", 3, table="properties/shield_raised_by_others")

# The Riesentukan's card lands in its user's tableau instead of the chosen player's (`actor` for `victim`,
# [P135]). Caught by ability_draw_not_to_user.
RIESENTUKAN_TO_ACTOR = Planted((
    ("05_abilities.bao", "    draw into free_slot(victim, none) as c\n",
     "    draw into free_slot(actor, none) as c\n"),), "invariant ability_draw_not_to_user", 7)

# The Schuhschnabel's replaced card goes face up onto the discard pile, like a plucked card, instead of unseen
# under it ([P143]). Caught by ability_discards_nothing at the first exchange.
SCHUHSCHNABEL_DISCARDS_REPLACED = Planted((
    ("05_abilities.bao", "  move old to under_pile\n  move new to target\n",
     "  move old to discard_pile\n  move new to target\n"),),
    "invariant ability_discards_nothing", 4, table="properties/ability_discards_nothing")

# The Schuhschnabel's test of which exchanges are possible forgets the shield (`exchangeable` reads `movable`
# only). Against an active shield the exchange with the caller counts as possible, so it must be made, and the
# engine refuses it: the step has no legal choice and is dropped with both drawn cards still in hand ([P144]:
# the possible exchange is made, the unused card goes under the pile). Caught by hands_empty_at_round_end when
# the caller's only opponent ends the last turn.
SCHUHSCHNABEL_IGNORES_SHIELD = Planted((
    ("05_abilities.bao",
     "define exchangeable(s: slot, p: player) = movable(s) and (owner(s) == p or not protected(owner(s)))",
     "define exchangeable(s: slot, p: player) = movable(s)"),),
    "invariant hands_empty_at_round_end", 4, table="properties/hands_empty_at_round_end")

# The Elster's swap forgets § 6.11: decide_swap lost its guard, so the second of two Elsters in a turn swaps a
# card the first one moved. Caught by no_card_moved_twice.
ELSTER_SWAPS_MOVED_CARD = Planted((
    ("05_abilities.bao",
     '  require not swap_them or (movable(a) and movable(b)) else "a card an ability already moved this '
     'turn may not be moved again" § 6.11 [P153, P154]\n', ""),),
    "invariant no_card_moved_twice", 6, table="properties/ability_moves_marked")

# The moved mark is declared without `on ability moves`: no rule gives it, so no card an ability moves is marked
# and § 6.11 limits nothing. (no_card_moved_twice reads the mark, so it cannot see this.) Caught by
# ability_moves_marked at the first card an ability moves.
MOVED_MARK_NOT_GIVEN = Planted((("05_abilities.bao", " until turn on ability moves\n", " until turn\n"),),
                               "invariant ability_moves_marked", 4, table="properties/ability_moves_marked")

# The shield hook forgets `by != owner`: the caller's own change (a defensive pluck in a last turn) turns the
# shield active ([P94], [P100]). Caught by shield_raised_by_others.
CALLER_CHANGE_RAISES_SHIELD = Planted((
    ("06_bao.bao", '  if owner == bao_caller and by != owner and shield == "armed"',
     '  if owner == bao_caller and shield == "armed"'),),
    "invariant shield_raised_by_others", 2, table="properties/shield_raised_by_others")

# "BAO was already called" guarded as `bao_caller != actor`: the caller cannot call twice, but another player
# may call over the first call ([P88]). Caught by bao_caller_fixed in the last turn after a call.
OTHER_PLAYER_CALLS_AGAIN = Planted((
    ("06_bao.bao", 'require bao_caller == none else "BAO was already called this round"',
     'require bao_caller != actor else "BAO was already called this round"'),),
    "invariant bao_caller_fixed", 3, table="properties/bao_called_once")

# `seats_from` for `seats_after` in finish_turn: the first player counted from the active one is the active one,
# so the same player plays again and again ([P11]). Caught by turn_passes_clockwise at the first end of a turn.
SAME_PLAYER_AGAIN = Planted((
    ("03_turn.bao", "    start turn of first p in seats_after(active) where (not last_turns) or owed[p]\n",
     "    start turn of first p in seats_from(active) where (not last_turns) or owed[p]\n"),),
    "invariant turn_passes_clockwise", 6)

# The recycle shuffles the whole discard pile, its top card too ([P156]). Caught by recycle_keeps_the_top.
RECYCLE_TAKES_THE_TOP = Planted((
    ("08_recycle.bao", "    shuffle discard_pile except top, under_pile into draw_pile\n",
     "    shuffle discard_pile, under_pile into draw_pile\n"),),
    "invariant recycle_keeps_the_top", 1, table="properties/recycle_keeps_the_top")

# The recycle forgets the cards under the discard pile ([P158]): the Schuhschnabel's cards never come back.
UNDER_PILE_NOT_RECYCLED = Planted((
    ("08_recycle.bao", "    shuffle discard_pile except top, under_pile into draw_pile\n",
     "    shuffle discard_pile except top into draw_pile\n"),),
    "invariant recycle_keeps_the_top", 1, table="properties/recycle_keeps_the_top")

# The recycle is not counted (the counter's line lost): the second recycle never starts the automatic final
# phase ([P163], [P164]). Caught by recycle_keeps_the_top at the first recycle.
RECYCLE_NOT_COUNTED = Planted((("08_recycle.bao", "    set recycles = recycles + 1\n", ""),),
                              "invariant recycle_keeps_the_top", 1, table="properties/recycle_keeps_the_top")

# A decision round is decided like the match, by the lowest total (copied from end_normal_round), not by the
# scores noted in it ([P117]): its players are tied on total, so they play decision rounds for ever. Caught by
# decision_won_by_noted_score when the decision round is scored.
DECISION_BY_TOTALS = Planted((
    ("07_scoring.bao", "  run decide([p in players where noted[p] == least q in players: noted[q]])\n",
     "  run decide(lowest_totals)\n"),),
    "invariant decision_won_by_noted_score", 4, table="properties/decision_won_by_noted_score", players=3)

# A decision round is scored like a normal one (the `if deciding` of end_round lost): its scores are added to
# the totals (D10), and since only its players' totals are compared with the threshold the match may go on
# with a normal round ([P117]: the decision round decides, without a threshold). Caught when the decision
# round is scored by the lemma decision_among_tied (its players' totals no longer tied) and by
# totals_change_at_round_end.
DECISION_ROUND_ADDS_TOTALS = Planted((
    ("07_scoring.bao", "  if deciding { run end_decision_round } else { run end_normal_round }\n",
     "  run end_normal_round\n"),),
    "invariant decision_among_tied", 3, table="scoring/decision_round_tied_again", players=3,
    also=("invariant totals_change_at_round_end",))

# The shield's protection names the active player instead of the caller ("active" is both the shield's state and
# the player whose turn it is): while the shield is active, the caller's tableau is open to the others, and the
# active player's is closed. protected_tableau_unchanged reads the protection itself and cannot see it; caught by
# shield_keeps_caller_tableau, which states [P99] without it, from the table of the protection's own scenario.
SHIELD_ON_ACTIVE_PLAYER = Planted((
    ("06_bao.bao", 'tableau of p when p == bao_caller and shield == "active"',
     'tableau of p when p == active and shield == "active"'),),
    "invariant shield_keeps_caller_tableau", 3, table="properties/protected_tableau_unchanged",
    players=3)

# BAO called at the start of the own turn instead of its end (a common misreading of [P87]): the caller skips the
# turn's action. Caught by bao_called_at_own_turn_end at the first call.
BAO_AT_TURN_START = Planted((
    ("06_bao.bao", '  require phase == "turn_end" else "BAO may be called only at the end of one\'s own turn',
     '  require phase == "turn" else "BAO may be called only at the end of one\'s own turn'),),
    "invariant bao_called_at_own_turn_end", 5)

# ---------------------------------------------------------------- further slips (the twenty-third session)
# Found by planting each in a copy of the rules and running `baobei verify` with its defaults, which missed them: no
# property stated the rule each breaks (rules/09_invariants.bao has one for each now, with its scenario in
# scenarios/properties/), or, for the decision round's deal, no scenario's table lay where the search reaches it.

# The next round is started by the lowest noted score, not the highest (`least` for `most` in choose_starter,
# [P11]). Caught by starter_noted_most at the deal: the search follows the deal out of a scored round.
STARTER_LOWEST = Planted((
    ("02_setup.bao", "noted[p] == most q in players: noted[q]", "noted[p] == least q in players: noted[q]"),),
    "invariant starter_noted_most", 1, table="properties/starter_noted_most", players=3)

# Taking the discard triggers the taken card's ability ([P122]: taking triggers nothing). Caught by
# take_triggers_nothing at the take of a discarded Ara.
TRIGGER_ON_TAKE = Planted((("03_turn.bao", "    move c to slot\n", "    move c to slot\n    trigger c for actor\n"),),
                          "invariant take_triggers_nothing", 1, table="properties/take_triggers_nothing")

# A successful double pluck triggers both removed cards' abilities ([P83], [P124], [P151]: the second only). Caught
# by double_pluck_one_ability at a double pluck of two Aras.
DOUBLE_BOTH_TRIGGER = Planted((
    ("04_pluck.bao", "  trigger b for actor\n}", "  trigger a for actor\n  trigger b for actor\n}"),),
    "invariant double_pluck_one_ability", 2, table="properties/double_pluck_one_ability")

# `keep` pushes the replaced card under the discard pile, as a Schuhschnabel does, instead of laying it face up on
# it ([P26]). Caught by drawn_card_decision_discards at the first keep.
KEEP_OLD_UNDER = Planted((
    ("03_turn.bao", "    move old to discard_pile\n    move top(hand(actor)) to slot",
     "    move old to under_pile\n    move top(hand(actor)) to slot"),),
    "invariant drawn_card_decision_discards", 2, table="properties/drawn_card_decision_discards")

# The Ara's test of two different players written as two different slots ([P131]): two cards of one player swap.
# Caught by ability_fills_one_slot_each at such a swap.
ARA_SAME_PLAYER = Planted((
    ("05_abilities.bao",
     '  require two_players(a, b) else "choose two face-down cards of two different players (you may be one of them)"'
     ' § 6.5 [P131, P132]\n',
     '  require a != b else "choose two face-down cards" § 6.5 [P131, P132]\n'),),
    "invariant ability_fills_one_slot_each", 3, table="properties/ability_fills_one_slot_each", players=3)

# Taking the discard turns the replaced card up but opens no window on it (the `open window` line of `take` lost,
# [P33]). Caught by turned_up_card_is_a_reference at the take.
TAKE_NO_WINDOW = Planted((
    ("03_turn.bao",
     '    move c to slot\n    # § 2.3 [P33]: the others may pluck with the card that came up; [P34] nothing triggers.\n'
     '    open window "discard" on old for others(actor)\n', '    move c to slot\n'),),
    "invariant turned_up_card_is_a_reference", 1, table="properties/turned_up_card_is_a_reference")

# The shield's protection forgets the automatic final phase (`and not final_phase` lost, [P167]): the caller stays
# protected in the final phase. Caught by no_shield_in_final_phase at the second recycle.
SHIELD_IN_FINAL_PHASE = Planted((
    ("06_bao.bao", 'tableau of p when p == bao_caller and shield == "active" and not final_phase',
     'tableau of p when p == bao_caller and shield == "active"'),),
    "invariant no_shield_in_final_phase", 1, table="properties/no_shield_in_final_phase")

# The deal of a decision round forgets its players (`start round` for `start round with contenders`, [P117]): everyone
# plays it. Caught by the lemma decision_among_tied at the deal, from a table where the decision is due.
DECISION_DEALS_EVERYONE = Planted((
    ("07_scoring.bao", 'if phase == "decision_due" { start round with contenders } else { start round }',
     'start round'),),
    "invariant decision_among_tied", 1, table="scoring/decision_round_dealt_to_contenders", players=3)

# The pluck forgets whose window it is (`require actor in window_players` lost, [P46], [P47]): anyone plucks with
# the drawer's secret card, the active player with the own discard. Caught by pluck_by_window_players.
PLUCK_ANY_WINDOW = Planted((
    ("04_pluck.bao",
     '  require actor in window_players else "this reference is not yours to pluck with: after an own draw only the'
     ' drawer, after a discard everyone but the active player" § 3.2 [P46, P47] § 2.3 [P33]\n', ""),),
    "invariant pluck_by_window_players", 2, table="properties/pluck_by_window_players")

# The Riesentukan's user looks at the card it adds ([P136]: nobody may). Caught by added_card_unseen.
RIESENTUKAN_USER_LOOKS = Planted((
    ("05_abilities.bao", "    draw into free_slot(victim, none) as c\n",
     "    draw into free_slot(victim, none) as c\n    if c != none { peek actor c }\n"),),
    "invariant added_card_unseen", 3, table="properties/added_card_unseen")

PROOFS_ISSUE: dict[str, Planted] = {
    "own_draw_window_for_all": OWN_DRAW_WINDOW_FOR_ALL, "active_plucks_own_discard": ACTIVE_PLUCKS_OWN_DISCARD,
    "gift_not_given": GIFT_NOT_GIVEN, "penalty_only_after_own_draw": PENALTY_ONLY_AFTER_OWN_DRAW,
    "reference_kept_after_failure": REFERENCE_KEPT_AFTER_FAILURE, "ara_swap_as_moves": ARA_SWAP_AS_MOVES,
    "riesentukan_to_actor": RIESENTUKAN_TO_ACTOR, "schuhschnabel_discards_replaced": SCHUHSCHNABEL_DISCARDS_REPLACED,
    "schuhschnabel_ignores_shield": SCHUHSCHNABEL_IGNORES_SHIELD, "elster_swaps_moved_card": ELSTER_SWAPS_MOVED_CARD,
    "moved_mark_not_given": MOVED_MARK_NOT_GIVEN, "caller_change_raises_shield": CALLER_CHANGE_RAISES_SHIELD,
    "other_player_calls_again": OTHER_PLAYER_CALLS_AGAIN, "same_player_again": SAME_PLAYER_AGAIN,
    "recycle_takes_the_top": RECYCLE_TAKES_THE_TOP, "under_pile_not_recycled": UNDER_PILE_NOT_RECYCLED,
    "recycle_not_counted": RECYCLE_NOT_COUNTED, "decision_by_totals": DECISION_BY_TOTALS,
    "decision_round_adds_totals": DECISION_ROUND_ADDS_TOTALS, "shield_on_active_player": SHIELD_ON_ACTIVE_PLAYER,
    "bao_at_turn_start": BAO_AT_TURN_START, "starter_lowest": STARTER_LOWEST, "trigger_on_take": TRIGGER_ON_TAKE,
    "double_both_trigger": DOUBLE_BOTH_TRIGGER, "keep_old_under": KEEP_OLD_UNDER, "ara_same_player": ARA_SAME_PLAYER,
    "take_no_window": TAKE_NO_WINDOW, "shield_in_final_phase": SHIELD_IN_FINAL_PHASE,
    "decision_deals_everyone": DECISION_DEALS_EVERYONE, "pluck_any_window": PLUCK_ANY_WINDOW,
    "riesentukan_user_looks": RIESENTUKAN_USER_LOOKS,
}

ALL: dict[str, Planted] = {**ISSUE, **PER_INVARIANT, **PROOFS_ISSUE}

# ---------------------------------------------------------------- what the players know (D12)
# Slips that only change who knows a card. The properties that catch them read `knows`, so explore judges them in
# a search that keeps knowledge in every state (`explore(..., knowledge=True)`, `baobei explore --knowledge`,
# verify's "knowing" search). Each entry's depth is that search's.

# The discard pile declared face down (copied from the draw pile's line): the neutral card and every discard lie
# hidden ([P10]: the top discard is always visible). Caught by discard_top_known in the dealt state.
DISCARD_FACE_DOWN = Planted((("02_setup.bao", "pile discard_pile face up", "pile discard_pile face down"),),
                            "invariant discard_top_known", 0)

# The own draw shown to everyone instead of looked at secretly ([P24]). Caught by drawn_cards_secret at the
# first draw.
OWN_DRAW_SHOWN = Planted((("03_turn.bao", "    } else {\n      peek actor c\n", "    } else {\n      show c\n"),),
                         "invariant drawn_cards_secret", 5)

# The Schuhschnabel's two cards shown to everyone instead of looked at secretly ([P140]). Caught by
# drawn_cards_secret when the ability draws, from the table of a scenario with a Schuhschnabel.
SCHUHSCHNABEL_SHOWS = Planted((
    ("05_abilities.bao", "    draw into hand(actor) as x\n    peek actor x\n",
     "    draw into hand(actor) as x\n    show x\n"),),
    "invariant drawn_cards_secret", 3, table="birds/schuhschnabel_double_exchange")

# "The players must adjust their memory" ([P132]) read as "they lose track": the Ara's swap makes everyone
# forget both cards. Caught by knowledge_kept_until_shuffled at the swap.
ARA_SWAP_FORGETS = Planted((
    ("05_abilities.bao", "  do { swap card_at(a) with card_at(b) }\n\nability look_and_swap",
     "  do {\n    swap card_at(a) with card_at(b)\n    forget card_at(a)\n    forget card_at(b)\n  }\n\n"
     "ability look_and_swap"),),
    "invariant knowledge_kept_until_shuffled", 3, table="birds/ara_swaps_unseen",
    players=3)

# The Riesentukan's card is looked at by the player who receives it ([P135]: put in unseen). Caught by
# added_card_unseen (the card it adds stays unseen, [P136]; the replay names it first), abilities_teach_their_user
# and looks_stay_secret: the user's move teaches another player a card nobody else knows.
RIESENTUKAN_SEEN_BY_RECEIVER = Planted((
    ("05_abilities.bao", "    draw into free_slot(victim, none) as c\n",
     "    draw into free_slot(victim, none) as c\n    if c != none { peek victim c }\n"),),
    "invariant added_card_unseen", 3, table="birds/riesentukan_adds_card",
    also=("invariant abilities_teach_their_user", "invariant looks_stay_secret"))

# A Weisspelikan's secret look written as a `show`: everyone sees the card ([P127]: only the user). Everyone
# knows it afterwards, so looks_stay_secret cannot tell it from the Braunpelikan's show; caught by
# abilities_teach_their_user, which names the one ability that may show (`source`, the card whose ability moved).
WEISSPELIKAN_SHOWS = Planted((("05_abilities.bao", "  do { peek actor card_at(target) }\n",
                                "  do { show card_at(target) }\n"),),
                             "invariant abilities_teach_their_user", 3, table="abilities/weisspelikan_drawn_discarded",
                             players=3)

# The under-pile declared face up (copied from the discard pile's line): the cards a Schuhschnabel's exchange pushes
# under it are shown to everyone ([P143]: unseen). Caught by abilities_teach_their_user when they go under.
UNDER_PILE_FACE_UP = Planted((("02_setup.bao", "pile under_pile face down", "pile under_pile face up"),),
                             "invariant abilities_teach_their_user", 3,
                             table="birds/schuhschnabel_no_exchange_possible")

KNOWLEDGE: dict[str, Planted] = {
    "discard_face_down": DISCARD_FACE_DOWN, "own_draw_shown": OWN_DRAW_SHOWN,
    "schuhschnabel_shows": SCHUHSCHNABEL_SHOWS, "ara_swap_forgets": ARA_SWAP_FORGETS,
    "riesentukan_seen_by_receiver": RIESENTUKAN_SEEN_BY_RECEIVER, "weisspelikan_shows": WEISSPELIKAN_SHOWS,
    "under_pile_face_up": UNDER_PILE_FACE_UP,
}

