"""The ``heuristic`` Schafkopf bot: simple rules a player can follow, one per decision.

* **Announcing** (``hand``): "Ich spiele" with a game worth playing (after an
  earlier "Ich spiele" only a game above the Rufspiel), else a Hochzeit offer
  when the house rule allows it and the hand has its single trump, else
  "Weiter". Naming: the highest-ranking game worth playing (Sie, Tout, Solo,
  Wenz, Rufspiel...), the Rufspiel calling its shortest suit; withdraw when
  none is; forced (Muss-Spiel, a promised game) the least bad.
* **Doppeln**: with three trumps and two Obers in the first half, or four trumps.
* **Stoß**: Kontra with a hand that can break the game (many trumps, high
  trumps and Aces for the game played); Re only with a very safe game; no
  Supra or Resupra.
* **Auction**: one raise to 71 with a very strong hand for the game named, else pass.
* **Schieberrunde**: play with five trumps in the best suit; pass the two
  weakest cards. **Hochzeit**: give the lowest non-trump.
* **Card play**: see ``cardplay`` (win cheaply when worth it, schmieren onto
  a partner's sure trick, keep trumps and high cards, follow the game's goal).
"""
from __future__ import annotations

from ..game_types import order
from . import bidding, cardplay
from .knowledge import Knowledge, read


def situation(decision, know: Knowledge | None = None) -> cardplay.Situation:
    """The card-play situation of a Decision in the play phase."""
    know = know or read(decision)
    contract = know.contract
    legal = [c["card"] for c in decision.legal if c["type"] == "play"]
    voids: dict = {}
    rules_order = order(contract["game"], contract["suit"])
    complete = [t for t in know.tricks if len(t) == 4]
    led_before = frozenset(rules_order.follow_key(t[0][1]) for t in complete)
    for seat, cards in know.forbidden.items():
        keys = {rules_order.follow_key(c) for c in cards}
        voids[seat] = frozenset(k for k in keys if all(
            c in cards for c in know.deck if rules_order.follow_key(c) == k and c not in know.played))
    return cardplay.Situation(
        seat=decision.seat, hand=know.hand, legal=legal, trick=tuple(know.current_trick),
        game=contract["game"], suit=contract["suit"], declarer=contract["declarer"],
        called_ace=contract["called_ace"], friends=know.friends(), played=know.played, deck=know.deck,
        led_before=led_before, voids=voids)


def stoss_wanted(decision, know: Knowledge) -> bool:
    game_state = decision.view["game_state"]
    level = len(game_state["stoss"]) + 1
    contract = know.contract
    declaring = decision.seat == contract["declarer"] or decision.seat == know.partner
    return bidding.stoss(know.hand, contract, declaring, level)


def policy(decision) -> dict:
    legal = decision.legal
    if len(legal) == 1:
        return legal[0]
    game_state = decision.view["game_state"]
    phase = game_state["phase"]
    hand = tuple(game_state["hand"] or ())
    kinds = {c["type"] for c in legal}
    if "announce" in kinds:
        someone = any(a["intent"] == "play" for a in game_state["announcements"])
        return bidding.announce(hand, decision.rules, legal, someone)
    if "name_game" in kinds or "withdraw" in kinds:
        return bidding.name(hand, legal)
    if "doppeln" in kinds:
        return bidding.doppeln(hand, legal)
    if "bid" in kinds or phase == "auction":
        named = next(((n["game"], n.get("suit")) for n in game_state["naming"]
                      if n.get("seat") == decision.seat and n.get("game")), None)
        return bidding.bid(hand, legal, named)
    if "schieber" in kinds:
        return bidding.schieber(hand, legal, takes_obers=decision.seat == game_state["dealer"])
    if "push" in kinds:
        schieber = game_state.get("schieberrunde") or {}
        return bidding.push(hand, legal, declarer=decision.seat == schieber.get("vorhand"))
    if "give_card" in kinds:
        return bidding.give_card(hand, legal)
    if phase == "play":
        know = read(decision)
        if {"type": "stoss"} in legal and stoss_wanted(decision, know):
            return {"type": "stoss"}
        return {"type": "play", "card": cardplay.choose(situation(decision, know))}
    return legal[0]
