"""Seeded random playouts: 1,000+ complete deals for each player count."""
import pytest

from domain.scharwenzel.cards import deck
from domain.scharwenzel.scoring import THREAD_AT, threads_won
from tests.domain.harness import random_playout
from tests.domain.scharwenzel.helpers import GAME

DEALS = 10


def choose(rng, seat, legal):
    """Uniform, except that a tout is announced rarely so that ordinary deals dominate."""
    if legal and legal[0]["type"] == "announce_tout":
        return legal[0] if rng.random() < 0.03 else legal[1]
    return rng.choice(legal)


def check_events(players, events):
    """Every card played once per deal; only the majority side scores; the sheet adds up."""
    points, threads, hooks, bock = [0, 0], [0, 0], [0, 0], 0
    deals = 0
    played, hands, tricks = [], None, []
    for e in events:
        d = e.data
        if e.type == "HandsDealt":
            hands = d["hands"]
            assert sorted(c for h in hands for c in h) == sorted(deck(players))
            played, tricks = [], []
        elif e.type == "CardPlayed":
            assert d["card"] in hands[d["seat"]]
            played.append(d["card"])
        elif e.type == "TrickTaken":
            assert d["side"] == d["seat"] % 2
            tricks.append(d["side"])
        elif e.type == "DealScored":
            deals += 1
            assert sorted(played) == sorted(deck(players))
            assert d["tricks"] == [tricks.count(0), tricks.count(1)]
            assert d["bock_in"] == bock
            scorers = [s for s in (0, 1) if d["points"][s] or d["hooks"][s]]
            assert len(scorers) <= 1
            if d["announced_tout"] is None:
                if d["majority_side"] is None:
                    assert d["bock"] and scorers == [] and d["bock_out"] > bock
                else:
                    assert scorers == [d["majority_side"]] and d["winner"] == d["majority_side"]
                    assert d["points"][d["majority_side"]] == d["game"] + d["first"] + d["matadors"] + bock
            else:
                assert d["winner"] is not None and scorers == [d["winner"]]
                assert d["hooks"][d["winner"]] == (2 if d["tout_made"] else 4)
            bock = d["bock_out"]
            for s in (0, 1):
                points[s] += d["points"][s]
                hooks[s] += d["hooks"][s]
            won = threads_won(tuple(points))
            assert (won is None) == (max(points) < THREAD_AT)
        elif e.type == "ThreadWon":
            assert won == (d["side"], d["threads"], d["petersdorfer"])
            threads[d["side"]] += d["threads"]
            points = [0, 0]
    return deals, points, threads, hooks, bock


@pytest.mark.parametrize("players", [4, 6, 8])
def test_random_playout_of_1000_deals(players):
    total_deals, game_no = 0, 0
    while total_deals < 1000:
        game_no += 1
        rules = {"deals": DEALS} if game_no % 4 else {"threads": 2, "bock_value": "game_and_matadors"}
        table, state, events = random_playout(GAME, players, seed=1000 * players + game_no,
                                              rules=rules, choose=choose)
        inner = state.inner
        assert GAME.is_finished(inner)
        deals, points, threads, hooks, bock = check_events(players, events)
        total_deals += deals
        sheet = inner.sheet
        assert (list(sheet.points), list(sheet.threads), list(sheet.hooks), sheet.bock) == (
            points, threads, hooks, bock)
        scores = GAME.scores(inner)
        assert scores["totals"] == [sheet.totals[s % 2] for s in range(players)]
        assert len(scores["ranking"]) == players
        if "deals" in rules and rules["deals"]:
            assert deals == DEALS
        else:
            assert sum(sheet.totals) >= 2
        final = GAME.view(inner, 0)
        assert final["phase"] == "finished" and len(final["starting_hands"]) == players
    assert game_no < 150
