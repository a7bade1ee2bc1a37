"""A Compose project of the repository's files, started for real: the commands docs/deployment.md gives
(``docker-compose --env-file deploy/debian-images/images.env -p PROJECT -f FILE ...``), each bounded by a
timeout and timed, the containers of a service, and what an API container reports of its open streams."""
from __future__ import annotations

import os
import re
import io
import shutil
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

import requests

from stich.redis_server import free_port

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "deploy" / "debian-images"
IMAGES_ENV = IMAGES / "images.env"
COMMAND_S = 600.0  # one compose command (a cold `build` installs the project with pip)
HEALTHY_S = 180.0  # every service healthy and the balancer answering
HEAD_IMAGE = "stich-compose-test:head"  # this checkout's image; not stich:latest, which may be a user's own


def compose_command() -> list[str] | None:
    """Debian's docker-compose 1.29, or Compose v2 as a Docker plugin; STICH_COMPOSE picks one."""
    chosen = os.environ.get("STICH_COMPOSE")
    if chosen:
        return chosen.split()
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True,
                                                 timeout=30).returncode == 0:
        return ["docker", "compose"]
    return None


def docker_problem() -> str | None:
    """Why the Compose files cannot run here, or None."""
    if not shutil.which("docker"):
        return "no docker client (apt-get install docker.io)"
    if compose_command() is None:
        return "no docker-compose (apt-get install docker-compose)"
    try:
        info = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True,
                              timeout=30)
    except subprocess.TimeoutExpired:
        return "docker info did not answer within 30 s"
    if info.returncode != 0:
        return f"no Docker daemon answers (start dockerd): {info.stderr.strip()[:200]}"
    if not shutil.which("debootstrap") and not image_exists("stich-debian/base:bookworm"):
        return "no debootstrap to build the base images (apt-get install debootstrap)"
    return None


def image_exists(name: str) -> bool:
    return subprocess.run(["docker", "image", "inspect", name], capture_output=True, timeout=30).returncode == 0


def run(argv: list[str], timings: dict, label: str, timeout: float = COMMAND_S, env: dict | None = None,
        check: bool = True) -> subprocess.CompletedProcess:
    """A command, its seconds added to ``timings[label]``; its output in the failure when it fails."""
    started = time.monotonic()
    result = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    timings[label] = round(timings.get(label, 0.0) + time.monotonic() - started, 1)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(argv)} exited {result.returncode}:\n{result.stdout[-3000:]}\n"
                             f"{result.stderr[-3000:]}")
    return result


def build_base_images(timings: dict) -> None:
    """deploy/debian-images/build: the debootstrapped bases (cached) and the four stand-in images."""
    result = run([str(IMAGES / "build")], timings, "base_images")
    for line in result.stderr.splitlines():  # "debian-images: python 16 s"
        found = re.fullmatch(r"debian-images: (.+) (\d+) s", line)
        if found:
            timings[f"base_images.{found[1].replace(' ', '_')}"] = int(found[2])


class Stack:
    """One Compose project of ``file``, on a free port of its own, with stich's image ``image``."""

    def __init__(self, file: str, project: str, image: str, timings: dict):
        self.file, self.project, self.timings = file, project, timings
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.env = {**os.environ, "STICH_PORT": str(self.port), "STICH_IMAGE": image}

    def compose(self, *args: str, label: str | None = None, timeout: float = COMMAND_S,
                check: bool = True) -> subprocess.CompletedProcess:
        argv = [*compose_command(), "--env-file", str(IMAGES_ENV), "-p", self.project, "-f", str(ROOT / self.file),
                *args]
        return run(argv, self.timings, label or args[0], timeout=timeout, env=self.env, check=check)

    def build(self) -> None:
        """stich's image, built by Compose from the file's build section (api, worker and analysis share it)."""
        self.compose("build", "api", label="build")

    def up(self, *args: str, label: str = "up") -> None:
        self.compose("up", "-d", *args, label=label)
        self.wait_healthy()

    def down(self) -> None:
        self.compose("down", "-v", "--remove-orphans", "-t", "10", label="down", timeout=180, check=False)

    def logs(self, tail: int = 40) -> str:
        return self.compose("logs", "--no-color", "--tail", str(tail), label="logs", timeout=60, check=False).stdout

    def containers(self, service: str) -> list[str]:
        """The running containers of ``service``, by name, in their number's order."""
        result = run(["docker", "ps", "--filter", f"label=com.docker.compose.project={self.project}",
                      "--filter", f"label=com.docker.compose.service={service}", "--format", "{{.Names}}"],
                     self.timings, "ps", timeout=30)
        return sorted(result.stdout.split(), key=lambda name: int(re.findall(r"\d+", name)[-1]))

    def health(self, container: str) -> str:
        result = run(["docker", "inspect", "--format", "{{if .State.Health}}{{.State.Health.Status}}{{else}}"
                      "{{.State.Status}}{{end}}", container], self.timings, "ps", timeout=30, check=False)
        return result.stdout.strip()

    def wait_healthy(self, limit_s: float = HEALTHY_S) -> float:
        """Seconds until every running container of the project is healthy and the balancer answers."""
        started = time.monotonic()
        while time.monotonic() - started < limit_s:
            names = run(["docker", "ps", "--filter", f"label=com.docker.compose.project={self.project}",
                         "--format", "{{.Names}}"], self.timings, "ps", timeout=30).stdout.split()
            if names and all(self.health(name) in ("healthy", "running") for name in names):
                try:
                    if requests.get(f"{self.url}/v1/health", timeout=3).status_code == 200:
                        return time.monotonic() - started
                except requests.RequestException:
                    pass
            time.sleep(1)
        raise AssertionError(f"{self.project} not healthy within {limit_s:g} s:\n{self.logs()}")

    def exec(self, container: str, *argv: str, timeout: float = 60) -> str:
        return run(["docker", "exec", container, *argv], self.timings, "exec", timeout=timeout).stdout

    def open_streams(self, container: str) -> int:
        """SSE streams open on one API container (its ``stich_open_streams`` gauge, asked from inside)."""
        text = self.exec(container, "python", "-c", "import urllib.request; print(urllib.request.urlopen("
                         "'http://127.0.0.1:8000/metrics', timeout=5).read().decode())")
        return int(sum(float(value) for value in
                       re.findall(r'^stich_open_streams\{[^}]*kind="sse"[^}]*\} (\S+)$', text, re.M)))

    def kill(self, container: str) -> None:
        """SIGKILL: no goodbye to its clients (the restart policy may start it again later)."""
        run(["docker", "kill", container], self.timings, "kill", timeout=60)


def python_image() -> str:
    """The base image stich's image is built on here: STICH_PYTHON_IMAGE, else images.env's."""
    for line in IMAGES_ENV.read_text().splitlines():
        if line.startswith("STICH_PYTHON_IMAGE="):
            return os.environ.get("STICH_PYTHON_IMAGE") or line.split("=", 1)[1]
    raise AssertionError(f"{IMAGES_ENV} names no STICH_PYTHON_IMAGE")


def build_release(commit: str, tag: str, timings: dict) -> str:
    """stich's image of an earlier commit, with that commit's own Dockerfile on this machine's Python
    base (a release's Dockerfile names python:3.11-slim); kept, as a release does not change."""
    if image_exists(tag):
        return tag
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, timeout=120)
    if archive.returncode != 0:
        raise AssertionError(f"commit {commit} is not in this clone (a shallow clone? `git fetch --unshallow`): "
                             f"{archive.stderr.decode()[-300:]}")
    with tempfile.TemporaryDirectory(prefix="stich-release-") as tmp:
        tarfile.open(fileobj=io.BytesIO(archive.stdout)).extractall(tmp, filter="data")
        dockerfile = Path(tmp) / "Dockerfile"
        text = dockerfile.read_text()
        assert "FROM python:3.11-slim\n" in text, text[:300]
        dockerfile.write_text(text.replace("FROM python:3.11-slim\n", f"FROM {python_image()}\n"))
        run(["docker", "build", "-t", tag, tmp], timings, "build_release")
    return tag
