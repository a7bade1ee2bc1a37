"""openapi.yaml is the bundle of contract/openapi/, and nothing else: whoever edits one without the
other is told the command that rebuilds it. The bundler refuses sources that do not make a document
(a reference to nothing, a file nothing references), and its split gives back the sources as they are,
so that a merge which edited openapi.yaml itself is carried into the sources by one command."""
from __future__ import annotations

import shutil

import pytest

from contract.bundler import BUNDLE, REBUILD, SOURCES, ContractError, bundle, placements, split


def sources_as_files() -> dict[str, str]:
    return {str(path.relative_to(SOURCES)): path.read_text(encoding="utf-8") for path in SOURCES.rglob("*.yaml")}


def test_openapi_yaml_is_the_bundle_of_its_sources():
    committed = BUNDLE.read_text(encoding="utf-8")
    assert bundle() == committed, (
        f"openapi.yaml is not the bundle of contract/openapi/: edit the small files under contract/openapi/ "
        f"(docs/openapi-contract.md), then run `{REBUILD}` and commit both; after a merge that edited "
        f"openapi.yaml itself, `{REBUILD} --split` carries the edit into the sources")


def test_splitting_the_bundle_gives_back_the_sources():
    """So `--split` after a merge changes only what the merge changed, and every item keeps its file."""
    assert split(BUNDLE.read_text(encoding="utf-8"), placements()) == sources_as_files()


def test_the_sources_are_small_files():
    """One file a tag, a component kind or a schema: none near the size of a document."""
    sizes = {name: text.count("\n") for name, text in sources_as_files().items()}
    assert len(sizes) > 300 and max(sizes.values()) < 1000, sorted(sizes.items(), key=lambda item: -item[1])[:3]


@pytest.fixture
def sources(tmp_path):
    copy = tmp_path / "openapi"
    shutil.copytree(SOURCES, copy)
    return copy


def test_a_schema_file_nothing_refers_to_is_refused(sources):
    (sources / "schemas" / "games" / "Forgotten.yaml").write_text("type: string\n")
    with pytest.raises(ContractError, match="not referenced by root.yaml: schemas/games/Forgotten.yaml"):
        bundle(sources)


def test_a_path_nothing_refers_to_is_refused(sources):
    meta = sources / "paths" / "meta.yaml"
    meta.write_text(meta.read_text() + "\n/v1/forgotten:\n  get:\n    tags: [meta]\n")
    with pytest.raises(ContractError, match="paths/meta.yaml: /v1/forgotten"):
        bundle(sources)


def test_a_reference_to_nothing_is_refused(sources):
    (sources / "schemas" / "games" / "GameStatus.yaml").unlink()
    with pytest.raises(ContractError, match="refers to schemas/games/GameStatus.yaml, which does not exist"):
        bundle(sources)


def test_a_new_schema_is_split_beside_the_one_before_it():
    text = BUNDLE.read_text(encoding="utf-8").replace(
        "    SeatInfo:\n", "    GameStage:\n      type: string\n    SeatInfo:\n", 1)
    files = split(text, placements())
    assert files["schemas/games/GameStage.yaml"] == "type: string\n"
    assert '    GameStage: {$ref: "schemas/games/GameStage.yaml"}\n    SeatInfo:' in files["root.yaml"]
