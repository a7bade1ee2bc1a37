"""The ``search`` Schafkopf bot: determinization and perfect-information Monte Carlo (PIMC).

For a card to play it repeatedly samples a world consistent with what the
seat knows (``determinize``), and in that world plays each legal card and
the rest of the *current deal* with a fast rollout policy (the heuristic's
card play, which sees the sampled hands; or uniform random) through the
game's own ``decide``/``evolve``. A playout scores this seat's payment of the
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

from ...frozen import replace
from ..cards import PLAYERS, points
from ..game_types import order
from . import cardplay, heuristic
from .determinize import TABLE, World
from .knowledge import read

GAME = TABLE.games["schafkopf"]
POINT_WEIGHT = 0.02  # a card point against a payment unit: a tie-break, never outweighing a game won
PARTNERSHIPS = ("rufspiel", "hochzeit")


def _friends(state, seat: int) -> frozenset[int]:
    contract = state.contract
    if contract.declarer is None:
        return frozenset()
    others = frozenset(range(PLAYERS)) - {seat}
    if contract.game in PARTNERSHIPS:
        side = {contract.declarer, state.partner}
        return frozenset(side - {seat}) if seat in side else others - side
    return frozenset() if seat == contract.declarer else others - {contract.declarer}


def heuristic_rollout(state, seat: int, legal: list[str], rng: random.Random) -> str:
    """The heuristic's card, knowing every hand of the sampled world."""
    contract = state.contract
    rules_order = order(contract.game, contract.suit)
    situation = cardplay.Situation(
        seat=seat, hand=state.hands[seat], legal=legal, trick=state.trick.plays, game=contract.game,
        suit=contract.suit, declarer=contract.declarer, called_ace=contract.called_ace,
        friends=_friends(state, seat), played=frozenset(), deck=state.config.cards,
        led_before=frozenset(rules_order.follow_key(trick.plays[0][1]) for _, trick in state.tricks),
        hands={s: state.hands[s] for s in range(PLAYERS) if s != seat})
    return cardplay.choose(situation)


def random_rollout(state, seat: int, legal: list[str], rng: random.Random) -> str:
    return legal[rng.randrange(len(legal))]


ROLLOUTS = {"heuristic": heuristic_rollout, "random": random_rollout}


def _score(data: dict, seat: int) -> float:
    if data["game"] == "ramsch":
        own = data["seat_points"][seat]
        return data["payments"][seat] - POINT_WEIGHT * own
    side = "declarers" if seat in data["declarers"] else "defenders"
    return data["payments"][seat] + POINT_WEIGHT * data["card_points"][side]


def playout(state, seat: int, card: str, rng: random.Random, rollout) -> float:
    """Play ``card``, then the rest of the deal with ``rollout``; this seat's score of the deal."""
    actor, command = seat, {"type": "play", "card": card}
    while True:
        for event in GAME.decide(state, actor, command):
            if event.type == "DealSettled":
                return _score(event.data, seat)
            state = GAME.evolve(state, event)
        actor = state.trick.next_to_play(PLAYERS)
        legal = [c["card"] for c in GAME.legal_commands(state, actor) if c["type"] == "play"]
        command = {"type": "play", "card": legal[0] if len(legal) == 1 else rollout(state, actor, legal, rng)}


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
        # Rollouts give no Stoß (the heuristic gives one only before its first card), so the sampled
        # world has none left to offer; that also spares the game checking it at every card.
        state = world.sample(rng).inner
        state = replace(state, config=replace(state.config, stoss=0))
        scores = {}
        for card in cards:
            if decision.out_of_time():
                break
            scores[card] = playout(state, decision.seat, card, rng, rollout)
        if len(scores) < len(cards):
            break
        for card, score in scores.items():
            totals[card] += score
        worlds += 1
    return {card: total / worlds for card, total in totals.items()} if worlds else {}


policy = make_search()
