"""``make pipeline``: ``manage.py pipeline`` on the embedded default, with the Graph sandbox
and the demo feeds started in this process first (the product's command knows nothing of
them: it talks to whatever Graph API and feeds the settings name)."""

from __future__ import annotations

from typing import Any

from cron.management.commands.pipeline import Command as PipelineCommand
from devkit.embedded import embedded_services_start


class Command(PipelineCommand):
    help = "Start the Graph sandbox and demo feeds in this process, then run `pipeline` (same options)."

    def handle(self, *args: Any, **options: Any) -> None:
        embedded_services_start()
        super().handle(*args, **options)
