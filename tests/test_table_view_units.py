"""The text picture of a table (`baobei explain`, `baobei play`): slots with who knows each card, hands,
piles with the face-up top, windows and waiting abilities; and the same table as one player sees it."""

from __future__ import annotations

from baobei.engine.engine import Engine
from baobei.engine.state import Waiting, Window
from baobei.engine.table_view import render_table
from conftest import table_state

TABLE = """\
scenario "table view"
table
  players alice bob carol
  alice: Spatz, _, Goldtukan
  bob: Flamingo, Kranich
  carol:
  draw: Amsel, Weisspelikan
  discard: Specht, Meise
  active bob
  alice knows alice.1
  bob knows alice.1
  carol knows alice.1
  bob knows bob.2
  alice knows bob.1
  carol knows bob.1
play
"""


def test_the_table_as_the_dealer_sees_it_and_as_one_player_sees_it(default_engine: Engine) -> None:
    st = table_state(default_engine, TABLE, "view.scenario")
    facts = default_engine.facts
    st.hands[1].append(facts.by_label["Ara#1"])
    st.box.remove(facts.by_label["Ara#1"])
    st.known[facts.by_label["Ara#1"]] = 0b010  # bob drew it
    st.windows.append(Window("discard", facts.by_label["Meise#2"], 0b101, 0))
    st.waiting.append(Waiting("peek", facts.by_label["Ara#1"], 1, (), True))
    assert render_table(default_engine, st) == [
        " alice  1:Spatz#1{all}  2:—  3:Goldtukan#1{-}",
        "*bob    1:Flamingo#1{alice,carol}  2:Kranich#1{bob}   holds Ara#1",
        " carol  (no cards)",
        "  draw pile 2, discard pile 2 (top Meise#1), under pile 0; phase turn",
        "  pluck window 'discard' on Meise#2 for alice, carol (used)",
        "  waiting: bob must use 'peek' of Ara#1 (after the window's calls)",
    ]
    assert render_table(default_engine, st, knowledge=False, viewer=0) == [
        " alice  1:Spatz#1  2:—  3:?",
        "*bob    1:Flamingo#1  2:?   holds ?",
        " carol  (no cards)",
        "  draw pile 2, discard pile 2 (top Meise#1), under pile 0; phase turn",
        "  pluck window 'discard' on a card for alice, carol (used)",
        "  waiting: bob must use 'peek' of a card (after the window's calls)",
    ]
    st.windows[0].attempts, st.windows[0].players = 1, 0
    st.waiting[0] = Waiting("peek", facts.by_label["Ara#1"], 1)
    st.piles[default_engine.pile_index["discard_pile"]].clear()
    assert render_table(default_engine, st, viewer=1)[3:] == [
        "  draw pile 2, discard pile 0, under pile 0; phase turn",
        "  pluck window 'discard' on a card for nobody",
        "  waiting: bob must use 'peek' of Ara#1",
    ]
