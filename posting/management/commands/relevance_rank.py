"""``manage.py relevance_rank --business B.json --articles DIR [--json]``: which articles suit a business.

Public interface (issue 10): with ``--json`` it prints one JSON list, best first, of
``{"article": "<file name>", "score": float, "relevant": bool}`` (plus ``"matched"``: the
business's words the article is about). ``score``: with the bundled sentence model, the weighed
likelihood in (0, 1) that the business would share the article (``posting/composer/weighing.py``);
without it, the words' share. Best first: the relevant articles by score, then the rest by score.
No database rows are read: the business is the file (see ``posting/composer/checking.py``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from posting.composer.checking import CheckInputError, articles_dir_load, business_file_load, relevance_rank


class Command(BaseCommand):
    help = "Rank a directory of articles by relevance to a business described in a JSON file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--business", required=True, help="business JSON file")
        parser.add_argument("--articles", required=True, help="directory of article files (headline, blank line, body)")
        parser.add_argument("--json", action="store_true", help="print one JSON list, best first")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            business = business_file_load(Path(options["business"]))
            empty: list[str] = []
            articles = articles_dir_load(Path(options["articles"]), empty=empty)
        except CheckInputError as exc:
            raise CommandError(str(exc)) from None
        for name in empty:
            self.stderr.write(f"{name}: empty file, ranked as not relevant.")
        ranked = relevance_rank(business=business, articles=articles)
        if options["json"]:
            self.stdout.write(json.dumps(ranked, ensure_ascii=False))
            return
        for row in ranked:
            mark = "relevant" if row["relevant"] else "skip    "
            matched = ", ".join(row["matched"][:5])
            self.stdout.write(f"{row['score']:.3f}  {mark}  {row['article']}  ({matched})")
