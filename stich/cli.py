"""The ``stich`` command: ``serve`` (everything in one command), ``worker``, and the
auditor's ``verify`` (offline, no server) and ``import``."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import time
import urllib.error
import urllib.request
from importlib import metadata
from pathlib import Path

from .auditor import AuditError, import_export, verify_export
from .help_formatter import HelpFormatter
from .redis_server import PrivateRedis
from .supervisor import Supervisor, private_server, process
from .web_worker import CONNECTIONS, PACKAGE_ROOT, gunicorn_argv, raise_open_files_limit


class StartupError(Exception):
    """A reason ``stich`` cannot start, worded for the person who ran it."""


def check_settings() -> None:
    """Fail before anything starts on a setting the workers would refuse (each child would die on it, and be
    restarted, over and over)."""
    from workers.archiver import archive_after
    from workers.idle import idle_after

    for check in (idle_after, archive_after):
        try:
            check()
        except ValueError as exc:
            raise StartupError(str(exc)) from None


def serve(args: argparse.Namespace) -> int:
    env = dict(os.environ)
    check_settings()
    check_port_free(args.host, args.port)
    children = []  # all supervised; the private server is started first, its URL being needed
    if not env.get("REDIS_URL"):
        try:
            private = PrivateRedis(data_dir=args.data_dir).start()
        except (OSError, RuntimeError) as exc:
            raise StartupError(f"the private Redis-compatible server did not start: {exc}") from exc
        env["REDIS_URL"] = private.url  # with its password: for the children only, never printed
        print(f"stich: private Redis-compatible server on {private.display_url} (data in {private.data_dir})",
              flush=True)
        children.append(private_server(private))
    # The history's database (eventstore/history.py): unless STICH_DATABASE_URL names one, a SQLite file in
    # the data directory, which every child finds by its absolute path (gunicorn changes directory).
    env["STICH_DATA_DIR"] = os.path.abspath(args.data_dir)
    raise_open_files_limit(args.http_workers * args.connections + 1024)  # the children inherit it
    metrics_dir = None
    if not env.get("PROMETHEUS_MULTIPROC_DIR"):  # every child writes its samples here; /metrics sums them
        metrics_dir = tempfile.mkdtemp(prefix="stich-metrics-")
        env["PROMETHEUS_MULTIPROC_DIR"] = metrics_dir
    env["PROMETHEUS_MULTIPROC_DIR"] = os.path.abspath(env["PROMETHEUS_MULTIPROC_DIR"])  # gunicorn changes directory
    # Every Python child imports stich's own packages, never a folder of the same name where the user
    # stands: without this, ``python -m`` puts the working directory first on sys.path.
    env["PYTHONSAFEPATH"] = "1"
    pulse_dir = Path(tempfile.mkdtemp(prefix="stich-pulse-"))  # the workers' pulse files (stich/supervisor.py)
    processes = [process(f"bot worker {number + 1}", [sys.executable, "-m", "stich.cli", "worker"], env,
                         pulse_dir=pulse_dir)
                 for number in range(args.workers)]
    # Workers for the interactive lane alone (workers/dispatch.py): the others may all be inside a
    # 2 s search or a tournament's backlog when a person's bot turn arrives; these never start one.
    interactive = int(args.workers > 0) if args.interactive_workers is None else args.interactive_workers
    processes += [process(f"interactive bot worker {number + 1}",
                          [sys.executable, "-m", "stich.cli", "worker", "--lanes", "interactive"], env,
                          pulse_dir=pulse_dir)
                  for number in range(interactive)]
    # Workers for the analysis lane alone, at niceness 19 (workers/worker.py): an analysis is up to minutes
    # of search, and in a bot worker's hands it held up every bot-only game and tournament table behind it.
    analysts = int(args.workers > 0) if args.analysis_workers is None else args.analysis_workers
    processes += [process(f"analysis worker {number + 1}",
                          [sys.executable, "-m", "stich.cli", "worker", "--lanes", "analysis"], env,
                          pulse_dir=pulse_dir)
                  for number in range(analysts)]
    # gunicorn runs in PACKAGE_ROOT: a relative file is the user's, where stich serve was started.
    access_log = args.access_log if args.access_log in (None, "-") else os.path.abspath(args.access_log)
    processes.append(process("the HTTP server", gunicorn_argv("api.wsgi:app", args.host, args.port,
                                                              args.http_workers, args.connections,
                                                              access_log=access_log), env,
                             # If stich serve itself is killed, gunicorn's quick shutdown (SIGQUIT): a graceful
                             # one waits up to its timeout for open streams, with the port still held.
                             cwd=PACKAGE_ROOT, death_signal=signal.SIGQUIT))  # cwd: see gunicorn_argv
    supervisor = Supervisor(children + processes)
    url = f"http://{args.host}:{args.port}"
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        for child in processes:
            child.start()
        health = wait_until_up(url + "/v1/health", supervisor, 30)
        if health is None:
            print("stich: the HTTP server did not answer within 30 s (its own output, if any, is above)",
                  file=sys.stderr)
            return 1
        # One line: whoever waits for "serving on" has every address with it.
        print(f"stich: serving on {url}/v1 (play in a browser: {url}/play; API docs: {url}/docs; Ctrl-C stops)",
              flush=True)
        down = [name for name, part in health.get("components", {}).items() if part.get("status") == "down"]
        if down:  # e.g. --workers 0 and no worker of its own yet: the API serves, bots wait
            print(f"stich: not yet up: {', '.join(down)} (see {url}/v1/health)", file=sys.stderr, flush=True)
        supervisor.run_forever()
    except KeyboardInterrupt:
        return 0
    finally:
        supervisor.stop()
        if metrics_dir:
            shutil.rmtree(metrics_dir, ignore_errors=True)
        shutil.rmtree(pulse_dir, ignore_errors=True)
    return 0


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


def wait_until_up(url: str, supervisor: Supervisor, timeout: float, settle_s: float = 10.0) -> dict | None:
    """The health body once the HTTP server answers (None if it does not within ``timeout``),
    waiting up to ``settle_s`` more for every component; children that die meanwhile are restarted."""
    deadline = time.monotonic() + timeout
    body = None
    while time.monotonic() < deadline:
        supervisor.tick()
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                return json.load(response)
        except urllib.error.HTTPError as answer:  # 503: the HTTP server runs; a component is not up yet
            body = json.load(answer) if answer.code == 503 else None
            if body is not None:
                deadline = min(deadline, time.monotonic() + settle_s)
        except (OSError, ValueError):
            pass
        time.sleep(0.1)
    return body


def worker(args: argparse.Namespace) -> int:
    if not os.environ.get("REDIS_URL"):
        raise StartupError("`stich worker` needs REDIS_URL: the Redis your API uses (`stich serve` starts "
                           "its own workers, so a private server needs no separate worker)")
    check_settings()
    from workers.worker import run

    run(burst=args.burst, lanes=args.lanes)
    return 0


def lanes(value: str) -> tuple[str, ...]:
    """``--lanes``: comma-separated lanes of work (workers/dispatch.py)."""
    from workers.dispatch import LANES

    named = tuple(part.strip() for part in value.split(",") if part.strip())
    if not named or set(named) - set(LANES):
        raise argparse.ArgumentTypeError(f"lanes are {', '.join(LANES)} (comma-separated), not {value!r}")
    return named


def verify(args: argparse.Namespace) -> int:
    return verify_export(args.source, args.head)


def import_game(args: argparse.Namespace) -> int:
    return import_export(args.source, args.server, args.api_key or os.environ.get("STICH_API_KEY"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stich", description="stich game server", formatter_class=HelpFormatter)
    # The installed package's version, the one GET /v1 and the served contract show (docs/versioning.md).
    parser.add_argument("--version", action="version", version=f"stich {metadata.version('stich')}",
                        help="print the version (docs/versioning.md) and exit")
    sub = parser.add_subparsers(dest="command", required=True)
    p_serve = sub.add_parser("serve", help="run the HTTP API, a bot worker and (without REDIS_URL) a private Redis",
                             description="Run the HTTP API, the bot workers, an analysis worker and, without "
                                         "REDIS_URL, a private Redis-compatible server, and keep them running.",
                             formatter_class=HelpFormatter)
    p_serve.add_argument("--host", default="127.0.0.1",
                         help="the address to listen on (0.0.0.0: every interface, for other machines)")
    p_serve.add_argument("--port", type=int, default=8000, help="the port to listen on")
    p_serve.add_argument("--workers", type=int, default=1,
                         help="bot worker processes (every bot lane; not the analyses)")
    p_serve.add_argument("--interactive-workers", type=int, default=None,
                         help="bot workers for games with a human seat only (default 1, or 0 with --workers 0)")
    p_serve.add_argument("--analysis-workers", type=int, default=None,
                         help="workers for the analyses of finished games only, at the lowest CPU priority, so "
                              "that analyses do not hold up the games (default 1, or 0 with --workers 0)")
    p_serve.add_argument("--http-workers", type=int, default=2, help="HTTP worker processes")
    p_serve.add_argument("--connections", type=int, default=CONNECTIONS,
                         help="open connections per HTTP worker, streams and long polls included")
    p_serve.add_argument("--data-dir", default=os.environ.get("STICH_DATA_DIR", ".stich-data"),
                         help="where the private server keeps its append-only file and its log, and the history "
                              "its SQLite database (unless STICH_DATABASE_URL names another), relative to the "
                              "working directory (also STICH_DATA_DIR)")
    p_serve.add_argument("--access-log", nargs="?", const="-", default=None, metavar="FILE",
                         help="a line per HTTP request (the combined log's fields and the time taken; no query "
                              "and no credential) to FILE, or to stdout without one (default: none)")
    p_serve.set_defaults(func=serve)
    p_worker = sub.add_parser("worker", help="run a bot worker or an analysis worker (needs REDIS_URL)",
                              description="Run a bot worker (with --lanes analysis: an analysis worker) against "
                                          "the Redis in REDIS_URL (QUEUE_URL for the queues, if another).",
                              formatter_class=HelpFormatter)
    p_worker.add_argument("--burst", action="store_true", help="exit when the queue is empty")
    p_worker.add_argument("--lanes", type=lanes, default=None,
                          help="the lanes to drain, always in the order interactive, slow, bulk, analysis: games "
                               "with a human seat, their long searches, bot-only games, analyses of finished "
                               "games (default: the first three; give analysis a worker of its own, which then "
                               "runs at niceness 19)")
    p_worker.set_defaults(func=worker)
    p_verify = sub.add_parser("verify", help="check a game's export offline: hash chain, seed, deals, every "
                              "command, scores (exit 0 verified, 1 not, 2 unreadable)",
                              description="Check a game's export offline: hash chain, seed, deals, every command, "
                                          "scores. Exit status 0: verified; 1: not; 2: unreadable (cannot be read, "
                                          "or not an export).", formatter_class=HelpFormatter)
    p_verify.add_argument("source", help="an export file, - for stdin, or a URL (a game's URL means its export)")
    p_verify.add_argument("--head", help="a head hash you kept from the server: the chain must pass through it")
    p_verify.set_defaults(func=verify)
    p_import = sub.add_parser("import", help="load a verified finished export into a server as a read-only game",
                              description="Verify an export here, then load it into a server as a read-only "
                                          "game (a second import of the same export answers the first game).",
                              formatter_class=HelpFormatter)
    p_import.add_argument("source", help="an export file, - for stdin, or a URL")
    p_import.add_argument("--server", default=os.environ.get("STICH_SERVER", "http://127.0.0.1:8000"),
                          help="the server to import into (also STICH_SERVER)")
    p_import.add_argument("--api-key", default=None,  # read from the environment later: help never shows a key
                          help="an operator key, if the server requires one to create games (also STICH_API_KEY)")
    p_import.set_defaults(func=import_game)
    sub.add_parser("arena", help="bot kinds against each other on duplicate deals (stich arena --help)",
                   add_help=False)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "arena":  # its own parser: options, help and exit codes of its own
        from .arena import main as arena

        return arena(argv[1:])
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (StartupError, AuditError) as exc:
        print(f"stich: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
