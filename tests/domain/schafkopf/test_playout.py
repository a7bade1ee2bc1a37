"""Seeded random playouts: at least 2,000 complete deals across every game type.

Invariants after every step: each settled deal's card points total 120, its
payments sum to zero, the totals are the sum of the payments; the harness
checks every command was legal and that replaying the stored events gives the
same state. The choice is biased (announce "play" more often, pick a game
type uniformly before its suit) so that every game type appears; the Sie
needs its hand, so it is played from preset deals.
"""
from __future__ import annotations

import collections
import random

from domain.schafkopf.cards import DECK
from domain.schafkopf.game_types import PRECEDENCE, SIE_HAND
from domain.table import TableState
from tests.domain.harness import new_table, roundtrip, run_system, random_playout

from .helpers import GAME

RULES = {"allowed_games": list(PRECEDENCE), "deals": 10}


def choose(rng: random.Random, seat: int, legal: list[dict]) -> dict:
    kinds = {c["type"] for c in legal}
    if "announce" in kinds:
        plays = [c for c in legal if c.get("intent") == "play"]
        return plays[0] if plays and rng.random() < 0.45 else legal[0]
    if "name_game" in kinds or "withdraw" in kinds:
        if {"type": "withdraw"} in legal and rng.random() < 0.3:
            return {"type": "withdraw"}
        games = sorted({c["game"] for c in legal if c["type"] == "name_game"})
        if not games:
            return {"type": "withdraw"}
        game = rng.choice(games)
        return rng.choice([c for c in legal if c.get("game") == game])
    return rng.choice(legal)


def check(state: TableState) -> None:
    inner = state.inner
    totals = [0, 0, 0, 0]
    for settled in inner.settlements:
        assert sum(settled.payments) == 0
        if settled.game is not None:
            assert sum(settled.card_points) == 120
            assert sum(settled.tricks) == 8
        totals = [t + p for t, p in zip(totals, settled.payments)]
    assert list(inner.totals) == totals
    if inner.hands:
        cards = [c for hand in inner.hands for c in hand] + [c for _, t in inner.tricks for c in t.cards]
        if inner.trick is not None:
            cards += list(inner.trick.cards)
        assert sorted(cards) == sorted(DECK)


def test_random_playouts_cover_every_game_type():
    played = collections.Counter()
    deals = 0
    for seed in range(210):
        rules = dict(RULES, thrown_in_counts=bool(seed % 2))
        table, state, events = random_playout(GAME, 4, seed, rules=rules, choose=choose, check=check)
        assert GAME.is_finished(state.inner)
        scores = GAME.scores(state.inner)
        assert "ranking" in scores and sum(scores["totals"]) == 0
        ended = [e for e in events if e.type == "GameEnded"]
        assert len(ended) == 1 and ended[0].data["totals"] == scores["totals"]
        for settled in state.inner.settlements:
            if settled.game is not None:
                played[settled.game] += 1
                deals += 1
    assert deals >= 2000
    missing = set(PRECEDENCE) - {"sie"} - set(played)
    assert not missing, f"never played: {missing} ({played})"


def sie_presets(rng: random.Random, count: int) -> list[dict]:
    presets = []
    for _ in range(count):
        seat = rng.randrange(4)
        rest = [c for c in DECK if c not in SIE_HAND]
        rng.shuffle(rest)
        hands = [rest[i * 8:(i + 1) * 8] for i in range(3)]
        hands.insert(seat, sorted(SIE_HAND))
        presets.append({"hands": hands, "dealer": rng.randrange(4)})
    return presets


def test_random_playouts_with_a_sie_hand():
    rng = random.Random(7)
    sies = 0
    for seed in range(10):
        table, state, events = new_table(GAME, 4, dict(RULES, deals=4), preset_deals=sie_presets(rng, 4),
                                         seed_hex=f"{seed:064x}")
        while state.status == "active":
            seat = sorted(table.to_act(state))[0]
            legal = table.legal_commands(state, seat)
            if state.inner.phase != "play" and SIE_HAND <= set(state.inner.hands[seat]):  # he plays it
                command = next(c for c in legal if c.get("intent") == "play" or c.get("game") == "sie")
            else:
                command = choose(rng, seat, legal)
            assert command in legal
            new = table.decide(state, seat, command)
            events = events + new
            state = table.fold(state, new)
            events, state = run_system(table, state, events, f"{seed:064x}")
            check(state)
        assert table.fold(TableState(), [roundtrip(e) for e in events]) == state
        for settled in state.inner.settlements:
            if settled.game == "sie":
                sies += 1
                assert settled.won and settled.value == (50 + 8 * 10) * 4
    assert sies == 40
