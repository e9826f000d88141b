"""Issue 12 item 8: every template compiles, so an unclosed block (the operator page's
`<title>` once swallowed the whole page) fails here, not in front of a customer. And in every
template each element whose content the browser reads as raw text up to its closing tag
(`<title>`, `<textarea>`, `<script>`, `<style>`) is closed: an unclosed one compiles, and then
swallows the rest of the page."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from django.template import Engine, TemplateSyntaxError
from django.template.loader import get_template

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = sorted(
    path.relative_to(ROOT / "templates").as_posix()
    for path in (ROOT / "templates").rglob("*")
    if path.suffix in {".html", ".txt"}
)


# Every folder the template engine reads that holds our own templates: the project's, and any
# app's (APP_DIRS); a new one must be walked here too.
SKIPPED = {".venv", "node_modules", ".git", "staticfiles", "var"}


def _template_folders() -> list[Path]:
    found = []
    for folder, subfolders, _ in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if name not in SKIPPED and not name.startswith(".")]
        if Path(folder).name == "templates":
            found.append(Path(folder))
            subfolders[:] = []
    return sorted(found)


RAW_TEXT_ELEMENTS = ("title", "textarea", "script", "style")


def test_the_walk_finds_the_templates() -> None:
    assert "cron/ops.html" in TEMPLATES and "base.html" in TEMPLATES and len(TEMPLATES) >= 10
    # The walk covers every template folder of ours the engine reads.
    assert _template_folders() == [ROOT / "templates"], "walk the new template folder here too"


def unclosed_raw_text(source: str) -> list[str]:
    """The raw-text elements opened and not closed (or closed and not opened) in a template."""
    return [
        tag
        for tag in RAW_TEXT_ELEMENTS
        if len(re.findall(rf"<{tag}[\s>]", source, re.IGNORECASE))
        != len(re.findall(rf"</{tag}\s*>", source, re.IGNORECASE))
    ]


@pytest.mark.parametrize("name", TEMPLATES)
def test_every_template_closes_its_raw_text_elements(name: str) -> None:
    assert unclosed_raw_text((ROOT / "templates" / name).read_text()) == []


def test_an_unclosed_title_element_is_what_this_catches() -> None:
    assert unclosed_raw_text("<title>{% block title %}Operator{% endblock %}\n<h1>Operator</h1>") == ["title"]
    assert unclosed_raw_text("<title>{% block title %}Operator{% endblock %}</title>") == []


@pytest.mark.parametrize("name", TEMPLATES)
def test_every_template_compiles(name: str) -> None:
    get_template(name)


def test_an_unclosed_block_is_what_this_catches() -> None:
    # The test above can fail: the same engine refuses the bug it exists for.
    with pytest.raises(TemplateSyntaxError, match="Unclosed tag"):
        Engine().from_string("{% block title %}Operator · Landed\n<h1>Operator</h1>")
