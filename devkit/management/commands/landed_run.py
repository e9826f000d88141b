"""``make run``: the whole product on the embedded default, in one process.

Migrates, starts the Graph sandbox and demo feeds, seeds the demo business, runs one
research → compose → gate pass so drafts are waiting, prints the login, and serves the
app. Tasks run in-process (no broker), so approving a draft publishes it to the sandbox
and reads it back before the page reloads.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from devkit.demo import demo_seed
from devkit.embedded import embedded_services_start


class Command(BaseCommand):
    help = "Run Landed on the embedded default (SQLite, in-process tasks, Graph sandbox, demo feeds)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--addrport", default="127.0.0.1:8000")
        parser.add_argument("--no-serve", action="store_true", help="prepare everything, then exit (for checks)")
        parser.add_argument(
            "--no-scheduler", action="store_true", help="serve without the in-process scheduler (cron routes only)"
        )
        parser.add_argument(
            "--schedule-tick",
            type=float,
            default=20.0,
            metavar="SECONDS",
            help="how often the in-process scheduler looks for due jobs (default 20)",
        )
        parser.add_argument(
            "--schedule-speedup",
            type=float,
            default=1.0,
            metavar="N",
            help="run the scheduler's clock N times faster (a night in minutes, for demos and tests)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("landed_run is the embedded demo; run it with DJANGO_DEBUG=1 (make run does).")
        call_command("migrate", interactive=False, verbosity=0)
        services = embedded_services_start()
        login = demo_seed(feeds_url=services.feeds_url)
        self.stdout.write("Preparing drafts (research → compose → gate)...")
        call_command("pipeline", account=login.account.slug, trigger="make_run", stdout=self.stdout)

        cron_hint = (
            f'curl -X POST -H "Authorization: Bearer $(cat {settings.VAR_DIR}/cron_secret)" '
            f"http://{options['addrport']}/cron/publish_due/"
            if settings.CRON_SECRET
            else "cron routes are closed: CRON_SECRET is not set"
        )
        self.stdout.write(
            self.style.SUCCESS(
                "\nLanded is ready.\n"
                f"  Open      http://{options['addrport']}/\n"
                f"  Log in    {login.username} / {login.password}\n"
                f"  Sandbox   {services.sandbox_url}  (the emulated Graph API)\n"
                f"  Feeds     {services.feeds_url}\n"
                f"  Cron      {cron_hint}\n"
            )
        )
        if options["no_serve"]:
            return
        scheduler = None
        if not options["no_scheduler"]:
            from cron.scheduler import InProcessScheduler

            # Beat's work without a broker: research, compose and gate overnight, publish and
            # reconcile every few minutes, the watchdogs, each recorded as a JobRun.
            scheduler = InProcessScheduler(tick_s=options["schedule_tick"], speedup=options["schedule_speedup"])
            scheduler.start()
            self.stdout.write(f"Scheduler running every {options['schedule_tick']:g} s (the jobs of cron/jobs.py).")
        try:
            call_command("runserver", options["addrport"], use_reloader=False, use_threading=True)
        finally:
            if scheduler is not None:
                scheduler.stop()
