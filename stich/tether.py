"""A child process's tie to its parent: it dies when the parent does.

``stich serve`` may itself be SIGKILLed (an OOM killer, a ``kill -9``), and then no ``finally``
stops its children: gunicorn would keep the port and answer 503 forever, the private server
would keep the data directory. On Linux the kernel can signal a process when its parent dies
(``PR_SET_PDEATHSIG``); elsewhere this does nothing, and gunicorn's workers still notice a
changed parent within a second (their own check).
"""
from __future__ import annotations

import ctypes
import os
import signal
from typing import Callable

PR_SET_PDEATHSIG = 1


def die_with_parent(signum: int = signal.SIGTERM, parent: int | None = None) -> None:
    """Ask the kernel for ``signum`` when the parent dies. Called in the child; ``parent`` is the
    pid the child was started by: if it died before the request was made, no signal would ever
    come, so the child ends at once."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signum), 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: no such call
        return
    if parent is not None and os.getppid() != parent:
        os.kill(os.getpid(), signum)


def tied_start(signum: int = signal.SIGTERM, umask: int | None = None) -> Callable[[], None]:
    """A ``preexec_fn`` for ``subprocess.Popen``: the child is tied to this process (and, with
    ``umask``, writes files with that mask). Made in the parent, so it knows the parent's pid."""
    parent = os.getpid()

    def prepare() -> None:
        if umask is not None:
            os.umask(umask)
        die_with_parent(signum, parent)

    return prepare
