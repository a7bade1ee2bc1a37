"""Schafkopf with every house rule switched on, through the HTTP API: one human, three random bots.

The all-pass options exclude each other, so each gets its own session; all
other options are on in every session. The session must end, its totals
plus the pot must sum to zero, and the ruleset recorded must be the complete
one that was asked for.
"""
from __future__ import annotations

import collections
import random

import pytest

from .play import auth, new_game, play_to_end

EVERYTHING = {
    "deals": 6,
    "allowed_games": ["sie", "solo_tout", "wenz_tout", "farbwenz_tout", "geier_tout", "farbgeier_tout",
                      "solo", "wenz", "farbwenz", "geier", "farbgeier", "bettel", "rufspiel"],
    "stoss": 4,
    "doppeln": "all",
    "stock_winner": "declarer",
    "stock_lone_games": True,
    "ramsch_durchmarsch": "all_points",
    "ramsch_jungfrau": "double_individually",
    "bettel_stichzwang": True,
    "renonce": True,
    "hochzeit": True,
    "thrown_in_counts": True,
}


@pytest.mark.parametrize("all_pass", ["redeal", "redeal_double", "stock", "stock_double", "muss", "ramsch"])
def test_a_session_with_every_house_rule_plays_to_the_end(client, all_pass):
    rules = dict(EVERYTHING, all_pass=all_pass)
    game_id, tokens = new_game(client, game="schafkopf", players=4, rules=rules)
    view = client.get(f"/v1/games/{game_id}/view", headers=auth(tokens[0])).get_json()
    recorded = view["rules"]
    assert all(recorded[key] == value for key, value in rules.items())
    assert recorded["preset"] == "standard" and "tariffs" in recorded
    play_to_end(client, game_id, tokens, rng=random.Random(len(all_pass)))
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished" and summary["scores"]["ranking"]
    scores = summary["scores"]
    assert sum(scores["totals"]) + scores["stock"] == 0
    assert scores["totals"] == [sum(d[i] for d in scores["deals"]) for i in range(4)]


def test_the_tournament_preset_short_deck_through_the_api(client):
    rules = {"preset": "tournament", "deck": "short", "deals": 4,
             "allowed_games": ["solo", "wenz", "rufspiel"]}
    game_id, tokens = new_game(client, game="schafkopf", players=4, rules=rules)
    play_to_end(client, game_id, tokens, rng=random.Random(5))
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished" and summary["rules"]["stoss"] == 0
    assert all(abs(p) <= 4 * 21 for deal in summary["scores"]["deals"] for p in deal)


@pytest.mark.parametrize("rules,field", [
    ({"deck": "short", "all_pass": "ramsch"}, "rules.all_pass"),
    ({"preset": "pub"}, "rules.preset"),
    ({"stoss": 9}, "rules.stoss"),
])
def test_invalid_house_rules_are_a_422_naming_the_field(client, rules, field):
    body = {"game": "schafkopf", "players": 4, "rules": rules,
            "seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 3}
    response = client.post("/v1/games", json=body)
    assert response.status_code == 422
    assert field in str(response.get_json())


def test_sessions_with_the_auction_and_the_schieberrunde_play_to_the_end(client):
    """The two options built last, on together with every other house rule; three random bots.

    Deal 0 is preset: the human (seat 0, Vorhand) holds every Ober and Unter
    and names the Herz-Solo Tout, which cannot lose, so deal 1 is a
    Schieberrunde. After that he says "Ich spiele" and names the Herz-Solo
    whenever he may (a band game, so bots naming band games open auctions);
    everything else, his and the bots', is a random legal command. The deal
    shuffles and the bots are random, so sessions are played until one held
    an auction (at most three; one almost always does).
    """
    seen: collections.Counter = collections.Counter()
    for attempt in range(3):
        seen += _auction_and_schieberrunde_session(client, random.Random(attempt))
        if seen["AuctionOpened"]:
            break
    assert seen["AuctionOpened"] >= 1 and seen["BidPassed"] >= 1, seen


def _auction_and_schieberrunde_session(client, rng) -> collections.Counter:
    top = ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "SU"]
    rest = [s + r for s in "EGHS" for r in ("A", "10", "K", "O", "U", "9", "8", "7") if s + r not in top]
    preset = [{"hands": [top, rest[0:8], rest[8:16], rest[16:24]], "dealer": 3}]
    rules = dict(EVERYTHING, all_pass="redeal", auction=True, schieberrunde=True, deals=12)
    game_id, tokens = new_game(client, game="schafkopf", players=4, rules=rules, preset_deals=preset)
    token = tokens[0]
    view = client.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json()
    assert view["rules"]["auction"] is True and view["rules"]["schieberrunde"] is True
    assert view["game_state"]["schieberrunde_next"] is False
    tout = {"type": "name_game", "game": "solo_tout", "suit": "H"}
    preferred = [{"type": "name_game", "game": "solo", "suit": "H"}, {"type": "announce", "intent": "play"}]
    for _ in range(3000):
        view = client.get(f"/v1/games/{game_id}/view", headers=auth(token)).get_json()
        if view["status"] == "finished":
            break
        legal = view["legal"]
        assert view["to_act"], f"nobody can move in phase {view['game_state']['phase']}"
        if not legal:
            continue
        wishes = ([tout] if view["game_state"]["deal"] == 0 else []) + preferred
        command = next((c for c in wishes if c in legal), None) or rng.choice(legal)
        response = client.post(f"/v1/games/{game_id}/commands", json=command, headers=auth(token))
        assert response.status_code == 200, response.get_json()
    summary = client.get(f"/v1/games/{game_id}").get_json()
    assert summary["status"] == "finished" and summary["scores"]["ranking"]
    scores = summary["scores"]
    assert sum(scores["totals"]) + scores["stock"] == 0
    assert scores["totals"] == [sum(d[i] for d in scores["deals"]) for i in range(4)]
    events = _all_events(client, game_id, token)
    first = next(e for e in events if e["type"] == "DealSettled")
    assert first["data"]["game"] == "solo_tout" and first["data"]["schieberrunde_next"] is True
    dealt = [e for e in events if e["type"] == "HandsDealt"]
    assert dealt[1]["data"]["schieberrunde"] is True and "EO" in dealt[1]["data"]["hands"][1]  # Vorhand 1
    types = collections.Counter(e["type"] for e in events)
    assert types["SchieberSpoken"] >= 1
    return types


def _all_events(client, game_id, token):
    out, after = [], 0
    while True:
        page = client.get(f"/v1/games/{game_id}/events?after={after}", headers=auth(token)).get_json()["events"]
        if not page:
            return out
        out += page
        after = page[-1]["seq"]
