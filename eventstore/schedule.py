"""The due-time index: which games need a look by a sweeper, and from when.

Something that must happen in a game without anyone asking for it — a bot
turn whose job was lost, later a human's turn deadline — is recorded here
when it becomes due, so a sweeper reads only what is due now instead of
loading every game to find it.

Key: ``stich:due``, one sorted set for all games. Like the game list's sets it
lives in one Redis Cluster slot; no command ever touches it together with a
game's own keys (which live in the game's slot), so a cluster needs nothing
more.

Member: ``<kind>|<game id>|<seq>`` — something of ``kind`` is due in the game
while it stands at ``seq``. Kinds: ``bot`` (a bot is to act) and ``turn`` (a
human seat's clock runs out, scored with its deadline); ``tournament`` (a
tournament in play, seq 0: its driver is re-run while it lasts, see
workers/tournament.py); ``start`` (a game's set start, seq 0, see
workers/start.py); a sweeper leaves kinds it does not know alone. The seq
is part of the member so that an entry
is a fact about one state of the game: a listener that runs late (another
process appended meanwhile) can only add an entry for a seq the game has
already left — which a sweeper drops after one load — and never removes the
entry of a newer seq.

Score: the Unix time (seconds) at which the entry is overdue, i.e. when a
sweeper should act if the game has not moved on by then. Claiming an entry
moves its score to the end of a lease (``claim``), so two sweepers never act
on one entry at once, and an entry whose sweeper died comes due again.
"""
from __future__ import annotations

from dataclasses import dataclass

import redis

from .keys import due_key
from .store import DueChange

# A bot is to act; a human seat's clock runs (workers/deadline.py); a tournament's driver; a set start
# (workers/start.py: a game created with start_at, seq 0, scored with that time).
KINDS = ("bot", "turn", "tournament", "start")

# Atomic: the entries due by ARGV[1] (at most ARGV[3]) are returned and pushed
# to ARGV[2] in one step, so a concurrent sweeper cannot read them too.
CLAIM_SCRIPT = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', ARGV[2], member)
end
return due
"""


@dataclass(frozen=True)
class Entry:
    kind: str
    game_id: str
    seq: int

    @property
    def member(self) -> str:
        return f"{self.kind}|{self.game_id}|{self.seq}"

    @classmethod
    def parse(cls, member: bytes | str) -> Entry:
        kind, game_id, seq = (member.decode() if isinstance(member, bytes) else member).split("|")
        return cls(kind, game_id, int(seq))


class Schedule:
    def __init__(self, client: redis.Redis, prefix: str = "stich"):
        self.redis = client
        self.key = due_key(prefix)
        self._claim = client.register_script(CLAIM_SCRIPT)

    def advance(self, kind: str, game_id: str, previous_seq: int, seq: int, due_at: float | None) -> None:
        """The game moved from ``previous_seq`` to ``seq``: the entry of the old seq goes,
        and one for the new seq is written if something is due (``due_at``: when it is overdue)."""
        self.write(self.change(kind, game_id, previous_seq, seq, due_at))

    def change(self, kind: str, game_id: str, previous_seq: int, seq: int,
               due_at: float | None) -> DueChange | None:
        """What ``advance`` writes, for an append to make in its own script (None: nothing to write)."""
        if previous_seq <= 0 and due_at is None:
            return None
        return DueChange(self.key, Entry(kind, game_id, previous_seq).member if previous_seq > 0 else None,
                         Entry(kind, game_id, seq).member if due_at is not None else None, due_at)

    def write(self, change: DueChange | None) -> None:
        if change is None:
            return
        pipe = self.redis.pipeline(transaction=False)
        if change.remove is not None:
            pipe.zrem(self.key, change.remove)
        if change.add is not None:
            pipe.zadd(self.key, {change.add: change.due_at})
        pipe.execute()

    def add(self, entry: Entry, due_at: float) -> bool:
        """Record ``entry`` unless it is there already (an existing score may be a sweeper's lease)."""
        return bool(self.redis.zadd(self.key, {entry.member: due_at}, nx=True))

    def replace(self, old: Entry, new: Entry, due_at: float) -> None:
        """An entry of a seq the game has left stands in for the current one: keep only the current."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrem(self.key, old.member)
        pipe.zadd(self.key, {new.member: due_at}, nx=True)
        pipe.execute()

    def redue(self, entry: Entry, due_at: float) -> None:
        """A claimed entry that is not done yet comes due again at ``due_at`` (ends its lease)."""
        self.redis.zadd(self.key, {entry.member: due_at}, xx=True)

    def drop(self, entry: Entry) -> None:
        self.redis.zrem(self.key, entry.member)

    def claim(self, now: float, lease_until: float, limit: int) -> list[Entry]:
        """Up to ``limit`` entries overdue at ``now``, oldest first, each leased until ``lease_until``.
        A claimed entry left in place comes due again when its lease ends."""
        entries = []
        for member in self._claim(keys=[self.key], args=[repr(now), repr(lease_until), int(limit)]):
            try:
                entries.append(Entry.parse(member))
            except ValueError:  # not a member this format ever wrote: it would only come due again and again
                self.redis.zrem(self.key, member)
        return entries

    def score(self, entry: Entry) -> float | None:
        return self.redis.zscore(self.key, entry.member)

    def size(self) -> int:
        return int(self.redis.zcard(self.key))

    def due(self, now: float) -> int:
        """How many entries are overdue at ``now``."""
        return int(self.redis.zcount(self.key, "-inf", repr(now)))

    def reserve(self, task: str, seconds: float, holder: str) -> bool:
        """Whether this holder may run ``task`` now: at most one holder per ``seconds``
        (a key that expires, so a holder that dies never blocks the task for longer)."""
        return bool(self.redis.set(f"{self.key}:{task}", holder, nx=True, px=max(1, int(seconds * 1000))))
