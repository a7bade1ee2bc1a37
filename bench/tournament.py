"""The "tournament at scale" phase: a bot tournament played to the end by the RQ workers.

By default the issue's size: 64 Schafkopf participants (16 tables), 3 rounds,
8 deals per table, Swiss seating, random bots. It is created and started
through the HTTP API like a tournament backend would, then followed with
``GET /v1/tournaments/{id}`` until it has finished; everything between (opening
the 16 tables of each round, every bot move, recording every table, drawing
the next round) is the workers'. Reported: the wall time from the start
request to the final standings, tables finished per minute, the moves played
(every table game's events) per second, each round's wall time, and whether
the standings equal the sum of the games' results; with the same run's
baseline B, the events per second ÷ B's requests per second (target ≥ 0.5:
a table plays at the store's speed, not the queue's).
"""
from __future__ import annotations

import json
import time
import urllib.request
from dataclasses import asdict, dataclass


@dataclass
class TournamentConfig:
    participants: int = 64
    rounds: int = 3
    deals_per_table: int = 8
    game: str = "schafkopf"
    seating: str = "swiss"
    bot: str = "random"
    timeout_s: float = 1800.0

    @classmethod
    def short(cls) -> TournamentConfig:
        return cls(participants=16, rounds=2, deals_per_table=2)


def _call(base: str, method: str, path: str, body: dict | None = None, token: str | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def run(port: int, cfg: TournamentConfig, say=print, baseline_b: dict | None = None) -> dict:
    """``baseline_b``: the same run's baseline B (``bench.__main__.run_phase``); the table events'
    rate is reported against its requests per second."""
    base = f"http://127.0.0.1:{port}/v1"
    created = _call(base, "POST", "/tournaments", {
        "name": "bench", "game": cfg.game, "rounds": cfg.rounds, "deals_per_table": cfg.deals_per_table,
        "seating": cfg.seating, "participants": [{"kind": "bot", "bot": cfg.bot}] * cfg.participants})
    tournament_id = created["id"]
    started = time.monotonic()
    _call(base, "POST", f"/tournaments/{tournament_id}/start", {}, token=created["token"])
    round_ends: dict[int, float] = {}
    while True:
        body = _call(base, "GET", f"/tournaments/{tournament_id}")
        for round_ in body["schedule"]:
            if round_["finished"] and round_["round"] not in round_ends:
                round_ends[round_["round"]] = time.monotonic() - started
                say(f"round {round_['round']} finished after {round_ends[round_['round']]:.1f}s")
        if body["status"] == "finished":
            break
        if time.monotonic() - started > cfg.timeout_s:
            raise RuntimeError(f"the tournament did not finish within {cfg.timeout_s:.0f}s")
        time.sleep(0.25)
    wall = time.monotonic() - started
    tables = sum(len(r["tables"]) for r in body["schedule"])
    events, results = 0, {}
    for round_ in body["schedule"]:
        for table in round_["tables"]:
            game = _call(base, "GET", f"/games/{table['game_id']}")
            events += game["seq"]
            for seat, participant in enumerate(table["participants"]):
                results[participant] = results.get(participant, 0) + game["scores"]["totals"][seat]
    standings_match = all(row["points"] == results[row["participant"]] for row in body["standings"])
    durations = [round_ends[n] - round_ends.get(n - 1, 0.0) for n in sorted(round_ends)]
    out = {"config": asdict(cfg), "tournament_id": tournament_id, "wall_s": round(wall, 2), "tables": tables,
           "tables_per_min": round(tables / wall * 60, 1), "events": events,
           "events_per_s": round(events / wall, 1), "round_wall_s": [round(d, 2) for d in durations],
           "standings_match_games": standings_match}
    if baseline_b is not None:
        out["baseline_b_per_s"] = round(baseline_b["per_s"], 1)
        out["events_over_b"] = round(events / wall / baseline_b["per_s"], 3) if baseline_b["per_s"] else None
    return out


def table_rows(t: dict) -> list[tuple[str, str, str]]:
    cfg = t["config"]
    return [
        (f"tournament ({cfg['participants']} {cfg['game']}, {cfg['rounds']} rounds × {cfg['deals_per_table']} deals)",
         f"{t['wall_s']:.1f} s", f"{t['tables']} tables, {t['tables_per_min']:.1f} tables/min"),
        ("tournament events", f"{t['events_per_s']:.0f} events/s",
         "rounds " + ", ".join(f"{d:.1f}s" for d in t["round_wall_s"])),
        ("tournament standings = games' sums", "yes" if t["standings_match_games"] else "NO", ""),
    ] + ([("tournament events / B", f"{t['events_over_b']:.3f}", f"B {t['baseline_b_per_s']:.0f} req/s")]
         if t.get("events_over_b") is not None else [])


def targets(t: dict) -> dict:
    out = {"tournament_finished": True, "tournament_standings_match": t["standings_match_games"]}
    if t.get("events_over_b") is not None:
        out["tournament_events_over_b>=0.5"] = t["events_over_b"] >= 0.5
    return out
