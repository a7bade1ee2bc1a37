"""How big the streams phase is: shared by the phase and its subscriber processes."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class StreamConfig:
    games: int = 200
    sse: int = 2000
    polls: int = 2000
    slow: int = 100
    duration: float = 30.0
    move_rate: float = 50.0  # moves per second over all players (what this 2-core machine sustains in run B)
    clients: int = 16
    health_rate: float = 20.0  # health probes per second
    poll_wait: float = 30.0  # the long polls' `wait`
    grace: float = 10.0  # at most this long after run B for the last events to arrive
    sub_procs: int = 2
    batch: int = 50  # connections a subscriber process opens at once
    sample_every: int = 50  # JSON-parse every n-th SSE data line to check its seq

    @classmethod
    def short(cls) -> "StreamConfig":
        return cls(games=20, sse=100, polls=100, slow=10, duration=5.0, move_rate=50.0, grace=5.0)
