"""Schema versions: every reader of events upcasts older versions to today's.

An event's ``v`` is the schema version of its ``type``'s ``data``. Events are
never rewritten in the store, so when a type's data changes shape its ``v``
goes up and an upcaster here turns the old shape into the new one; everything
that reads events for the rules (the fold, the bots' history, the verifier's
replay) sees today's shape. Feeds and exports serve each event as stored,
with its stored ``v``: its hash covers those bytes.

Every event type is at version 1 (docs/events.md lists them) but
``GameCreated``, which is at version 3. v2: Schafkopf's ``ramsch_jungfrau:
"double_all"`` used to double a Ramsch loss once however many Jungfrauen
there were, and now doubles it once per Jungfrau (as openschafkopf settles
it). A game records its rules in GameCreated so that it replays as it was
played; a v1 GameCreated's ``double_all`` therefore reads as
``double_all_once``, the name the single doubling has today. v3: Schafkopf's
complete rules gained ``schieberrunde_hinting``; a game recorded before it
was played without hinting, which is how a v2 GameCreated reads. The test of the
stored fixtures (tests/fixtures/exports) keeps proving that games written
before and after a change still replay.
The envelope changed once: events stored before the hash chain carry no
``hash``, which readers take as null.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

LATEST = 1  # the version every type is at today; a type that moves on gets its own entry in LATEST_BY_TYPE


def jungfrau_doubled_once(data: Mapping[str, Any]) -> dict:
    """GameCreated v1 -> v2: a Schafkopf game's ``double_all`` of v1 is today's ``double_all_once``
    (the meaning it was played under); every other game's data is the same in both versions."""
    rules = data.get("rules")
    if data.get("game") != "schafkopf" or not isinstance(rules, Mapping) \
            or rules.get("ramsch_jungfrau") != "double_all":
        return dict(data)
    return {**data, "rules": {**rules, "ramsch_jungfrau": "double_all_once"}}


def hinting_off(data: Mapping[str, Any]) -> dict:
    """GameCreated v2 -> v3: a Schafkopf game's rules gain ``schieberrunde_hinting``, off (it did not
    exist, so nobody hinted); every other game's data is the same in both versions."""
    rules = data.get("rules")
    if data.get("game") != "schafkopf" or not isinstance(rules, Mapping) or "schieberrunde_hinting" in rules:
        return dict(data)
    return {**data, "rules": {**rules, "schieberrunde_hinting": False}}


LATEST_BY_TYPE: dict[str, int] = {"GameCreated": 3}
# (type, v) -> a function from data of version v to data of version v + 1
UPCASTERS: dict[tuple[str, int], Callable[[Mapping[str, Any]], dict]] = {
    ("GameCreated", 1): jungfrau_doubled_once,
    ("GameCreated", 2): hinting_off,
}


class UnknownVersion(ValueError):
    """An event version this code does not know: written by a newer stich, or not by stich."""


def latest(event_type: str) -> int:
    return LATEST_BY_TYPE.get(event_type, LATEST)


def upcast(event_type: str, version: Any, data: Any) -> tuple[int, Any]:
    """(today's version, data in today's shape) of an event stored at ``version``."""
    newest = latest(event_type)
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version <= newest:
        raise UnknownVersion(f"{event_type} v{version!r} is not a version this stich knows "
                             f"(it reads v1..v{newest}); a newer stich may have written it")
    while version < newest:
        step = UPCASTERS.get((event_type, version))
        if step is None:
            raise UnknownVersion(f"{event_type} v{version} has no upcaster to v{version + 1}")
        data, version = step(data), version + 1
    return version, data
