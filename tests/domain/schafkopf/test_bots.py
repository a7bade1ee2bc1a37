"""The Schafkopf bots (``domain/schafkopf/bots``): legal, consistent, prompt, and stronger.

* Every decision of whole games (all seats one policy, and mixed; several house rules that
  bring in Doppeln, Hochzeit, Ramsch, the auction, the Schieberrunde, the Muss-Spiel and the
  short deck) gets a legal command from both bots.
* The determinization is consistent: a sampled world shows the seat exactly its own view,
  holds every card once, and respects what the play revealed (voids, the called Ace).
* The search answers at once, without a playout, when its time is already up.
* On duplicate deals (each policy in each seat), the heuristic beats random and the search
  beats the heuristic on average. The seeds were fixed before the results were seen.
"""
from __future__ import annotations

import collections
import random
import statistics

import pytest

from domain.bots import match, random_bot
from domain.bots.decision import decision_for
from domain.schafkopf.bots import BOTS, heuristic, search
from domain.schafkopf.bots.determinize import World
from domain.schafkopf.cards import DECKS
from domain.schafkopf.game import Schafkopf
from domain.schafkopf.game_types import PRECEDENCE, order
from domain.schafkopf.hochzeit import TRUMPS as HOCHZEIT_TRUMPS
from domain.table import Table, TableState

TABLE = Table({"schafkopf": Schafkopf()})
QUICK = {"deals": 1}
CHEAP_SEARCH = search.make_search(max_playouts=8)  # legality only: a couple of worlds a card
STRENGTH_CAP = 40  # the strength test's search: a few worlds a card, no clock
HOUSE_RULES = [
    {"deals": 2, "hochzeit": True, "doppeln": "all", "all_pass": "ramsch"},
    {"deals": 2, "allowed_games": list(PRECEDENCE), "auction": True, "schieberrunde": True, "renonce": True},
    {"deals": 2, "all_pass": "muss", "stoss": 2, "doppeln": "not_dealer"},
    {"deals": 2, "deck": "short", "all_pass": "stock"},
]


def seed(number: int) -> str:
    return f"{number:064x}"


def checked(policy, seen: collections.Counter):
    """``policy``, asserting that every command it returns is one of the decision's legal ones."""
    def play(decision):
        command = policy(decision)
        assert command in decision.legal, (command, decision.legal)
        seen[command["type"]] += 1
        return command
    return play


@pytest.mark.parametrize("name", ["heuristic", "search"])
def test_every_decision_of_whole_games_is_legal(name):
    policy = CHEAP_SEARCH if name == "search" else BOTS[name]
    seen: collections.Counter = collections.Counter()
    for number, rules in enumerate([QUICK, QUICK] + HOUSE_RULES):
        state, _ = match.play(TABLE, "schafkopf", 4, rules, [checked(policy, seen)] * 4, seed(number),
                              rng_seed=number)
        assert state.status == "finished"
    assert seen["play"] >= 5 * 32 and seen["announce"] >= 20


def test_mixed_tables_play_legally():
    seen: collections.Counter = collections.Counter()
    policies = [checked(p, seen) for p in (BOTS["heuristic"], CHEAP_SEARCH, random_bot.policy, BOTS["heuristic"])]
    for number, rules in enumerate([QUICK, QUICK, HOUSE_RULES[0], HOUSE_RULES[1]]):
        state, _ = match.play(TABLE, "schafkopf", 4, rules, policies, seed(100 + number), rng_seed=number)
        assert state.status == "finished"
    assert seen["play"] >= 4 * 32


def test_the_house_rules_bring_their_phases_to_the_bots():
    """The legality games above meet the phases they are meant to exercise."""
    seen: collections.Counter = collections.Counter()
    for number, rules in enumerate(HOUSE_RULES * 3):
        match.play(TABLE, "schafkopf", 4, rules, [checked(BOTS["heuristic"], seen)] * 4, seed(200 + number))
    for kind in ("doppeln", "announce", "name_game", "play"):
        assert seen[kind] > 0, kind


def play_presets(rules: dict, presets: list, policies, seed_hex: str):
    """``match.play`` with preset deals first (it deals only from the seed): the same loop."""
    import hashlib
    events = TABLE.create("schafkopf", 4, rules, None, presets, hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest())
    state = TABLE.fold(TableState(), events)
    for seat in range(4):
        taken = TABLE.decide(state, None, {"type": "take_seat", "seat": seat})
        events, state = events + taken, TABLE.fold(state, taken)
    rng = random.Random(seed_hex)
    while state.status != "finished":
        while (command := TABLE.system_command(state, seed_hex)) is not None:
            new = TABLE.decide(state, None, command)
            events, state = events + new, TABLE.fold(state, new)
        if state.status == "finished":
            break
        seat = min(TABLE.to_act(state))
        decision = decision_for(TABLE, state, events, seat, random.Random(rng.random()))
        new = TABLE.decide(state, seat, policies[seat](decision))
        events, state = events + new, TABLE.fold(state, new)
    return state, events


def _rest(*hands) -> list[list[str]]:
    """The given hands, then the rest of the long deck dealt to the remaining seats."""
    rest = [c for c in DECKS["long"] if not any(c in h for h in hands)]
    more = 4 - len(hands)
    return [list(h) for h in hands] + [rest[i * 8:(i + 1) * 8] for i in range(more)]


# Seat 0 (Vorhand, dealer 3) holds a sure Herz-Solo; the next deal is then a Schieberrunde.
HERZ_SOLO = {"hands": _rest(["EO", "GO", "HO", "SO", "EU", "GU", "HA", "H10"]), "dealer": 3}
# Seat 0 a Solo, seat 1 a Wenz: both band games, so with the auction they bid.
BAND_GAMES = {"hands": _rest(["EO", "GO", "HO", "SO", "EA", "E10", "EK", "E9"],
                             ["EU", "GU", "HU", "SU", "GA", "HA", "SA", "G10"]), "dealer": 3}
NO_TOUTS = ["rufspiel", "solo", "wenz"]


def steered(policy):
    """``policy``, except that it announces only to offer or take a Hochzeit, and takes one when it
    can (so everybody passes otherwise): this brings Ramsch, the Muss-Spiel and the Hochzeit's
    exchange to the bot."""
    def play(decision):
        legal = decision.legal
        offered = decision.view["game_state"]["hochzeit"] not in (None, decision.seat)
        if legal and legal[0]["type"] == "announce":
            for intent in ("hochzeit",) + (("play",) if offered else ()):
                if {"type": "announce", "intent": intent} in legal:
                    return {"type": "announce", "intent": intent}
            return {"type": "announce", "intent": "pass"}
        if offered and {"type": "name_game", "game": "hochzeit"} in legal:
            return {"type": "name_game", "game": "hochzeit"}
        return policy(decision)
    return play


@pytest.mark.parametrize("name", ["heuristic", "search"])
def test_the_bots_meet_every_phase_of_the_house_rules(name):
    """Preset deals and steered announcements bring the rarer phases to the bot: the auction,
    the Schieberrunde (calls, passing, naming), Ramsch, the Muss-Spiel and the Hochzeit."""
    policy = CHEAP_SEARCH if name == "search" else BOTS[name]
    seen: collections.Counter = collections.Counter()
    bot = checked(policy, seen)
    events_seen: collections.Counter = collections.Counter()
    games = [
        ({"deals": 2, "allowed_games": NO_TOUTS, "auction": True}, [BAND_GAMES], [bot] * 4),
        ({"deals": 2, "allowed_games": NO_TOUTS, "schieberrunde": True}, [HERZ_SOLO], [bot] * 4),
        ({"deals": 2, "all_pass": "ramsch", "hochzeit": True}, [], [steered(bot)] * 4),
        ({"deals": 2, "all_pass": "muss", "hochzeit": True}, [], [steered(bot)] * 4),
    ]
    for number, (rules, presets, policies) in enumerate(games):
        for attempt in range(3):
            state, events = play_presets(rules, presets, policies, seed(400 + 10 * number + attempt))
            assert state.status == "finished"
            events_seen.update(e.type for e in events)
            events_seen.update(e.data["game"] for e in events if e.type == "GameDeclared")
    for kind in ("bid", "pass", "schieber", "name_game", "play"):
        assert seen[kind] > 0, (kind, seen)
    for fact in ("AuctionOpened", "SchieberSpoken", "CardsPushed", "ramsch", "MussSpiel", "HochzeitCardGiven"):
        assert events_seen[fact] > 0, (fact, events_seen)


def _voids(decision) -> dict[int, set[str]]:
    """Follow keys each seat showed it lacks in this deal (computed here independently)."""
    game_state = decision.view["game_state"]
    declared = game_state["declared"]
    rules_order = order(declared["game"], declared["suit"])
    voids: dict[int, set[str]] = collections.defaultdict(set)
    start = max(i for i, e in enumerate(decision.history) if e["type"] == "HandsDealt")
    trick: list[tuple[int, str]] = []
    for event in decision.history[start:]:
        if event["type"] == "CardPlayed":
            trick.append((event["data"]["seat"], event["data"]["card"]))
            led = rules_order.follow_key(trick[0][1])
            seat, card = trick[-1]
            if rules_order.follow_key(card) != led:
                voids[seat].add(led)
        elif event["type"] == "TrickTaken":
            trick = []
    return voids


def _played(decision) -> list[str]:
    start = max(e["seq"] for e in decision.history if e["type"] == "HandsDealt")
    return [e["data"]["card"] for e in decision.history if e["type"] == "CardPlayed" and e["seq"] > start]


def test_sampled_worlds_match_the_seats_view_and_respect_the_voids():
    checks = collections.Counter()
    rules_list = [QUICK, QUICK, HOUSE_RULES[0], HOUSE_RULES[0], HOUSE_RULES[2]]

    def sampling(decision):
        game_state = decision.view["game_state"]
        if game_state["phase"] == "play" and decision.rng.random() < 0.5:
            world = World.prepare(decision)
            declared = game_state["declared"]
            rules_order = order(declared["game"], declared["suit"])
            voids = _voids(decision)
            deck = DECKS[decision.rules["deck"]]
            for _ in range(3):
                state = world.sample(decision.rng)
                assert TABLE.view(state, decision.seat)["game_state"] == game_state
                hands = state.inner.hands
                assert sorted([c for h in hands for c in h] + _played(decision)) == sorted(deck)
                for seat, keys in voids.items():
                    if seat != decision.seat:
                        assert not [c for c in hands[seat] if rules_order.follow_key(c) in keys], (seat, keys)
                        checks["voids"] += 1
                called = declared["called_ace"]
                if called and declared["declarer"] != decision.seat:
                    assert called not in hands[declared["declarer"]]
                    checks["called"] += 1
                if game_state["schieberrunde"] and game_state["schieberrunde"]["pushes"]:
                    checks["passing"] += 1
                swap = game_state["swap"]
                if swap and decision.seat not in (swap["from"], swap["to"]):
                    # The Hochzeit's offerer gave away his only trump.
                    assert not [c for c in hands[swap["to"]] if c in HOCHZEIT_TRUMPS]
                    checks["swap"] += 1
                checks["worlds"] += 1
        return heuristic.policy(decision)

    for number, rules in enumerate(rules_list):
        match.play(TABLE, "schafkopf", 4, rules, [sampling] * 4, seed(300 + number), rng_seed=number)
    # The hidden passing of a Schieberrunde and the hidden card of a Hochzeit.
    for number in range(2):
        play_presets({"deals": 2, "allowed_games": NO_TOUTS, "schieberrunde": True}, [HERZ_SOLO],
                     [sampling] * 4, seed(310 + number))
        play_presets({"deals": 2, "all_pass": "ramsch", "hochzeit": True}, [], [steered(sampling)] * 4,
                     seed(320 + number))
    assert checks["worlds"] >= 200 and checks["voids"] >= 50 and checks["called"] >= 10, checks
    assert checks["passing"] >= 10 and checks["swap"] >= 10, checks


def _decision_in_play(out_of_time):
    """A real decision with a choice of cards: seat to play at the second trick of a heuristic game."""
    state, events = match.play(TABLE, "schafkopf", 4, QUICK, [heuristic.policy] * 4, seed(7))
    table_state = TABLE.fold(type(state)(), [])
    for cut in range(len(events)):
        table_state = TABLE.fold(table_state, events[cut:cut + 1])
        if (table_state.status == "active" and table_state.inner.phase == "play"
                and len(table_state.inner.tricks) == 1 and not table_state.inner.trick.plays):
            seat = min(TABLE.to_act(table_state))
            decision = decision_for(TABLE, table_state, events[:cut + 1], seat, random.Random(1), out_of_time)
            if len([c for c in decision.legal if c["type"] == "play"]) > 2:
                return decision
    raise AssertionError("no decision with a choice found")


def test_the_search_answers_at_once_when_out_of_time(monkeypatch):
    def no_playout(*args, **kwargs):
        raise AssertionError("a playout ran with the time already up")

    monkeypatch.setattr(search, "playout", no_playout)
    decision = _decision_in_play(lambda: True)
    command = search.make_search(max_playouts=10_000)(decision)
    assert command in decision.legal


def test_the_search_stops_at_the_clock_between_playouts(monkeypatch):
    calls = []
    real = search.playout

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(search, "playout", counting)
    decision = _decision_in_play(lambda: len(calls) >= 5)
    # The card search alone: a Stoß decision's playouts (whole-deal search) are not ``playout``'s.
    command = search.make_search(max_playouts=10_000, whole_deal=False, inference=False)(decision)
    assert command in decision.legal and len(calls) == 5


def test_without_a_clock_the_search_is_deterministic():
    first = _decision_in_play(lambda: False)
    again = _decision_in_play(lambda: False)
    policy = search.make_search(max_playouts=60)
    assert policy(first) == policy(again)


def duplicate_mean(a, b, seeds) -> float:
    """A's mean result per seat and deal over ``seeds``, each played twice: A in seats 0 and 2,
    then A in seats 1 and 3 (so each policy plays every seat of every deal)."""
    results = []
    for number in seeds:
        total = 0
        for seats in ((a, b, a, b), (b, a, b, a)):
            state, _ = match.play(TABLE, "schafkopf", 4, QUICK, list(seats), seed(10_000 + number),
                                  rng_seed=number)
            total += sum(state.inner.totals[i] for i in range(4) if seats[i] is a)
        results.append(total / 4)
    return statistics.mean(results)


def test_the_heuristic_beats_random_on_duplicate_deals():
    assert duplicate_mean(heuristic.policy, random_bot.policy, range(40)) > 0


def test_the_search_beats_the_heuristic_on_duplicate_deals():
    # The card search ("search-cards"): the whole-deal steps are measured by the arena (minutes, not seconds).
    cards = search.make_search(max_playouts=STRENGTH_CAP, whole_deal=False, inference=False)
    assert duplicate_mean(cards, heuristic.policy, range(40)) > 0

