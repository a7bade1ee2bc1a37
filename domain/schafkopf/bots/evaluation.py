"""The search's expected value of each card a seat could play: what the analysis of a finished
game (``domain/bots/analysis.py``) compares the card played with.

The same worlds, playouts and score as the ``search`` bot's (``search.search``): this seat's
payment of the deal plus a little for its side's card points. Equivalent cards (``search.distinct``)
share one value, so the playouts go to the cards that differ. Only card play is judged: the
simulator plays cards, and announcing, naming, Doppeln and Stoß are the heuristic's.
"""
from __future__ import annotations

from .knowledge import read
from .search import ROLLOUTS, distinct, search

# Least loss in payment units (default tariffs: a Rufspiel's base is 10) for each mark.
THRESHOLDS = {"inaccuracy": 2.0, "mistake": 5.0, "blunder": 10.0}


def values(decision, played: dict, playouts: int) -> list[tuple[dict, float]] | None:
    """(command, expected value) for each legal card, ``played`` among them; None when the
    decision is not a card to play. At most ``playouts`` playouts, at least one world."""
    if decision.view["game_state"]["phase"] != "play" or played.get("type") != "play":
        return None
    know = read(decision)
    cards = [c["card"] for c in decision.legal if c["type"] == "play"]
    if len(cards) < 2:
        return None
    kept = distinct(cards, know, prefer=played["card"])
    budget = max(playouts, len(kept))  # one world at the least, or no card has a value
    try:
        averages = search(decision, know, kept, budget, ROLLOUTS["heuristic"])
    except RuntimeError:  # no world fits what the seat saw
        return None
    if not averages:
        return None
    return [({"type": "play", "card": card}, averages[card]) for card in kept if card in averages]
