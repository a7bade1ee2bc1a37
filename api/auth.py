"""Seat tokens: 192 random bits, stored only as SHA-256 hashes, compared in constant time.

A token never enters the event stream; the stream records only that a seat was
taken. The hash lives in the game's ``seats`` key beside the stream.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import threading

from flask import request

from .problems import Problem

TOKEN_PREFIX = "st_"
CHALLENGE = {"WWW-Authenticate": 'Bearer realm="stich"'}  # RFC 9110: every 401 names its scheme


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def bearer_token(required: bool) -> str | None:
    header = request.headers.get("Authorization")
    if not header:
        if required:
            raise Problem(401, "missing_token", "send the seat token as 'Authorization: Bearer <token>'",
                          headers=CHALLENGE)
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Problem(401, "missing_token", "the Authorization header must be 'Bearer <token>'", headers=CHALLENGE)
    return token.strip()


def credential(token_hash_hex: str, generation: int) -> str:
    """What the seats key stores: the hash, and from a seat's second holder on its generation
    (``<hash>@<generation>``; see ``Seat.generation``: a seat abandoned and taken again)."""
    return token_hash_hex if generation == 0 else f"{token_hash_hex}@{generation}"


def seat_for_token(credentials: dict[int, str], token: str) -> tuple[int, int]:
    """The seat whose stored hash matches, and the generation of its holder; every seat is
    compared, in constant time."""
    presented = token_hash(token)
    found = None
    for seat, stored in credentials.items():
        hashed, _, generation = stored.partition("@")
        if hmac.compare_digest(presented, hashed):
            found = seat, int(generation or 0)
    if found is None:
        raise Problem(403, "invalid_token", "this token does not belong to a seat of this game")
    return found


class CredentialCache:
    """Seat token hashes per game, cached in this process.

    A seat's hash never changes once its token was handed out (a claim that
    failed is deleted, but its token was never given to anyone), so a cached
    hash is always valid; a token that matches nothing cached makes us re-read
    Redis once before answering 403, which picks up seats taken since.
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
