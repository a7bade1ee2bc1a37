"""Ramsch (SK-11, house rule ``all_pass: "ramsch"``): everyone for himself.

Trumps as in the Rufspiel. The player with the most card points loses and
pays every other player the Ramsch price (times the deal's multiplier). Tie
on points: the one with more tricks loses; still tied: the one holding the
higher trump among his tricks; still tied (neither took a trump): the one
first in playing order from Vorhand. Durchmarsch (``ramsch_durchmarsch``):
a player who took every trick (``all_tricks``, SK-11) — or every card point
(``all_points``) — alone wins and is paid the price by each other player.
Jungfrau (``ramsch_jungfrau``, a house rule: the rulebook has none): a
player without a trick is paid double by the loser (``double_individually``),
or paid double once for every Jungfrau at the table, x4 with two
(``double_individually_multiple``), or each Jungfrau doubles every payment,
x4 with two (``double_all``: "Jungfrau doubles" read per Jungfrau, as
openschafkopf settles it), or any number of Jungfrauen double every payment
once (``double_all_once``: what ``double_all`` meant in games created before
GameCreated v2, which ``domain.upcast`` renames so they replay as they were
played). Not in a Durchmarsch; but where taking every card point
without every trick is no Durchmarsch (``all_tricks``, ``off``), the one
with 120 loses and the players without a trick are Jungfrauen. The Stock is
untouched.

The settlement names the loser (or the Durchmarsch player) as its
``declarers`` so that ``card_points`` and ``tricks`` read as his side
against the rest.
"""
from __future__ import annotations

from typing import Callable

from .cards import PLAYERS, total_points
from .game_types import order
from .ruleset import Config
from .state import Settlement

TOTAL = 120


def settle_ramsch(deal: int, tricks, dealer: int, config: Config, multiplier: int = 1) -> Settlement:
    points = [0] * PLAYERS
    taken = [0] * PLAYERS
    won_cards: list[list[str]] = [[] for _ in range(PLAYERS)]
    for winner, trick in tricks:
        points[winner] += total_points(trick.cards)
        taken[winner] += 1
        won_cards[winner].extend(trick.cards)
    trumps = order("ramsch", None).trumps
    return ramsch_settlement(deal, config, multiplier, points, taken, len(tricks),
                             lambda: loser(points, taken, won_cards, trumps, dealer))


def ramsch_settlement(deal: int, config: Config, multiplier: int, points, taken, tricks: int,
                      lose: Callable[[], int]) -> Settlement:
    """The settlement from each seat's card points and tricks; ``lose()`` names the loser (the
    tie-breaks need the cards won, which the decider and the simulator keep in their own forms)."""
    price = config.tariff("ramsch").base * multiplier
    durch = None
    if config.ramsch_durchmarsch == "all_tricks":
        durch = next((s for s in range(PLAYERS) if taken[s] == tricks), None)
    elif config.ramsch_durchmarsch == "all_points":
        durch = next((s for s in range(PLAYERS) if points[s] == TOTAL), None)
    jungfrauen: tuple[int, ...] = ()
    if durch is not None:
        side = durch
        payments = [price * (PLAYERS - 1) if s == durch else -price for s in range(PLAYERS)]
    else:
        side = lose()
        jungfrauen = tuple(s for s in range(PLAYERS) if taken[s] == 0)
        payments = [0] * PLAYERS
        for seat in range(PLAYERS):
            if seat == side:
                continue
            owed = price * jungfrau_factor(config.ramsch_jungfrau, seat, jungfrauen)
            payments[seat] += owed
            payments[side] -= owed
    return Settlement(deal=deal, game="ramsch", declarers=(side,),
                      card_points=(points[side], TOTAL - points[side]),
                      tricks=(taken[side], tricks - taken[side]), won=durch is not None,
                      schneider=False, schwarz=False, laufende=0, value=price,
                      payments=tuple(payments), multiplier=multiplier,
                      seat_points=tuple(points), durchmarsch=durch is not None, jungfrauen=jungfrauen)


def jungfrau_factor(option: str, seat: int, jungfrauen: tuple[int, ...]) -> int:
    """What the loser's payment to ``seat`` is multiplied by under ``ramsch_jungfrau``."""
    if option == "double_all":
        return 2 ** len(jungfrauen)  # each Jungfrau doubles the whole loss again
    if option == "double_all_once":
        return 2 if jungfrauen else 1
    if seat not in jungfrauen:
        return 1
    if option == "double_individually":
        return 2
    if option == "double_individually_multiple":
        return 2 ** len(jungfrauen)  # each Jungfrau doubles every Jungfrau's payment again
    return 1


def loser(points, taken, won_cards, trumps, dealer: int) -> int:
    def best_trump(seat: int) -> int:
        held = [trumps.index(c) for c in won_cards[seat] if c in trumps]
        return -min(held) if held else -len(trumps)

    vorhand_order = [(dealer + 1 + i) % PLAYERS for i in range(PLAYERS)]
    return max(vorhand_order, key=lambda s: (points[s], taken[s], best_trump(s), -vorhand_order.index(s)))
