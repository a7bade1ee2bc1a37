"""A local Redis Cluster of private servers on loopback ports (tests, benchmarks).

Three masters by default, each a ``PrivateRedis`` with ``--cluster-enabled``;
the 16384 slots are split evenly with CLUSTER ADDSLOTSRANGE and the nodes
introduced with CLUSTER MEET.
"""
from __future__ import annotations

import time

import redis

from .redis_server import PrivateRedis, free_port

SLOTS = 16384


class LocalCluster:
    def __init__(self, masters: int = 3):
        # The cluster bus gets a free port of its own: by default it is the
        # client port + 10000, which fails for ephemeral ports above 55535.
        self.bus_ports = [free_port() for _ in range(masters)]
        self.nodes = [PrivateRedis(extra_args=("--cluster-enabled", "yes", "--cluster-node-timeout", "2000",
                                               "--cluster-config-file", "nodes.conf",
                                               "--cluster-port", str(bus)), fsync="everysec",
                                   locked=False)  # its nodes and tests talk to each other without a password
                      for bus in self.bus_ports]

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}/0"

    def start(self, timeout: float = 20.0) -> "LocalCluster":
        for node in self.nodes:
            node.start()
        clients = [redis.Redis(port=node.port) for node in self.nodes]
        share = SLOTS // len(self.nodes)
        for i, client in enumerate(clients):
            last = SLOTS - 1 if i == len(clients) - 1 else (i + 1) * share - 1
            client.execute_command("CLUSTER", "ADDSLOTSRANGE", i * share, last)
        for client in clients[1:]:
            client.execute_command("CLUSTER", "MEET", "127.0.0.1", self.nodes[0].port, self.bus_ports[0])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            infos = [c.execute_command("CLUSTER", "INFO") for c in clients]
            text = [i.decode() if isinstance(i, bytes) else str(i) for i in infos]
            if all("cluster_state:ok" in t and f"cluster_known_nodes:{len(clients)}" in t for t in text):
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("the local cluster did not become ready")

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
