"""A cluster client finds ``XREAD``'s keys itself (``eventstore.connection.StreamRoutingCluster``).

redis-py asks the client's default node, one of the masters, for the keys of a command whose keys
move. With that master dead, every ``XREAD`` failed before it reached the game's own node, and
redis-py never refreshed its view of the cluster: Compose's cluster test saw a game's streams stop
for good after its master's replica was promoted."""
from __future__ import annotations

import pytest
from redis.exceptions import RedisClusterException

from eventstore.connection import StreamRoutingCluster, connect, connect_blocking
from stich.cluster import LocalCluster


def test_xread_is_placed_by_its_streams_keys_however_they_are_spelled(cluster_url):
    client = connect(cluster_url)
    assert isinstance(client, StreamRoutingCluster)
    key = "stich:{g:routing}:events"
    assert client.determine_slot("XREAD", b"COUNT", 5, b"BLOCK", 10, b"STREAMS", key, "0-0") == client.keyslot(key)
    assert client.determine_slot("xread", "streams", key, key + ":x", "0-0", "0-0") == client.keyslot(key)
    with pytest.raises(RedisClusterException, match="one hash slot"):
        client.determine_slot("XREAD", "STREAMS", "stich:{g:a}:events", "stich:{g:b}:events", "0-0", "0-0")
    assert client.determine_slot("GET", key) == client.keyslot(key)  # every other command: redis-py's own routing


def test_a_game_on_a_live_master_is_read_while_the_default_node_is_dead():
    cluster = LocalCluster(masters=3).start()
    try:
        client = connect_blocking(cluster.url, 1.0, max_connections=4)
        default = client.get_default_node()
        key = next(f"stich:{{g:{n}}}:events" for n in range(1000)
                   if client.nodes_manager.get_node_from_slot(client.keyslot(f"stich:{{g:{n}}}:events")).name
                   != default.name)
        client.xadd(key, {"type": "dealt"})
        victim = next(node for node in cluster.nodes if node.port == default.port)
        victim.process.kill()
        victim.process.wait()
        # Before the cluster notices (its node timeout is 2 s), the game's own master answers alone.
        reply = client.xread({key: "0-0"}, count=1, block=10)
        assert reply and list(reply[0][1][0][1].values()) == [b"dealt"]
    finally:
        cluster.stop()
