"""6. Whole games of every game, player count and phase, every real response body validated with
openapi-schema-validator's ``OAS30Validator`` - OpenAPI 3.0.3 read literally (``nullable`` only next to
``type``, discriminators enforced) - against the response schema of the operation that answered it.

Checked at every step: the summary, the spectator's and the acting seat's view, the command's answer,
the event pages as the spectator and as the acting seat see them (redacted, fetched incrementally);
once per phase a rejected command's problem (409, and 422 in the play phase); after the end the whole
unredacted feed and the event stream. The last test asserts that the games reached every event type
of every game's event union and every phase a client can observe, so no schema goes untested.
"""
from __future__ import annotations

import copy
import json

import pytest
from openapi_schema_validator import OAS30Validator, oas30_format_checker
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from .spec import SCHAFKOPF_HOUSE_RULES, SPEC, bearer
from .test_schafkopf import (
    AUCTION_SCHIEBER_RULES,
    SCHAFKOPF_DEALS,
    _auction_schieber_choice,
    _auction_schieber_deals,
    _schafkopf_choice,
)

URI = "urn:stich:openapi"
REGISTRY = Registry().with_resource(URI, Resource.from_contents(SPEC, default_specification=DRAFT4))
_VALIDATORS: dict[str, OAS30Validator] = {}

# What the games below must have shown (filled by the game tests, checked by the coverage test).
SEEN: dict[str, dict[str, set]] = {}
WALKED: set[str] = set()
GAME_TESTS = 17  # the game tests (with their parameters) that the coverage test needs
# Phases a client never sees. None: "dealing" (the system deals in the same request that makes a
# deal due) shows in a game cut short at its deal ceiling, between its last deal and the next.
UNOBSERVABLE_PHASES: set[str] = set()


def _escape(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


def validator_at(pointer: str) -> OAS30Validator:
    """An ``OAS30Validator`` for the schema at ``pointer`` in openapi.yaml (its ``$ref``s resolve in the document)."""
    validator = _VALIDATORS.get(pointer)
    if validator is None:
        validator = _VALIDATORS[pointer] = OAS30Validator(
            {"$ref": f"{URI}#{pointer}"}, registry=REGISTRY, format_checker=oas30_format_checker)
    return validator


def schema_validator(name: str) -> OAS30Validator:
    return validator_at(f"/components/schemas/{name}")


def check(response, path: str, method: str, status: int | None = None):
    """The status is documented for the operation; the body is valid against that response's schema."""
    if status is not None:
        assert response.status_code == status, (response.status_code, response.get_json())
    responses = SPEC["paths"][path][method]["responses"]
    code = str(response.status_code)
    assert code in responses, f"{method.upper()} {path} answered {code}, documented: {sorted(responses)}"
    pointer = ["paths", path, method, "responses", code]
    entry = responses[code]
    if "$ref" in entry:  # a shared response, #/components/responses/<Name>
        pointer = entry["$ref"].lstrip("#/").split("/")
        entry = SPEC["components"]["responses"][pointer[-1]]
    assert response.mimetype in entry["content"], (response.mimetype, code)
    body = response.get_json()
    validator_at("/" + "/".join(_escape(p) for p in [*pointer, "content", response.mimetype, "schema"])).validate(body)
    return body


# --------------------------------------------------------------------------- walking a game


def _deck(game: str, players: int) -> list[str]:
    if game == "scharfe-schoten":
        from domain.scharfe_schoten.cards import SPICE_DECK
        return list(SPICE_DECK)
    if game == "schafkopf":
        from domain.schafkopf.cards import DECK
        return list(DECK)
    from domain.scharwenzel.cards import deck
    return list(deck(players))


PLAY_PHASES = {"playing", "play"}
PAGE = 200  # events per page (below the server's 500, so long games page)


class Walk:
    """One game with human seats only, every response validated."""

    def __init__(self, request, client, game: str, players: int, rules: dict, preset_deals: list | None = None,
                 limits: dict | None = None, clock: dict | None = None):
        WALKED.add(request.node.name)
        self.client, self.game, self.players = client, game, players
        body = {"game": game, "players": players, "rules": rules, "seats": [{"kind": "human"}] * players}
        if preset_deals is not None:
            body["preset_deals"] = preset_deals
        if limits is not None:
            body["limits"] = limits
        if clock is not None:
            body["clock"] = clock
        schema_validator("CreateGame").validate(body)
        created = check(client.post("/v1/games", json=body), "/v1/games", "post", 201)
        self.id = created["id"]
        self.url = f"/v1/games/{self.id}"
        waiting = check(client.get(f"{self.url}/view"), "/v1/games/{id}/view", "get", 200)
        assert waiting["game_state"] is None and waiting["status"] == "waiting"
        self.tokens = {}
        for seat in range(players):
            granted = check(client.post(f"{self.url}/seats/{seat}", json={}), "/v1/games/{id}/seats/{seat}", "post",
                            201)
            self.tokens[seat] = granted["token"]
        self.after: dict = {}  # viewer -> the last seq of its incremental feed
        self.seen = SEEN.setdefault(game, {"events": set(), "phases": set(), "problems": set()})
        self.probed: set[str] = set()
        self.moves = 0

    def headers(self, seat: int | None) -> dict:
        return {} if seat is None else bearer(self.tokens[seat])

    def feed(self, seat: int | None, running: bool) -> list[dict]:
        """The viewer's events since its last call, page by page; `redacted` exactly where the viewer's
        data is cut (while the game runs: a non-public event, unless it is the viewer's own `seat` event)."""
        out: list[dict] = []
        while True:
            after = self.after.get(seat, 0)
            page = check(self.client.get(f"{self.url}/events?after={after}&limit={PAGE}", headers=self.headers(seat)),
                         "/v1/games/{id}/events", "get", 200)
            assert page["game"] == self.game
            for event in page["events"]:
                self.seen["events"].add(event["type"])
                visibility = event["visibility"]
                hidden = visibility["scope"] != "public" and not (
                    visibility["scope"] == "seat" and visibility.get("seat") == seat)
                assert event["redacted"] is (running and hidden), event
            out += page["events"]
            if page["events"]:
                self.after[seat] = page["events"][-1]["seq"]
            if len(page["events"]) < PAGE:
                return out

    def probe(self, view: dict, seat: int) -> None:
        """Once per phase, a command the rules refuse now: its problem (with the seat's `legal`) is checked."""
        phase = view["game_state"]["phase"]
        if phase in self.probed:
            return
        self.probed.add(phase)
        hand = set(view["game_state"]["hand"] or ())
        card = next(c for c in _deck(self.game, self.players) if c not in hand)
        url, headers = f"{self.url}/commands", self.headers(seat)
        refused = check(self.client.post(url, json={"type": "play", "card": card}, headers=headers),
                        "/v1/games/{id}/commands", "post", 409)
        assert refused["legal"] == view["legal"] and refused["current_seq"] >= 1
        self.seen["problems"].add(refused["code"])
        unknown = check(self.client.post(url, json={"type": "dance"}, headers=headers),
                        "/v1/games/{id}/commands", "post", 422)
        self.seen["problems"].add(unknown["code"])
        if phase in PLAY_PHASES:
            bad_card = check(self.client.post(url, json={"type": "play", "card": "Z9"}, headers=headers),
                             "/v1/games/{id}/commands", "post", 422)
            assert bad_card["code"] == "unknown_card" and bad_card["legal"] == view["legal"]
            self.seen["problems"].add(bad_card["code"])

    def play(self, choose, max_moves: int = 1500) -> dict:
        """Walk to the end with ``choose(legal, view, seat)``; returns the final spectator view."""
        for _ in range(max_moves):
            check(self.client.get(self.url), "/v1/games/{id}", "get", 200)
            spectator = check(self.client.get(f"{self.url}/view"), "/v1/games/{id}/view", "get", 200)
            assert spectator["viewer"] is None and spectator["legal"] == []
            self.seen["phases"].add(spectator["game_state"]["phase"])
            if spectator["status"] == "finished":
                return spectator
            seat = spectator["to_act"][0]
            view = check(self.client.get(f"{self.url}/view", headers=self.headers(seat)),
                         "/v1/games/{id}/view", "get", 200)
            assert view["viewer"] == seat and view["legal"]
            for command in view["legal"]:  # each is also a game-independent `Command` (the postCommand body)
                schema_validator("Command").validate(command)
            self.feed(None, running=True)
            self.feed(seat, running=True)
            self.probe(view, seat)
            command = choose(view["legal"], view, seat)
            assert command in view["legal"], (command, view["legal"])
            headers = {**self.headers(seat), "Idempotency-Key": f"move-{self.moves}"}
            answer = check(self.client.post(f"{self.url}/commands", json=command, headers=headers),
                           "/v1/games/{id}/commands", "post", 200)
            assert answer["game"] == self.game and answer["duplicate"] is False and answer["events"]
            self.seen["events"].update(e["type"] for e in answer["events"])
            if self.moves == 0:  # the replayed answer of a repeated Idempotency-Key
                again = check(self.client.post(f"{self.url}/commands", json=command, headers=headers),
                              "/v1/games/{id}/commands", "post", 200)
                assert again["duplicate"] is True and again["events"] == answer["events"]
            self.moves += 1
        raise AssertionError(f"{self.game} did not finish in {max_moves} moves")

    def finish(self) -> list[dict]:
        """After the end: every view, the whole feed (unredacted) and the stream, all checked."""
        for seat in range(self.players):
            view = check(self.client.get(f"{self.url}/view", headers=self.headers(seat)),
                         "/v1/games/{id}/view", "get", 200)
            assert view["status"] == "finished" and view["legal"] == []
        summary = check(self.client.get(self.url), "/v1/games/{id}", "get", 200)
        assert "seed" in summary and summary["scores"]["ranking"]
        self.after = {}
        events = self.feed(None, running=False) + self.feed(0, running=False)
        assert [e["seq"] for e in events] == list(range(1, summary["seq"] + 1)) * 2
        assert events[-1]["type"] == "SeedRevealed"
        stream = self.client.get(f"{self.url}/events/stream?timeout=5")
        assert stream.status_code == 200 and stream.mimetype == "text/event-stream"
        union = schema_validator({"scharfe-schoten": "ScharfeSchotenEvent", "schafkopf": "SchafkopfEvent",
                                  "scharwenzel": "ScharwenzelEvent"}[self.game])
        messages = [block for block in stream.get_data(as_text=True).split("\n\n") if block.startswith("id: ")]
        assert len(messages) == summary["seq"]
        for block in messages:
            fields = dict(line.split(": ", 1) for line in block.splitlines())
            schema_validator("ServerSentEvent").validate(fields)
            union.validate(json.loads(fields["data"]))
        return events


def first_legal(legal: list[dict], view: dict, seat: int) -> dict:
    return legal[0]


# --------------------------------------------------------------------------- Scharfe Schoten


@pytest.mark.parametrize("players,rounds", [(3, 2), (4, 1)])
def test_scharfe_schoten_conforms_strictly(request, client, players, rounds):
    walk = Walk(request, client, "scharfe-schoten", players, {"rounds": rounds})
    final = walk.play(first_legal)
    assert final["game_state"]["round"] == rounds
    walk.finish()


# --------------------------------------------------------------------------- Schafkopf


def _schafkopf_player(legal: list[dict], view: dict, seat: int) -> dict:
    """Default rules: everybody who can says "Ich spiele" (so deals are played, not thrown in)."""
    wish = {"type": "announce", "intent": "play"}
    return wish if wish in legal else legal[0]


def _shifted(choose, by: int):
    """``choose`` as if the deal index were ``by`` higher (to play one of SCHAFKOPF_DEALS on its own)."""
    def shifted(legal, view, seat):
        state = dict(view["game_state"], deal=view["game_state"]["deal"] + by)
        return choose(legal, dict(view, game_state=state), seat)
    return shifted


def test_schafkopf_default_rules_conform_strictly(request, client):
    walk = Walk(request, client, "schafkopf", 4, {"deals": 2})
    walk.play(_schafkopf_player)
    walk.finish()


@pytest.mark.parametrize("all_pass", ["ramsch", "muss", "stock_double"])
def test_schafkopf_house_rules_conform_strictly(request, client, all_pass):
    """All house rules (Doppeln, Hochzeit, Stoß, Renonce …); `ramsch` plays all three SCHAFKOPF_DEALS, the
    others only the all-pass deal (a Muss-Spiel; a Renonce round nobody takes, then a Stock paid in)."""
    if all_pass == "ramsch":
        walk = Walk(request, client, "schafkopf", 4, dict(SCHAFKOPF_HOUSE_RULES, all_pass=all_pass), SCHAFKOPF_DEALS)
        walk.play(_schafkopf_choice)
    else:
        walk = Walk(request, client, "schafkopf", 4, dict(SCHAFKOPF_HOUSE_RULES, all_pass=all_pass, deals=1),
                    SCHAFKOPF_DEALS[1:2])
        walk.play(_shifted(_schafkopf_choice, 1))
    walk.finish()


def test_schafkopf_auction_and_schieberrunde_conform_strictly(request, client):
    walk = Walk(request, client, "schafkopf", 4, AUCTION_SCHIEBER_RULES, _auction_schieber_deals())
    walk.play(_auction_schieber_choice)
    walk.finish()


# --------------------------------------------------------------------------- Scharwenzel

# Three deals (dealer 3 first) in which the policy below bids, names trumps, declines and announces a Tout and
# side 0 - holding the seven matadors - wins a thread: every Scharwenzel event type.
SCHARWENZEL_DEALS = [
    {"dealer": 3, "hands": ["QC 7C QS JC KH 10C 8C 7S", "8H AH AC 9C 10H 9S 7D AD",
                            "JS JH JD KD 10D 10S KC 7H", "KS 9H 8S QD 8D 9D QH AS"]},
    {"hands": ["QC 7C QS JC 8S 10D 9S 7D", "10S 8H KH 9D QH QD 8C AC",
               "JS JH JD 8D KS AD AS 10C", "AH 9C 9H 7H 7S KC 10H KD"]},
    {"hands": ["QC 7C QS JC AC 7S KC AH", "8C QD 9S KD AS 7H KH 7D",
               "JS JH JD 8H 10H 8S 8D QH", "9C 9D AD 10D KS 10C 10S 9H"]},
]


def _scharwenzel_deals() -> list[dict]:
    return [{**deal, "hands": [hand.split() for hand in deal["hands"]]} for deal in SCHARWENZEL_DEALS]


def _scharwenzel_choice(legal: list[dict], view: dict, seat: int) -> dict:
    """Bid the lowest bid you can, else pass; in deal 1 the first seat asked announces a Tout."""
    state = view["game_state"]
    if state["phase"] == "bidding":
        return next((c for c in legal if c["type"] == "bid"), legal[0])
    if state["phase"] == "tout":
        return {"type": "announce_tout" if state["deal"] == 1 else "no_tout"}
    return legal[0]


def test_scharwenzel_preset_deals_reach_every_event(request, client):
    walk = Walk(request, client, "scharwenzel", 4, {"deals": 3}, _scharwenzel_deals())
    final = walk.play(_scharwenzel_choice)
    assert final["game_state"]["score_sheet"]["threads"] != [0, 0]
    walk.finish()


@pytest.mark.parametrize("players,rules", [
    (4, {"deals": 1, "announced_tout": False, "bock_value": "game_and_matadors"}),
    (6, {"deals": 1}),
    (8, {"deals": 1}),
])
def test_scharwenzel_conforms_strictly(request, client, players, rules):
    walk = Walk(request, client, "scharwenzel", players, rules)
    walk.play(_scharwenzel_choice)
    walk.finish()


# --------------------------------------------------------------------------- every game, cut short


@pytest.mark.parametrize("game,players,rules", [
    ("scharfe-schoten", 3, {"rounds": 3}), ("schafkopf", 4, {"deals": 3}), ("scharwenzel", 4, {"deals": 3}),
])
def test_a_game_cut_short_at_its_deal_ceiling_conforms_strictly(request, client, game, players, rules):
    choose = {"scharfe-schoten": first_legal, "schafkopf": _schafkopf_player, "scharwenzel": _scharwenzel_choice}
    walk = Walk(request, client, game, players, rules, limits={"max_deals": 1})
    final = walk.play(choose[game])
    assert final["cut_short"] == "max_deals" and final["limits"]["max_deals"] == 1
    events = walk.finish()
    assert [e["type"] for e in events if e["type"] in ("GameCutShort", "SeedRevealed")][:2] == [
        "GameCutShort", "SeedRevealed"]


@pytest.mark.parametrize("game,players,rules", [
    ("scharfe-schoten", 3, {"rounds": 1}), ("schafkopf", 4, {"deals": 2}), ("scharwenzel", 4, {"deals": 1}),
])
def test_a_clocked_game_with_time_outs_and_a_seat_taken_again_conforms_strictly(request, client, monkeypatch,
                                                                                 game, players, rules):
    """Seats time out (the worker's system command, at a chosen time) until one is abandoned and its
    bot plays it; the seat is taken again with a new token; then the game is played to the end."""
    from domain.clock import iso, millis
    from workers.deadline import time_out_turn

    handler = client.application.extensions["stich"].handler
    now = [1_900_000_000_000]
    monkeypatch.setattr(handler, "clock", lambda: iso(now[0]))
    monkeypatch.setattr("workers.deadline.time.time", lambda: now[0] / 1000)
    choose = {"scharfe-schoten": first_legal, "schafkopf": _schafkopf_player, "scharwenzel": _scharwenzel_choice}
    walk = Walk(request, client, game, players, rules, clock={"per_move_s": 2, "bank_s": 1, "abandon_after": 2})
    # A pause (a tournament's organiser's, through the handler) and a resume: the paused views conform too.
    handler.execute(walk.id, None, {"type": "pause"})
    paused = check(client.get(walk.url), "/v1/games/{id}", "get", 200)
    assert paused["paused"] is True and paused["to_act"] == []
    check(client.get(f"{walk.url}/view", headers=walk.headers(0)), "/v1/games/{id}/view", "get", 200)
    now[0] += 60_000
    handler.execute(walk.id, None, {"type": "resume"})
    for _ in range(40):
        summary = check(client.get(walk.url), "/v1/games/{id}", "get", 200)
        seats = summary["clock"]["seats"]
        abandoned = [c["seat"] for c in seats if c["abandoned"]]
        if abandoned or summary["status"] == "finished":
            break
        seat = summary["to_act"][0]
        now[0] = millis(seats[seat]["deadline_at"])
        assert time_out_turn(walk.id, seat, summary["seq"], handler=handler) == "timed out"
    assert abandoned, "no seat was abandoned"
    seat = abandoned[0]
    card = _deck(game, players)[0]  # a well-formed command: the token is what is refused
    refused = check(client.post(f"{walk.url}/commands", json={"type": "play", "card": card}, headers=walk.headers(seat)),
                    "/v1/games/{id}/commands", "post", 409)
    assert refused["code"] == "seat_reclaimed"
    walk.seen["problems"].add(refused["code"])
    granted = check(client.post(f"{walk.url}/seats/{seat}", json={}), "/v1/games/{id}/seats/{seat}", "post", 201)
    walk.tokens[seat] = granted["token"]
    walk.play(choose[game])
    events = walk.finish()
    assert {"TurnTimedOut", "SeatReclaimed"} <= {e["type"] for e in events}


# --------------------------------------------------------------------------- coverage and non-vacuity


def _union_types(name: str) -> set[str]:
    return set(SPEC["components"]["schemas"][name]["discriminator"]["mapping"])


def _phases(name: str) -> set[str]:
    return set(SPEC["components"]["schemas"][name]["properties"]["phase"]["enum"]) - UNOBSERVABLE_PHASES


def test_the_games_reached_every_event_type_and_phase():
    """Runs after the games above: every event type of each game's union and every phase was validated."""
    expected = {"scharfe-schoten": ("ScharfeSchotenEvent", "ScharfeSchotenGameState"),
                "schafkopf": ("SchafkopfEvent", "SchafkopfGameState"),
                "scharwenzel": ("ScharwenzelEvent", "ScharwenzelGameState")}
    if len(WALKED) < GAME_TESTS:
        pytest.skip("run the whole module to check coverage")
    for game, (union, state) in expected.items():
        assert SEEN[game]["events"] == _union_types(union), (game, _union_types(union) ^ SEEN[game]["events"])
        assert SEEN[game]["phases"] == _phases(state), (game, _phases(state) ^ SEEN[game]["phases"])
        assert {"wrong_phase", "unknown_command", "unknown_card", "card_not_in_hand"} <= SEEN[game]["problems"]


def _schafkopf_finished(request, client) -> tuple[dict, list[dict]]:
    walk = Walk(request, client, "schafkopf", 4, {"deals": 1})
    walk.play(_schafkopf_player)
    view = client.get(f"{walk.url}/view", headers=walk.headers(0)).get_json()
    return view, walk.finish()


def _set(body: dict, path: str, value):
    out = copy.deepcopy(body)
    *parents, last = path.split(".")
    target = out
    for key in parents:
        target = target[int(key)] if isinstance(target, list) else target[key]
    if value is KeyError:
        del target[last]
    else:
        target[int(last) if isinstance(target, list) else last] = value
    return out


def test_the_validation_is_not_vacuous(request, client):
    """Deliberately wrong bodies fail: wrong types, missing or unknown fields, a null where none is allowed,
    another game's state, commands or event data under a game's discriminator."""
    view, events = _schafkopf_finished(request, client)
    views = validator_at("/" + "/".join(_escape(p) for p in [
        "paths", "/v1/games/{id}/view", "get", "responses", "200", "content", "application/json", "schema"]))
    views.validate(view)
    settled = next(i for i, e in enumerate(events) if e["type"] == "DealSettled")
    wrong_views = [
        _set(view, "game", "scharfe-schoten"),
        _set(view, "game", "skat"),
        _set(view, "game_state.phase", "bidding"),
        _set(view, "game_state.hand_sizes", None),
        _set(view, "game_state.last_trick", {"leader": 0}),
        _set(view, "game_state.declared.suit", "C"),
        _set(view, "game_state.mode", "ramsch"),
        _set(view, "game_state.extra", 1),
        _set(view, "viewer", "0"),
        _set(view, "legal", [{"type": "predict", "most": "R", "fewest": "G"}]),
        _set(view, "scores.totals", KeyError),
    ]
    for wrong in wrong_views:
        assert not views.is_valid(wrong), wrong
    feed = schema_validator("SchafkopfEventPage")
    page = {"id": view["id"], "game": "schafkopf", "events": events, "seq": events[-1]["seq"]}
    feed.validate(page)
    wrong_pages = [
        _set(page, f"events.{settled}.data.declarers", KeyError),
        _set(page, f"events.{settled}.data.bonus", 1),
        _set(page, f"events.{settled}.type", "RoundScored"),
        _set(page, "events.0.data.rules.deals", "8"),
        _set(page, "events.0.actor", "bot"),
        _set(page, "game", "scharwenzel"),
    ]
    for wrong in wrong_pages:
        assert not feed.is_valid(wrong)
    assert not schema_validator("ScharfeSchotenGameState").is_valid(view["game_state"])
    assert schema_validator("JsonNull").is_valid(None) and not schema_validator("JsonNull").is_valid({})
