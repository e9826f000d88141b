"""``python manage.py source_check URL [--json]``: why is this source empty?"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from research.diagnostics import source_diagnose


class Command(BaseCommand):
    help = "Fetch a feed exactly as the research stage would and report what happened."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("url", help="the feed URL to check")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        report = source_diagnose(url=options["url"])
        if options["json"]:
            self.stdout.write(json.dumps(report, default=str))
            return
        style = self.style.SUCCESS if report["ok"] else self.style.ERROR
        self.stdout.write(style("OK" if report["ok"] else f"NOT OK: {report['error_kind'] or 'unknown'}"))
        lines = [
            ("feed", report["url"]),
            ("HTTP status", report["status"]),
            ("error", f"{report['error_kind']} {report['error_detail']}".strip() or "-"),
            ("time", f"{report['elapsed_s']} s"),
            ("bytes read", report["bytes_read"]),
            ("entries", report["entries"]),
            ("feed title", report["feed_title"] or "-"),
        ]
        article = report["article"]
        if article:
            lines += [
                ("newest article", article["url"]),
                ("  HTTP status", article["status"]),
                ("  extraction", article["extraction_status"]),
                ("  text length", f"{article['text_chars']} characters"),
                ("  problem", article["error"] or "-"),
                ("  time", f"{article['elapsed_s']} s"),
            ]
        for label, value in lines:
            self.stdout.write(f"{label:>16}: {value}")
