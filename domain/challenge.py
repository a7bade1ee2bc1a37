"""The daily duplicate challenge: the same deals for every player each day, against the same fixed bots.

Every UTC day each game has a challenge: a short game whose deals are drawn from the day's secret
(``day_deals``: the keyed shuffle of a duplicate round, ``tournament/duplicate.py``, under
``HMAC-SHA256(secret, "stich-challenge-v1|<game>|<day>")``), the player always at seat 0 and the other
seats the same bots. So every player holds the same cards in the same place against opponents who
play by the same rules, and a player's result on a deal is compared with everyone else's on it: its
**margin** is its result less the mean of all the day's results on that deal (``margins``), and the
day's leaderboard ranks the players by their margins summed. Luck of the deal cancels out; what is
left is play. As Skatgenie puts it: "only this guarantees an objective comparison".

Only deals within the day's preset set count (beyond it a game deals from its own seed, as a duplicate
table does: Schafkopf and Scharwenzel games that throw deals in), and a Schafkopf deal dealt as a
Schieberrunde is left out (``tournament/margins.py``'s ``comparable``).
"""
from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from .record import DealRecord
from .tournament.duplicate import base_deals, deal_count
from .tournament.margins import comparable


@dataclass(frozen=True)
class Challenge:
    game: str
    players: int
    rules: Mapping = field(default_factory=dict)
    deals: int = 1  # the game's length: deals (Schafkopf, Scharwenzel) or rounds (Scharfe Schoten)
    bot: str = "heuristic"  # the fixed opponents (and a Scharwenzel partner): the same for everyone, cheap to run
    length_rule: str = "deals"

    def full_rules(self) -> dict:
        return {**self.rules, self.length_rule: self.deals}

    def to_json(self) -> dict:
        return {"game": self.game, "players": self.players, "rules": self.full_rules(), "deals": self.deals,
                "bot": self.bot, "seat": 0}


CHALLENGES = {c.game: c for c in (
    Challenge("schafkopf", 4, deals=4),
    Challenge("scharwenzel", 4, deals=4),
    Challenge("scharfe-schoten", 3, deals=3, length_rule="rounds"),
)}


def day_key(secret: bytes, game: str, day: str) -> bytes:
    return hmac.new(secret, f"stich-challenge-v1|{game}|{day}".encode(), hashlib.sha256).digest()


def day_deals(secret: bytes, challenge: Challenge, day: str, rules: Mapping) -> list[dict]:
    """The day's preset deals (the player at seat 0), drawn as a duplicate round's are; ``rules``: the game's
    complete rules (Schafkopf's deck)."""
    return base_deals(day_key(secret, challenge.game, day), 0, challenge.game, challenge.players, dict(rules),
                      challenge.deals)


def margins(results: Mapping[str, Sequence[DealRecord]], challenge: Challenge) -> dict[str, dict]:
    """Each player's margins from the deal records of its finished challenge game (``results``: handle →
    records): per comparable deal, its seat 0 result less the mean of everyone's on that deal; a deal only
    one player has finished compares with nobody (margin 0). ``total``: the margins summed."""
    deals = deal_count(challenge.game, challenge.deals)
    by_deal: dict[int, dict[str, int]] = {}
    for handle, records in results.items():
        for record in records:
            if comparable(record, deals):
                by_deal.setdefault(record.deal, {})[handle] = record.results[0]
    out = {handle: {"total": 0.0, "deals": {}} for handle in results}
    for deal, held in sorted(by_deal.items()):
        mean = sum(held.values()) / len(held)
        for handle, result in held.items():
            margin = result - mean
            out[handle]["deals"][deal] = {"result": result, "margin": margin, "players": len(held)}
            out[handle]["total"] += margin
    return out
