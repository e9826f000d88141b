"""Issue 12 item 8: every template compiles, so an unclosed block (the operator page's
`<title>` once swallowed the whole page) fails here, not in front of a customer."""

from __future__ import annotations

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


def test_the_walk_finds_the_templates() -> None:
    assert "cron/ops.html" in TEMPLATES and "base.html" in TEMPLATES and len(TEMPLATES) >= 10


@pytest.mark.parametrize("name", TEMPLATES)
def test_every_template_compiles(name: str) -> None:
    get_template(name)


def test_an_unclosed_block_is_what_this_catches() -> None:
    # The test above can fail: the same engine refuses the bug it exists for.
    with pytest.raises(TemplateSyntaxError, match="Unclosed tag"):
        Engine().from_string("{% block title %}Operator · Landed\n<h1>Operator</h1>")
