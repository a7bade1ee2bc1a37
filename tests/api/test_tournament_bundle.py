"""A tournament's bundle through the API, verified offline by ``stich verify``; tampered ones refused,
each at the event that was changed, also when the tamperer re-hashes the chain with the revealed seed."""
from __future__ import annotations

import io
import json

import pytest

from domain import chain
from stich.auditor import verify_export

from .test_tournament_controls import SIX, play, started
from .test_tournaments import bearer, run

DUPLICATE = dict(game="scharfe-schoten", players=3, rounds=2, deals_per_table=1, duplicate=True,
                 participants=[{"kind": "bot", "bot": "random"}] * 6)


def verified(tmp_path, text: str) -> tuple[int, str]:
    path = tmp_path / "bundle.ndjson"
    path.write_text(text)
    out = io.StringIO()
    return verify_export(str(path), None, out=out, err=io.StringIO()), out.getvalue()


def records(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines()]


def rechained(lines: list[dict], start: int, count: int) -> None:
    """Re-hash events ``lines[start:start+count]`` (one stream) with its revealed seed, as a tamperer
    who read the seed could: the chain then holds, and only the rules can tell."""
    seed = lines[start + count - 1]["data"]["seed"]
    previous = chain.GENESIS
    for event in lines[start:start + count]:
        event["hash"] = previous = chain.link(previous, event, seed)


def text_of(lines: list[dict]) -> str:
    return "".join(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)


@pytest.fixture(scope="module")
def duplicate_bundle(app):
    client = app.test_client()
    tournament = run(client, **DUPLICATE)
    answer = client.get(f"/v1/tournaments/{tournament['id']}/export")
    assert answer.status_code == 200 and answer.mimetype == "application/x-ndjson"
    return answer.get_data(as_text=True)


def test_a_finished_duplicate_tournaments_bundle_verifies_offline(tmp_path, duplicate_bundle):
    header = records(duplicate_bundle)[0]
    assert header["format"] == "stich-tournament-export" and header["tables"] == 4
    code, report = verified(tmp_path, duplicate_bundle)
    assert code == 0 and report.rstrip().endswith("VERIFIED"), report
    assert "every table's game verifies (4 tables)" in report


def tampered(bundle: str, change, rechain: bool) -> str:
    lines = records(bundle)
    count = lines[0]["events"]
    change(lines[1:1 + count])
    if rechain:
        rechained(lines, 1, count)
        lines[0]["head"] = lines[count]["hash"]
    return text_of(lines)


def first(events: list[dict], kind: str) -> dict:
    return next(e for e in events if e["type"] == kind)


def raise_points(events):
    first(events, "RoundFinished")["data"]["standings"][0]["points"] += 1


def swap_seats(events):
    table = first(events, "RoundDrawn")["data"]["tables"][0]["participants"]
    table[0], table[1] = table[1], table[0]


@pytest.mark.parametrize("change,kind,says", [
    (raise_points, "RoundFinished", "data.standings"),
    (swap_seats, "RoundDrawn", "data.tables"),
])
def test_a_tampered_standing_or_seat_is_named_at_its_event(tmp_path, duplicate_bundle, change, kind, says):
    events = records(duplicate_bundle)[1:]
    seq = first(events, kind)["seq"]
    code, report = verified(tmp_path, tampered(duplicate_bundle, change, rechain=False))
    assert code == 1 and f"tournament event {seq}: ({kind}) does not match its hash" in report, report
    code, report = verified(tmp_path, tampered(duplicate_bundle, change, rechain=True))
    assert code == 1 and f"tournament event {seq}: ({kind}) is not what" in report and says in report, report
    assert report.rstrip().endswith("NOT VERIFIED")


def test_a_table_played_with_other_deals_than_its_rounds_is_named_though_its_own_game_verifies(
        client, tmp_path, duplicate_bundle):
    """The forger plays a real game with the first table's seats and rules but two hands swapped, and
    puts its export, relabelled, in the table's place: the game verifies, the tournament does not."""
    lines = records(duplicate_bundle)
    start = 1 + lines[0]["events"]  # the first table's export header
    size = lines[start]["events"]
    table = lines[start + 1]["data"]
    deals = table["preset_deals"]
    deals[0]["hands"][0], deals[0]["hands"][1] = deals[0]["hands"][1], deals[0]["hands"][0]
    forged = client.post("/v1/games", json={"game": table["game"], "players": table["players"],
                                            "rules": table["rules"], "preset_deals": deals,
                                            "seats": [{"kind": s["kind"], "bot": s["bot"]} for s in table["seats"]]})
    assert forged.status_code == 201, forged.get_json()
    export = records(client.get(f"/v1/games/{forged.get_json()['id']}/export").get_data(as_text=True))
    export[0]["game_id"] = lines[start]["game_id"]
    forged_bundle = text_of(lines[:start] + export + lines[start + 1 + size:])
    code, report = verified(tmp_path, forged_bundle)
    assert code == 1, report
    assert f"table game {lines[start]['game_id']}" in report and "preset_deals is not the round's deals" in report, report


def test_a_running_tournament_has_no_bundle_and_a_paused_withdrawn_one_verifies_when_it_has_finished(
        client, tmp_path):
    tid, organizer, participant = started(client)
    refused = client.get(f"/v1/tournaments/{tid}/export")
    assert refused.status_code == 409 and refused.get_json()["code"] == "tournament_not_finished"
    client.post(f"/v1/tournaments/{tid}/pause", json={"reason": "break"}, headers=bearer(organizer))
    client.post(f"/v1/tournaments/{tid}/participants/0/withdraw", headers=bearer(organizer))
    seat = client.post(f"/v1/tournaments/{tid}/participants/0/seat", headers=bearer(participant)).get_json()
    client.post(f"/v1/tournaments/{tid}/resume", headers=bearer(organizer))  # the paused table plays on after it
    play(client, seat["game_id"], seat["token"])
    assert "GamePaused" in [e["type"] for e in client.get(f"/v1/games/{seat['game_id']}/events").get_json()["events"]]
    code, report = verified(tmp_path, client.get(f"/v1/tournaments/{tid}/export").get_data(as_text=True))
    assert code == 0, report


def test_an_aborted_tournaments_bundle_verifies_with_the_tables_it_recorded(client, tmp_path):
    tid, organizer, _ = started(client)  # one table waits for its human: recorded only the bots' table
    client.post(f"/v1/tournaments/{tid}/abort", json={"reason": "storm"}, headers=bearer(organizer))
    text = client.get(f"/v1/tournaments/{tid}/export").get_data(as_text=True)
    assert records(text)[0]["tables"] == 1
    code, report = verified(tmp_path, text)
    assert code == 0, report
    forged = text.replace('"reason":"storm"', '"reason":"storms"')
    lines = records(forged)
    rechained(lines, 1, lines[0]["events"])
    lines[0]["head"] = lines[lines[0]["events"]]["hash"]
    code, report = verified(tmp_path, text_of(lines))
    assert code == 0, report  # the reason is the organizer's word: any text verifies…
    standings = records(text)
    aborted = next(e for e in standings if e.get("type") == "TournamentAborted")
    aborted["data"]["standings"][0]["points"] += 5
    rechained(standings, 1, standings[0]["events"])
    standings[0]["head"] = standings[standings[0]["events"]]["hash"]
    code, report = verified(tmp_path, text_of(standings))
    assert code == 1 and f"tournament event {aborted['seq']}: (TournamentAborted)" in report, report  # …its standings not


