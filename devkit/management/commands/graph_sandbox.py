"""``manage.py graph_sandbox``: serve the Graph sandbox with this deployment's settings."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from devkit.sandbox.__main__ import serve
from devkit.sandbox.server import GraphSandbox


class Command(BaseCommand):
    help = "Serve the local Graph API sandbox (see devkit/sandbox/README.md) until interrupted."

    def add_arguments(self, parser: CommandParser) -> None:
        default_port = urlsplit(settings.GRAPH_API_BASE_URL).port or 8765
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=default_port, help=f"default {default_port}")
        parser.add_argument(
            "--state",
            type=Path,
            default=Path(settings.VAR_DIR) / "sandbox.sqlite3",
            help="SQLite state file (default: var/sandbox.sqlite3, shared with make run)",
        )
        parser.add_argument("--memory", action="store_true", help="keep state in memory only")
        parser.add_argument("--seed", action="store_true", help="create the demo user and page if there is no user")

    def handle(self, *args: Any, **options: Any) -> None:
        sandbox = GraphSandbox(
            state_path=None if options["memory"] else options["state"],
            host=options["host"],
            port=options["port"],
            app_id=settings.FACEBOOK_APP_ID,
            app_secret=settings.FACEBOOK_APP_SECRET,
        )
        serve(sandbox, seed=options["seed"], out=self.stdout)
