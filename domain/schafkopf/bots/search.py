"""The ``search`` Schafkopf bot: determinization and perfect-information Monte Carlo (PIMC).

For a card to play it repeatedly samples a world consistent with what the
seat knows (``determinize``), and in that world plays each legal card and
the rest of the *current deal* with a fast rollout policy (the heuristic's
card play, which sees the sampled hands; or uniform random) through the
game's simulator (``simulator``: built from the sampled state once per world,
copied per card; it agrees with ``decide``/``evolve`` card by card and settles
the deal as they do, but builds no events). A playout scores this seat's payment of the
deal (plus a little for its side's card points, which breaks ties between
cards that win or lose alike). Every card is tried in the same worlds; the
best average wins. The search stops at the end of the deal: the next deal
comes from the secret seed, which no bot has.

It stops when ``decision.out_of_time()`` says so (checked before every
playout) or after ``max_playouts``, so without a clock it is deterministic
for a given ``decision.rng``. Everything but the choice of a card (announcing,
Stoß, Doppeln...) and a card with no alternative is the heuristic's, decided
at once; so is any card when time is already up.
"""
from __future__ import annotations

import random
from functools import lru_cache

from ...bitmask import members
from ..cards import PLAYERS, points
from ..game_types import order
from ..simulator import DECK, INDEX, Simulator, from_state
from . import cardplay, heuristic
from .determinize import World
from .knowledge import read

FOLLOW_KEYS = ("E", "G", "H", "S", "T")  # the simulator's follow keys 0-4 as ``Order.follow_key`` names them
POINT_WEIGHT = 0.02  # a card point against a payment unit: a tie-break, never outweighing a game won
PARTNERSHIPS = ("rufspiel", "hochzeit")


@lru_cache(maxsize=1024)
def _friends(contract, partner: int | None, seat: int) -> frozenset[int]:
    if contract.declarer is None:
        return frozenset()
    others = frozenset(range(PLAYERS)) - {seat}
    if contract.game in PARTNERSHIPS:
        side = {contract.declarer, partner}
        return frozenset(side - {seat}) if seat in side else others - side
    return frozenset() if seat == contract.declarer else others - {contract.declarer}


# A rollout hands the heuristic card codes: the same hands and leads recur in every playout of a world.
@lru_cache(maxsize=1 << 14)
def _codes(mask: int) -> tuple[str, ...]:
    return tuple(DECK[card] for card in members(mask))


@lru_cache(maxsize=32)
def _led(mask: int) -> frozenset[str]:
    return frozenset(FOLLOW_KEYS[key] for key in members(mask))


def heuristic_rollout(sim: Simulator, seat: int, legal: tuple[int, ...], rng: random.Random) -> int:
    """The heuristic's card, knowing every hand of the sampled world."""
    rules = sim.rules
    contract = rules.contract
    situation = cardplay.Situation(
        seat=seat, hand=_codes(sim.hands[seat]), legal=[DECK[c] for c in legal],
        trick=tuple((who, DECK[c]) for who, c in sim.trick_plays()), game=contract.game,
        suit=contract.suit, declarer=contract.declarer, called_ace=contract.called_ace,
        friends=_friends(contract, None if rules.partner < 0 else rules.partner, seat), played=frozenset(),
        deck=rules.config.cards, led_before=_led(sim.leads),
        hands={s: _codes(sim.hands[s]) for s in range(PLAYERS) if s != seat})
    return INDEX[cardplay.choose(situation)]


def random_rollout(sim: Simulator, seat: int, legal: tuple[int, ...], rng: random.Random) -> int:
    return legal[rng.randrange(len(legal))]


ROLLOUTS = {"heuristic": heuristic_rollout, "random": random_rollout}


def _score(settled, seat: int) -> float:
    if settled.game == "ramsch":
        return settled.payments[seat] - POINT_WEIGHT * settled.seat_points[seat]
    side = 0 if seat in settled.declarers else 1
    return settled.payments[seat] + POINT_WEIGHT * settled.card_points[side]


def playout(sim: Simulator, seat: int, card: str, rng: random.Random, rollout) -> float:
    """Play ``card``, then the rest of the deal with ``rollout``; this seat's score of the deal.
    ``sim`` is the sampled world's simulator, left as it was (the playout plays a copy)."""
    sim = sim.copy()
    sim.apply(INDEX[card])
    while not sim.is_over():
        legal = members(sim.legal())
        sim.apply(legal[0] if len(legal) == 1 else rollout(sim, sim.to_move(), legal, rng))
    return _score(sim.settlement(), seat)


def make_search(max_playouts: int = 400, rollout: str = "heuristic"):
    """A search policy: at most ``max_playouts`` playouts a decision, rolled out by ``rollout``
    ("heuristic" or "random")."""
    roll = ROLLOUTS[rollout]

    def policy(decision) -> dict:
        legal = decision.legal
        game_state = decision.view["game_state"]
        if len(legal) == 1 or game_state["phase"] != "play":
            return heuristic.policy(decision)
        know = read(decision)
        if {"type": "stoss"} in legal and heuristic.stoss_wanted(decision, know):
            return {"type": "stoss"}
        cards = [c["card"] for c in legal if c["type"] == "play"]
        fallback = {"type": "play", "card": cardplay.choose(heuristic.situation(decision, know))}
        if len(cards) == 1 or decision.out_of_time():
            return fallback
        cards = distinct(cards, know, prefer=fallback["card"])
        if len(cards) == 1:
            return {"type": "play", "card": cards[0]}
        try:
            averages = search(decision, know, cards, max_playouts, roll)
        except RuntimeError:  # no world fits what the seat saw (never seen): the rules of thumb
            return fallback
        if not averages:
            return fallback
        # The heuristic's card wins ties: equal worlds give no reason to leave the rules of thumb.
        best = max(cards, key=lambda c: (averages[c], c == fallback["card"]))
        return {"type": "play", "card": best}

    return policy


def distinct(cards: list[str], know, prefer: str | None = None) -> list[str]:
    """One card of each set of equivalent ones: of the same suit (trumps one suit) and worth the
    same points, with no card between them that another seat could still hold or that lies on
    the table (the Nine and the Eight with the Seven gone, two Unters next to each other). Playing either comes to the same, so the
    playouts go to the choices that differ. ``prefer`` stands for its set when it is in one."""
    contract = know.contract
    rules_order = order(contract["game"], contract["suit"])
    out: list[str] = []
    # A card on the table counts as much as one still out: it may lie between the two.
    between = [c for c in know.deck if c not in know.played and c not in know.hand]
    between += [c for _, c in know.current_trick]
    for card in sorted(cards, key=lambda c: (rules_order.follow_key(c), _power(rules_order, c))):
        if out and _same(rules_order, out[-1], card, between):
            if card == prefer:
                out[-1] = card
            continue
        out.append(card)
    return out


def _power(rules_order, card: str):
    return rules_order.strength(card, rules_order.follow_key(card))


def _same(rules_order, low: str, high: str, between: list[str]) -> bool:
    key = rules_order.follow_key(low)
    if key != rules_order.follow_key(high) or points(low) != points(high):
        return False
    lo, hi = _power(rules_order, low), _power(rules_order, high)
    return not any(rules_order.follow_key(c) == key and lo < _power(rules_order, c) < hi for c in between)


def search(decision, know, cards: list[str], max_playouts: int, rollout) -> dict[str, float]:
    """Average score per card over whole sampled worlds (a world cut short by the clock is dropped)."""
    world = World.prepare(decision, know)
    rng = decision.rng
    totals = dict.fromkeys(cards, 0.0)
    worlds = 0
    while (worlds + 1) * len(cards) <= max_playouts and not decision.out_of_time():
        # Rollouts give no Stoß (the heuristic gives one only before its first card): the simulator
        # plays cards only, at the price the sampled world has now.
        sim = from_state(world.sample(rng).inner)
        scores = {}
        for card in cards:
            if decision.out_of_time():
                break
            scores[card] = playout(sim, decision.seat, card, rng, rollout)
        if len(scores) < len(cards):
            break
        for card, score in scores.items():
            totals[card] += score
        worlds += 1
    return {card: total / worlds for card, total in totals.items()} if worlds else {}


policy = make_search()
