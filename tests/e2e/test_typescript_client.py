"""openapi.yaml is generator-proof in TypeScript too: openapi-typescript turns it into types with no
warning, tsc --strict checks tests/e2e/typescript/play.ts against them, and node plays a whole game of
each of the three games through openapi-fetch against a real `stich serve` (the server from conftest).

openapi-typescript, openapi-fetch and typescript are pinned in tests/e2e/package.json (`npm ci --prefix
tests/e2e`, as .ci/run does). Without node or those packages the test skips, saying why, unless
STICH_REQUIRE_BROWSER=1 (CI) makes that a failure, as for axe-core.

The one option given to the generator, `--default-non-nullable false`: by default openapi-typescript
makes every property with a `default` required, also in the schemas a request sends (`rules`, `hints`,
`rated` of a new game), where the default is what the server fills in when the field is absent."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.prerequisites import skip_unless_required

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
MODULES = HERE / "node_modules"
PACKAGES = ("openapi-typescript", "openapi-fetch", "typescript")
GAMES = ("scharfe-schoten", "schafkopf", "scharwenzel")

pytestmark = pytest.mark.e2e


def missing() -> str | None:
    if shutil.which("node") is None:
        return "node (apt-get install nodejs npm)"
    absent = [name for name in PACKAGES if not (MODULES / name / "package.json").exists()]
    return ", ".join(absent) + " (npm ci --prefix tests/e2e)" if absent else None


def node(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["node", *args], cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def client_dir(tmp_path_factory):
    """stich.d.ts generated from the contract beside play.ts, and play.ts compiled by tsc --strict."""
    absent = missing()
    if absent:
        skip_unless_required("STICH_REQUIRE_BROWSER", f"no TypeScript client: {absent} missing",
                             "node, and npm ci --prefix tests/e2e")
    out = tmp_path_factory.mktemp("typescript")
    for name in ("play.ts", "tsconfig.json"):
        shutil.copy(HERE / "typescript" / name, out / name)
    (out / "package.json").write_text('{"type": "module"}\n')  # openapi-fetch is an ES module
    (out / "node_modules").symlink_to(MODULES)
    generated = node(str(MODULES / "openapi-typescript" / "bin" / "cli.js"), str(ROOT / "openapi.yaml"),
                     "--output", "stich.d.ts", "--default-non-nullable", "false", cwd=out)
    said = generated.stdout + generated.stderr
    assert generated.returncode == 0, said
    # openapi-typescript marks a warning with ⚠ (an unusable discriminator mapping, say) and goes on.
    assert "⚠" not in said and "warn" not in said.lower(), said
    compiled = node(str(MODULES / "typescript" / "bin" / "tsc"), "--project", "tsconfig.json", cwd=out)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    return out


@pytest.mark.parametrize("game", GAMES)
def test_a_typescript_client_plays_a_whole_game(client_dir, server, game):  # a skip starts no server
    played = node("play.js", server["url"], game, cwd=client_dir)
    assert played.returncode == 0, played.stdout + played.stderr
    result = json.loads(played.stdout)
    assert result["game"] == game and result["moves"] > 0 and result["events"] > result["moves"], result
    assert len(result["totals"]) == (3 if game == "scharfe-schoten" else 4), result
