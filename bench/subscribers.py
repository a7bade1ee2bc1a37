"""The streams phase's subscribers: SSE streams and long polls as asyncio tasks speaking raw HTTP/1.1
(the project needs no async HTTP client), in processes of their own; and connections that send half
a request head and never finish it.

Each subscriber checks the order of what it receives (every seq the one after the last) and
records when each event arrived, for the delivery latency.
"""
from __future__ import annotations

import asyncio
import json
import os
import time
from array import array
from collections import Counter

from stich.web_worker import raise_open_files_limit

from .http_client import HOST
from .processes import cpu_self
from .stream_config import StreamConfig


# The subscribers stand for remote clients, which would not compete with the server for its CPU;
# here they share the two cores, so they run at a lower priority (the players and the prober,
# whose latencies are measured, run at the normal one).
SUBSCRIBER_NICENESS = 10


class Sub:
    """One SSE subscriber or long poller and what it received."""

    __slots__ = ("kind", "g", "game_id", "token", "start", "last", "received", "violations", "examples",
                 "failure", "ready", "last_rx", "pending_since", "done", "redacted")

    def __init__(self, kind: str, g: int, game_id: str, token: str | None, start: int):
        self.kind, self.g, self.game_id, self.token, self.start = kind, g, game_id, token, start
        self.last = start
        self.received = 0
        self.violations = 0
        self.examples: list[str] = []
        self.failure: str | None = None
        self.ready = False
        self.last_rx = time.monotonic()
        self.pending_since: float | None = None  # a long poll in flight since
        self.done = False  # stopping: what happens to the connection now is not a failure
        self.redacted = 0

    def head(self, path: str, port: int) -> bytes:
        auth = f"Authorization: Bearer {self.token}\r\n" if self.token else ""
        return f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\n{auth}\r\n".encode()


class SubscriberProcess:
    def __init__(self, port: int, subs: list[Sub], slow: int, cfg: StreamConfig):
        self.port, self.subs, self.slow, self.cfg = port, subs, slow, cfg
        self.rec = {"sse": (array("i"), array("i"), array("d")), "poll": (array("i"), array("i"), array("d"))}
        self.failures: Counter = Counter()
        self.seen = 0
        self.sampled = 0
        self.sample_mismatches = 0
        self.cpu_ready = 0.0
        self.reconnects = 0
        self.slow_closed: list[str] = []

    def accept(self, sub: Sub, seq: int, now: float) -> None:
        if seq != sub.last + 1:
            sub.violations += 1
            if len(sub.examples) < 3:
                sub.examples.append(f"after {sub.last} got {seq}")
        if seq > sub.last:
            sub.last = seq
        sub.received += 1
        g, s, t = self.rec[sub.kind]
        g.append(sub.g)
        s.append(seq)
        t.append(now)

    def fail(self, sub: Sub, kind: str) -> None:
        if sub.done or sub.failure:
            return
        sub.failure = kind
        self.failures[f"{sub.kind} {kind}"] += 1

    async def read_head(self, reader) -> tuple[int, dict]:
        raw = await reader.readuntil(b"\r\n\r\n")
        lines = raw.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        return int(lines[0][9:12]), headers

    async def sse(self, sub: Sub, ready: asyncio.Event) -> None:
        try:
            reader, writer = await asyncio.open_connection(HOST, self.port)
        except OSError as exc:
            self.fail(sub, f"connect {type(exc).__name__}")
            ready.set()
            return
        try:
            writer.write(sub.head(f"/v1/games/{sub.game_id}/events/stream?after={sub.start}", self.port))
            status, headers = await self.read_head(reader)
            if status != 200:
                self.fail(sub, f"status {status}")
                return
            chunked = headers.get("transfer-encoding", "").lower() == "chunked"
            buffer = b""
            sample = self.cfg.sample_every
            while True:
                if chunked:
                    size = int((await reader.readline()).split(b";")[0], 16)
                    if size == 0:
                        break
                    data = (await reader.readexactly(size + 2))[:-2]
                else:
                    data = await reader.read(65536)
                    if not data:
                        break
                now = time.time()
                sub.last_rx = time.monotonic()
                buffer += data
                if b"\n\n" not in buffer:
                    continue
                *messages, buffer = buffer.split(b"\n\n")
                for message in messages:
                    if message.startswith(b"id: "):
                        newline = message.find(b"\n")
                        seq = int(message[4:newline])
                        self.accept(sub, seq, now)
                        self.seen += 1
                        if self.seen % sample == 0:
                            self.sampled += 1
                            event = json.loads(message[newline + 7:])  # after "\ndata: "
                            if event["seq"] != seq:
                                self.sample_mismatches += 1
                            sub.redacted += bool(event.get("redacted"))
                    elif message.startswith(b"retry:"):
                        sub.ready = True
                        ready.set()
            self.fail(sub, "closed")
        except asyncio.CancelledError:
            raise
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            self.fail(sub, f"error {type(exc).__name__}")
        finally:
            ready.set()
            writer.close()

    async def poll(self, sub: Sub, ready: asyncio.Event) -> None:
        writer = None
        try:
            wait = self.cfg.poll_wait
            first = True
            while True:
                if writer is None:
                    reader, writer = await asyncio.open_connection(HOST, self.port)
                # The first request does not wait: it shows the connection works before run B starts.
                path = f"/v1/games/{sub.game_id}/events?after={sub.last}&wait={0 if first else wait:g}"
                writer.write(sub.head(path, self.port))
                if not first and not sub.ready:
                    sub.ready = True
                    ready.set()
                sub.pending_since = time.monotonic()
                status, headers = await self.read_head(reader)
                body = await reader.readexactly(int(headers["content-length"]))
                sub.pending_since = None
                if status != 200:
                    self.fail(sub, f"status {status}")
                    return
                now = time.time()
                for event in json.loads(body)["events"]:
                    self.accept(sub, event["seq"], now)
                    sub.redacted += bool(event.get("redacted"))
                first = False
                if headers.get("connection", "").lower() == "close":
                    self.reconnects += 1
                    writer.close()
                    writer = None
        except asyncio.CancelledError:
            raise
        except (OSError, asyncio.IncompleteReadError, ValueError, KeyError) as exc:
            self.fail(sub, f"error {type(exc).__name__}")
        finally:
            ready.set()
            if writer is not None:
                writer.close()

    async def slow_header(self, index: int) -> None:
        """Half a request head, never finished. When the server gives up on one (it may: a header
        timeout), a new one takes its place, so there are ``slow`` of them through run B."""
        while True:
            try:
                reader, writer = await asyncio.open_connection(HOST, self.port)
            except OSError as exc:
                self.slow_closed.append(f"connect {type(exc).__name__}")
                await asyncio.sleep(1)
                continue
            writer.write(b"GET /v1/health HTTP/1.1\r\nHost: x")
            opened = time.monotonic()
            try:
                data = await reader.read(200)
                outcome = data.split(b"\r\n", 1)[0].decode("latin-1") if data else "closed"
            except OSError as exc:
                outcome = type(exc).__name__
            finally:
                writer.close()
            self.slow_closed.append(f"{outcome} after {time.monotonic() - opened:.0f}s")

    async def watchdog(self) -> None:
        """Streams that went silent and long polls that outlived their wait count as timeouts."""
        while True:
            await asyncio.sleep(2)
            now = time.monotonic()
            for sub, task in self.tasks:
                if sub.failure or sub.done or task.done():
                    continue
                if sub.kind == "sse" and sub.ready and now - sub.last_rx > 40:
                    self.fail(sub, "timeout")
                    task.cancel()
                elif sub.kind == "poll" and sub.pending_since and now - sub.pending_since > self.cfg.poll_wait + 15:
                    self.fail(sub, "timeout")
                    task.cancel()

    async def main(self, conn) -> dict:
        loop = asyncio.get_running_loop()
        self.tasks = []
        slow_tasks = []
        opened = time.monotonic()
        for i in range(0, len(self.subs), self.cfg.batch):
            batch = self.subs[i:i + self.cfg.batch]
            events = [asyncio.Event() for _ in batch]
            for sub, ready in zip(batch, events):
                runner = self.sse if sub.kind == "sse" else self.poll
                self.tasks.append((sub, asyncio.create_task(runner(sub, ready))))
            for ready in events:
                await ready.wait()
        # The long polls' second requests (the waiting ones) were written; give the server a moment to take them.
        await asyncio.sleep(0.2)
        for i in range(self.slow):
            slow_tasks.append(asyncio.create_task(self.slow_header(i)))
        await asyncio.sleep(0.2)
        watchdog = asyncio.create_task(self.watchdog())
        self.cpu_ready = cpu_self()
        conn.send(("ready", {"sse": sum(1 for s in self.subs if s.kind == "sse" and s.ready and not s.failure),
                             "polls": sum(1 for s in self.subs if s.kind == "poll" and s.ready and not s.failure),
                             "failures": dict(self.failures), "open_s": time.monotonic() - opened}))
        message = await loop.run_in_executor(None, conn.recv)  # ("final", {game index: seq}, grace)
        _, finals, grace = message
        cpu_run = cpu_self() - self.cpu_ready
        received_at = time.monotonic()
        deadline = received_at + grace
        drained = None
        while time.monotonic() < deadline:
            if all(s.last >= finals[s.g] or s.failure for s in self.subs):
                drained = time.monotonic() - received_at
                break
            await asyncio.sleep(0.05)
        slow_open = sum(1 for t in slow_tasks if not t.done())  # each keeps one connection open
        for sub in self.subs:
            sub.done = True
        watchdog.cancel()
        for _, task in self.tasks:
            task.cancel()
        for task in slow_tasks:
            task.cancel()
        await asyncio.gather(*(t for _, t in self.tasks), *slow_tasks, watchdog, return_exceptions=True)
        subs = []
        for s in self.subs:
            complete = not s.failure and s.violations == 0 and s.last == finals[s.g]
            subs.append({"kind": s.kind, "seat": s.token is not None, "complete": complete,
                         "violations": s.violations, "examples": s.examples, "behind": max(0, finals[s.g] - s.last),
                         "received": s.received, "expected": finals[s.g] - s.start, "failure": s.failure,
                         "redacted": s.redacted})
        return {"subs": subs, "records": self.rec, "failures": dict(self.failures), "drain_s": drained,
                "sampled": self.sampled, "sample_mismatches": self.sample_mismatches,
                "reconnects": self.reconnects, "slow_open_at_end": slow_open, "slow_closed": self.slow_closed,
                "cpu_s": cpu_run}


def subscriber_main(conn, port: int, subs: list[tuple], slow: int, cfg: StreamConfig) -> None:
    raise_open_files_limit(len(subs) + slow + 1024)
    os.nice(SUBSCRIBER_NICENESS)
    process = SubscriberProcess(port, [Sub(*s) for s in subs], slow, cfg)
    try:
        conn.send(("result", asyncio.run(process.main(conn))))
    except BaseException as exc:  # the parent must hear of it, not wait forever
        conn.send(("error", repr(exc)))
        raise
