"""When everybody says "Weiter" (house rule ``all_pass``, rulebook "Announcing the Game").

* ``redeal`` — the deal is thrown in, the next dealer deals.
* ``redeal_double`` — thrown in; the next game that comes about costs double
  (several thrown-in deals in a row double it again each time).
* ``stock`` — thrown in; every player pays the Stock price (``tariffs.stock``,
  by default the Rufspiel base) into the pot, times 2 per Doppeln of the deal.
* ``stock_double`` — as ``stock``, paying double.
* ``muss`` — Muss-Spiel: the holder of the Eichel Ober must name a Rufspiel
  (with As-Renonce if he is blocked); no Stoß.
* ``ramsch`` — a Ramsch is played (``ramsch.py``).

With ``renonce: true``, first the Renonce round: every seat in speaking order
is asked, and a blocked one may name a Rufspiel with As-Renonce; only if all
decline does ``all_pass`` apply. Every seat is asked, blocked or not, and
the round is held even when nobody is blocked: asking only the blocked seats
(or skipping the round) would tell everybody who holds a suit card without
its Ace. A "Weiter" there reads the same whatever the hand.
"""
from __future__ import annotations

from ..event import Event
from ..trick import seats_from
from .cards import PLAYERS
from .state import State


def all_passed(state: State) -> list[Event]:
    config = state.config
    if config.renonce and "rufspiel" in config.allowed_games:
        return [Event("RenonceRound", {"seats": seats_from((state.dealer + 1) % PLAYERS, PLAYERS)})]
    return apply_option(state)


def apply_option(state: State) -> list[Event]:
    option = state.config.all_pass
    if option == "muss":
        holder = next(seat for seat in range(PLAYERS) if "EO" in state.hands[seat])
        return [Event("MussSpiel", {"seat": holder})]
    if option == "ramsch":
        return [Event("GameDeclared", {"declarer": None, "game": "ramsch", "suit": None, "called_ace": None})]
    payments = [0] * PLAYERS
    stock = 0
    if option in ("stock", "stock_double"):
        each = state.config.stock_price * 2 ** len(state.doublers) * (2 if option == "stock_double" else 1)
        payments = [-each] * PLAYERS
        stock = each * PLAYERS
    return [Event("DealThrownIn", {"deal": state.deal, "dealer": state.dealer, "payments": payments,
                                   "stock": stock, "doubles_next": option == "redeal_double"})]
