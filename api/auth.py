"""Seat tokens: 192 random bits, stored only as SHA-256 hashes, compared in constant time.

A token never enters the event stream; the stream records only that a seat was
taken. The hash lives in the game's ``seats`` key beside the stream.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time

from flask import request

from .problems import Problem

TOKEN_PREFIX = "st_"
CHALLENGE = {"WWW-Authenticate": 'Bearer realm="stich"'}  # RFC 9110: every 401 names its scheme


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def bearer_token(required: bool, credential: str = "the seat token") -> str | None:
    """The request's bearer token. ``credential`` names the token the route means (a seat's, a
    tournament organizer's or participant's), so a 401 tells the caller which one to send."""
    header = request.headers.get("Authorization")
    if not header:
        if required:
            raise Problem(401, "missing_token", f"send {credential} as 'Authorization: Bearer <token>'",
                          headers=CHALLENGE)
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Problem(401, "missing_token", f"send {credential} as 'Authorization: Bearer <token>'; this "
                      "Authorization header is not of that form", headers=CHALLENGE)
    return token.strip()


MAX_SUPERSEDED = 16  # earlier holders' hashes a seat remembers, so their tokens get 401, not 403


def credential(token_hash_hex: str, generation: int, before: str | None = None) -> str:
    """What the seats key stores: the hash, and from a seat's second holder on its generation
    (``<hash>@<generation>``; see ``Seat.generation``: a seat abandoned and taken again), then the
    hashes of the holders it replaced (``;<hash>`` each, newest first, at most ``MAX_SUPERSEDED``),
    ``before`` being what the key stored until now. They are kept so that a superseded token is
    told so (401 ``token_superseded``) instead of being mistaken for a wrong one."""
    current = token_hash_hex if generation == 0 else f"{token_hash_hex}@{generation}"
    if not before:
        return current
    earlier = [part.partition("@")[0] for part in before.split(";") if part]
    return ";".join([current] + earlier[:MAX_SUPERSEDED])


def superseded_problem() -> Problem:
    return Problem(401, "token_superseded", "this seat was abandoned and taken again with a new token; this token "
                   "no longer reads or plays it", headers=CHALLENGE)


def revoked_problem() -> Problem:
    return Problem(401, "token_revoked", "this player token was revoked: it reads and plays nothing more",
                   headers=CHALLENGE)


def seat_for_token(credentials: dict[int, str], token: str) -> tuple[int, int]:
    """The seat whose stored hash matches, and the generation of its holder; every seat is
    compared, in constant time. A token that matches only a seat's earlier holder is a 401."""
    presented = token_hash(token)
    found = None
    superseded = False
    for seat, stored in credentials.items():
        current, *earlier = stored.split(";")
        hashed, _, generation = current.partition("@")
        if hmac.compare_digest(presented, hashed):
            found = seat, int(generation or 0)
        for old in earlier:
            superseded |= hmac.compare_digest(presented, old)
    if found is None:
        if superseded:
            raise superseded_problem()
        raise Problem(403, "invalid_token", "this token does not belong to a seat of this game")
    return found


class CredentialCache:
    """Seat token hashes per game, cached in this process.

    A seat's hash changes only when the seat is taken again after it was
    abandoned (a claim that failed is deleted, but its token was never given to
    anyone), and then the game's seat generation says so: the caller re-reads
    with ``fresh`` (``api.http.viewer_credential``). A token that matches
    nothing cached makes us re-read Redis once before answering, which picks up
    seats taken since.
    """

    def __init__(self, load, size: int = 1024):
        self._load = load  # game_id -> {seat: hash}
        self._size = size
        self._cache: dict[str, dict[int, str]] = {}
        self._lock = threading.Lock()

    def seat(self, game_id: str, token: str, fresh: bool = False) -> tuple[int, int]:
        """(seat, generation) of the token. A seat taken again after it was abandoned has a new
        hash: ``fresh`` re-reads Redis, for a caller that saw a newer generation in the game."""
        cached = None if fresh else self._cache.get(game_id)
        if cached is not None:
            try:
                return seat_for_token(cached, token)
            except Problem:
                pass
        fresh = self._load(game_id)
        with self._lock:
            if len(self._cache) >= self._size:
                self._cache.pop(next(iter(self._cache)), None)
            self._cache[game_id] = fresh
        return seat_for_token(fresh, token)


class PlayerCredentials:
    """Player tokens (``pt_``) this process has looked up, each for ``TTL_S``: a player's every move
    presents its token, and one registry read per token every two seconds is enough to learn of a
    revocation (a revoked token works nowhere within ``TTL_S``; its open streams end then too)."""

    TTL_S = 2.0

    def __init__(self, players, size: int = 4096):
        self._players = players
        self._size = size
        self._cache: dict[str, tuple[object, float]] = {}  # token hash -> (holder or None, when it expires)
        self._lock = threading.Lock()

    def holder(self, token: str):
        """The ``eventstore.players.Holder`` the token acts for, or None (unknown or revoked)."""
        key = token_hash(token)
        now = time.monotonic()
        found = self._cache.get(key)
        if found is not None and found[1] > now:
            return found[0]
        holder = self._players.holder(token)
        with self._lock:
            if len(self._cache) >= self._size:
                self._cache.pop(next(iter(self._cache)), None)
            self._cache[key] = (holder, now + self.TTL_S)
        return holder

    def forget(self, hashed: str) -> None:
        """This process learns of a revocation at once (the others within ``TTL_S``)."""
        with self._lock:
            self._cache.pop(hashed, None)
