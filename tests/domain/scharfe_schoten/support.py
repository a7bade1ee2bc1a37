"""Building Scharfe Schoten situations for the rule tests."""
from __future__ import annotations

from dataclasses import replace

from domain.scharfe_schoten.cards import COLOURS, SPICE_DECK, colour_of
from domain.scharfe_schoten.deal import hand_size
from domain.scharfe_schoten.game import ScharfeSchoten
from domain.scharfe_schoten.state import Prediction
from domain.trick import Trick
from tests.domain.harness import given, when

GAME = ScharfeSchoten()

# The rulebook's example pairing: green 10 > black 9 > red 2 > yellow 1.
EXAMPLE_NUMBERS = {"R": 2, "G": 10, "Y": 1, "B": 9}


def fill_deal(players: int, fixed: dict[int, list[str]] | None = None,
              avoid: dict[int, str] | None = None, cupboard: list[str] | None = None):
    """Hands that hold ``fixed[seat]``, topped up in deck order without the colours in ``avoid[seat]``.

    Returns (hands, cupboard); the cupboard starts with ``cupboard`` and holds the rest.
    """
    fixed, avoid = fixed or {}, avoid or {}
    used = {card for cards in fixed.values() for card in cards} | set(cupboard or [])
    pool = [card for card in SPICE_DECK if card not in used]
    hands = []
    for seat in range(players):
        hand = list(fixed.get(seat, []))
        for card in list(pool):
            if len(hand) == hand_size(players):
                break
            if colour_of(card) not in avoid.get(seat, ""):
                hand.append(card)
                pool.remove(card)
        assert len(hand) == hand_size(players)
        hands.append(hand)
    return hands, list(cupboard or []) + pool


def preset(hands, cupboard, numbers=None, starter=None) -> dict:
    entry = {"hands": hands, "cupboard": cupboard, "numbers": numbers if numbers is not None else dict(EXAMPLE_NUMBERS)}
    if starter is not None:
        entry["starter"] = starter
    return entry


def dealt(players: int, presets: list[dict], rules: dict | None = None):
    """(state, events) right after deal 0 from the presets."""
    setup = GAME.setup(players, rules or {"rounds": len(presets)}, presets)
    state = GAME.initial_state(setup)
    events = when(GAME, state, None, {"type": "deal", "deal": 0, "decks": {}})
    return given(GAME, events, state), events


def predict_all(state, predictions: list[tuple[str, str]]):
    """Every seat predicts in seat order; returns (state, all events)."""
    events = []
    for seat, (most, fewest) in enumerate(predictions):
        new = when(GAME, state, seat, {"type": "predict", "most": most, "fewest": fewest})
        events += new
        state = given(GAME, new, state)
    return state, events


def default_predictions(players: int) -> list[tuple[str, str]]:
    return [("R", "G")] * players


def play_first_legal(state, until=None):
    """Drive the game with each acting seat's first legal command; returns (state, events)."""
    events = []
    while GAME.to_act(state) and not (until and until(state)):
        seat = min(GAME.to_act(state))
        new = when(GAME, state, seat, GAME.legal_commands(state, seat)[0])
        events += new
        state = given(GAME, new, state)
    return state, events


def last_trick_state(players: int, hands, collections, numbers, predictions, leader=0, totals=None):
    """Given: a running last round where only one trick is left (no cupboard card left)."""
    used = [card for cards in list(hands) + list(collections) for card in cards]
    assert len(used) == len(set(used)) == len(SPICE_DECK)
    base, _ = dealt(players, [preset(*fill_deal(players), numbers=numbers, starter=leader)])
    return replace(
        base, phase="playing", revealed=True, hands=tuple(tuple(h) for h in hands), cupboard=(),
        collections=tuple(tuple(c) for c in collections), trick=Trick(leader),
        predictions=tuple(Prediction(m, f) for m, f in predictions),
        totals=tuple(totals or (0,) * players))


def take_counts(pool: list[str], counts: dict[str, int]) -> list[str]:
    """Remove and return the first ``counts[c]`` cards of each colour c from ``pool``."""
    out = []
    for colour in COLOURS:
        cards = [card for card in pool if colour_of(card) == colour][:counts.get(colour, 0)]
        assert len(cards) == counts.get(colour, 0)
        out += cards
    for card in out:
        pool.remove(card)
    return out
