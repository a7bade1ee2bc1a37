"""The ``stich`` command: ``serve`` (everything in one command) and ``worker``."""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import urllib.request

from .redis_server import PrivateRedis


def serve(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    private = None
    if not env.get("REDIS_URL"):
        private = PrivateRedis(data_dir=args.data_dir).start()
        env["REDIS_URL"] = private.url
        print(f"stich: private Redis-compatible server on {private.url} (data in {private.data_dir})", flush=True)
    children = [subprocess.Popen([sys.executable, "-m", "stich.cli", "worker"], env=env)
                for _ in range(args.workers)]
    children.append(subprocess.Popen([
        sys.executable, "-m", "gunicorn", "--bind", f"{args.host}:{args.port}",
        "--workers", str(args.http_workers), "--worker-class", "gthread", "--threads", str(args.threads),
        "--timeout", "0", "--graceful-timeout", "5", "--log-level", "warning", "api.wsgi:app"], env=env))
    url = f"http://{args.host}:{args.port}"
    try:
        if wait_until_up(url + "/v1/health", children, 30):
            print(f"stich: serving on {url}/v1  (Ctrl-C stops)", flush=True)
        else:
            print("stich: the HTTP server did not come up", file=sys.stderr)
            return 1
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
    p_serve.add_argument("--http-workers", type=int, default=2, help="gunicorn worker processes")
    p_serve.add_argument("--threads", type=int, default=16, help="threads per HTTP worker (long polls hold one)")
    p_serve.add_argument("--data-dir", default=os.environ.get("STICH_DATA_DIR", ".stich-data"),
                         help="where the private server keeps its append-only file")
    p_serve.set_defaults(func=serve)
    p_worker = sub.add_parser("worker", help="run a bot worker (needs REDIS_URL)")
    p_worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    p_worker.set_defaults(func=worker)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
