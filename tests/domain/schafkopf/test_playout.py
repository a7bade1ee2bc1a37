"""Seeded random playouts: at least 2,000 complete deals across every game type,
and every house rule switched on in turn.

Invariants after every step: each settled deal's card points total 120 (also
in the short deck: Sevens and Eights are worth nothing), its payments plus
the pot's change sum to zero, the totals are the sum of the payments, the
pot's balance is the sum of its changes, and every card of the deck is in a
hand, a trick or the held second half; the harness checks every command was
legal and that replaying the stored events gives the same state. The choice
is biased (announce "play" more often, pick a game type uniformly before its
suit) so that every game type appears; the Sie needs its hand, so it is
played from preset deals.
"""
from __future__ import annotations

import collections
import random

import pytest

from domain.schafkopf.cards import DECK
from domain.schafkopf.game_types import PRECEDENCE, SIE_HAND
from domain.table import TableState
from tests.domain.harness import new_table, roundtrip, run_system, random_playout

from .helpers import GAME

RULES = {"allowed_games": list(PRECEDENCE), "deals": 10}


HERZ_SOLO = {"type": "name_game", "game": "solo", "suit": "H"}
HOCHZEIT_OFFER = {"type": "announce", "intent": "hochzeit"}


def chooser(play_rate: float = 0.45, herz_solo: float = 0.0):
    """``herz_solo``: how often a seat names the Herz-Solo when it may (to bring about Schieberrunden)."""
    def choose(rng: random.Random, seat: int, legal: list[dict]) -> dict:
        kinds = {c["type"] for c in legal}
        if herz_solo and HERZ_SOLO in legal and rng.random() < herz_solo:
            return HERZ_SOLO
        if "announce" in kinds:
            if HOCHZEIT_OFFER in legal and rng.random() < 0.8:
                return HOCHZEIT_OFFER
            plays = [c for c in legal if c.get("intent") == "play"]
            return plays[0] if plays and rng.random() < play_rate else legal[0]
        if "name_game" in kinds or "withdraw" in kinds:
            if {"type": "name_game", "game": "hochzeit"} in legal and rng.random() < 0.7:
                return {"type": "name_game", "game": "hochzeit"}
            if {"type": "withdraw"} in legal and rng.random() < 0.3:
                return {"type": "withdraw"}
            games = sorted({c["game"] for c in legal if c["type"] == "name_game"})
            if not games:
                return {"type": "withdraw"}
            game = rng.choice(games)
            return rng.choice([c for c in legal if c.get("game") == game])
        if "pass" in kinds:  # the auction: raise by one step or pass, so targets stay winnable
            return legal[0] if rng.random() < 0.5 else {"type": "pass"}
        if "stoss" in kinds and rng.random() < 0.8:  # a Stoß now and then, not at every chance
            legal = [c for c in legal if c["type"] != "stoss"]
        return rng.choice(legal)
    return choose


choose = chooser()


def check(state: TableState) -> None:
    inner = state.inner
    totals = [0, 0, 0, 0]
    stock = 0
    for settled in inner.settlements:
        assert sum(settled.payments) + settled.stock == 0
        if settled.game is not None:
            assert sum(settled.card_points) == 120
        if settled.target is not None:  # the auction's target replaces 61
            assert settled.won == (settled.card_points[0] >= settled.target)
            assert sum(settled.tricks) == inner.config.hand_size
        totals = [t + p for t, p in zip(totals, settled.payments)]
        stock += settled.stock
        assert stock >= 0
    assert list(inner.totals) == totals
    assert inner.stock == stock
    if inner.hands:
        cards = [c for hand in inner.hands for c in hand] + [c for _, t in inner.tricks for c in t.cards]
        cards += [c for half in inner.held for c in half]
        if inner.trick is not None:
            cards += list(inner.trick.cards)
        assert sorted(cards) == sorted(inner.config.cards)


def play_sessions(rules: dict, seeds, play_rate: float = 0.45, herz_solo: float = 0.0):
    """Play a session per seed; return the settlements and every event."""
    settlements, all_events = [], []
    for seed in seeds:
        table, state, events = random_playout(GAME, 4, seed, rules=rules, choose=chooser(play_rate, herz_solo),
                                              check=check)
        assert GAME.is_finished(state.inner)
        scores = GAME.scores(state.inner)
        assert "ranking" in scores and sum(scores["totals"]) + scores["stock"] == 0
        ended = [e for e in events if e.type == "GameEnded"]
        assert len(ended) == 1 and ended[0].data["totals"] == scores["totals"]
        settlements += list(state.inner.settlements)
        all_events += events
    return settlements, all_events


def test_random_playouts_cover_every_game_type():
    played = collections.Counter()
    deals = 0
    for seed in range(215):
        rules = dict(RULES, thrown_in_counts=bool(seed % 2))
        settlements, _ = play_sessions(rules, [seed])
        for settled in settlements:
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
                assert settled.won and settled.value == (50 + 8 * 10) * 4 * settled.multiplier
    assert sies == 40


def _types(events):
    return collections.Counter(e.type for e in events)


def _jungfrauen_paid_per_jungfrau(settled) -> bool:
    """``double_individually_multiple``: each Jungfrau is paid the price doubled once per Jungfrau."""
    return all(settled.payments[seat] == settled.value * 2 ** len(settled.jungfrauen)
               for seat in settled.jungfrauen)


def _everyone_paid(settled, factor: int) -> bool:
    """A Ramsch loss (no Durchmarsch): the loser pays every other seat the price times ``factor``."""
    loser = settled.declarers[0]
    return settled.durchmarsch or all(settled.payments[seat] == settled.value * factor
                                      for seat in range(4) if seat != loser)


# option rules, play rate, and what the sessions must have shown
OPTION_PLAYOUTS = {
    "stoss": ({"stoss": 4}, 0.45,
              lambda s, ev: _types(ev)["StossGiven"] > 20 and max(x.multiplier for x in s) >= 4),
    "no_stoss": ({"stoss": 0}, 0.45, lambda s, ev: _types(ev)["StossGiven"] == 0),
    "doppeln_all": ({"doppeln": "all"}, 0.45,
                    lambda s, ev: _types(ev)["SecondHalfDealt"] == _types(ev)["HandsDealt"]
                    and any(e.data["double"] for e in ev if e.type == "DoppelnDeclared")),
    "doppeln_not_dealer_stock": ({"doppeln": "not_dealer", "all_pass": "stock"}, 0.2,
                                 lambda s, ev: any(x.stock > 0 for x in s) and any(x.stock < 0 for x in s)),
    "stock_double_lone": ({"all_pass": "stock_double", "stock_lone_games": True, "stock_winner": "declarer"},
                          0.2, lambda s, ev: any(x.stock < 0 for x in s) and any(x.stock > 0 for x in s
                                                                              if x.game is not None)),
    "redeal_double": ({"all_pass": "redeal_double", "stoss": 0}, 0.2,
                      lambda s, ev: any(x.game is not None and x.multiplier >= 2 for x in s)),
    "muss": ({"all_pass": "muss"}, 0.2, lambda s, ev: _types(ev)["MussSpiel"] > 5),
    "renonce_muss": ({"all_pass": "muss", "renonce": True}, 0.1,
                     lambda s, ev: _types(ev)["RenonceRound"] > 0
                     and any(e.data.get("renonce") for e in ev if e.type == "GameDeclared")),
    "ramsch": ({"all_pass": "ramsch"}, 0.2, lambda s, ev: sum(x.game == "ramsch" for x in s) > 10),
    "ramsch_jungfrau_all": ({"all_pass": "ramsch", "ramsch_jungfrau": "double_all",
                             "ramsch_durchmarsch": "all_points"}, 0.2,
                            lambda s, ev: sum(x.game == "ramsch" for x in s) > 10
                            and any(len(x.jungfrauen) >= 2 for x in s)
                            and all(_everyone_paid(x, 2 ** len(x.jungfrauen)) for x in s if x.game == "ramsch")),
    "ramsch_jungfrau_all_once": ({"all_pass": "ramsch", "ramsch_jungfrau": "double_all_once"}, 0.2,
                                 lambda s, ev: any(len(x.jungfrauen) >= 2 for x in s)
                                 and all(_everyone_paid(x, 2 if x.jungfrauen else 1)
                                         for x in s if x.game == "ramsch")),
    "ramsch_jungfrau_each": ({"all_pass": "ramsch", "ramsch_jungfrau": "double_individually"}, 0.2,
                             lambda s, ev: any(x.jungfrauen for x in s)),
    "ramsch_jungfrau_multiple": ({"all_pass": "ramsch", "ramsch_jungfrau": "double_individually_multiple"}, 0.2,
                                 lambda s, ev: any(len(x.jungfrauen) >= 2 for x in s)
                                 and all(_jungfrauen_paid_per_jungfrau(x) for x in s if x.game == "ramsch")),
    "short_deck": ({"deck": "short", "allowed_games": ["solo", "wenz", "geier", "rufspiel", "solo_tout"]},
                   0.45, lambda s, ev: sum(x.game is not None for x in s) > 20),
    "bettel_stichzwang": ({"bettel_stichzwang": True, "allowed_games": ["bettel", "rufspiel"]}, 0.45,
                          lambda s, ev: sum(x.game == "bettel" for x in s) > 5),
    "hochzeit": ({"hochzeit": True, "allowed_games": ["rufspiel"]}, 0.7,
                 lambda s, ev: sum(x.game == "hochzeit" for x in s) >= 3 and _types(ev)["HochzeitCardGiven"] >= 3
                 and _types(ev)["HochzeitOffered"] >= _types(ev)["HochzeitCardGiven"]),
    "auction": ({"auction": True}, 0.6,
                lambda s, ev: _types(ev)["AuctionOpened"] >= 10 and _types(ev)["BidMade"] >= 5
                and any(x.target and x.target > 61 for x in s) and any(x.target == 61 and x.won for x in s)),
    "tournament": ({"preset": "tournament"}, 0.45,
                   lambda s, ev: _types(ev)["StossGiven"] == 0
                   and all(abs(p) <= 21 * 4 for x in s for p in x.payments)),
}


@pytest.mark.parametrize("name", list(OPTION_PLAYOUTS))
def test_random_playouts_with_each_house_rule(name):
    rules, play_rate, shown = OPTION_PLAYOUTS[name]
    settlements, events = play_sessions(dict(RULES, deals=6, **rules) if "allowed_games" not in rules
                                        else dict({"deals": 6}, **rules), range(25), play_rate)
    assert shown(settlements, events), name


def _schieberrunden(ev) -> bool:
    types = _types(ev)
    return (types["CardsPushed"] >= 9 and types["ObersHandedOver"] >= 2 and types["SchieberrundePaid"] >= 2
            and sum(1 for e in ev if e.type == "GameDeclared" and e.data.get("schieberrunde")) >= 5)


@pytest.mark.parametrize("rules,shown", [
    ({"schieberrunde": True, "allowed_games": ["solo", "rufspiel"]}, lambda s, ev: _schieberrunden(ev)),
    ({"schieberrunde": True, "auction": True, "allowed_games": list(PRECEDENCE)},
     lambda s, ev: _schieberrunden(ev) and _types(ev)["AuctionOpened"] >= 5 and _types(ev)["BidMade"] >= 3),
], ids=["schieberrunde", "auction_and_schieberrunde"])
def test_random_playouts_with_the_schieberrunde(rules, shown):
    """A Herz-Solo is named often (when the chooser may) so that Schieberrunden come about."""
    settlements, events = play_sessions(dict(rules, deals=8), range(25), play_rate=0.6, herz_solo=0.7)
    assert shown(settlements, events)
    passes = [e for e in events if e.type == "CardsPushed"]
    assert all(e.data["to"] == (e.data["seat"] + 1) % 4 for e in passes)
