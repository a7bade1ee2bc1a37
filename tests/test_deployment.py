"""docker-compose.yml is valid (checked offline against the vendored Compose schema)
and keeps the durability settings the README promises."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_compose_file_matches_the_compose_schema():
    result = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
                             str(ROOT / "docker-compose.yml")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_runs_redis_with_aof_fsync_always_api_and_worker():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"redis", "api", "worker"} <= set(services)
    command = services["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--appendfsync") + 1] == "always"
    assert services["worker"]["command"] == ["stich", "worker"]
    assert all(services[s]["environment"]["REDIS_URL"].startswith("redis://redis:") for s in ("api", "worker"))


def test_dockerfile_copies_every_package():
    dockerfile = (ROOT / "Dockerfile").read_text()
    for package in ("api", "domain", "eventstore", "workers", "stich"):
        assert f"COPY {package} ./{package}" in dockerfile
