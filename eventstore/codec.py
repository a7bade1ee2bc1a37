"""Stored events: the envelope around a domain event, and its JSON form."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from domain.event import Event, Visibility, redact_data


@dataclass(frozen=True)
class StoredEvent:
    seq: int
    type: str
    v: int
    data: dict[str, Any]
    at: str
    actor: int | str
    visibility: Visibility

    def to_domain(self) -> Event:
        return Event(self.type, self.data, self.visibility, self.v)

    def for_viewer(self, viewer: int | None, reveal_all: bool) -> dict[str, Any]:
        """The event as ``viewer`` (seat or None) may see it; everything once the game ended."""
        data, redacted = (self.data, False) if reveal_all else redact_data(self.data, self.visibility, viewer)
        return {
            "seq": self.seq, "type": self.type, "v": self.v, "at": self.at,
            "actor": self.actor, "visibility": self.visibility.to_json(),
            "data": data, "redacted": redacted,
        }


def encode(event: Event, at: str, actor: int | str) -> str:
    """The stream entry's payload; ``seq`` is the entry id, so it is not repeated."""
    return json.dumps({"type": event.type, "v": event.v, "data": event.data, "at": at,
                       "actor": actor, "visibility": event.visibility.to_json()},
                      separators=(",", ":"))


def decode(seq: int, payload: bytes | str) -> StoredEvent:
    raw = json.loads(payload)
    return StoredEvent(seq=seq, type=raw["type"], v=raw["v"], data=raw["data"], at=raw["at"],
                       actor=raw["actor"], visibility=Visibility.from_json(raw["visibility"]))


def encode_for_viewer(event: StoredEvent, viewer: int | None, reveal_all: bool) -> str:
    """The event as ``viewer`` may see it, as compact JSON (the form feeds and streams send)."""
    return json.dumps(event.for_viewer(viewer, reveal_all), separators=(",", ":"))
