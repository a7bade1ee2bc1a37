"""Redis keys. Every key of one game carries the hash tag ``{g:<id>}`` so that
all of them live in one Redis Cluster slot and one script may touch them."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GameKeys:
    game_id: str
    prefix: str = "stich"

    def _key(self, name: str) -> str:
        return f"{self.prefix}:{{g:{self.game_id}}}:{name}"

    @property
    def events(self) -> str:
        return self._key("events")

    @property
    def idem(self) -> str:
        return self._key("idem")

    @property
    def snap(self) -> str:
        return self._key("snap")

    @property
    def secret(self) -> str:
        return self._key("secret")

    @property
    def seats(self) -> str:
        return self._key("seats")

    @property
    def claimed(self) -> str:
        """Seats a bulk pairing assigned to a named player: seat -> the SHA-256 of the player's claim."""
        return self._key("claimed")

    @property
    def origin(self) -> str:
        """An imported game's origin (the exporting server's game id and head)."""
        return self._key("origin")

    def all(self) -> list[str]:
        return [self.events, self.idem, self.snap, self.secret, self.seats, self.claimed, self.origin]


def index_key(prefix: str = "stich") -> str:
    """Game id -> public listing entry. Not per game, so not hash-tagged."""
    return f"{prefix}:games"


def due_key(prefix: str = "stich") -> str:
    """The due-time index (``eventstore/schedule.py``): one sorted set for all games, so not hash-tagged."""
    return f"{prefix}:due"
