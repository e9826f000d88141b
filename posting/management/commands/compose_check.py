"""``manage.py compose_check --business B.json --article A.txt --platform facebook_page|instagram [--json]``.

Public interface (issue 10): with ``--json`` it prints one JSON object ``{"draft": "...",
"gate": {"verdict": ..., "claims": [...]}, "relevant": bool}`` (plus ``"score"``,
``"composer"`` and ``"fallback_reason"``). With no language model key the offline
composer writes the draft. No database rows are read. On Instagram a draft is printed
even though an article file carries no image: see ``posting/composer/checking.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from posting.composer.checking import (
    PLATFORMS,
    CheckInputError,
    article_file_load,
    business_file_load,
    compose_check,
)


class Command(BaseCommand):
    help = "Compose the draft Landed would write for a business (JSON file) from an article file, and gate it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--business", required=True, help="business JSON file")
        parser.add_argument("--article", required=True, help="article file: headline, blank line, body")
        parser.add_argument("--platform", required=True, choices=PLATFORMS)
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            business = business_file_load(Path(options["business"]))
            article = article_file_load(Path(options["article"]))
            result = compose_check(business=business, article=article, platform=options["platform"])
        except CheckInputError as exc:
            raise CommandError(str(exc)) from None
        if options["json"]:
            self.stdout.write(json.dumps(result, ensure_ascii=False))
            return
        relevant = "relevant" if result["relevant"] else "NOT relevant"
        self.stdout.write(f"{relevant} (score {result['score']:.3f}); composer: {result['composer']}")
        self.stdout.write("")
        self.stdout.write(result["draft"])
        self.stdout.write("")
        self.stdout.write(f"gate: {result['gate']['verdict']}")
        for claim in result["gate"]["claims"]:
            mark = "ok " if claim["supported"] else "NO "
            self.stdout.write(f"  {mark} {claim['text']}  ({claim['reason']})")
