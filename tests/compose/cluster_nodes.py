"""The Redis Cluster of docker-compose.cluster.yml as its nodes report it (``CLUSTER NODES`` asked with
redis-cli inside a node's container): which master holds a game's slot, its replica, and the wait for
that replica's promotion once the master is gone."""
from __future__ import annotations

import time
from dataclasses import dataclass

from .stack import Stack

FAILOVER_S = 60.0  # cluster-node-timeout is 5 s; then the replica's election


@dataclass(frozen=True)
class Node:
    id: str
    host: str  # the announced hostname: the Compose service (redis-node-N)
    master: bool
    failed: bool
    master_id: str | None
    slots: tuple[tuple[int, int], ...]


def nodes(stack: Stack, container: str) -> list[Node]:
    found = []
    for line in stack.exec(container, "redis-cli", "cluster", "nodes").splitlines():
        fields = line.split()
        if len(fields) < 8:
            continue
        address, flags = fields[1], set(fields[2].split(","))
        ranges = []
        for part in fields[8:]:
            if part.startswith("["):  # a slot being migrated
                continue
            low, _, high = part.partition("-")
            ranges.append((int(low), int(high or low)))
        found.append(Node(fields[0], address.split(",")[-1], "master" in flags, bool(flags & {"fail", "fail?"}),
                          None if fields[3] == "-" else fields[3], tuple(ranges)))
    return found


def owner(stack: Stack, container: str, key: str) -> tuple[Node, Node]:
    """The master holding ``key``'s slot and its replica."""
    slot = int(stack.exec(container, "redis-cli", "cluster", "keyslot", key).strip())
    view = nodes(stack, container)
    master = next(n for n in view if n.master and any(low <= slot <= high for low, high in n.slots))
    replica = next(n for n in view if not n.master and n.master_id == master.id)
    return master, replica


def wait_promoted(stack: Stack, witness: str, replica: Node, limit_s: float = FAILOVER_S) -> float:
    """Seconds until ``witness`` reports ``replica`` a master and the cluster whole again."""
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        view = {n.id: n for n in nodes(stack, witness)}
        if view[replica.id].master and "cluster_state:ok" in stack.exec(witness, "redis-cli", "cluster", "info"):
            return time.monotonic() - started
        time.sleep(0.5)
    raise AssertionError(f"{replica.host} was not promoted within {limit_s:g} s: {nodes(stack, witness)}")


def wait_replica_of(stack: Stack, witness: str, node_id: str, master_id: str, limit_s: float = FAILOVER_S) -> float:
    """Seconds until ``witness`` reports ``node_id`` back, a replica of ``master_id``."""
    started = time.monotonic()
    while time.monotonic() - started < limit_s:
        view = {n.id: n for n in nodes(stack, witness)}
        if node_id in view and not view[node_id].master and not view[node_id].failed \
                and view[node_id].master_id == master_id:
            return time.monotonic() - started
        time.sleep(0.5)
    raise AssertionError(f"node {node_id} did not rejoin as a replica within {limit_s:g} s")
