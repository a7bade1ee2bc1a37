"""Connecting to the event store's Redis: a single server or a Redis Cluster.

A URL with the scheme ``redis+cluster://host:port`` (any node of the cluster)
gives a cluster client; every key of a game shares one hash slot, so the
append script and the blocking reads work unchanged. RQ needs a plain Redis:
give it its own ``QUEUE_URL`` when the events live on a cluster.
"""
from __future__ import annotations

import redis
from redis.cluster import RedisCluster

CLUSTER_SCHEME = "redis+cluster://"


def connect(url: str) -> redis.Redis | RedisCluster:
    if url.startswith(CLUSTER_SCHEME):
        return RedisCluster.from_url("redis://" + url[len(CLUSTER_SCHEME):])
    return redis.Redis.from_url(url)
