"""Bundles ``contract/openapi/`` into ``openapi.yaml``, and splits ``openapi.yaml`` back into it.

The bundle is made of text, not of parsed YAML: the root file ``root.yaml`` is copied line for
line, and each of its lines ``<key>: {$ref: "<file>[#/<key in file>]"}`` becomes ``<key>:`` with the
file's text (or the block of that top-level key in it) indented beneath. So the comments, the
order, the quoting and the blank lines of the sources are those of the bundle (splitting the
hand-written document changed none of its bytes). Nothing in it depends on
the order files are listed in or on a YAML library's dumper: the same sources give the same bytes.

The split is the inverse, for a merge that brought edits of ``openapi.yaml`` itself: a path
item goes to ``paths/<its tag>.yaml``, every other component kind to ``components/<kind>.yaml``, a
schema keeps the file the current ``root.yaml`` gives it (a new one goes beside the schema before
it), and ``root.yaml`` keeps everything else verbatim.
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "contract" / "openapi"
BUNDLE = ROOT / "openapi.yaml"
REBUILD = "python -m contract"

# A root line that stands for a file, or for one top-level key of a file: `  /v1: {$ref: "paths/meta.yaml#/~1v1"}`.
REFERENCE = re.compile(r'^(?P<indent> *)(?P<key>[^ #][^:]*): \{\$ref: "(?P<file>[^"#]+)(?:#/(?P<pointer>[^"]*))?"\}$')


class ContractError(ValueError):
    """The sources do not make a document: a reference to nothing, or a file nothing references."""


def pointer_key(pointer: str) -> str:
    """A JSON pointer's one token, unescaped (RFC 6901: `~1` is `/`, `~0` is `~`)."""
    return pointer.replace("~1", "/").replace("~0", "~")


def pointer_token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def indented(lines: list[str], spaces: int) -> list[str]:
    return [" " * spaces + line if line else line for line in lines]


def blocks(text: str) -> dict[str, list[str]]:
    """The top-level keys of a file of several items, each with its lines below it (its trailing
    blank lines, which separate the items in the file, left out)."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.split("\n"):
        if line and not line.startswith(" "):
            if not line.endswith(":"):
                raise ContractError(f"a top-level line that is not a key: {line!r}")
            current = found.setdefault(line[:-1], [])
            continue
        if current is None:
            if line:
                raise ContractError(f"an indented line before the first key: {line!r}")
            continue
        current.append(line)
    for lines in found.values():
        while lines and not lines[-1]:
            lines.pop()
    return found


def bundle(sources: Path = SOURCES) -> str:
    """The document the sources make (raises ContractError if a reference or a file is dangling)."""
    cache: dict[str, str] = {}
    parsed: dict[str, dict[str, list[str]]] = {}
    used: set[tuple[str, str | None]] = set()
    out: list[str] = []
    for line in (sources / "root.yaml").read_text(encoding="utf-8").split("\n"):
        match = REFERENCE.match(line)
        if not match:
            out.append(line)
            continue
        indent, name, pointer = len(match["indent"]), match["file"], match["pointer"]
        if name not in cache:
            path = sources / name
            if not path.is_file():
                raise ContractError(f"root.yaml refers to {name}, which does not exist")
            cache[name] = path.read_text(encoding="utf-8").removesuffix("\n")
        out.append(f'{match["indent"]}{match["key"]}:')
        if pointer is None:
            out.extend(indented(cache[name].split("\n"), indent + 2))
        else:
            key = pointer_key(pointer)
            if name not in parsed:
                parsed[name] = blocks(cache[name])
            items = parsed[name]
            if key not in items:
                raise ContractError(f"root.yaml refers to {key!r} in {name}, which has no such key")
            out.extend(indented(items[key], indent))  # already two spaces under their key in the file
        used.add((name, None if pointer is None else pointer_key(pointer)))
    unused = sorted({path.relative_to(sources).as_posix() for path in sources.rglob("*.yaml")} - {"root.yaml"}
                    - {name for name, _ in used})
    unused += sorted(f"{name}: {key}" for name in parsed for key in parsed[name] if (name, key) not in used)
    if unused:
        raise ContractError("not referenced by root.yaml: " + ", ".join(unused))
    return "\n".join(out)


def write(sources: Path = SOURCES, target: Path = BUNDLE) -> bool:
    """Writes the bundle; True if it changed."""
    text = bundle(sources)
    if target.exists() and target.read_text(encoding="utf-8") == text:
        return False
    target.write_text(text, encoding="utf-8")
    return True


def items(lines: list[str], indent: int):
    """The keys at ``indent`` in ``lines``, each as (key, the lines below it); any other line
    (a comment, a blank between items) as (None, line)."""
    i = 0
    while i < len(lines):
        line = lines[i]
        if len(line) > indent and line.startswith(" " * indent) and line[indent] not in " #":
            if not line.endswith(":"):
                raise ContractError(f"an item whose value is on its key's line: {line!r}")
            end = i + 1
            while end < len(lines) and (not lines[end] or lines[end].startswith(" " * (indent + 2))):
                end += 1
            while end > i + 1 and not lines[end - 1]:  # the blank lines after an item belong to the root
                end -= 1
            yield line[indent:-1], lines[i + 1:end]
            i = end
        else:
            yield None, line
            i += 1


def placements(sources: Path = SOURCES) -> dict[str, str]:
    """Each schema's file as the current root.yaml gives it."""
    root = sources / "root.yaml"
    lines = root.read_text(encoding="utf-8").split("\n") if root.exists() else []
    return {match["key"]: match["file"] for match in map(REFERENCE.match, lines)
            if match and match["pointer"] is None and match["file"].startswith("schemas/")}


def split(text: str, placement: dict[str, str]) -> dict[str, str]:
    """The sources (file name -> text) that bundle into ``text``; a schema goes to the file
    ``placement`` names, or, if new, beside the schema before it."""
    document = yaml.safe_load(text)
    lines = text.split("\n")
    paths, components = lines.index("paths:"), lines.index("components:")
    root = lines[:paths + 1]
    tagged: dict[str, list[str]] = {}
    for key, body in items(lines[paths + 1:components], 2):
        if key is None:
            root.append(body)
            continue
        operations = [op for op in document["paths"][key].values() if isinstance(op, dict) and op.get("tags")]
        name = f"paths/{operations[0]['tags'][0]}.yaml"
        tagged.setdefault(name, []).append("\n".join([f"{key}:", *(line[2:] for line in body)]))
        root.append(f'  {key}: {{$ref: "{name}#/{pointer_token(key)}"}}')
    files = {name: "\n\n".join(entries) + "\n" for name, entries in tagged.items()}
    root.append("components:")
    folder = "schemas"
    for kind, body in items(lines[components + 1:], 2):
        if kind is None:
            root.append(body)
        elif kind != "schemas":
            files[f"components/{kind}.yaml"] = "\n".join(line[4:] for line in body) + "\n"
            root.append(f'  {kind}: {{$ref: "components/{kind}.yaml"}}')
        else:
            root.append("  schemas:")
            for name, schema in items(body, 4):
                if name is None:
                    root.append(schema)
                    continue
                file = placement.get(name) or f"{folder}/{name}.yaml"
                folder = file.rpartition("/")[0]
                files[file] = "\n".join(line[6:] for line in schema) + "\n"
                root.append(f'    {name}: {{$ref: "{file}"}}')
    files["root.yaml"] = "\n".join(root)
    return files


def write_sources(files: dict[str, str], sources: Path = SOURCES) -> None:
    """Replaces the sources with ``files``: a file no longer in them goes."""
    for old in sources.rglob("*.yaml"):
        old.unlink()
    for name, text in sorted(files.items()):
        path = sources / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for folder in sorted((p for p in sources.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        if not any(folder.iterdir()):
            folder.rmdir()
