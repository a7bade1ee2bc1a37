"""The ``stich`` command: ``serve`` (everything in one command) and ``worker``."""
from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from .redis_server import PrivateRedis
from .web_worker import CONNECTIONS, gunicorn_argv, raise_open_files_limit


class StartupError(Exception):
    """A reason ``stich`` cannot start, worded for the person who ran it."""


def serve(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    check_port_free(args.host, args.port)
    private = None
    if not env.get("REDIS_URL"):
        try:
            private = PrivateRedis(data_dir=args.data_dir).start()
        except (OSError, RuntimeError) as exc:
            raise StartupError(f"the private Redis-compatible server did not start: {exc}") from exc
        env["REDIS_URL"] = private.url
        print(f"stich: private Redis-compatible server on {private.url} (data in {private.data_dir})", flush=True)
    raise_open_files_limit(args.http_workers * args.connections + 1024)  # the children inherit it
    children = [subprocess.Popen([sys.executable, "-m", "stich.cli", "worker"], env=env)
                for _ in range(args.workers)]
    children.append(subprocess.Popen(gunicorn_argv("api.wsgi:app", args.host, args.port, args.http_workers,
                                                   args.connections), env=env))
    url = f"http://{args.host}:{args.port}"
    try:
        if not wait_until_up(url + "/v1/health", children, 30):
            print("stich: the HTTP server did not come up (its own output, if any, is above)", file=sys.stderr)
            return 1
        print(f"stich: serving on {url}/v1  (API docs: {url}/docs; Ctrl-C stops)", flush=True)
        signal.signal(signal.SIGTERM, _interrupt)
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
        print("stich: a child process exited; stopping", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        for child in children:
            if child.poll() is None:
                child.terminate()
        for child in children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
        if private:
            private.stop()


def _interrupt(*_):
    raise KeyboardInterrupt


def check_port_free(host: str, port: int) -> None:
    """Fail early and plainly when the port is taken (gunicorn would retry for a while, then exit)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise StartupError(f"cannot listen on {host}:{port} ({exc.strerror}); choose another with --port") from exc


def wait_until_up(url: str, children, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(child.poll() is not None for child in children):
            return False
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return True
        except OSError:
            time.sleep(0.1)
    return False


def worker(args: argparse.Namespace) -> int:
    if not os.environ.get("REDIS_URL"):
        raise StartupError("`stich worker` needs REDIS_URL: the Redis your API uses (`stich serve` starts "
                           "its own workers, so a private server needs no separate worker)")
    from workers.worker import run

    run(burst=args.burst)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="stich", description="stich game server")
    sub = parser.add_subparsers(dest="command", required=True)
    p_serve = sub.add_parser("serve", help="run the HTTP API, a bot worker and (without REDIS_URL) a private Redis")
    p_serve.add_argument("--host", default="127.0.0.1")
    p_serve.add_argument("--port", type=int, default=8000)
    p_serve.add_argument("--workers", type=int, default=1, help="bot worker processes")
    p_serve.add_argument("--http-workers", type=int, default=2, help="HTTP worker processes")
    p_serve.add_argument("--connections", type=int, default=CONNECTIONS,
                         help="open connections per HTTP worker, streams and long polls included")
    p_serve.add_argument("--data-dir", default=os.environ.get("STICH_DATA_DIR", ".stich-data"),
                         help="where the private server keeps its append-only file (default: ./.stich-data)")
    p_serve.set_defaults(func=serve)
    p_worker = sub.add_parser("worker", help="run a bot worker (needs REDIS_URL)")
    p_worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    p_worker.set_defaults(func=worker)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except StartupError as exc:
        print(f"stich: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
