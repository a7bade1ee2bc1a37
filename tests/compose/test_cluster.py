"""docker-compose.cluster.yml started for real: six Redis nodes joined by cluster-init (three masters with a
replica each), the queues' own Redis, API replicas and workers behind nginx. A tournament of bots and a
game of two people and a bot are played through the balancer; the master holding the game's slot is
SIGKILLed mid-game and stays down (its restart policy turned off first, as a lost host), its replica is
promoted, the game goes on; the old master, started again, rejoins as the new master's replica. Every
acknowledged event is stored, the game's streams are gapless, every export passes ``stich verify``.

Run twice: once killing a master other than redis-node-1, the node REDIS_URL names, and once killing that
one. Both failed before stich's cluster clients read XREAD's keys themselves: redis-py asked the default
node (a master) for them, so with that master dead the game's streams stopped for good
(eventstore.connection.StreamRoutingCluster)."""
from __future__ import annotations

import random
import threading
import time

import pytest
import requests

from soak.game_clients import REQUEST_S, Game, moves, play
from soak.topology import check_game, run_tournament, tournament_result, verify_export

from .cluster_nodes import owner, wait_promoted, wait_replica_of
from .stack import HEAD_IMAGE, Stack, run

pytestmark = [pytest.mark.compose, pytest.mark.timeout(1200)]


URL_NODE = "redis-node-1"  # docker-compose.cluster.yml's REDIS_URL


def game_on(stack: Stack, session: requests.Session, witness: str, on_url_node: bool, tries: int = 40):
    """A Schafkopf game whose slot's master is (or is not) the node REDIS_URL names; its master and replica."""
    for _ in range(tries):
        game = Game(stack.url, session, "schafkopf", pins=("", ""))
        master, replica = owner(stack, witness, f"stich:{{g:{game.id}}}:events")
        if (master.host == URL_NODE) == on_url_node:
            return game, master, replica
    raise AssertionError(f"no game's slot on a master {'' if on_url_node else 'other than '}{URL_NODE} in {tries}")


@pytest.mark.parametrize("on_url_node", [False, True], ids=["a-master", "the-master-REDIS_URL-names"])
def test_cluster_recipe_plays_on_through_a_killed_master_and_its_promoted_replica(timings, tmp_path, on_url_node):
    stack = Stack("docker-compose.cluster.yml", "stich-compose-cluster", HEAD_IMAGE, timings)
    stack.down()
    try:
        started = time.monotonic()
        stack.up("--scale", "api=2", "--scale", "worker=2")
        timings["healthy"] = round(time.monotonic() - started, 1)
        assert all(stack.containers(f"redis-node-{n}") for n in range(1, 7))

        session, rng = requests.Session(), random.Random(3939)
        tournament = run_tournament(stack.url, session)
        witness = stack.containers("redis-node-2")[0]  # asks the cluster; not the URL's node
        game, master, replica = game_on(stack, session, witness, on_url_node)
        for stream in game.streams:
            stream.start()
            assert stream.connected.wait(REQUEST_S), "a stream did not connect"
        play([game], rng, lambda: moves([game]) >= 10)

        victim = stack.containers(master.host)[0]
        if victim == witness:
            witness = stack.containers(replica.host)[0]
        run(["docker", "update", "--restart=no", victim], timings, "kill")
        failures: list[BaseException] = []  # the game goes on while its master dies: commands meet the gap

        def go_on() -> None:
            try:
                play([game], rng, lambda: False)
            except BaseException as error:
                failures.append(error)

        player = threading.Thread(target=go_on, daemon=True)
        player.start()
        stack.kill(victim)
        acked_before = moves([game])
        print(f"killed master {master.host} after {acked_before} acknowledged events; its replica {replica.host}")
        timings["promotion"] = round(wait_promoted(stack, witness, replica), 1)
        player.join(timeout=180)
        assert not player.is_alive() and not failures, failures
        for stream in game.streams:
            stream.join(timeout=60)
        result = tournament_result(stack.url, session, tournament["id"])

        acknowledged = check_game(stack.url, session, game)  # every acknowledged event stored; streams gapless
        assert acknowledged > acked_before
        tables = [table["game_id"] for round_ in result["tournament"]["schedule"] for table in round_["tables"]]
        for game_id in [game.id, *tables]:
            verify_export(stack.url, session, game_id, tmp_path)

        run(["docker", "start", victim], timings, "restart_master")
        timings["rejoined"] = round(wait_replica_of(stack, witness, master.id, replica.id), 1)
        print(f"{replica.host} promoted in {timings['promotion']} s; {acknowledged} acknowledged events, none lost; "
              f"{sum(s.resumes for s in game.streams)} stream resumes, {game.retries} command retries "
              f"({dict(game.reasons)}); tournament of {len(tables)} tables; {len(tables) + 1} exports verified; "
              f"{master.host} back as a replica in {timings['rejoined']} s")
    except BaseException:
        print(stack.logs())
        raise
    finally:
        stack.down()
