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
    assert published == {"lb"} and services["lb"]["ports"] == ["8000:8000"]
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
    assert proxy["proxy_set_header Connection"] == '""'  # upstream keep-alive


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
    for service in ("api", "worker"):
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


def test_dockerfile_copies_every_package_pyproject_installs():
    dockerfile = (ROOT / "Dockerfile").read_text()
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = {name.rstrip("*") for name in pyproject["tool"]["setuptools"]["packages"]["find"]["include"]}
    assert packages == {"api", "domain", "eventstore", "workers", "stich"}
    for package in packages:
        assert f"COPY {package} ./{package}" in dockerfile
    assert "RUN pip install --no-cache-dir ." in dockerfile
    # `pip install .` starts gunicorn's gevent worker only with these (the missing-`packaging` crash).
    dependencies = " ".join(pyproject["project"]["dependencies"])
    assert "gunicorn[gevent]" in dependencies and re.search(r"\bpackaging\b", dependencies)
    assert re.search(r'CMD \["stich", "serve", .*"--workers", "0"\]', dockerfile)


def metric_names() -> set[str]:
    """Every series name stich exports: api/metrics.py's and workers/metrics.py's, with the
    suffixes prometheus_client adds (counters _total, histograms _bucket/_sum/_count)."""
    names = set()
    for module in ("api/metrics.py", "workers/metrics.py"):
        text = (ROOT / module).read_text()
        for kind, name in re.findall(r'(Counter|Gauge|Histogram|GaugeMetricFamily)\("(stich_\w+)"', text):
            names |= {f"{name}_total"} if kind == "Counter" else \
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
