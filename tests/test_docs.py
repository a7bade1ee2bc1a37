"""The repository's documentation stands on its own.

README.md, docs/**/*.md and openapi.yaml name nothing outside the repository
(no ``../``, no rulebook or rulings files, no absolute machine paths), every
relative Markdown link resolves to a file of the repository, and every ruling
id (SS-n, SK-n, SW-n) a game's document cites is stated in that document's
"Rulings" section, so a reader can look it up without files we do not ship.
"""
from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
GAME_DOCS = REPO / "docs" / "games"
# The prefix of each game's rulings, by the document's file name.
RULING_PREFIX = {"scharfe-schoten": "SS", "schafkopf": "SK", "scharwenzel": "SW"}

# Paths that leave the repository or point into a machine's file system.
FORBIDDEN = [
    (re.compile(r"\.\./"), "a path that leaves the repository (../)"),
    (re.compile(r"\bseeds/"), "the rulebooks' folder (seeds/), which readers do not have"),
    (re.compile(r"RULINGS\.md", re.IGNORECASE), "RULINGS.md, which readers do not have"),
    (re.compile(r"/work/"), "an absolute path (/work/)"),
    (re.compile(r"(?<![\w.])~/"), "a home-directory path (~/)"),
    (re.compile(r"/home/|/root/|/Users/"), "a home-directory path"),
    (re.compile(r"\$HOME\b|\$\{HOME\}|%USERPROFILE%"), "a home-directory path"),
    (re.compile(r"\bfile://"), "a file:// URL"),
]

RULING_ID = re.compile(r"\b(SS|SK|SW)-(\d+)\b")
# "SK-1 to SK-13", "SS-1–SS-9", "SW-1 to 8": every id in between is cited too.
RULING_RANGE = re.compile(r"\b(SS|SK|SW)-(\d+)\s*(?:to|–|—|\.\.)\s*(?:(?:SS|SK|SW)-)?(\d+)\b")
# A ruling is stated as a list item that opens with its bold id: "* **SK-6 Called Ace.** ...".
STATED = re.compile(r"^[*-]\s+\*\*(SS|SK|SW)-(\d+)\b")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_LINK = re.compile(r"\]\(\s*<?([^()\s<>]*(?:\([^()\s]*\)[^()\s<>]*)*)>?(?:\s+[\"'(][^)]*)?\)")
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def documents() -> list[Path]:
    files = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md")), REPO / "openapi.yaml"]
    return [path for path in files if path.is_file()]


def game_documents() -> list[Path]:
    return sorted(GAME_DOCS.glob("*.md"))


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks, with inline code spans blanked."""
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, re.sub(r"`[^`]*`", "``", line)))
    return out


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def _markdown_links(text: str) -> list[tuple[int, str]]:
    out = []
    for number, line in prose_lines(text):
        out += [(number, target) for target in INLINE_LINK.findall(line)]
        match = REFERENCE_LINK.match(line)
        if match:
            out.append((number, match.group(1)))
    return out


def _descriptions(node, where: str):
    """(location, text) of every Markdown ``description`` in an OpenAPI document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield f"{where}/description", value
            else:
                yield from _descriptions(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _descriptions(value, f"{where}/{index}")


def link_targets(path: Path) -> list[tuple[str, str]]:
    """(location, target) of every Markdown link: "line n" in Markdown, the
    description's path in openapi.yaml (only its descriptions are Markdown)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        return [(f"line {number}", target) for number, target in _markdown_links(text)]
    return [(f"{where} (line {number} of it)", target)
            for where, description in _descriptions(yaml.safe_load(text), "#")
            for number, target in _markdown_links(description)]


def rulings_section(text: str) -> list[str] | None:
    """The lines of the level-2 section "Rulings", or None if there is none."""
    lines, section, fenced = text.splitlines(), None, False
    for line in lines:
        if FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else HEADING.match(line)
        if heading and len(heading.group(1)) <= 2:
            if section is not None:
                return section
            if len(heading.group(1)) == 2 and heading.group(2).strip().lower() == "rulings":
                section = []
            continue
        if section is not None:
            section.append(line)
    return section


def stated_rulings(section: list[str]) -> dict[str, str]:
    """Ruling id -> the text of its list item (indented continuation lines included)."""
    stated: dict[str, list[str]] = {}
    current = None
    for line in section:
        match = STATED.match(line)
        if match:
            current = f"{match.group(1)}-{int(match.group(2))}"
            assert current not in stated, f"{current} is stated twice in the Rulings section"
            stated[current] = [line]
        elif current and line.startswith((" ", "\t")) and line.strip():
            stated[current].append(line.strip())
        else:
            current = None
    return {ruling: " ".join(parts) for ruling, parts in stated.items()}


def cited_rulings(text: str) -> dict[str, int]:
    """Every ruling id the text cites (ranges expanded) -> the first line that cites it."""
    cited: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        for prefix, low, high in RULING_RANGE.findall(line):
            for n in range(int(low), int(high) + 1):
                cited.setdefault(f"{prefix}-{n}", number)
        for prefix, n in RULING_ID.findall(line):
            cited.setdefault(f"{prefix}-{int(n)}", number)
    return cited


# -- the documents exist ------------------------------------------------------

def test_the_documentation_is_there():
    names = {rel(path) for path in documents()}
    assert {"README.md", "openapi.yaml", "docs/writing-a-game.md"} <= names
    assert {f"docs/games/{stem}.md" for stem in RULING_PREFIX} <= names


# -- nothing outside the repository -------------------------------------------

@pytest.mark.parametrize("path", documents(), ids=rel)
def test_no_path_leaves_the_repository(path):
    offences = [f"{rel(path)}:{number}: {why}: {line.strip()}"
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                for pattern, why in FORBIDDEN if pattern.search(line)]
    assert not offences, "\n".join(offences)


def broken_links(path: Path, root: Path = REPO) -> list[str]:
    """Every relative link of ``path`` that does not resolve to a file under ``root``
    (or names a heading its Markdown target does not have)."""
    broken = []
    for location, target in link_targets(path):
        where = f"{path.relative_to(root).as_posix()} {location}: ({target})"
        if not target or (target.startswith("#") and path.suffix != ".md"):
            continue
        if re.match(r"^(https?|mailto):", target, re.IGNORECASE):
            continue
        if SCHEME.match(target):
            broken.append(f"{where}: not a repository path")
            continue
        file_part, _, fragment = target.partition("#")
        file_part = unquote(file_part.split("?", 1)[0])
        if not file_part:
            resolved = path
        elif file_part.startswith("/"):
            resolved = (root / file_part.lstrip("/")).resolve()
        else:
            resolved = (path.parent / file_part).resolve()
        if resolved != root and root not in resolved.parents:
            broken.append(f"{where}: leaves the repository")
        elif not resolved.exists():
            broken.append(f"{where}: no such file in the repository")
        elif fragment and resolved.suffix == ".md" and fragment.lower() not in anchors(resolved):
            broken.append(f"{where}: no heading #{fragment} in {resolved.relative_to(root).as_posix()}")
    return broken


@pytest.mark.parametrize("path", documents(), ids=rel)
def test_relative_links_resolve_inside_the_repository(path):
    broken = broken_links(path)
    assert not broken, "\n".join(broken)


# -- the front page and the index -----------------------------------------------

def linked_files(path: Path, root: Path = REPO) -> set[Path]:
    """The files of ``root`` that ``path``'s relative links point at (fragments dropped)."""
    out = set()
    for _, target in link_targets(path):
        file_part = unquote(target.partition("#")[0].split("?", 1)[0])
        if file_part and not SCHEME.match(file_part):
            out.add((path.parent / file_part).resolve())
    return out


def unindexed_pages(root: Path = REPO) -> list[str]:
    """Every Markdown page under ``root/docs`` that its index, docs/README.md, does not link."""
    index = root / "docs" / "README.md"
    if not index.is_file():
        return ["docs/README.md (the index itself)"]
    linked = linked_files(index, root)
    return [page.relative_to(root).as_posix() for page in sorted((root / "docs").rglob("*.md"))
            if page != index and page.resolve() not in linked]


def test_the_docs_index_lists_every_page():
    assert (REPO / "docs" / "README.md").resolve() in linked_files(REPO / "README.md")
    missing = unindexed_pages()
    assert not missing, "docs/README.md does not link: " + ", ".join(missing)


def test_the_readme_is_a_front_page():
    """A few screens that link the reference, with the sections the rest of the house relies on."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 400, f"README.md has {len(text.splitlines())} lines"
    headings = [match.group(2) for _, line in prose_lines(text) if (match := HEADING.match(line))]
    for heading in ("Quick start", "The API in one page", "Reliability", "Performance"):
        assert heading in headings, heading
    assert "<!-- walkthrough -->" in text


# -- every cited ruling is stated ---------------------------------------------

@pytest.mark.parametrize("path", game_documents(), ids=rel)
def test_every_cited_ruling_is_stated_in_the_rulings_section(path):
    text = path.read_text(encoding="utf-8")
    cited = cited_rulings(text)
    section = rulings_section(text)
    if section is None:
        assert not cited, f"{rel(path)} cites {sorted(cited)} but has no '## Rulings' section"
        return
    stated = stated_rulings(section)
    missing = {ruling: line for ruling, line in cited.items() if ruling not in stated}
    assert not missing, "cited but not stated under Rulings: " + ", ".join(
        f"{ruling} (line {line})" for ruling, line in sorted(missing.items(), key=lambda item: item[1]))


@pytest.mark.parametrize("stem", sorted(RULING_PREFIX))
def test_each_game_states_its_rulings_in_order(stem):
    path = GAME_DOCS / f"{stem}.md"
    section = rulings_section(path.read_text(encoding="utf-8"))
    assert section is not None, f"{rel(path)} has no '## Rulings' section"
    stated = stated_rulings(section)
    prefix = RULING_PREFIX[stem]
    assert stated, f"{rel(path)}: the Rulings section states no ruling"
    assert {ruling.split("-")[0] for ruling in stated} == {prefix}, \
        f"{rel(path)} states rulings of another game: {sorted(stated)}"
    numbers = [int(ruling.split("-")[1]) for ruling in stated]
    assert numbers == list(range(1, len(numbers) + 1)), \
        f"{rel(path)}: rulings out of order or with gaps: {numbers}"
    for ruling, item in stated.items():
        words = re.sub(r"\*\*[^*]*\*\*", "", item).split()
        assert len(words) >= 8, f"{rel(path)}: {ruling} is cited by id only, not stated: {item!r}"


# -- the checks themselves ----------------------------------------------------

def test_the_checks_catch_what_they_should(tmp_path):
    assert cited_rulings("rulings SK-1 to SK-3 close it; see SK-11.\n") == {
        "SK-1": 1, "SK-2": 1, "SK-3": 1, "SK-11": 1}
    text = ("# Game\n\nSee SS-2.\n\n## Rulings\n\n"
            "* **SS-1 Cards.** Forty-eight spice cards in four colours, valued one to twelve.\n"
            "* **SS-2 Ranking.** Four number cards are paired with the colours and\n"
            "  rank them, highest first.\n\n## Events\n\n* **SS-3** not a ruling here.\n")
    stated = stated_rulings(rulings_section(text))
    assert list(stated) == ["SS-1", "SS-2"] and "rank them" in stated["SS-2"]
    assert any(p.search("`../shared/reference/x.json`") for p, _ in FORBIDDEN)
    assert any(p.search("the rulebook is seeds/003_a.txt") for p, _ in FORBIDDEN)
    assert not any(p.search("the revealed seed and the seeded playouts") for p, _ in FORBIDDEN)
    doc = tmp_path / "doc.md"
    doc.write_text("[a](x.md) [b](https://example.org) [c](#top) `[d](nowhere.md)`\n")
    assert [target for _, target in link_targets(doc)] == ["x.md", "https://example.org", "#top"]
    spec = tmp_path / "openapi.yaml"
    spec.write_text('components:\n  schemas:\n    Card:\n      pattern: "^[RGYB]([1-9]|1[0-2])$"\n'
                    '      description: "See [the rules](docs/games/scharfe-schoten.md)."\n')
    assert link_targets(spec) == [("#/components/schemas/Card/description (line 1 of it)",
                                   "docs/games/scharfe-schoten.md")]
    assert slug("Scharfe Schoten (`scharfe-schoten`)") == "scharfe-schoten-scharfe-schoten"
    root = tmp_path.resolve()
    (root / "docs").mkdir()
    (root / "docs" / "game.md").write_text("# Game\n\n## Rulings\n")
    readme = root / "README.md"
    readme.write_text("[ok](docs/game.md#rulings) [top](#readme) [gone](docs/none.md)\n"
                      "[out](../elsewhere.md) [anchor](docs/game.md#events) [file](file:///etc/x)\n\n# Readme\n")
    assert unindexed_pages(root) == ["docs/README.md (the index itself)"]
    (root / "docs" / "README.md").write_text("[the game](game.md#rulings)\n")
    (root / "docs" / "other.md").write_text("# Other\n")
    assert unindexed_pages(root) == ["docs/other.md"]
    assert broken_links(readme, root) == [
        "README.md line 1: (docs/none.md): no such file in the repository",
        "README.md line 2: (../elsewhere.md): leaves the repository",
        "README.md line 2: (docs/game.md#events): no heading #events in docs/game.md",
        "README.md line 2: (file:///etc/x): not a repository path",
    ]
