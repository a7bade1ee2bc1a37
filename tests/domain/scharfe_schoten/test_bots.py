"""The heuristic and search bots: always legal, a determinization true to what the seat knows,
a search that stops when told, and strength on duplicate deals (seeds fixed before looking)."""
from __future__ import annotations

import random
import statistics
from itertools import product

from domain.bots import match, random_bot
from domain.bots.decision import decision_for
from domain.scharfe_schoten.bots import BOTS, heuristic, search
from domain.scharfe_schoten.bots.determinize import Determinizer
from domain.scharfe_schoten.cards import COLOURS, colour_counts, colour_of
from domain.scharfe_schoten.game import ScharfeSchoten
from domain.scharfe_schoten.scoring import score_prediction
from domain.table import Table

GAME = ScharfeSchoten()
TABLE = Table({GAME.name: GAME})
QUICK = {"rounds": 1}
CHEAP_SEARCH = search.make_search(playouts=8, width=4)


def seed(number: int) -> str:
    return f"{number:064x}"


def checked(policy, seen: list):
    """``policy``, asserting that every command it returns is one of the decision's legal ones."""
    def play(decision):
        command = policy(decision)
        assert command in decision.legal, (command, decision.legal)
        seen.append(decision.view["game_state"]["phase"])
        return command
    return play


def test_both_bots_play_legal_commands_in_every_decision():
    for number, (players, kinds) in enumerate(product((3, 4), (("heuristic",) * 4, ("search",) * 4,
                                                              ("heuristic", "search", "random", "search")))):
        seen: list[str] = []
        # The search with a cheap cap: the default one, without a clock, does its full work.
        bots = {"heuristic": BOTS["heuristic"], "search": CHEAP_SEARCH, "random": random_bot.policy}
        policies = [checked(bots[kind], seen) for kind in kinds[:players]]
        rules = {"rounds": 2} if number == 2 else QUICK
        state, _ = match.play(TABLE, GAME.name, players, rules, policies, seed(number), budget_ms=150,
                              timer=match.no_clock)
        assert state.status == "finished"
        assert {"predicting", "playing", "taking"} <= set(seen)


def test_points_matches_the_scoring_rule():
    rng = random.Random(7)
    for _ in range(500):
        counts = {colour: rng.randrange(6) for colour in COLOURS}
        most, fewest = rng.sample(COLOURS, 2)
        assert heuristic.points(counts, most, fewest) == score_prediction(counts, most, fewest)["points"]


def decisions(players: int, number: int, every: int = 3) -> list:
    """Every ``every``-th decision of a two-round heuristic game."""
    seen = []

    def keep(decision):
        seen.append(decision)
        return heuristic.policy(decision)

    match.play(TABLE, GAME.name, players, {"rounds": 2}, [keep] * players, seed(number))
    return seen[::every]


def test_a_sample_shows_the_seat_exactly_its_own_view_and_keeps_every_void():
    checked_samples = 0
    for players, number in ((3, 40), (4, 41)):
        for decision in decisions(players, number):
            sampler = Determinizer(decision)
            for draw in range(2):
                sample = sampler.sample(random.Random(draw))
                own = decision.view["game_state"]
                assert TABLE.view(sample, decision.seat)["game_state"] == own
                assert TABLE.legal_commands(sample, decision.seat) == decision.legal
                inner = sample.inner
                assert list(inner.hands[decision.seat]) == own["hand"]
                # Every card is in exactly one place, and every hand keeps its public colour counts.
                places = [c for hand in inner.hands for c in hand] + list(inner.cupboard)
                places += [c for cards in inner.collections for c in cards] + list(inner.trick.cards)
                assert len(places) == len(set(places)) == 48
                assert [colour_counts(hand) for hand in inner.hands] == own["hand_colours"]
                for seat, colour in voids(decision):
                    assert all(colour_of(card) != colour for card in inner.hands[seat]), (seat, colour)
                checked_samples += 1
    assert checked_samples > 50


def voids(decision) -> set[tuple[int, str]]:
    """(seat, colour) for every seat that did not follow a led colour in the current deal."""
    found: set[tuple[int, str]] = set()
    led = None
    for event in decision.history:
        if event["type"] == "HandsDealt":
            found, led = set(), None
        elif event["type"] == "CardPlayed":
            card = event["data"]["card"]
            if led is None:
                led = colour_of(card)
            elif colour_of(card) != led:
                found.add((event["data"]["seat"], led))
        elif event["type"] == "TrickTaken":
            led = None
    return found


def test_the_search_answers_at_once_when_out_of_time():
    calls = []

    def spent() -> bool:
        calls.append(1)
        return True

    for decision in decisions(4, 42, every=5):
        timed_out = decision.__class__(**{**decision.__dict__, "out_of_time": spent})
        command = BOTS["search"](timed_out)
        assert command in decision.legal
        if len(decision.legal) > 1:
            # No playout was run: the heuristic's own choice comes back.
            assert command == heuristic.policy(decision)
    assert calls


def duplicate_means(a, b, seeds: range) -> list[float]:
    """Per seed, the mean round score of ``a``'s seats minus ``b``'s, over the deal played twice
    with 4 seats as a b a b and as b a b a, so each plays every seat of the same cards."""
    diffs = []
    for number in seeds:
        mine, theirs = [], []
        for policies in ((a, b, a, b), (b, a, b, a)):
            state, _ = match.play(TABLE, GAME.name, 4, QUICK, list(policies), seed(number), rng_seed=number)
            for seat, policy in enumerate(policies):
                (mine if policy is a else theirs).append(state.inner.totals[seat])
        diffs.append(statistics.mean(mine) - statistics.mean(theirs))
    return diffs


def test_the_heuristic_outscores_random_on_duplicate_deals():
    diffs = duplicate_means(heuristic.policy, random_bot.policy, range(1000, 1060))
    assert statistics.mean(diffs) > 2


def test_the_search_outscores_the_heuristic_on_duplicate_deals():
    # 20 deals, not 40 (each about 1 s of CPU): the first 20 of the seeds fixed before looking give
    # +1.91 a deal, 95% CI [+1.09, +2.74], already clear of zero (all 40: +2.79 [+1.87, +3.72]). Checked
    # on other seeds once: 15 deals from 3000 give +3.40 [+1.58, +5.22], from 4000 +1.25 [-0.47, +2.97],
    # so fewer than 20 would leave the margin to chance.
    diffs = duplicate_means(CHEAP_SEARCH, heuristic.policy, range(2000, 2020))
    assert statistics.mean(diffs) > 0
