"""Docs and docstrings point inside the repository: a fresh clone has nothing beside it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = {".venv", "var", ".git", "node_modules", "staticfiles"}
# A path outside the repository, or a bare design doc that the repository does not hold.
OUTSIDE = re.compile(r"\.\./shared|/work/shared|(?<![/\w])DESIGN\.md")
CITED = re.compile(r"docs/[\w.-]+\.md")


def _files() -> list[Path]:
    return [
        path
        for suffix in ("*.py", "*.md", "*.html")
        for path in ROOT.rglob(suffix)
        if not SKIP.intersection(path.relative_to(ROOT).parts) and path != Path(__file__)
    ]


def test_nothing_cites_a_file_outside_the_repository() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in _files()
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert offenders == []


def test_every_cited_doc_exists() -> None:
    cited = {match for path in _files() for match in CITED.findall(path.read_text(encoding="utf-8", errors="replace"))}
    assert "docs/ARCHITECTURE.md" in cited
    assert sorted(doc for doc in cited if not (ROOT / doc).exists()) == []
