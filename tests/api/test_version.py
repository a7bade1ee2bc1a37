"""One version everywhere (docs/versioning.md): the package's, as `stich --version`, `GET /v1`,
the served contract and the repository's openapi.yaml say it."""
from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import yaml

from stich.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def test_the_cli_the_index_and_the_contract_say_the_package_version(client, capsys):
    package = metadata.version("stich")
    try:
        build_parser().parse_args(["--version"])
    except SystemExit as done:
        assert done.code == 0
    assert capsys.readouterr().out.strip() == f"stich {package}"
    assert client.get("/v1").get_json()["version"] == package
    assert yaml.safe_load(client.get("/v1/openapi.yaml").get_data(as_text=True))["info"]["version"] == package
    assert client.get("/v1/openapi.json").get_json()["info"]["version"] == package


def test_the_repository_contract_carries_the_package_version():
    """The served contract takes the package's version whatever the file says; the file must not
    tell a reader of the repository another one (docs/versioning.md, making a release)."""
    assert yaml.safe_load((ROOT / "openapi.yaml").read_text())["info"]["version"] == metadata.version("stich")


def test_stich_version_runs_as_a_command():
    done = subprocess.run([sys.executable, "-m", "stich.cli", "--version"], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == f"stich {metadata.version('stich')}"


def test_the_changelog_has_an_entry_for_the_package_version():
    assert f"## [{metadata.version('stich')}] - " in (ROOT / "CHANGELOG.md").read_text()


def test_the_served_contract_takes_the_running_packages_version(monkeypatch):
    """Were the file and the package ever to disagree, the server says its own version, and only there."""
    from api import meta

    monkeypatch.setattr(meta, "version", lambda: "9.8.7")
    meta.contract_text.cache_clear()
    try:
        served = meta.contract_text()
    finally:
        meta.contract_text.cache_clear()
    original = (ROOT / "openapi.yaml").read_text()
    assert yaml.safe_load(served)["info"]["version"] == "9.8.7"
    assert [a for a, b in zip(served.splitlines(), original.splitlines()) if a != b] == ['  version: "9.8.7"']
