"""4. Real tournament responses, from creation to the final standings, match openapi.yaml."""
from __future__ import annotations

import ast
from pathlib import Path

from .spec import SPEC, bearer, validate_response
from .test_strict_validation import validator_at

BASE = "/v1/tournaments/{tournament_id}"


def test_a_tournament_with_a_human_conforms_from_creation_to_the_end(client):
    created = client.post("/v1/tournaments", json={
        "game": "scharfe-schoten", "players": 3, "rounds": 1, "deals_per_table": 1, "duplicate": True,
        "participants": [{"kind": "human"}] + [{"kind": "bot", "bot": "heuristic"}] * 5})
    validate_response(created, "/v1/tournaments", "post")
    tid, organizer = created.get_json()["id"], created.get_json()["token"]
    early = client.post(f"/v1/tournaments/{tid}/start", headers={"Authorization": f"Bearer {organizer}"})
    validate_response(early, BASE + "/start", "post")
    joined = client.post(f"/v1/tournaments/{tid}/participants/0")
    validate_response(joined, BASE + "/participants/{participant}", "post")
    token = joined.get_json()["token"]
    validate_response(client.post(f"/v1/tournaments/{tid}/participants/0"), BASE + "/participants/{participant}",
                      "post")
    started = client.post(f"/v1/tournaments/{tid}/start", headers={"Authorization": f"Bearer {organizer}"})
    validate_response(started, BASE + "/start", "post")
    seat = client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers={"Authorization": f"Bearer {token}"})
    validate_response(seat, BASE + "/participants/{participant}/seat", "post")
    validate_response(client.get(f"/v1/tournaments/{tid}"), BASE, "get")
    validate_response(client.get(f"/v1/tournaments/{tid}/events"), BASE + "/events", "get")
    game, seat_token = seat.get_json()["game_id"], seat.get_json()["token"]
    auth = {"Authorization": f"Bearer {seat_token}"}
    for _ in range(200):
        view = client.get(f"/v1/games/{game}/view", headers=auth).get_json()
        if view["status"] == "finished":
            break
        client.post(f"/v1/games/{game}/commands", json=view["legal"][0], headers=auth)
    finished = client.get(f"/v1/tournaments/{tid}")
    validate_response(finished, BASE, "get")
    assert finished.get_json()["status"] == "finished"
    validate_response(client.get(f"/v1/tournaments/{tid}/standings"), BASE + "/standings", "get")
    validate_response(client.get(f"/v1/tournaments/{tid}/standings?format=csv"), BASE + "/standings", "get")
    validate_response(client.get(f"/v1/tournaments/{tid}/events"), BASE + "/events", "get")
    validate_response(client.get("/v1/tournaments/t000000000000000"), BASE, "get")


# --------------------------------------------------------------------------- the events, typed per type

def emitted_tournament_event_types() -> set[str]:
    """Every type the tournament decider can write: its literal ``Event("Type", ...)`` calls, and the
    seed reveal it shares with tables (``seed_revealed``)."""
    root = Path(__file__).resolve().parents[3] / "domain" / "tournament"
    out = set()
    for path in sorted(root.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name == "Event" and node.args and isinstance(node.args[0], ast.Constant):
                out.add(node.args[0].value)
            elif name == "seed_revealed":
                out.add("SeedRevealed")
    return out


def test_every_tournament_event_type_the_decider_writes_has_a_typed_schema_and_no_other():
    union = SPEC["components"]["schemas"]["TournamentEvent"]
    mapping = union["discriminator"]["mapping"]
    assert set(mapping) == emitted_tournament_event_types()
    assert sorted(ref["$ref"] for ref in union["oneOf"]) == sorted(mapping.values())
    for name, ref in mapping.items():
        variant = SPEC["components"]["schemas"][ref.rsplit("/", 1)[-1]]
        assert variant["properties"]["type"]["enum"] == [name]
        assert "$ref" in variant["properties"]["data"], f"{name}: data is not typed"


def feed(client, tid: str) -> list[dict]:
    page = client.get(f"/v1/tournaments/{tid}/events")
    validate_response(page, BASE + "/events", "get")
    return page.get_json()["events"]


def test_every_event_of_a_paused_withdrawn_aborted_and_a_duplicate_tournament_validates(client):
    """Strictly, by its type's schema: a tournament with every organizer's control, a secret duplicate
    one (redacted deals and results while it runs, then in full) and an aborted one."""
    strict = validator_at("/components/schemas/TournamentEvent")
    seen = set()

    def check(events):
        for event in events:
            strict.validate(event)
            seen.add(event["type"])

    six = [{"kind": "human"}] + [{"kind": "bot", "bot": "random"}] * 5
    created = client.post("/v1/tournaments", json={"game": "scharfe-schoten", "players": 3, "rounds": 2,
                                                   "deals_per_table": 1, "duplicate": True, "participants": six})
    tid, organizer = created.get_json()["id"], bearer(created.get_json()["token"])
    token = client.post(f"/v1/tournaments/{tid}/participants/0").get_json()["token"]
    client.post(f"/v1/tournaments/{tid}/start", headers=organizer)
    for url, body in (("/pause", {"reason": "tea"}), ("/participants/0/withdraw", {"bot": "random"})):
        answer = client.post(f"/v1/tournaments/{tid}{url}", json=body, headers=organizer)
        validate_response(answer, BASE + url.replace("/0/", "/{participant}/"), "post")
    refused = client.post(f"/v1/tournaments/{tid}/pause", headers=organizer)
    validate_response(refused, BASE + "/pause", "post")
    check(feed(client, tid))  # while it runs: the deals and a table's results are redacted
    seat = client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=bearer(token)).get_json()
    # The pause holds the open table too (GamePaused): its paused view conforms, and it plays after the resume.
    validate_response(client.get(f"/v1/games/{seat['game_id']}/view", headers=bearer(seat["token"])),
                      "/v1/games/{id}/view", "get")
    validate_response(client.post(f"/v1/tournaments/{tid}/resume", headers=organizer), BASE + "/resume", "post")
    auth = bearer(seat["token"])
    for _ in range(300):
        view = client.get(f"/v1/games/{seat['game_id']}/view", headers=auth)
        validate_response(view, "/v1/games/{id}/view", "get")
        if view.get_json()["status"] == "finished":
            break
        if view.get_json()["legal"]:
            client.post(f"/v1/games/{seat['game_id']}/commands", json=view.get_json()["legal"][0], headers=auth)
    validate_response(client.get(f"/v1/games/{seat['game_id']}"), "/v1/games/{id}", "get")
    validate_response(client.get(f"/v1/tournaments/{tid}"), BASE, "get")
    check(feed(client, tid))

    bots = client.post("/v1/tournaments", json={"game": "scharfe-schoten", "players": 3, "rounds": 1,
                                                "deals_per_table": 1, "participants": [{"kind": "bot"}] * 3})
    aborted = client.post(f"/v1/tournaments/{bots.get_json()['id']}/abort", json={"reason": "rain"},
                          headers=bearer(bots.get_json()["token"]))
    validate_response(aborted, BASE + "/abort", "post")
    check(feed(client, bots.get_json()["id"]))
    validate_response(client.get("/v1/tournaments?limit=3"), "/v1/tournaments", "get")
    validate_response(client.get("/v1/tournaments?status=nonsense"), "/v1/tournaments", "get")
    assert seen == emitted_tournament_event_types()  # every type, TournamentFinished from the duplicate one
    assert seen >= {"TournamentPaused", "TournamentResumed", "ParticipantWithdrawn", "TournamentAborted",
                    "RoundDrawn", "TableFinished", "SeedRevealed"}
