"""Seat tokens: 192 random bits, stored only as SHA-256 hashes, compared in constant time.

A token never enters the event stream; the stream records only that a seat was
taken. The hash lives in the game's ``seats`` key beside the stream.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets

from flask import request

from .problems import Problem

TOKEN_PREFIX = "st_"


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def bearer_token(required: bool) -> str | None:
    header = request.headers.get("Authorization")
    if not header:
        if required:
            raise Problem(401, "missing_token", "send the seat token as 'Authorization: Bearer <token>'")
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Problem(401, "missing_token", "the Authorization header must be 'Bearer <token>'")
    return token.strip()


def seat_for_token(credentials: dict[int, str], token: str) -> int:
    """The seat whose stored hash matches; every seat is compared, in constant time."""
    presented = token_hash(token)
    found = None
    for seat, stored in credentials.items():
        if hmac.compare_digest(presented, stored):
            found = seat
    if found is None:
        raise Problem(403, "invalid_token", "this token does not belong to a seat of this game")
    return found
