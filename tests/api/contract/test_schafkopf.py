"""5. Schafkopf's house rules, auction and Schieberrunde played through the API, every response checked against the spec."""
from __future__ import annotations

import re

import jsonschema
import pytest

from .spec import (
    SCHAFKOPF_HOUSE_RULES,
    SPEC,
    bearer,
    take,
    validate_response,
    validate_schema,
)

# --------------------------------------------------------------------------- 5. Schafkopf house rules

# Preset deals (dealer 3, then passing left) that reach every house-rule state:
# 0 - seat 0 holds exactly one trump (H7) and offers a Hochzeit, seat 1 marries (gives S10);
# 1 - seat 2 holds all three Aces (blocked) and the Eichel Ober; all pass: Renonce round, then `all_pass`;
# 2 - seat 2 plays a Rufspiel on the Eichel Ace (seat 3's).
SCHAFKOPF_DEALS = [
    {"dealer": 3, "hands": [["H7", "EA", "E10", "EK", "GA", "G10", "GK", "SA"],
                            ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "S10"],
                            ["SU", "HA", "H10", "HK", "E9", "E8", "G9", "G8"],
                            ["H9", "H8", "E7", "G7", "S9", "S8", "S7", "SK"]]},
    {"hands": [["HK", "H9", "H8", "H7", "E7", "G7", "S8", "S7"],
               ["HO", "SO", "EU", "GU", "EK", "E9", "GK", "G9"],
               ["EA", "E10", "GA", "G10", "SA", "S10", "EO", "GO"],
               ["HU", "SU", "HA", "H10", "SK", "S9", "E8", "G8"]]},
    {"hands": [["HU", "SU", "H9", "GA", "G10", "E9", "S10", "S7"],
               ["H8", "H7", "E8", "E7", "GK", "G7", "SA", "SK"],
               ["EO", "GO", "HO", "SO", "HA", "H10", "EK", "G9"],
               ["EU", "GU", "HK", "EA", "E10", "G8", "S9", "S8"]]},
]


def _schafkopf_choice(legal: list[dict], view: dict, seat: int) -> dict:
    """A policy that walks into every house rule: double (even seats), offer and accept the Hochzeit,
    give every Stoß, let everybody pass in deal 1 (and withdraw from the Renonce round), play in deal 2."""
    state = view["game_state"]
    deal = state["deal"]
    someone_plays = any(a["intent"] == "play" for a in state["announcements"])
    wants_play = (deal % 3 == 0 and seat == 1) or (deal % 3 == 2 and not someone_plays)
    preferences = [
        {"type": "stoss"},
        {"type": "doppeln", "double": seat % 2 == 0},
        {"type": "announce", "intent": "hochzeit"},
        {"type": "announce", "intent": "play" if wants_play else "pass"},
        {"type": "name_game", "game": "hochzeit"},
        # deal 1's Renonce round declines (so `all_pass` applies); deal 2's caller names the Rufspiel on EA
        {"type": "withdraw"} if state["mode"] == "renonce" else {"type": "name_game", "game": "rufspiel",
                                                                  "suit": "E"},
        {"type": "withdraw"},
    ]
    for preference in preferences:
        for command in legal:
            if all(command.get(key) == value for key, value in preference.items()):
                return command
    return legal[0]


def _check_schafkopf_view(body: dict) -> None:
    """A view against ``View``, its game state against ``SchafkopfGameState``, its commands against
    ``SchafkopfCommand`` (the same as validating ``View`` whole, with errors that name the field)."""
    validate_schema(body["game_state"], "SchafkopfGameState")
    for command in body["legal"]:
        validate_schema(command, "SchafkopfCommand")
    validate_schema({**body, "game_state": None, "legal": []}, "View")


def _walk_schafkopf(client, game_id: str, tokens: dict[int, str], max_moves: int = 400,
                    choose=_schafkopf_choice) -> list[dict]:
    """Four human seats play by ``choose`` (``_schafkopf_choice``). Checked against the spec: the
    spectator's and the acting seat's view before every move, every seat's view whenever the phase
    changes, every legal command, every answer. Returns the game states seen."""
    seen: list[dict] = []
    last_phase = None
    for _ in range(max_moves):
        spectator = client.get(f"/v1/games/{game_id}/view").get_json()
        _check_schafkopf_view(spectator)
        seen.append(spectator["game_state"])
        phase = spectator["game_state"]["phase"]
        views = {}
        for seat in range(4) if phase != last_phase else spectator["to_act"]:
            views[seat] = client.get(f"/v1/games/{game_id}/view", headers=bearer(tokens[seat])).get_json()
            _check_schafkopf_view(views[seat])
            seen.append(views[seat]["game_state"])
        last_phase = phase
        if spectator["status"] == "finished":
            return seen
        seat = spectator["to_act"][0]
        legal = views[seat]["legal"]
        assert legal, f"seat {seat} is to act but has no legal command"
        command = choose(legal, views[seat], seat)
        assert command in legal, (command, legal)
        response = client.post(f"/v1/games/{game_id}/commands", json=command, headers=bearer(tokens[seat]))
        assert response.status_code == 200, (command, response.get_json())
        validate_response(response, "/v1/games/{id}/commands", "post")
    raise AssertionError("the Schafkopf session did not finish")


def _four_humans(client, rules: dict, preset_deals: list | None = None) -> tuple[str, dict[int, str]]:
    body = {"game": "schafkopf", "players": 4, "rules": rules, "seats": [{"kind": "human"}] * 4}
    if preset_deals is not None:
        body["preset_deals"] = preset_deals
    validate_schema(body, "CreateGame")
    response = client.post("/v1/games", json=body)
    validate_response(response, "/v1/games", "post")
    assert response.status_code == 201, response.get_json()
    game_id = response.get_json()["id"]
    return game_id, {seat: take(client, game_id, seat) for seat in range(4)}


@pytest.mark.parametrize("all_pass", ["ramsch", "muss", "stock_double", "redeal_double"])
def test_schafkopf_with_every_house_rule_conforms(client, all_pass):
    rules = dict(SCHAFKOPF_HOUSE_RULES, all_pass=all_pass)
    game_id, tokens = _four_humans(client, rules, SCHAFKOPF_DEALS)
    summary = client.get(f"/v1/games/{game_id}")
    validate_response(summary, "/v1/games/{id}", "get")
    recorded = summary.get_json()["rules"]
    validate_schema(recorded, "SchafkopfRules")
    assert {key: recorded[key] for key in rules if key != "tariffs"} == {
        key: value for key, value in rules.items() if key != "tariffs"}
    # The complete ruleset names every option the spec documents, and no other.
    assert set(recorded) == set(SPEC["components"]["schemas"]["SchafkopfRules"]["properties"])
    assert set(recorded["tariffs"]) == set(SPEC["components"]["schemas"]["SchafkopfTariffs"]["properties"])

    states = _walk_schafkopf(client, game_id, tokens)

    phases = {s["phase"] for s in states}
    assert {"doppeln", "announce", "naming", "exchange", "play", "finished"} <= phases
    assert any(s["doppeln"] and any(d["double"] for d in s["doppeln"]) for s in states)
    assert any(s["hochzeit"] == 0 for s in states)
    swaps = [s["swap"] for s in states if s["swap"]]
    assert {"from": 1, "to": 0} in swaps and any("gave" in swap for swap in swaps)
    assert any(s["declared"] and s["declared"]["game"] == "hochzeit" for s in states)
    assert any(s["mode"] == "renonce" for s in states)
    assert max(s["multiplier"] for s in states) >= 8
    if all_pass != "muss":  # no Stoß in a Muss-Spiel; the other deals are Stoß-able
        assert any(len(s["stoss"]) >= 2 for s in states)
    settled = [s["last_deal"] for s in states if s["last_deal"]]
    if all_pass == "ramsch":
        assert any(d["game"] == "ramsch" and "seat_points" in d and "jungfrauen" in d for d in settled)
    if all_pass == "muss":
        assert any(s["mode"] == "muss" for s in states)
        assert any(s["declared"] and s["declared"].get("renonce") is True for s in states)
    if all_pass in ("stock_double", "redeal_double"):  # deal 1 is thrown in
        assert any(d["game"] is None and d["deal"] == 1 for d in settled)
    if all_pass == "stock_double":
        assert any(s["stock"] > 0 for s in states) and any(d["stock"] < 0 for d in settled)
    final = states[-1]
    assert final["phase"] == "finished" and "hands" in final and "tricks" in final
    assert sum(final["scores"]["totals"]) + final["scores"]["stock"] == 0

    # The feed: every event is a SchafkopfEvent; every settlement is a SchafkopfDealSettledData.
    events = client.get(f"/v1/games/{game_id}/events")
    validate_response(events, "/v1/games/{id}/events", "get")
    settlements = [e["data"] for e in events.get_json()["events"] if e["type"] == "DealSettled"]
    assert settlements
    for data in settlements:
        validate_schema(data, "SchafkopfDealSettledData")


def test_schafkopf_tournament_preset_on_the_short_deck_conforms(client):
    from domain.schafkopf.cards import SHORT_DECK

    deal = {"dealer": 3, "hands": [list(SHORT_DECK[i:i + 6]) for i in range(0, 24, 6)]}
    rules = {"preset": "tournament", "deck": "short", "deals": 1, "hochzeit": True}
    game_id, tokens = _four_humans(client, rules, [deal])
    recorded = client.get(f"/v1/games/{game_id}").get_json()["rules"]
    assert recorded["stoss"] == 0 and recorded["tariffs"]["rufspiel"]["base"] == 1
    assert "sie" not in recorded["allowed_games"]
    states = _walk_schafkopf(client, game_id, tokens)
    assert states[-1]["phase"] == "finished" and len(states[-1]["hands"][0]) == 6


# Auction and Schieberrunde (rules.auction, rules.schieberrunde). Five preset deals, all four seats human:
# 0 - dealer 3: seats 0, 1 and 3 name band games, seat 2 withdraws; the auction: 1 bids 71, 3 passes,
#     0 bids 81, 1 passes -> seat 0, holding every Ober and Unter, wins his Herz-Solo needing 81
#     -> deal 1 is a Schieberrunde;
# 1 - Schieberrunde, dealer 0: Vorhand (1) declines, the dealer takes EO GO and, with all eight Obers and
#     Unters, wins a Herz-Solo (no passing) -> deal 2 is a Schieberrunde;
# 2 - Schieberrunde, dealer 1: Vorhand (2) plays, pushes his two plain cards, the others push on, Mittelhand
#     (3) with the rulebook's hint (a Herz card, "two above": Eichel; rules.schieberrunde_hinting); Vorhand
#     keeps all eight Obers and Unters and wins a Herz-Solo -> deal 3 is a Schieberrunde;
# 3 - Schieberrunde, dealer 2: Vorhand (3) and the dealer decline: `SchieberrundePaid`;
# 4 - dealer 3: seat 0 (every Ober and Unter again) wins a Herz-Solo Tout (above the band: no auction,
#     no target) -> the final view says the next deal would be a Schieberrunde.
AUCTION_SCHIEBER_RULES = {
    "deals": 5, "auction": True, "schieberrunde": True, "schieberrunde_hinting": True, "doppeln": "all", "stoss": 4,
    "allowed_games": ["sie", "solo_tout", "wenz_tout", "solo", "wenz", "farbwenz", "geier", "rufspiel"],
}
_TOPS = ["EO", "GO", "HO", "SO", "EU", "GU", "HU", "SU"]
_PLAIN = [s + r for s in "EGHS" for r in ("A", "10", "K", "9", "8", "7")]  # the 24 cards but Obers/Unters
# (event type, data keys always present, keys present only sometimes), as the spec's event data schemas say.
NEW_EVENT_KEYS = {
    "AuctionOpened": ({"seats", "holder", "target"}, set()),
    "BidMade": ({"seat", "target", "call"}, set()),
    "BidPassed": ({"seat"}, set()),
    "SchieberSpoken": ({"seat", "play", "call"}, {"offered_to"}),
    "ObersHandedOver": ({"seat", "to", "cards"}, set()),
    "CardsPushed": ({"seat", "to", "cards"}, {"hint"}),
    "CardsReceived": ({"seat", "from", "cards"}, {"hint"}),
    "SchieberrundePaid": ({"deal", "dealer", "payers", "price", "payments"}, set()),
    "HandsDealt": ({"deal", "dealer", "hands"}, {"schieberrunde"}),
    "GameNamed": ({"seat", "game", "suit"}, {"auction"}),
    "GameDeclared": ({"declarer", "game", "suit", "called_ace"}, {"renonce", "partner", "target", "schieberrunde"}),
}


def _schieber_preset(rest: list[str], dealer: int) -> dict:
    """The preset whose Schieberrunde deal gives Vorhand EO GO and then deals ``rest`` (the other 30
    cards, in order) round from Vorhand, the dealer two short: preset hands are read back as the deck
    the normal mapping deals them from."""
    from domain.schafkopf.deal import hands_from_deck

    assert sorted(rest + ["EO", "GO"]) == sorted(_TOPS + _PLAIN)
    return {"hands": hands_from_deck(["EO", "GO"] + rest, dealer, 4)}


def _auction_schieber_deals() -> list[dict]:
    plain = list(_PLAIN)
    deal0 = {"dealer": 3, "hands": [list(_TOPS), plain[0:8], plain[8:16], plain[16:24]]}
    # deal 1 (dealer 0): the dealer's cards are rest[12:16] and rest[28:30]
    rest1 = plain[0:12] + ["HO", "SO", "EU", "GU"] + plain[12:24] + ["HU", "SU"]
    # deal 2 (dealer 1, Vorhand 2): Vorhand's cards are rest[0:4] and rest[16:20]
    rest2 = ["HO", "SO", "EU", "GU"] + plain[0:12] + ["HU", "SU"] + plain[12:24]
    rest3 = ["HO", "SO", "EU", "GU", "HU", "SU"] + plain
    deal4 = {"hands": [list(_TOPS), plain[0:8], plain[8:16], plain[16:24]]}
    return [deal0, _schieber_preset(rest1, 0), _schieber_preset(rest2, 1), _schieber_preset(rest3, 2), deal4]


def _auction_schieber_choice(legal: list[dict], view: dict, seat: int) -> dict:
    state = view["game_state"]
    deal, phase = state["deal"], state["phase"]
    vorhand = (state["dealer"] + 1) % 4
    tops = set(_TOPS)
    if phase == "doppeln":
        wish = {"type": "doppeln", "double": False}
    elif phase == "announce":
        wish = {"type": "announce", "intent": "play" if (deal == 4 and seat == 0) or (deal == 0 and seat != 2)
                else "pass"}
    elif phase == "naming" and state["mode"] == "schieber":
        wish = {"type": "name_game", "game": "solo", "suit": "H"}
    elif phase == "naming":
        wish = {0: {"type": "name_game", "game": "solo_tout", "suit": "H"}}.get(seat) if deal == 4 else {
            0: {"type": "name_game", "game": "solo", "suit": "H"}, 1: {"type": "name_game", "game": "wenz"},
            2: {"type": "withdraw"}, 3: {"type": "name_game", "game": "geier"}}[seat]
    elif phase == "auction":
        said = [b for b in state["auction"]["bids"] if b["seat"] == seat]
        wish = ({"type": "pass"} if said or seat == 3
                else next(c for c in legal if c["type"] == "bid"))  # the lowest raise, once
    elif phase == "schieber":
        wish = {"type": "schieber", "play": (deal == 1 and seat != vorhand) or (deal == 2 and seat == vorhand)}
    elif phase == "push":
        plain = [c for c in legal if not tops & set(c["cards"])]
        hinted = [c for c in plain if c.get("hint", {}).get("above") == 2 and c["hint"]["card"][0] == "H"]
        wish = hinted[0] if hinted else plain[0] if plain else legal[-1]
    else:  # play: no Stoß, the first legal card
        wish = next(c for c in legal if c["type"] == "play")
    assert wish in legal, (phase, seat, wish, legal)
    return wish


def _events(client, game_id: str, headers: dict) -> list[dict]:
    out: list[dict] = []
    while True:
        page = client.get(f"/v1/games/{game_id}/events?after={out[-1]['seq'] if out else 0}", headers=headers)
        validate_response(page, "/v1/games/{id}/events", "get")
        events = page.get_json()["events"]
        if not events:
            return out
        out += events


def test_schafkopf_auction_and_schieberrunde_conform(client):
    game_id, tokens = _four_humans(client, AUCTION_SCHIEBER_RULES, _auction_schieber_deals())
    recorded = client.get(f"/v1/games/{game_id}").get_json()["rules"]
    validate_schema(recorded, "SchafkopfRules")
    assert recorded["auction"] is True and recorded["schieberrunde"] is True

    # Read the feed once the three pushes are made, while the session runs: their cards are only the
    # giver's (`CardsPushed`) and the receiver's (`CardsReceived`).
    feeds: dict = {}

    def choose(legal: list[dict], view: dict, seat: int) -> dict:
        round_ = view["game_state"]["schieberrunde"]
        if not feeds and round_ and len(round_["pushes"]) == 3:
            for who, headers in (("spectator", {}), (2, bearer(tokens[2])), (0, bearer(tokens[0]))):
                feeds[who] = [e for e in _events(client, game_id, headers)
                              if e["type"] in ("CardsPushed", "CardsReceived")]
        return _auction_schieber_choice(legal, view, seat)

    states = _walk_schafkopf(client, game_id, tokens, max_moves=600, choose=choose)
    assert len(feeds["spectator"]) == 6 and all(
        e["redacted"] and "cards" not in e["data"] and e["visibility"]["scope"] == "seat" for e in feeds["spectator"])
    for event in feeds[2]:  # Vorhand 2 pushed to 3 and received nothing
        mine = event["data"]["seat"] == 2 and event["type"] == "CardsPushed"
        assert ("cards" in event["data"]) is mine and event["redacted"] is not mine, event
        assert "hint" not in event["data"]  # Mittelhand's hint is for the third player only
    # The third player (Hinterhand 0) reads Mittelhand's hint: a Herz card, "two above", names Eichel.
    [hint] = [e["data"]["hint"] for e in feeds[0] if e["type"] == "CardsReceived" and "hint" in e["data"]]
    assert hint["card"][0] == "H" and hint["above"] == 2 and hint["suit"] == "E"

    phases = {s["phase"] for s in states}
    assert {"auction", "schieber", "push", "naming", "play", "finished"} <= phases
    assert any(s["mode"] == "schieber" for s in states)
    # Between a won Herz-Solo and the next deal only (the next deal is dealt at once): the final view.
    assert states[-1]["schieberrunde_next"] is True
    assert any(s["hand"] and len(s["hand"]) == 10 for s in states)  # Vorhand before the passing
    assert any(max(s["hand_sizes"]) == 10 for s in states)
    schieber = [s["schieberrunde"] for s in states if s["schieberrunde"]]
    assert any(len(r["pushes"]) == 3 for r in schieber)
    assert any(p for r in schieber for p in r["pushes"] if "cards" not in p)  # hidden from other seats
    assert any(p for r in schieber for p in r["pushes"] if "cards" in p)  # shown to giver and receiver
    assert any(r["calls"] == [{"seat": 1, "play": False}, {"seat": 0, "play": True}] for r in schieber)
    assert any(r["vorhand"] == 3 and r["calls"] == [{"seat": 3, "play": False}] for r in schieber)
    auctions = [s["auction"] for s in states if s["auction"]]
    final_bids = [{"seat": 1, "target": 71}, {"seat": 3, "passed": True}, {"seat": 0, "target": 81},
                  {"seat": 1, "passed": True}]
    assert any(a["bids"] == final_bids and a["holder"] == 0 and a["bidders"] == [] for a in auctions)
    assert any(s["declared"] and s["declared"].get("target") == 81 for s in states)
    final = states[-1]
    assert final["phase"] == "finished" and final["last_deal"]["game"] == "solo_tout"
    assert "target" not in final["last_deal"]
    assert any(s["last_deal"] and s["last_deal"].get("target") == 81 for s in states)
    assert final["scores"]["deals"][3] == [100, 100, -100, -100]  # Vorhand 3 and dealer 2 paid the Solo base
    assert sum(final["scores"]["totals"]) + final["scores"]["stock"] == 0

    # The feed: the new events carry the documented keys; settlements are SchafkopfDealSettledData.
    spectator = _events(client, game_id, {})
    for event in spectator:
        validate_schema(event, "SchafkopfEvent")
        if event["type"] in NEW_EVENT_KEYS:
            always, sometimes = NEW_EVENT_KEYS[event["type"]]
            keys = set(event["data"])
            assert always <= keys <= always | sometimes, event
        if event["type"] == "DealSettled":
            validate_schema(event["data"], "SchafkopfDealSettledData")
    types = [e["type"] for e in spectator]
    for kind in ("AuctionOpened", "BidMade", "BidPassed", "SchieberSpoken", "ObersHandedOver", "CardsPushed",
                 "CardsReceived", "SchieberrundePaid"):
        assert kind in types, kind
    by_type = {kind: [e["data"] for e in spectator if e["type"] == kind] for kind in set(types)}
    assert [d.get("schieberrunde_next") for d in by_type["DealSettled"]] == [True, True, True, True]
    assert [d.get("target") for d in by_type["DealSettled"]] == [81, None, None, None]
    assert [d.get("schieberrunde") for d in by_type["HandsDealt"]] == [None, True, True, True, None]
    assert any(d.get("auction") is True for d in by_type["GameNamed"])
    assert by_type["AuctionOpened"] == [{"seats": [0, 1, 3], "holder": 0, "target": 61}]
    assert {"seat": 1, "target": 71, "call": "70"} in by_type["BidMade"]
    assert by_type["ObersHandedOver"] == [{"seat": 1, "to": 0, "cards": ["EO", "GO"]}]
    assert {"seat": 1, "play": False, "call": "Ich spiele nicht", "offered_to": 0} in by_type["SchieberSpoken"]
    assert by_type["SchieberrundePaid"] == [{"deal": 3, "dealer": 2, "payers": [3, 2], "price": 50,
                                             "payments": [100, 100, -100, -100]}]
    declared = by_type["GameDeclared"]
    assert [d.get("schieberrunde") for d in declared] == [None, True, True, None]
    assert [d.get("target") for d in declared] == [81, None, None, None]
    # Once finished, the feed is whole.
    pushed = [e for e in spectator if e["type"] in ("CardsPushed", "CardsReceived")]
    assert len(pushed) == 6 and all(len(e["data"]["cards"]) == 2 and not e["redacted"] for e in pushed)
    assert [e["data"]["hint"]["suit"] for e in pushed if "hint" in e["data"]] == ["E", "E"]
    transcript = client.get(f"/v1/games/{game_id}/transcript").get_data(as_text=True)
    assert re.search(r'pushes \S+ \S+ to seat \d with the hint "2 above" H\S+ \(E\)', transcript), transcript


@pytest.mark.parametrize("rules,field", [
    ({"deck": "short", "allowed_games": ["sie", "rufspiel"]}, "rules.allowed_games"),
    ({"deck": "short", "allowed_games": ["bettel", "rufspiel"]}, "rules.allowed_games"),
    ({"deck": "short", "all_pass": "ramsch"}, "rules.all_pass"),
    ({"all_pass": "muss", "allowed_games": ["solo", "wenz"]}, "rules.all_pass"),
    ({"renonce": True, "allowed_games": ["solo"]}, "rules.renonce"),
    ({"auction": True, "allowed_games": ["solo_tout", "bettel", "rufspiel"]}, "rules.auction"),
    ({"schieberrunde": True, "allowed_games": ["wenz", "rufspiel"]}, "rules.schieberrunde"),
    ({"schieberrunde_hinting": True}, "rules.schieberrunde_hinting"),
])
def test_schafkopf_invalid_combinations_are_422_invalid_setup(client, rules, field):
    """Each option is valid on its own (the spec's schema accepts it); only the combination is refused."""
    validate_schema(rules, "SchafkopfRules")
    response = client.post("/v1/games", json={"game": "schafkopf", "players": 4, "rules": rules})
    validate_response(response, "/v1/games", "post")
    body = response.get_json()
    assert (response.status_code, body["code"]) == (422, "invalid_setup")
    assert field in body["errors"], body["errors"]


@pytest.mark.parametrize("rules,field", [
    ({"preset": "pub"}, "rules.preset"),
    ({"stoss": 5}, "rules.stoss"),
    ({"doppeln": "yes"}, "rules.doppeln"),
    ({"hochzeit": "yes"}, "rules.hochzeit"),
    ({"auction": 1}, "rules.auction"),
    ({"schieberrunde": "true"}, "rules.schieberrunde"),
    ({"schieberrunde_hinting": 1}, "rules.schieberrunde_hinting"),
    ({"tariffs": {"hochzeit": {"bonus": 5}}}, "rules.tariffs.hochzeit"),
    ({"tariffs": {"tout_factor": 0}}, "rules.tariffs.tout_factor"),
    ({"tariffs": {"schieber": 5}}, "rules.tariffs"),
    ({"klopfen": True}, "rules"),
])
def test_schafkopf_bad_options_are_refused_by_spec_and_server(client, rules, field):
    with pytest.raises(jsonschema.ValidationError):
        validate_schema(rules, "SchafkopfRules")
    response = client.post("/v1/games", json={"game": "schafkopf", "players": 4, "rules": rules})
    validate_response(response, "/v1/games", "post")
    assert response.status_code == 422 and field in response.get_json()["errors"]


def test_schafkopf_spec_matches_the_code():
    """The spec's Schafkopf options, tariffs and commands are exactly the code's."""
    from api.commands import schafkopf as commands
    from domain.schafkopf import game_types, ruleset, tariffs

    schemas = SPEC["components"]["schemas"]
    options = schemas["SchafkopfRules"]["properties"]
    assert set(options) == set(ruleset.CHOICES) | set(ruleset.OTHER_OPTIONS)
    assert options["preset"]["enum"] == list(ruleset.PRESETS)
    for name, (default, allowed) in ruleset.CHOICES.items():
        schema = options[name]
        assert schema["default"] == default, name
        if "enum" in schema:
            assert set(schema["enum"]) == set(allowed), name
        elif schema["type"] == "integer":
            assert list(range(schema["minimum"], schema["maximum"] + 1)) == list(allowed), name
        else:
            assert schema["type"] == "boolean" and set(allowed) == {True, False}, name
    assert set(schemas["SchafkopfTariffs"]["properties"]) == set(tariffs.DEFAULT_TARIFFS)
    assert schemas["SchafkopfGameType"]["enum"] == list(game_types.PRECEDENCE)

    mapping = schemas["SchafkopfCommand"]["discriminator"]["mapping"]
    assert set(mapping) == set(commands.COMMANDS)
    assert len(schemas["SchafkopfCommand"]["oneOf"]) == len(commands.COMMANDS)
    for kind, ref in mapping.items():
        schema = schemas[ref.rsplit("/", 1)[1]]
        fields = set(commands.COMMANDS[kind]().fields)
        assert set(schema["properties"]) == fields, kind
        assert set(schema["required"]) == {n for n, f in commands.COMMANDS[kind]().fields.items() if f.required}
        assert schema["properties"]["type"]["enum"] == [kind]
    assert schemas["SchafkopfNameGame"]["properties"]["game"] == {"$ref": "#/components/schemas/SchafkopfNamedGame"}
    assert schemas["SchafkopfNamedGame"]["enum"] == commands.GAMES


@pytest.mark.parametrize("command", [
    {"type": "doppeln", "double": 1}, {"type": "doppeln", "double": 0},
    {"type": "schieber", "play": 1}, {"type": "schieber", "play": "true"},
])
def test_schafkopf_boolean_fields_refuse_numbers(client, command):
    """Only JSON true/false: 1 == True in Python, so a plain marshmallow Boolean took numbers."""
    rules = {"doppeln": "all", "deals": 1, "hochzeit": True, "schieberrunde": True}
    game_id, tokens = _four_humans(client, rules, SCHAFKOPF_DEALS[:1])
    seat = client.get(f"/v1/games/{game_id}").get_json()["to_act"][0]
    for schema in ("Command", "SchafkopfCommand"):
        with pytest.raises(jsonschema.ValidationError):
            validate_schema(command, schema)
    response = client.post(f"/v1/games/{game_id}/commands", json=command, headers=bearer(tokens[seat]))
    validate_response(response, "/v1/games/{id}/commands", "post")
    assert (response.status_code, response.get_json()["code"]) == (422, "validation_error")


def test_schafkopf_spec_booleans_are_the_codes_strict_booleans():
    """Every boolean field of a Schafkopf command is a StrictBoolean in the code and `type: boolean` here."""
    from marshmallow import fields as mfields

    from api.commands import schafkopf as commands
    from api.commands.base import StrictBoolean

    schemas = SPEC["components"]["schemas"]
    mapping = schemas["SchafkopfCommand"]["discriminator"]["mapping"]
    for kind, schema_cls in commands.COMMANDS.items():
        properties = schemas[mapping[kind].rsplit("/", 1)[1]]["properties"]
        for name, field in schema_cls().fields.items():
            if isinstance(field, mfields.Boolean):
                assert isinstance(field, StrictBoolean), (kind, name)
                assert properties[name] == {"type": "boolean"}, (kind, name)
            elif properties[name].get("type") == "boolean":
                raise AssertionError(f"{kind}.{name} is boolean in the spec only")


@pytest.mark.parametrize("command", [
    {"type": "bid", "target": 80}, {"type": "bid", "target": 121}, {"type": "bid", "target": "81"},
    {"type": "bid"}, {"type": "pass", "target": 71}, {"type": "schieber"},
    {"type": "push", "cards": ["EA"]}, {"type": "push", "cards": ["EA", "E10", "EK"]},
    {"type": "push", "cards": ["EA", "Z9"]}, {"type": "push", "cards": "EA,E10"},
])
def test_schafkopf_bad_auction_and_schieber_commands_are_refused_by_spec_and_server(client, command):
    with pytest.raises(jsonschema.ValidationError):
        validate_schema(command, "SchafkopfCommand")
    game_id, tokens = _four_humans(client, {"deals": 1, "auction": True, "schieberrunde": True},
                                   SCHAFKOPF_DEALS[:1])
    seat = client.get(f"/v1/games/{game_id}").get_json()["to_act"][0]
    response = client.post(f"/v1/games/{game_id}/commands", json=command, headers=bearer(tokens[seat]))
    validate_response(response, "/v1/games/{id}/commands", "post")
    assert response.status_code == 422, response.get_json()


