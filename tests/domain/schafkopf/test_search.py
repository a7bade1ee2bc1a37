"""The Schafkopf search over the whole deal, with inference (``domain/schafkopf/bots``).

* Whole-deal decisions (Doppeln, announcing, naming, the auction, Stoß) are legal in whole games.
* With a seeded ``decision.rng`` and no clock a decision is deterministic.
* The budget is ``decision.playouts`` (counted), the module default when None.
* Inference weights stay in (0, 1] and tell likely worlds from unlikely ones.
* No peeking: the same decision with another seat's hidden cards changed gives the same command.
"""
from __future__ import annotations

import collections
import dataclasses
import hashlib
import random

from domain.bots import match
from domain.bots.decision import decision_for
from domain.schafkopf.bots import BOTS, deal_search, heuristic, inference, search
from domain.schafkopf.bots.determinize import World
from domain.schafkopf.cards import DECKS
from domain.schafkopf.game import Schafkopf
from domain.table import Table, TableState

TABLE = Table({"schafkopf": Schafkopf()})
QUICK = {"deals": 1}
HOUSE = {"deals": 1, "doppeln": "all", "auction": True, "hochzeit": True,
         "allowed_games": ["solo", "wenz", "bettel", "rufspiel"]}


def seed(number: int) -> str:
    return f"{number:064x}"


def decisions(rules: dict, number: int, want) -> list:
    """Decisions (more than one legal command) of a heuristic game that ``want`` picks."""
    found = []

    def recording(decision):
        if len(decision.legal) > 1 and want(decision):
            found.append(decision)
        return heuristic.policy(decision)

    match.play(TABLE, "schafkopf", 4, rules, [recording] * 4, seed(number), rng_seed=number)
    return found


def talk(decision) -> bool:
    return decision.view["game_state"]["phase"] != "play" and deal_search.is_talk(decision)


def test_whole_deal_decisions_are_legal():
    seen: collections.Counter = collections.Counter()
    bots = [search.make_search(max_playouts=12), search.make_search(max_playouts=12, inference=False)]

    def checked(bot):
        def play(decision):
            command = bot(decision)
            assert command in decision.legal, (command, decision.legal)
            if len(decision.legal) > 1:
                seen[command["type"]] += 1
            return command
        return play

    for number, rules in enumerate([QUICK, HOUSE, QUICK, HOUSE]):
        state, _ = match.play(TABLE, "schafkopf", 4, rules, [checked(bots[number % 2])] * 4, seed(500 + number),
                              rng_seed=number)
        assert state.status == "finished"
    assert seen["announce"] >= 4 and seen["doppeln"] >= 4 and seen["play"] >= 40, seen


def test_a_decision_is_deterministic_with_a_seeded_rng():
    found = decisions(QUICK, 3, talk)[:2] + decisions(QUICK, 3, lambda d: d.view["game_state"]["phase"] == "play")[3:5]
    assert len(found) == 4
    bot = search.make_search(max_playouts=40)
    for decision in found:
        again = dataclasses.replace(decision, rng=random.Random(7))
        first = dataclasses.replace(decision, rng=random.Random(7))
        assert bot(first) == bot(again)


def test_the_playouts_are_the_budget(monkeypatch):
    counted = []
    real_out, real_playout = deal_search.play_out, search.playout

    def counting_out(*args, **kwargs):
        counted.append("deal")
        return real_out(*args, **kwargs)

    def counting_playout(*args, **kwargs):
        counted.append("card")
        return real_playout(*args, **kwargs)

    monkeypatch.setattr(deal_search, "play_out", counting_out)
    monkeypatch.setattr(search, "playout", counting_playout)
    talk_decision = next(d for d in decisions(QUICK, 4, talk) if len(deal_search.candidates(d)) > 1)
    card_decision = decisions(QUICK, 4, lambda d: d.view["game_state"]["phase"] == "play"
                              and len(d.legal) > 2 and {"type": "stoss"} not in d.legal)[0]
    for decision, kind in ((talk_decision, "deal"), (card_decision, "card")):
        for playouts in (12, 30):
            counted.clear()
            BOTS["search"](dataclasses.replace(decision, playouts=playouts))
            assert 0 < len(counted) <= playouts and set(counted) == {kind}, (kind, playouts, counted)
            assert len(counted) > playouts // 2  # whole worlds only: at most one world's candidates short
    counted.clear()
    BOTS["search"](dataclasses.replace(card_decision, playouts=None))
    assert search.DEFAULT_PLAYOUTS // 2 < len(counted) <= search.DEFAULT_PLAYOUTS


def test_inference_weights_are_positive_and_finite_and_discriminate():
    # A decision in play after somebody named a game: the naming tells about the declarer's hand.
    decision = next(d for d in decisions(QUICK, 6, lambda d: d.view["game_state"]["phase"] == "play")
                    if d.view["game_state"]["declared"]["declarer"] != d.seat)
    world = World.prepare(decision)
    prior = inference.Prior(world, decision.seat, random.Random(1))
    assert prior.observed.talk, "the announcements are observed"
    weights = []
    rng = random.Random(2)
    for _ in range(200):
        weight, sim = prior.replay(prior.draw(rng), play=True)
        assert 0.0 <= weight <= 1.0 and weight == weight
        if weight > 0:
            assert sim is not None
            weights.append(weight)
    assert weights and min(weights) > 0 and max(weights) == 1.0
    assert min(weights) < 1.0  # some draws are less likely than others
    got = inference.pick(prior, random.Random(3), play=True)
    assert got is not None
    assert sorted(world.build(got[0]).inner.hands[decision.seat]) == sorted(decision.view["game_state"]["hand"])


def _first_decision(hands: list[list[str]], number: int):
    """Vorhand's first decision of a deal dealt from ``hands`` (dealer 3), built as a bot's is."""
    events = TABLE.create("schafkopf", 4, QUICK, None, [{"hands": hands, "dealer": 3}],
                          hashlib.sha256(bytes.fromhex(seed(number))).hexdigest())
    state = TABLE.fold(TableState(), events)
    for seat in range(4):
        taken = TABLE.decide(state, None, {"type": "take_seat", "seat": seat})
        events, state = events + taken, TABLE.fold(state, taken)
    while (command := TABLE.system_command(state, seed(number))) is not None:
        new = TABLE.decide(state, None, command)
        events, state = events + new, TABLE.fold(state, new)
    return decision_for(TABLE, state, events, 0, random.Random(11))


def test_the_bot_cannot_reach_another_seats_cards():
    deck = list(DECKS["long"])
    mine = ["EO", "GO", "HO", "EU", "HA", "H10", "EA", "S7"]  # a hand worth playing: the search thinks
    rest = [c for c in deck if c not in mine]
    commands = set()
    for shuffle in range(3):
        others = rest[:]
        random.Random(shuffle).shuffle(others)
        decision = _first_decision([mine, others[:8], others[8:16], others[16:]], 900)
        if shuffle == 0:
            reference = decision
        # Everything the bot gets is the same: its view and its history as its seat sees them.
        assert decision.view == reference.view and decision.history == reference.history
        commands.add(str(BOTS["search"](dataclasses.replace(decision, playouts=40))))
    assert len(commands) == 1
