"""The streams phase's verdict and its rows in the benchmark's table: what ``bench.streams.run``
measured, held to its targets and put in words."""
from __future__ import annotations


def targets(streams: dict) -> dict:
    r = streams["ratios"]
    return {
        "streams_move_p99<=2x": r["move_p99_b_over_a"] is not None and r["move_p99_b_over_a"] <= 2,
        "streams_health_p99<=2x": r["health_p99_b_over_a"] is not None and r["health_p99_b_over_a"] <= 2,
        "streams_no_failures": not streams["failures"] and not streams["connected"]["failures"],
        "streams_all_delivered_in_order": streams["all_delivered_in_order"],
    }


def _gc_text(gc_stats: dict | None) -> str:
    if not gc_stats:
        return "-"
    if not gc_stats["full_collections"]:
        return "none"
    text = (f"{gc_stats['full_collections']}: max {gc_stats['full_ms_max']:.0f} ms, "
            f"total {gc_stats['full_ms_total']:.0f} ms")
    for kind in ("moves", "health"):
        slow = gc_stats.get(f"slow_{kind}")
        if slow:
            text += f"; {kind} > {slow['slower_than_ms']:.0f} ms: {slow['during_full_gc']}/{slow['slow']} during one"
    return text


def table_rows(s: dict) -> list[tuple[str, str, str]]:
    a, b, c, v, d = s["run_a"], s["run_b"], s["config"], s["verification"], s["delivery"]

    def f(x, spec=".1f"):
        return "-" if x is None else format(x, spec)

    rows = [
        ("streams: subscribers", f"{s['connected']['sse']} SSE + {s['connected']['polls']} polls",
         f"over {c['games']} games, + {c['slow']} slow-header connections; opened in {s['connected']['open_s']:.1f}s"),
    ]
    for name, run in (("streams run A (no subscribers)", a), ("streams run B (subscribers)", b)):
        rows.append((name, f"{run['moves_per_s']:.0f} moves/s",
                     f"command p50 {f(run['move_p50_ms'])} / p95 {f(run['move_p95_ms'])} / p99 "
                     f"{f(run['move_p99_ms'])} ms; health p50 {f(run['health_p50_ms'])} / p99 "
                     f"{f(run['health_p99_ms'])} ms"))
    rows += [
        ("streams B / A: move p99, health p99", f"{f(s['ratios']['move_p99_b_over_a'], '.2f')}",
         f"{f(s['ratios']['health_p99_b_over_a'], '.2f')}"),
        ("streams delivered in run B", f"{d['sse']['events_per_s']:.0f} SSE events/s",
         f"{d['poll']['events_per_s']:.0f} long-poll events/s"),
        ("streams delivery latency", f"SSE p50 {f(d['sse']['latency_p50_ms'])} ms",
         f"p99 {f(d['sse']['latency_p99_ms'])} ms; long poll p50 {f(d['poll']['latency_p50_ms'])} / "
         f"p99 {f(d['poll']['latency_p99_ms'])} ms"),
        ("streams verification", f"{v['complete']}/{v['subscribers']} complete",
         f"{v['violations']} order violations, {v['events_missing']} events missing; drained in "
         f"{f(v['drain_s'], '.2f')} s"),
        ("streams failures", str(sum(s["failures"].values()) + sum(s["connected"]["failures"].values())),
         ", ".join(f"{k}: {n}" for k, n in {**s["connected"]["failures"], **s["failures"]}.items()) or "none"),
        ("streams slow-header connections", f"{c['slow']} held through B",
         "server closed: " + (", ".join(f"{k} x{n}" for k, n in s["slow_headers"]["closed_by_server"].items())
                              or "none")),
        ("streams API workers in B", "RSS " + ", ".join(f"{x:.0f}" for x in s["api_workers_b"]["peak_rss_mb"]) + " MB",
         "open fds " + ", ".join(str(x) for x in s["api_workers_b"]["peak_open_fds"])),
        ("streams CPU seconds in run A", ", ".join(f"{k} {v:.1f}" for k, v in a["cpu_s"].items()), ""),
        ("streams CPU seconds in run B", ", ".join(f"{k} {v:.1f}" for k, v in b["cpu_s"].items()), ""),
        ("streams API full GCs, A / B", _gc_text(a.get("api_gc")), _gc_text(b.get("api_gc"))),
        ("streams machine CPU s, A / B",
         ", ".join(f"{k} {v:.1f}" for k, v in a["machine_cpu_s"].items()),
         ", ".join(f"{k} {v:.1f}" for k, v in b["machine_cpu_s"].items()) + f" (over {c['duration']:g}s each)"),
        ("streams waiting for a CPU, A / B", ", ".join(f"{k} {v:.1f}" for k, v in a["runqueue_wait_s"].items()),
         ", ".join(f"{k} {v:.1f}" for k, v in b["runqueue_wait_s"].items()) + " s"),
    ]
    return rows
