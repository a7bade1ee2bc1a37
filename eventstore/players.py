"""The players' registry: handles, and the player tokens that act for them.

A player is an identity that outlives a game: a handle (``domain/seat.py``'s ``HANDLE``), unique
whatever its case, kept as registered. It acts through **player tokens**: ``pt_`` and 192 random
bits, each with scopes and a label, stored only as SHA-256 hashes (as seat tokens are), revocable
one by one. Registration hands out the first token, with every scope.

Keys (each player's in its own Redis Cluster slot, ``{p:<handle, lower case>}``):

* ``<prefix>:{p:<h>}:player`` — the player, as JSON: ``handle``, ``created_at``; written ``NX``, so one
  registration of a handle wins;
* ``<prefix>:{p:<h>}:tokens`` — token id → its record (hash, scopes, label, created_at);
* ``<prefix>:ptoken:<sha256>`` — the token's record with its ``handle``, read on every request that
  presents it; deleted when it is revoked.
"""
from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone

import redis

from domain.seat import HANDLE

TOKEN_PREFIX = "pt_"
SCOPES = ("play", "organise", "account")  # seats and quick play; tournaments and bulk pairings; tokens
MAX_TOKENS = 20  # live tokens a player may hold at once
MAX_LABEL = 64


class HandleTaken(Exception):
    pass


class TooManyTokens(Exception):
    pass


@dataclass(frozen=True)
class Player:
    handle: str
    created_at: str

    def to_json(self) -> dict:
        return {"handle": self.handle, "created_at": self.created_at}


@dataclass(frozen=True)
class Holder:
    """Who a player token acts for, and what it may do."""
    handle: str
    token_id: str
    scopes: frozenset[str] = field(default_factory=frozenset)
    label: str = ""
    created_at: str = ""

    def to_json(self) -> dict:
        return {"id": self.token_id, "scopes": sorted(self.scopes), "label": self.label,
                "created_at": self.created_at}


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Players:
    def __init__(self, client: redis.Redis, prefix: str = "stich"):
        self.redis = client
        self.prefix = prefix

    def _key(self, handle: str, name: str) -> str:
        return f"{self.prefix}:{{p:{handle.lower()}}}:{name}"

    def _token_key(self, hashed: str) -> str:
        return f"{self.prefix}:ptoken:{hashed}"

    # -- players -----------------------------------------------------------------
    def register(self, handle: str) -> tuple[Player, str, Holder]:
        """A new player, and its first token (every scope). Raises HandleTaken (whatever the case)."""
        if not HANDLE.fullmatch(handle):
            raise ValueError(f"not a handle: {handle!r}")
        player = Player(handle, now_iso())
        if not self.redis.set(self._key(handle, "player"), json.dumps(player.to_json()), nx=True):
            raise HandleTaken(handle)
        token, holder = self.issue(handle, SCOPES, "registration")
        return player, token, holder

    def get(self, handle: str) -> Player | None:
        """The player registered under ``handle`` (any case), with the handle as registered."""
        if not isinstance(handle, str) or not HANDLE.fullmatch(handle):
            return None
        raw = self.redis.get(self._key(handle, "player"))
        return None if raw is None else Player(**json.loads(raw))

    def existing(self, handles: list[str]) -> dict[str, Player]:
        """The registered ones of ``handles`` (by the name asked for), in one round trip."""
        asked = [h for h in handles if isinstance(h, str) and HANDLE.fullmatch(h)]
        if not asked:
            return {}
        pipe = self.redis.pipeline(transaction=False)
        for handle in asked:
            pipe.get(self._key(handle, "player"))
        return {h: Player(**json.loads(raw)) for h, raw in zip(asked, pipe.execute()) if raw is not None}

    # -- tokens --------------------------------------------------------------------
    def issue(self, handle: str, scopes, label: str) -> tuple[str, Holder]:
        """A new token of the player's with ``scopes``; raises TooManyTokens past ``MAX_TOKENS``."""
        tokens_key = self._key(handle, "tokens")
        if self.redis.hlen(tokens_key) >= MAX_TOKENS:
            raise TooManyTokens(handle)
        token = TOKEN_PREFIX + secrets.token_urlsafe(24)
        hashed = token_hash(token)
        holder = Holder(handle, secrets.token_hex(6), frozenset(scopes), label[:MAX_LABEL], now_iso())
        record = {**holder.to_json(), "handle": handle, "hash": hashed}
        # The list first: a crash between the two leaves a listed token that does not work (revocable),
        # never a working token its player cannot see or revoke.
        self.redis.hset(tokens_key, holder.token_id, json.dumps(record))
        self.redis.set(self._token_key(hashed), json.dumps(record))
        return token, holder

    def holder(self, token: str) -> Holder | None:
        """Who ``token`` acts for (None: no such token, or revoked)."""
        raw = self.redis.get(self._token_key(token_hash(token)))
        if raw is None:
            return None
        record = json.loads(raw)
        return Holder(record["handle"], record["id"], frozenset(record["scopes"]), record.get("label", ""),
                      record.get("created_at", ""))

    def tokens(self, handle: str) -> list[Holder]:
        records = [json.loads(raw) for raw in self.redis.hvals(self._key(handle, "tokens"))]
        return sorted((Holder(handle, r["id"], frozenset(r["scopes"]), r.get("label", ""), r.get("created_at", ""))
                       for r in records), key=lambda h: (h.created_at, h.token_id))

    def revoke(self, handle: str, token_id: str) -> str | None:
        """Revoke one token: its hash, or None when the player has no such token."""
        tokens_key = self._key(handle, "tokens")
        raw = self.redis.hget(tokens_key, token_id)
        if raw is None:
            return None
        hashed = json.loads(raw)["hash"]
        self.redis.delete(self._token_key(hashed))  # first: from now on it works nowhere
        self.redis.hdel(tokens_key, token_id)
        return hashed
