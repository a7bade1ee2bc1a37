"""What the benchmark reads about processes and the machine from /proc (Linux): a process's
children, memory, CPU time, time spent waiting for a CPU, open files; the whole machine's CPU time."""
from __future__ import annotations

import os
import resource
from pathlib import Path


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        text = (task / "children").read_text().split() if (task / "children").exists() else []
        found += [int(c) for c in text]
    return found


def rss_mb(pid: int, field: str = "VmHWM") -> float | None:
    """VmHWM: the peak resident set; VmRSS: the current one."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def reset_peak_rss(pid: int) -> bool:
    """Start the process's VmHWM again from its current RSS (Linux: ``5`` written to its
    ``clear_refs``); False where that is not allowed."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def cpu_self() -> float:
    """User + system CPU time of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (from /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def runqueue_wait_s(pid: int) -> float | None:
    """Seconds the process's threads spent runnable but waiting for a CPU so far (/proc/<pid>/task/*/schedstat)."""
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            total += int((task / "schedstat").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return total / 1e9


def machine_cpu() -> tuple[float, float, float]:
    """(busy, idle, steal) CPU seconds of the whole machine so far, from /proc/stat."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + fields[4]
    steal = fields[7] if len(fields) > 7 else 0
    busy = sum(fields[:8]) - idle - steal  # guest time is already counted in user
    return busy / tick, idle / tick, steal / tick


def open_fds(pid: int) -> int | None:
    try:
        return len(list(Path(f"/proc/{pid}/fd").iterdir()))
    except OSError:
        return None
