"""Events and their visibility, and the one redactor every game shares.

An event declares who may see its ``data`` while the game runs. The redactor
reads only that declaration, so no game writes its own leak protection:

* ``public``               everyone sees everything.
* ``seat`` (seat=s)        seat s sees everything; others see ``public_keys``.
* ``per_seat`` (keys=K)    for every key in K, ``data[key]`` is a list with one
                           entry per seat and seat i sees only entry i (others
                           are ``None``); all other keys are public.
* ``nobody``               only ``public_keys`` are shown, to everyone.

Once the game has finished every event is shown unredacted to everyone.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Visibility:
    scope: str = "public"  # public | seat | per_seat | nobody
    seat: int | None = None
    keys: tuple[str, ...] = ()  # per_seat: the per-seat list fields
    public_keys: tuple[str, ...] = ()  # seat / nobody: fields everyone sees

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"scope": self.scope}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.keys:
            out["keys"] = list(self.keys)
        if self.public_keys:
            out["public_keys"] = list(self.public_keys)
        return out

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> "Visibility":
        return cls(
            scope=raw.get("scope", "public"),
            seat=raw.get("seat"),
            keys=tuple(raw.get("keys", ())),
            public_keys=tuple(raw.get("public_keys", ())),
        )


PUBLIC = Visibility()


def only_seat(seat: int, *public_keys: str) -> Visibility:
    return Visibility(scope="seat", seat=seat, public_keys=tuple(public_keys))


def per_seat(*keys: str) -> Visibility:
    return Visibility(scope="per_seat", keys=tuple(keys))


def nobody(*public_keys: str) -> Visibility:
    return Visibility(scope="nobody", public_keys=tuple(public_keys))


@dataclass(frozen=True)
class Event:
    """A fact the decider decided. ``v`` is the schema version of ``type``."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)
    visibility: Visibility = PUBLIC
    v: int = 1
    # Where it was stored: when (ISO 8601 UTC) and by whom (a seat, or "system"). A decision's
    # fresh events have neither; the table folds them only for clocks (domain/clock.py).
    at: str | None = field(default=None, compare=False)
    actor: int | str | None = field(default=None, compare=False)


def redact_data(data: dict[str, Any], visibility: Visibility, viewer: int | None) -> tuple[dict[str, Any], bool]:
    """Return (data as ``viewer`` may see it, whether anything was hidden).

    ``viewer`` is a seat number, or None for a spectator.
    """
    scope = visibility.scope
    if scope == "public":
        return data, False
    if scope == "seat":
        if viewer is not None and viewer == visibility.seat:
            return data, False
        return {k: v for k, v in data.items() if k in visibility.public_keys}, True
    if scope == "per_seat":
        out = dict(data)
        for key in visibility.keys:
            if key in out and isinstance(out[key], list):
                out[key] = [v if i == viewer else None for i, v in enumerate(out[key])]
        return out, True
    # nobody, and any scope we do not know: fail closed.
    return {k: v for k, v in data.items() if k in visibility.public_keys}, True
