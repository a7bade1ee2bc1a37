"""The "uploads" phase (``python -m bench --only uploads``): what uploads cost everyone else.

* **Two worst uploads at once**: two clients post the longest legal game's export (5.4 MB, 20,969
  events: ``tests/long_export.py``) to ``POST /v1/verify`` together, ``rounds`` times, while a
  third client checks ``/v1/health`` every 5 ms: its p50, p99 and max, beside the same client's on
  the idle server just before, and the HTTP processes' peak RSS over their RSS before: what
  verifying the largest genuine upload holds. Target: p99 within 100 ms.
* **A flood**: ``FLOOD`` concurrent uploads of ``UPLOAD_MAX_BYTES`` from one address (a header line
  and a line of padding, refused as an ``export_limit`` once read): the HTTP processes' peak RSS
  over their RSS before, and the answers by code. The benchmark's app has no per-address quotas
  (``bench.app``), so what bounds it is each process's upload buffer (``api/uploads.py``,
  ``STICH_UPLOAD_BUFFER_BYTES``); ``tests/e2e/test_upload_memory.py`` floods a ``stich serve``
  with its default quotas, whose per-address slots bound it first.

``send_upload`` and ``flood`` are the test's too.
"""
from __future__ import annotations

import json
import socket
import threading
import time
from collections import Counter

from api.uploads import UPLOAD_MAX_BYTES

from . import measure
from .http_client import HOST, Client
from .processes import cpu_seconds, reset_peak_rss, rss_mb

FLOOD = 120
HEALTH_EVERY_S = 0.005
IDLE_CHECKS = 200


def padded_upload(size: int = UPLOAD_MAX_BYTES) -> bytes:
    """``size`` bytes an upload's bounds admit, refused once read: an export's header, then one line
    of padding past ``line_chars``."""
    header = json.dumps({"format": "stich-export", "version": 1}).encode() + b"\n"
    return header + b" " * (size - len(header) - 1) + b"\n"


def read_answer(sock: socket.socket) -> tuple[int, dict]:
    """The status and the JSON body of one answer with a Content-Length."""
    buffer = b""
    while b"\r\n\r\n" not in buffer:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before an answer: {buffer[:200]!r}")
        buffer += chunk
    head, _, body = buffer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    length = next(int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed inside an answer")
        body += chunk
    return int(lines[0].split()[1]), json.loads(body[:length])


def send_upload(port: int, body: bytes, headers: dict | None = None, path: str = "/v1/verify",
                host: str = HOST) -> tuple[int, str | None, float]:
    """One upload on a connection of its own: (status, problem code or None, seconds). A server that
    answers before it reads the body closes the connection, so sending it may fail part way (a
    reset, a broken pipe): the answer is read all the same."""
    head = f"POST {path} HTTP/1.1\r\nHost: stich\r\nContent-Type: application/x-ndjson\r\n" \
           f"Content-Length: {len(body)}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items()) + "\r\n"
    started = time.monotonic()
    with socket.create_connection((host, port), timeout=120) as sock:
        try:
            sock.sendall(head.encode("latin-1") + body)
        except (BrokenPipeError, ConnectionResetError):
            pass
        status, answer = read_answer(sock)
    return status, answer.get("code") if status >= 400 else None, time.monotonic() - started


def api_rss_mb(pids: list[int], field: str = "VmRSS") -> float:
    return sum(rss_mb(pid, field) or 0.0 for pid in pids)


def flood(port: int, pids: list[int], count: int = FLOOD, size: int = UPLOAD_MAX_BYTES,
          headers: dict | None = None) -> dict:
    """``count`` uploads of ``size`` bytes at once (``headers``: an ``X-Forwarded-For`` to pose as
    one address behind a trusted proxy), and what they cost the HTTP processes ``pids``: their RSS
    before, their peak RSS over it (each process's VmHWM, reset to its RSS first where Linux allows;
    otherwise the peak since it started, an overstatement) and their RSS after, in MB; and the CPU
    seconds they spent."""
    body = padded_upload(size)
    reset = all(reset_peak_rss(pid) for pid in pids)
    before = api_rss_mb(pids)
    answers: list = []

    def one() -> None:
        try:
            status, code, _ = send_upload(port, body, headers)
            answers.append(f"{status} {code}" if code else str(status))
        except OSError as exc:
            answers.append(f"error {type(exc).__name__}")

    started, cpu = time.monotonic(), sum(cpu_seconds(pid) or 0.0 for pid in pids)
    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    wall, cpu = time.monotonic() - started, sum(cpu_seconds(pid) or 0.0 for pid in pids) - cpu
    return {"uploads": count, "bytes_each": size, "answers": dict(Counter(answers)), "wall_s": round(wall, 2),
            "api_cpu_s": round(cpu, 2),
            "rss_before_mb": round(before, 1), "peak_rise_mb": round(api_rss_mb(pids, "VmHWM") - before, 1),
            "after_rise_mb": round(api_rss_mb(pids) - before, 1), "peak_reset": reset}


def health_checks(port: int, until) -> list[float]:
    """Seconds each ``/v1/health`` took, one every ``HEALTH_EVERY_S`` until ``until(took)`` is true."""
    client, took = Client(HOST, port), []
    while not until(took):
        status, _, elapsed = client.request("GET", "/v1/health")
        assert status == 200, status
        took.append(elapsed)
        time.sleep(HEALTH_EVERY_S)
    return took


def summary(took: list[float]) -> dict:
    return {"checks": len(took), "p50_ms": round(measure.percentile(took, 50) * 1000, 1),
            "p99_ms": round(measure.percentile(took, 99) * 1000, 1), "max_ms": round(max(took) * 1000, 1)}


def health_during_uploads(port: int, pids: list[int], body: bytes, rounds: int, say=print) -> dict:
    """A third client's health checks while two clients upload ``body`` at once, ``rounds`` times;
    the uploads' answers and seconds, and the HTTP processes' (``pids``) peak RSS over their RSS
    before, in MB."""
    took, answers, seconds = [], [], []
    for pid in pids:
        reset_peak_rss(pid)
    before = api_rss_mb(pids)
    for number in range(rounds):
        done: list = []

        def upload() -> None:
            status, code, elapsed = send_upload(port, body)
            done.append((status, code))
            seconds.append(round(elapsed, 2))

        uploads = [threading.Thread(target=upload) for _ in range(2)]
        for thread in uploads:
            thread.start()
        took += health_checks(port, lambda _: len(done) == 2)
        for thread in uploads:
            thread.join()
        answers += [f"{status} {code}" if code else str(status) for status, code in done]
        say(f"round {number + 1}: uploads {seconds[-2:]} s, {len(took)} health checks so far")
    return {**summary(took), "answers": dict(Counter(answers)), "upload_s": seconds,
            "peak_rise_mb": round(api_rss_mb(pids, "VmHWM") - before, 1)}


def run(port: int, api_pids: list[int], short: bool = False, say=print) -> dict:
    from tests.long_export import long_export  # the rules alone build it: seconds, once

    worst = long_export(31_500).encode()
    say(f"the longest game's export: {len(worst)} bytes")
    idle = summary(health_checks(port, lambda took: len(took) >= IDLE_CHECKS))
    during = health_during_uploads(port, api_pids, worst, 1 if short else 5, say)
    say(f"health p99 {during['p99_ms']} ms during two worst uploads (idle {idle['p99_ms']} ms)")
    flooded = flood(port, api_pids)
    say(f"flood of {flooded['uploads']}: the HTTP processes' peak RSS {flooded['peak_rise_mb']:+} MB")
    return {"export_bytes": len(worst), "health_idle": idle, "health_during_two_uploads": during, "flood": flooded}


def table_rows(r: dict) -> list[tuple[str, str, str]]:
    during, idle, flooded = r["health_during_two_uploads"], r["health_idle"], r["flood"]
    return [
        ("health during two worst uploads", f"p99 {during['p99_ms']:.1f} ms",
         f"p50 {during['p50_ms']:.1f}, max {during['max_ms']:.1f} ms over {during['checks']} checks; idle p99 "
         f"{idle['p99_ms']:.1f} ms; uploads {', '.join(f'{s:.1f}' for s in during['upload_s'])} s; "
         f"peak RSS {during['peak_rise_mb']:+.0f} MB"),
        (f"flood: {flooded['uploads']} uploads of {flooded['bytes_each'] // 2**20} MiB",
         f"peak RSS {flooded['peak_rise_mb']:+.0f} MB", f"after {flooded['after_rise_mb']:+.0f} MB, "
         f"{flooded['wall_s']:.1f} s, HTTP processes' CPU {flooded['api_cpu_s']:.1f} s; " + ", ".join(f"{n}× {a}" for a, n in sorted(flooded["answers"].items()))),
    ]


def targets(r: dict) -> dict:
    return {"upload_health_p99<=100ms": r["health_during_two_uploads"]["p99_ms"] <= 100}
