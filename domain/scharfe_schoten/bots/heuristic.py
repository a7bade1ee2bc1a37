"""The ``heuristic`` bot: simple rules that steer the collection toward the seat's prediction.

Every seat plays for itself, so the goal is the seat's own round score (ruling SS-8). The rules:

* **Potential.** A collection is judged by the points it would score now, plus a quarter point
  per card the "most" colour leads the "fewest" colour by (more of it is worth more later).
  Every choice below compares potentials.
* **Winning chance.** A card wins a trick if it beats the cards played and no later seat holds
  a card that beats it. The colour counts of every hand are public (SS-5), so the bot knows who
  must follow (and can then beat only with a higher card of the led colour or its super trump)
  and who is void (and can beat with any higher colour or super trump it holds). The chance a
  seat holds a beater is drawn from the unseen cards of that colour (a hypergeometric draw).
* **Card play.** Each legal card is worth chance-to-win × (potential with the trick's cards and
  the best cupboard take − potential now), minus a small price for spending a strong card
  (keep trumps and high cards), plus a small bonus for shedding a card of the "fewest" colour
  (it then lands in someone else's collection). Wanted tricks are taken with the cheapest card
  likely to hold them; unwanted ones get the card least likely to win.
* **Cupboard.** Take the colour that gives the best potential: the "most" colour while the
  cupboard has it, never the "fewest" colour if another helps as much.
* **Prediction.** For each card in hand, its chance to win a trick it leads; a won trick brings
  that card's colour from every seat that still holds it, and a cupboard card. That estimates
  the collection by colour; the pair (most, fewest) whose estimated score is best is chosen.
"""
from __future__ import annotations

from dataclasses import replace
from itertools import permutations

from ..cards import COLOURS, colour_of
from ..scoring import POINTS
from .situation import Situation, from_decision

SHAPING = 0.25  # potential per card of "most" over "fewest"
SPEND_PRICE = 0.6  # points for spending the strongest card instead of the weakest
SHED_BONUS = 0.4  # points for getting rid of a "fewest" card


def points(counts, most: str, fewest: str) -> int:
    """``scoring.score_prediction``'s points, without building its report (playouts call it often)."""
    mine_most, mine_fewest = counts[most], counts[fewest]
    top = max(counts[c] for c in COLOURS if c != most)
    low = min(counts[c] for c in COLOURS if c != fewest)
    for_most = 0 if top > mine_most else POINTS["tied"] if top == mine_most else POINTS["unique"]
    for_fewest = 0 if low < mine_fewest else POINTS["tied"] if low == mine_fewest else POINTS["unique"]
    bonus = mine_most - mine_fewest if for_most and for_fewest else 0
    return for_most + for_fewest + bonus


def potential(counts, most: str, fewest: str) -> float:
    return points(counts, most, fewest) + SHAPING * (counts[most] - counts[fewest])


def _none_of(unseen_total: int, beaters: int, drawn: int) -> float:
    """The chance that ``drawn`` cards from ``unseen_total`` miss all ``beaters`` of them."""
    if beaters <= 0 or drawn <= 0:
        return 1.0
    chance = 1.0
    for i in range(drawn):
        if unseen_total - i <= 0:
            return 0.0
        chance *= max(0, unseen_total - beaters - i) / (unseen_total - i)
    return chance


def _unseen_by_colour(sit: Situation) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {colour: [] for colour in COLOURS}
    for card in sit.unseen:
        out[colour_of(card)].append(card)
    return out


def _beat_chance(sit: Situation, seat: int, card: str, led: str, unseen: dict[str, list[str]]) -> float:
    """The chance that ``seat`` (still to play) holds a card beating ``card`` in a trick led ``led``."""
    strength = sit.strength
    mine = strength[card]
    counts = sit.hand_counts[seat]
    if counts[led] > 0:
        colours = (led,)  # must follow
    else:
        colours = tuple(c for c in COLOURS if counts[c] > 0)
    miss = 1.0
    for colour in colours:
        pool = unseen[colour]
        beaters = sum(1 for other in pool if strength[other] > mine)
        miss *= _none_of(len(pool), beaters, counts[colour])
    return 1.0 - miss


def win_chance(sit: Situation, card: str, unseen: dict[str, list[str]] | None = None) -> float:
    """The chance that ``card``, played now, takes the trick (see the module's doc)."""
    strength = sit.strength
    if any(strength[other] > strength[card] for _, other in sit.plays):
        return 0.0
    unseen = unseen if unseen is not None else _unseen_by_colour(sit)
    led = colour_of(sit.plays[0][1]) if sit.plays else colour_of(card)
    chance = 1.0
    for step in range(len(sit.plays) + 1, sit.players):
        seat = (sit.leader + step) % sit.players
        chance *= 1.0 - _beat_chance(sit, seat, card, led, unseen)
    return chance


def _best_take(counts, sit: Situation, most: str, fewest: str) -> str | None:
    """The cupboard colour a won trick would add (by the cupboard rule); None once it is empty."""
    best, best_value = None, None
    for colour in COLOURS:
        if sit.cupboard_counts[colour] > 0:
            after = dict(counts)
            after[colour] += 1
            value = (potential(after, most, fewest), colour == most, colour != fewest, -counts[colour])
            if best_value is None or value > best_value:
                best, best_value = colour, value
    return best


def _trick_colours(sit: Situation, card: str) -> list[str]:
    """The colours the trick will hold: the cards played, this card, and the led colour from each
    later seat that holds it (a void seat's card is anyone's guess, so it is left out)."""
    colours = [colour_of(c) for _, c in sit.plays] + [colour_of(card)]
    led = colours[0]
    for step in range(len(sit.plays) + 1, sit.players):
        seat = (sit.leader + step) % sit.players
        if sit.hand_counts[seat][led] > 0:
            colours.append(led)
    return colours


def card_values(sit: Situation, cards: list[str]) -> dict[str, float]:
    """Each card's worth to play now (see the module's doc); higher is better."""
    most, fewest = sit.most, sit.fewest
    unseen = _unseen_by_colour(sit)
    now = sit.collections[sit.seat]
    before = potential(now, most, fewest)
    values = {}
    for card in cards:
        after = dict(now)
        for colour in _trick_colours(sit, card):
            after[colour] += 1
        take = _best_take(after, sit, most, fewest)
        if take is not None:
            after[take] += 1
        gain = potential(after, most, fewest) - before
        value = win_chance(sit, card, unseen) * gain if gain else 0.0
        value -= SPEND_PRICE * sit.strength[card] / 47
        if colour_of(card) == fewest:
            value += SHED_BONUS
        values[card] = value
    return values


def take_values(sit: Situation, colours: list[str]) -> dict[str, tuple]:
    counts = sit.collections[sit.seat]
    values = {}
    for colour in colours:
        after = dict(counts)
        after[colour] += 1
        values[colour] = (potential(after, sit.most, sit.fewest), colour == sit.most, colour != sit.fewest,
                          -counts[colour])
    return values


def estimate_collection(sit: Situation) -> tuple[dict[str, float], float]:
    """The expected cards by colour from tricks this hand takes, and the expected tricks."""
    unseen = _unseen_by_colour(sit)
    lead = replace(sit, plays=(), leader=sit.seat)
    estimate = {colour: 0.0 for colour in COLOURS}
    tricks = 0.0
    others = [seat for seat in range(sit.players) if seat != sit.seat]
    left = max(1, len(sit.hand))
    # Per led colour, what a won trick brings besides the card: the same for every card of it
    # (worked out once per colour: the search's inference calls this for many drawn hands).
    follows, spreads, shares = {}, {}, {}
    for colour in COLOURS:
        # A seat follows with this colour while it has some; a void seat adds some other colour.
        follow = sum(min(1.0, lead.hand_counts[seat][colour] * sit.players / left) for seat in others)
        follows[colour] = follow = min(follow, len(others))
        spreads[colour] = len(others) - follow
        total_other = sum(lead.hand_counts[seat][c] for seat in others for c in COLOURS if c != colour) or 1
        shares[colour] = [(other, sum(lead.hand_counts[seat][other] for seat in others) / total_other)
                          for other in COLOURS if other != colour]
    for card in sit.hand:
        chance = win_chance(lead, card, unseen)
        tricks += chance
        colour = colour_of(card)
        estimate[colour] += chance * (1 + follows[colour])
        spread = spreads[colour]
        for other, share in shares[colour]:
            estimate[other] += chance * spread * share
    return estimate, tricks


def prediction_values(sit: Situation) -> dict[tuple[str, str], tuple]:
    estimate, tricks = estimate_collection(sit)
    values = {}
    for most, fewest in permutations(COLOURS, 2):
        counts = dict(estimate)
        counts[most] += min(tricks, sit.cupboard_counts[most])  # every won trick takes a "most" card
        rounded = {colour: round(count) for colour, count in counts.items()}
        values[most, fewest] = (potential(rounded, most, fewest), counts[most] - counts[fewest])
    return values


def choose_prediction(sit: Situation) -> tuple[str, str]:
    values = prediction_values(sit)
    return max(values, key=values.get)


def ranked(sit: Situation, phase: str, legal: list[dict]) -> list[dict]:
    """``legal`` best first by the heuristic's rules (the search tries the first few)."""
    if len(legal) == 1:
        return list(legal)
    if phase == "predicting":
        values = prediction_values(sit)
        key = lambda c: values[c["most"], c["fewest"]]  # noqa: E731
    elif phase == "taking":
        values = take_values(sit, [c["colour"] for c in legal])
        key = lambda c: values[c["colour"]]  # noqa: E731
    else:
        values = card_values(sit, [c["card"] for c in legal])
        # Equal worth: the weaker card, keeping the stronger one for later.
        key = lambda c: (values[c["card"]], -sit.strength[c["card"]])  # noqa: E731
    return sorted(legal, key=key, reverse=True)


def choose(sit: Situation, phase: str, legal: list[dict]) -> dict:
    """The heuristic's command in ``phase`` among ``legal`` (also the search's playout policy)."""
    return ranked(sit, phase, legal)[0]


def policy(decision) -> dict:
    legal = decision.legal
    if len(legal) == 1:
        return legal[0]
    command = choose(from_decision(decision), decision.view["game_state"]["phase"], legal)
    return command if command in legal else legal[0]

