"""The ``heuristic`` bot: a few explainable rules per decision, from the seat's view and history.

Scharwenzel counts tricks, not card points: the side with the majority of tricks scores, so
every rule is about taking tricks with the cheapest card that does it and keeping the cards
that take tricks later (high trumps, Aces).

Hand strength for a trump suit ``t``: each trump the hand would hold counts 1, the matadors
more (QC and the Nillje 7t 4, QS and JC 3, the other Jacks 2, the Ace of trumps 1.5); every
plain Ace adds 1; clubs add 1 because a club game after a bid is worth 4, not 2 (SW-4).

* Bidding: the bid only decides the trump suit, so bid the option whose suit makes the hand
  strongest, if the hand is strong enough in it (5; only 4 to take the trumps away from an
  opponent's bid). Over a partner's bid, pass unless the hand is very strong (10), because the
  partner's long suit is already a good trump suit for the side.
* Naming trumps: the strongest of the suits the bid allows.
* Tout: announce only with an overwhelming hand (at least 6 trumps, the top 3 trumps QC, 7t,
  QS among them, and every other card an Ace); a failed tout gives the opponents 4 hooks.
* Leading: a master trump (no unseen trump beats it) to draw trumps while the opponents may
  still hold some and the hand has 3 trumps or more; else a plain master (an Ace or the best
  card left of its suit) that no opponent is known to ruff; else a card of a suit the partner
  is known to lack, for the partner to ruff; else the lowest card of the shortest plain suit,
  to make a void for ruffing later; else the lowest trump.
* Following: when the side is winning the trick safely (no later opponent can beat it),
  play the cheapest card; when an opponent is winning, or the partner's card is not safe, win
  with the cheapest card that is safe, else with the cheapest card that wins at all; when
  nothing wins, throw the cheapest card (short plain suits first, trumps and Aces last).

A card "could be beaten" by an unseen card that ranks above it in the trick, held by an
opponent still to play who may play it: one of the led suit if that opponent may still hold
the suit, a trump if the opponent is known to lack the led suit (or no card of it is unseen).
"""
from __future__ import annotations

from functools import lru_cache

from ..cards import SUITS, TRUMP, Ranking, deck, suit_counts, trump_order
from .knowledge import read

WEIGHTS = {0: 4.0, 1: 4.0, 2: 3.0, 3: 3.0, 4: 2.0, 5: 2.0, 6: 2.0, 7: 1.5}  # by place in the trump order
BID_AT, BID_OVER_OPPONENT, BID_OVER_PARTNER = 5.0, 4.0, 10.0


# -- the hand before play -------------------------------------------------------------------
def strength(hand, trumps: str, players: int) -> float:
    """How good ``hand`` is with ``trumps`` as the trump suit (see the module docstring)."""
    order = trump_order(trumps, players)
    rank = {card: i for i, card in enumerate(order)}
    total = 1.0 if trumps == "C" else 0.0
    for card in hand:
        if card in rank:
            total += WEIGHTS.get(rank[card], 1.0)
        elif card.startswith("A"):
            total += 1.0
    return total


def choose_bid(hand, legal: list[dict], standing: dict | None, seat: int, players: int) -> dict:
    best, score, needed = weigh_bids(hand, legal, standing, seat, players)
    return best if best is not None and score >= needed else {"type": "pass"}


def weigh_bids(hand, legal: list[dict], standing: dict | None, seat: int,
               players: int) -> tuple[dict | None, float, float]:
    """(the best bid of ``legal`` or None, the hand's strength with it, the strength it needs):
    ``choose_bid``'s reasons, which the search's inference reads as a likelihood."""
    counts = suit_counts(hand)
    best, best_key = None, None
    for command in legal:
        if command["type"] != "bid":
            continue
        value = command["value"]
        suits = ["C"] if command.get("besser") else [s for s in SUITS if counts[s] == value]
        score = max(strength(hand, s, players) for s in suits)
        key = (score, value, command.get("besser", False))
        if best_key is None or key > best_key:
            best, best_key = command, key
    if standing is None:
        needed = BID_AT
    elif standing["seat"] % 2 == seat % 2:
        needed = BID_OVER_PARTNER
    else:
        needed = BID_OVER_OPPONENT
    return best, (best_key[0] if best_key else 0.0), needed


def choose_trumps(hand, legal: list[dict], players: int) -> dict:
    return max(legal, key=lambda c: (strength(hand, c["suit"], players), c["suit"]))


def wants_tout(hand, trumps: str, players: int) -> bool:
    order = trump_order(trumps, players)
    held = [c for c in hand if c in order]
    others = [c for c in hand if c not in order]
    return len(held) >= 6 and all(c in hand for c in order[:3]) and all(c.startswith("A") for c in others)


# -- card play ------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def card_tables(trumps: str, players: int) -> tuple[dict, dict, dict]:
    """Per card, once per trump suit (rollouts ask millions of times): its follow suit, its
    power when each suit is led (``Ranking.strength``), and its keep value before suit length."""
    ranking = Ranking(trumps, players)
    follow, power, keep = {}, {}, {}
    trump_rank = ranking.trump_rank
    for card in deck(players):
        follow[card] = ranking.follow_suit(card)
        power[card] = {led: ranking.strength(card, led) for led in SUITS + (TRUMP,)}
        if card in trump_rank:
            keep[card] = 100.0 + len(trump_rank) - trump_rank[card]
        else:
            keep[card] = 20.0 + ranking.strength(card, card[-1])[1]  # 20 for the Ace, less below
    return follow, power, keep


def keep_value(card: str, ranking: Ranking, short: dict[str, int]) -> float:
    """How much the hand wants to keep ``card``: trumps most (the higher the more), then
    plain cards by rank; among equal plain cards those of a shorter suit go first."""
    value = card_tables(ranking.trumps, ranking.players)[2][card]
    return value if value >= 100.0 else value + short.get(card[-1], 0) * 0.1


def could_be_beaten(card: str, led: str, ranking: Ranking, unseen, voids, later_opponents) -> bool:
    """Whether an opponent still to play may hold and play a card above ``card`` (see docstring)."""
    if not later_opponents:
        return False
    follow, power, _ = card_tables(ranking.trumps, ranking.players)
    mine = power[card][led]
    led_left = any(follow[u] == led for u in unseen)
    for u in unseen:
        if power[u][led] <= mine:
            continue
        suit = follow[u]
        for opp in later_opponents:
            lacks = voids.get(opp, ())
            if suit in lacks:
                continue
            if suit == led or led in lacks or not led_left:
                return True
    return False


def choose_card(seat: int, players: int, ranking: Ranking, legal: list[str], trick, unseen, voids) -> str:
    """The card to play: ``trick`` the (seat, card) plays so far, ``unseen`` the cards other
    seats may hold, ``voids`` seat -> the follow suits it is known to lack."""
    if len(legal) == 1:
        return legal[0]
    side = seat % 2
    short = {s: 0 for s in SUITS}
    for card in legal:
        short[card[-1]] += 1
    cheap = lambda cards: min(cards, key=lambda c: (keep_value(c, ranking, short), c))
    order = [(seat + i) % players for i in range(1, players - len(trick))]  # the seats after this one
    later_opponents = [s for s in order if s % 2 != side]
    if not trick:
        return _lead(seat, players, ranking, legal, unseen, voids, cheap)
    follow, power, _ = card_tables(ranking.trumps, ranking.players)
    led = follow[trick[0][1]]
    best_seat, best_card = trick[0]
    for who, card in trick[1:]:
        if power[card][led] > power[best_card][led]:
            best_seat, best_card = who, card
    winners = [c for c in legal if power[c][led] > power[best_card][led]]
    safe = [c for c in winners if not could_be_beaten(c, led, ranking, unseen, voids, later_opponents)]
    if best_seat % 2 == side:
        if not could_be_beaten(best_card, led, ranking, unseen, voids, later_opponents) or not safe:
            return cheap(legal)
        return cheap(safe)
    if safe:
        return cheap(safe)
    if winners:
        return cheap(winners)
    return cheap(legal)


def _lead(seat, players, ranking, legal, unseen, voids, cheap) -> str:
    opponents = [s for s in range(players) if s % 2 != seat % 2]  # leading, every opponent plays after
    trumps = [c for c in legal if ranking.is_trump(c)]
    unseen_trumps = [u for u in unseen if ranking.is_trump(u)]
    if trumps and len(trumps) >= 3 and unseen_trumps and any(TRUMP not in voids.get(o, ()) for o in opponents):
        top = min(trumps, key=ranking.trump_rank.__getitem__)
        if not could_be_beaten(top, TRUMP, ranking, unseen, voids, opponents):
            return top
    masters = []
    for card in legal:
        if ranking.is_trump(card):
            continue
        suit = card[-1]
        ruffers = [o for o in opponents if suit in voids.get(o, ()) and TRUMP not in voids.get(o, ())]
        if not ruffers and not could_be_beaten(card, suit, ranking, unseen, voids, opponents):
            masters.append(card)
    if masters:
        # The suit with the most cards still out is the least likely to be ruffed.
        return max(masters, key=lambda c: (sum(1 for u in unseen if not ranking.is_trump(u) and u[-1] == c[-1]), c))
    partners = [s for s in range(players) if s % 2 == seat % 2 and s != seat]
    for card in sorted(legal, key=lambda c: (-ranking.strength(c, c[-1])[1], c), reverse=True):
        suit = card[-1]
        if not ranking.is_trump(card) and any(suit in voids.get(p, ()) and TRUMP not in voids.get(p, ())
                                              for p in partners):
            return card
    plain = [c for c in legal if not ranking.is_trump(c)]
    if plain:
        length = {}
        for c in plain:
            length[c[-1]] = length.get(c[-1], 0) + 1
        shortest = min(length.values())
        return cheap([c for c in plain if length[c[-1]] == shortest])
    return cheap(legal)


# -- the policy -----------------------------------------------------------------------------
def policy(decision) -> dict:
    legal = decision.legal
    if len(legal) == 1:
        return legal[0]
    game = decision.view["game_state"]
    hand = tuple(game.get("hand") or ())
    kind = legal[0]["type"]
    players = decision.players
    if kind in ("pass", "bid"):
        return choose_bid(hand, legal, game.get("high_bid"), decision.seat, players)
    if kind == "name_trumps":
        return choose_trumps(hand, legal, players)
    if kind in ("announce_tout", "no_tout"):
        wanted = "announce_tout" if wants_tout(hand, game["trumps"]["suit"], players) else "no_tout"
        return next(c for c in legal if c["type"] == wanted)
    if kind == "play":
        return {"type": "play", "card": play_card(decision)}
    return legal[0]


def play_card(decision) -> str:
    known = read(decision)
    cards = [c["card"] for c in decision.legal]
    trick = [(p["seat"], p["card"]) for p in (decision.view["game_state"]["current_trick"] or {}).get("plays", ())]
    return choose_card(decision.seat, decision.players, known.ranking, cards, trick, known.unseen(), known.voids)
