"""The compose files are valid (checked offline against the vendored Compose schema), keep the
durability settings the README promises and the structure that lets them scale (docs/deployment.md);
the Dockerfile installs what pyproject.toml declares; the alert rules and the dashboard name only
metrics stich exports."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


COMPOSE_FILES = ("docker-compose.yml", "docker-compose.cluster.yml")


def compose(name: str) -> dict:
    return yaml.safe_load((ROOT / name).read_text())


@pytest.mark.parametrize("name", COMPOSE_FILES)
def test_compose_file_matches_the_compose_schema(name):
    result = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
                             str(ROOT / name)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("name", COMPOSE_FILES)
def test_only_the_balancer_publishes_a_port_so_api_replicas_scale(name):
    services = compose(name)["services"]
    assert "ports" not in services["api"] and "8000" in [str(p) for p in services["api"]["expose"]]
    published = {s for s, body in services.items() if body.get("ports")}
    assert published == {"lb"} and services["lb"]["ports"] == ["${STICH_PORT:-8000}:8000"]
    assert services["api"]["environment"]["STICH_TRUSTED_PROXIES"] == "1"  # nginx sets X-Forwarded-For
    assert "container_name" not in services["api"] and "container_name" not in services["worker"]


@pytest.mark.parametrize("name", COMPOSE_FILES)
def test_the_balancer_mounts_the_repository_nginx_config_set_up_for_sse(name):
    lb = compose(name)["services"]["lb"]
    mounts = dict(volume.rsplit(":", 1)[0].split(":", 1) for volume in lb["volumes"])
    assert mounts == {"./deploy/nginx/compose.conf": "/etc/nginx/conf.d/default.conf",
                      "./deploy/nginx/proxy.conf": "/etc/nginx/stich/proxy.conf"}
    assert all(volume.endswith(":ro") for volume in lb["volumes"])
    site = (ROOT / "deploy/nginx/compose.conf").read_text()
    assert "include /etc/nginx/stich/proxy.conf;" in site and re.search(r"server api:8000 resolve", site)
    assert re.search(r"keepalive \d+;", site) and "zone stich_api" in site
    proxy = directives(ROOT / "deploy/nginx/proxy.conf")
    assert proxy["proxy_buffering"] == "off" and proxy["proxy_http_version"] == "1.1"
    assert int(proxy["proxy_read_timeout"].rstrip("s")) >= 3600  # SSE keep-alives every 15 s, long polls 60 s
    assert proxy["proxy_set_header X-Forwarded-For"] == "$proxy_add_x_forwarded_for"
    # A WebSocket's upgrade goes on; any other request sends no Connection header (upstream keep-alive):
    # compose.conf maps an empty Upgrade to an empty Connection.
    assert proxy["proxy_set_header Upgrade"] == "$http_upgrade"
    assert proxy["proxy_set_header Connection"] == "$connection_upgrade"
    assert re.search(r'map \$http_upgrade \$connection_upgrade \{\s*default upgrade;\s*""\s+"";\s*\}', site)


def directives(path: Path) -> dict[str, str]:
    """nginx directives of a flat file: name (with a header's name) -> value."""
    found = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip().rstrip(";")
        if not line:
            continue
        words = line.split()
        key = " ".join(words[:2]) if words[0] == "proxy_set_header" else words[0]
        found[key] = " ".join(words[2:] if words[0] == "proxy_set_header" else words[1:])
    return found


@pytest.mark.parametrize("name", COMPOSE_FILES)
def test_every_long_running_service_has_a_healthcheck_and_a_restart_policy(name):
    for service, body in compose(name)["services"].items():
        if body.get("restart") == "no":  # a one-shot job (cluster-init)
            continue
        assert body["healthcheck"]["test"][0] == "CMD", service
        assert body["restart"] == "unless-stopped", service


def test_the_cluster_file_runs_six_nodes_with_aof_three_masters_with_a_replica_each_and_a_queue_redis():
    cluster = compose("docker-compose.cluster.yml")
    services = cluster["services"]
    nodes = sorted(s for s in services if s.startswith("redis-node-"))
    assert len(nodes) == 6
    for node in nodes:
        command = " ".join(services[node]["command"])
        assert "--cluster-enabled yes" in command and "--appendonly yes" in command, node
        assert "--appendfsync always" in command
        assert services[node]["volumes"] == [f"node-{node[-1]}:/data"]
    init = "\n".join(services["cluster-init"]["command"])
    assert "--cluster-replicas 1" in init  # six nodes: three masters, a replica each
    queue = " ".join(services["queue"]["command"])
    assert "--appendonly yes" in queue and "cluster-enabled" not in queue
    for service in ("api", "worker", "analysis"):
        environment = services[service]["environment"]
        assert environment["REDIS_URL"].startswith("redis+cluster://redis-node-")
        assert environment["QUEUE_URL"] == "redis://queue:6379/0"  # RQ needs one node
        assert services[service]["depends_on"]["cluster-init"] == {"condition": "service_completed_successfully"}


def test_compose_runs_redis_with_aof_fsync_always_api_and_worker():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"redis", "api", "worker"} <= set(services)
    command = services["redis"]["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--appendfsync") + 1] == "always"
    assert services["worker"]["command"] == ["stich", "worker"]
    assert all(services[s]["environment"]["REDIS_URL"].startswith("redis://redis:") for s in ("api", "worker"))


@pytest.mark.parametrize("name", COMPOSE_FILES)
def test_every_lane_has_a_worker_and_the_analyses_one_of_their_own_that_yields_the_cpu(name):
    """A lane no service drains leaves its jobs queued for good; analyses beside bot turns held up the
    bot-only games (workers/dispatch.py), and niceness weighs only inside one container."""
    from workers.dispatch import ANALYSIS, BOT_LANES, LANES

    services = compose(name)["services"]
    drained = {}
    for service, body in services.items():
        command = body.get("command", [])
        if command[:2] == ["stich", "worker"]:
            lanes = command[command.index("--lanes") + 1].split(",") if "--lanes" in command else BOT_LANES
            drained[service] = set(lanes)
    assert set().union(*drained.values()) == set(LANES), drained
    assert drained["analysis"] == {ANALYSIS} and ANALYSIS not in drained["worker"]
    assert services["analysis"]["cpu_shares"] < 1024  # Docker's default weight; the others keep it
    assert all("cpu_shares" not in body for service, body in services.items() if service != "analysis")


PUBLIC_IMAGES = {"STICH_REDIS_IMAGE": "redis:7.2", "STICH_POSTGRES_IMAGE": "postgres:16",
                 "STICH_NGINX_IMAGE": "nginx:1.28-alpine", "STICH_IMAGE": "stich:latest"}


@pytest.mark.parametrize("name", COMPOSE_FILES)
def test_every_image_is_a_parameter_defaulting_to_the_public_one(name):
    """A test (tests/compose/) points the files at images built from Debian without editing them; a user
    who sets nothing gets the public images. No top-level `name:`: docker-compose 1.29 refuses it."""
    document = compose(name)
    assert set(document) <= {"services", "volumes", "x-stich-build", "x-cluster-node", "x-stich-env"}
    for service, body in document["services"].items():
        found = re.fullmatch(r"\$\{(\w+):-([^}]+)\}", body["image"])
        assert found and PUBLIC_IMAGES[found[1]] == found[2], (service, body["image"])
        if "build" in body:
            assert found[1] == "STICH_IMAGE"
            assert body["build"] == {"context": ".", "args": {"PYTHON_IMAGE": "${STICH_PYTHON_IMAGE:-python:3.11-slim}"}}
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "ARG PYTHON_IMAGE=python:3.11-slim\nFROM ${PYTHON_IMAGE}\n" in dockerfile


def test_dockerfile_copies_every_package_pyproject_installs():
    dockerfile = (ROOT / "Dockerfile").read_text()
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = {name.rstrip("*") for name in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]}
    assert packages == {"api", "domain", "eventstore", "workers", "stich"}
    for package in packages:
        assert f"COPY {package} ./{package}" in dockerfile
    assert "RUN pip install --no-cache-dir '.[postgres]'" in dockerfile  # the shared history's driver
    # `pip install .` starts gunicorn's gevent worker only with these (the missing-`packaging` crash).
    dependencies = " ".join(pyproject["project"]["dependencies"])
    assert "gunicorn[gevent]" in dependencies and re.search(r"\bpackaging\b", dependencies)
    assert re.search(r'CMD \["stich", "serve", .*"--workers", "0"\]', dockerfile)


def test_every_stich_process_in_compose_shares_one_history_database():
    """A SQLite file, `stich serve`'s default, would be each container's own: the API's replicas and the
    workers would keep histories of their own. Both recipes give every stich process one PostgreSQL."""
    for name in ("docker-compose.yml", "docker-compose.cluster.yml"):
        services = yaml.safe_load((ROOT / name).read_text())["services"]
        assert "postgres" in services, name
        built = {service: spec for service, spec in services.items() if "build" in spec}
        assert {"api", "worker", "analysis"} <= set(built), name
        for service, spec in built.items():
            url = (spec.get("environment") or {}).get("STICH_DATABASE_URL", "")
            assert url.startswith("postgresql+psycopg://") and "@postgres:" in url, (name, service)


def metric_names() -> set[str]:
    """Every series name stich exports: api/metrics.py's and workers/metrics.py's, with the
    suffixes prometheus_client adds (counters _total, histograms _bucket/_sum/_count)."""
    names = set()
    for module in ("api/metrics.py", "workers/metrics.py"):
        text = (ROOT / module).read_text()
        for kind, name in re.findall(r'(Counter|Gauge|Histogram|GaugeMetricFamily|CounterMetricFamily)\("(stich_\w+)"',
                                     text):
            names |= {f"{name}_total"} if kind.startswith("Counter") else \
                {f"{name}_{s}" for s in ("bucket", "sum", "count")} if kind == "Histogram" else {name}
    return names


def series_in(expr: str) -> set[str]:
    return set(re.findall(r"\bstich_\w+", expr))


def test_the_alert_rules_name_only_metrics_stich_exports():
    known = metric_names()
    assert {"stich_moves_total", "stich_bot_queue_depth", "stich_command_seconds_bucket"} <= known
    rules = [rule for group in yaml.safe_load((ROOT / "deploy/prometheus/alerts.yml").read_text())["groups"]
             for rule in group["rules"]]
    assert len(rules) >= 6
    for rule in rules:
        assert rule["alert"].startswith("Stich") and rule["labels"]["severity"] in ("page", "warn")
        assert rule["annotations"]["summary"] and re.fullmatch(r"\d+m", rule["for"])
        assert series_in(rule["expr"]) <= known, rule["alert"]
    used = set().union(*(series_in(rule["expr"]) for rule in rules))
    assert {"stich_store_errors_total", "stich_bot_queue_depth", "stich_http_requests_total"} <= used
    lanes = {lane for rule in rules for lane in re.findall(r'lane=~?"([\w|]+)"', rule["expr"])}
    assert {"interactive"} <= {part for lane in lanes for part in lane.split("|")}  # the label api/metrics.py sets


def test_the_grafana_dashboard_parses_and_names_only_metrics_stich_exports():
    dashboard = json.loads((ROOT / "deploy/grafana/stich.json").read_text())
    assert dashboard["uid"] == "stich" and dashboard["panels"]
    known = metric_names()
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    assert exprs and all(series_in(expr) and series_in(expr) <= known for expr in exprs)
    assert {name for expr in exprs for name in series_in(expr)} >= known - {
        f"stich_{h}_{s}" for h in ("command_seconds", "bot_turn_seconds") for s in ("sum", "count")}
