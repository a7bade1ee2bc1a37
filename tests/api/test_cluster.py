"""A whole game through the API with the event streams on a Redis Cluster."""
from __future__ import annotations

import random

from redis.cluster import RedisCluster

from api import create_app

from .play import new_game, play_to_end


def test_a_full_game_through_the_api_on_a_cluster(cluster_url):
    app = create_app(cluster_url, bots="inline")
    assert isinstance(app.extensions["stich"].store.redis, RedisCluster)
    client = app.test_client()
    game_ids = []
    for n in range(3):  # several games, so their keys land on different masters
        game_id, tokens = new_game(client, rules={"rounds": 1})
        play_to_end(client, game_id, tokens, rng=random.Random(n))
        summary = client.get(f"/v1/games/{game_id}").get_json()
        assert summary["status"] == "finished"
        events = client.get(f"/v1/games/{game_id}/events?limit=500").get_json()["events"]
        assert [e["seq"] for e in events] == list(range(1, summary["seq"] + 1))
        game_ids.append(game_id)
    listed = {g["id"] for g in client.get("/v1/games?status=finished").get_json()["games"]}
    assert set(game_ids) <= listed
