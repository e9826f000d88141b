"""Print a crontab that drives every cron route from system cron (or any external scheduler).

Generated from the job registry, like the routes and the beat schedule, so it cannot
drift from them. The secret is never printed: the lines read it from the environment.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.urls import reverse

from cron.jobs import JOBS


class Command(BaseCommand):
    help = "Print crontab lines (UTC) that POST to every cron route with the CRON_SECRET bearer."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--base-url", default="http://127.0.0.1:8000", help="where Landed is served")

    def handle(self, *args: Any, **options: Any) -> None:
        base_url = options["base_url"].rstrip("/")
        self.stdout.write("# Landed cron routes. Times are UTC; CRON_SECRET must be set in the crontab's environment.")
        self.stdout.write("CRON_TZ=UTC")
        for job in JOBS:
            url = base_url + reverse(f"cron:{job.name}")
            self.stdout.write(
                f'{job.cron_expression()} curl -fsS -m 30 -X POST -H "Authorization: Bearer $CRON_SECRET" {url}'
            )
