"""Run every stage for one account, headless, and print the funnel.

    python manage.py pipeline --account demo --approve-as demo

(On the embedded default, ``manage.py landed_pipeline`` from devkit starts the Graph
sandbox and the demo feeds in-process first, then runs this command: ``make pipeline``.)

Research → compose → gate → (approve, standing in for the human, only with
--approve-as) → publish → reconcile. Each stage calls the same service the Celery
tasks call; each is safe to run twice. Without a broker (the embedded default) publish and
reconcile run here; with one, the approvals' tasks go to the workers, and this command
waits up to --wait seconds for their outcome instead of publishing alongside them.
"""

from __future__ import annotations

import json
import time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q
from django.utils import timezone

from accounts.models import Account
from cron.services import job_run_recorded
from posting.composer.services import drafts_compose_for_account
from posting.gate.services import draft_gate
from posting.models import Draft
from posting.selectors import account_funnel, drafts_awaiting_approval
from posting.services import draft_approve
from publish.errors import NoConnectedChannel, PublishNotEnqueued
from publish.models import Publication
from publish.services import containers_poll, publication_publish
from reconcile.services import publication_reconcile
from research.services import research_run_for_account

# On their way: a worker holds them, or a read-back is still to come.
IN_FLIGHT = (Publication.Status.PUBLISHING, Publication.Status.PUBLISHED, Publication.Status.UNKNOWN)
WAIT_POLL_S = 1.0


class Command(BaseCommand):
    help = "Run research → compose → gate → approve → publish → reconcile for one account and print the funnel."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--account", required=True, help="account slug")
        parser.add_argument(
            "--approve-as",
            metavar="USERNAME",
            help="approve every passed draft as this member (a stand-in for the human tap, for demos)",
        )
        parser.add_argument("--json", action="store_true", help="print the funnel as one JSON object")
        parser.add_argument(
            "--trigger",
            default="pipeline",
            help="what each stage's job run is recorded as started by (make run passes make_run)",
        )
        parser.add_argument(
            "--wait",
            type=float,
            default=300.0,
            metavar="SECONDS",
            help="with a broker: how long to wait for the workers to publish and read back (default 300)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            account = Account.objects.get(slug=options["account"])
        except Account.DoesNotExist:
            raise CommandError(f"No account with slug {options['account']!r}") from None

        say = (lambda msg: None) if options["json"] else (lambda msg: self.stdout.write(msg))

        # Each stage is recorded as a run of its job, as the cron route and beat record theirs,
        # so the operator's page shows what ran instead of "new / never".
        trigger = options["trigger"]
        with job_run_recorded(job_name="research_feeds", trigger=trigger) as counts:
            run = research_run_for_account(account=account)
            counts.update(new_articles=run.new_articles, usable_articles=run.usable_articles)
        say(f"research: {run.new_articles} new articles, {run.usable_articles} usable, {run.feeds_failed} feeds failed")

        with job_run_recorded(job_name="compose_drafts", trigger=trigger) as counts:
            drafts = drafts_compose_for_account(account=account)
            counts["drafts"] = len(drafts)
        say(f"compose: {len(drafts)} new drafts")

        with job_run_recorded(job_name="gate_drafts", trigger=trigger) as counts:
            pending = Draft.objects.filter(account=account, status=Draft.Status.DRAFTED).values_list("pk", flat=True)
            for draft_id in pending:
                verdict = draft_gate(draft_id=draft_id).gate_verdict
                counts[verdict or "unjudged"] = counts.get(verdict or "unjudged", 0) + 1
                say(f"gate: draft {draft_id} {verdict}")

        if options["approve_as"]:
            user = self._member(account, options["approve_as"])
            for draft in drafts_awaiting_approval(account=account):
                try:
                    draft_approve(draft=draft, user=user, post_now=True)
                    say(f"approve: draft {draft.pk} ({draft.platform})")
                except NoConnectedChannel as exc:
                    say(f"approve: draft {draft.pk} not approved: {exc}")
                except PublishNotEnqueued:
                    say(f"approve: draft {draft.pk} approved; the queue is down, the publish sweep will send it")

        if not settings.CELERY_TASK_ALWAYS_EAGER:
            # Real workers took the approvals' tasks: publishing here as well would race them.
            self._outcomes_wait(account=account, timeout_s=options["wait"], say=say)
        else:
            self._publish_inline(account=account, say=say, trigger=trigger)

        funnel = account_funnel(account=account)
        if options["json"]:
            self.stdout.write(json.dumps({"account": account.slug, **funnel}))
        else:
            self.stdout.write("funnel: " + ", ".join(f"{k} {v}" for k, v in funnel.items()))

    def _publish_inline(self, *, account: Account, say: Any, trigger: str) -> None:
        publications = Publication.objects.filter(account=account)
        with job_run_recorded(job_name="publish_due", trigger=trigger) as counts:
            for pub_id in publications.filter(status=Publication.Status.SCHEDULED).values_list("pk", flat=True):
                publication = publication_publish(publication_id=pub_id)
                counts[publication.status] = counts.get(publication.status, 0) + 1
                say(f"publish: publication {pub_id} {publication.status} {publication.failure_reason}".rstrip())
        with job_run_recorded(job_name="poll_ig_containers", trigger=trigger) as counts:
            counts.update(containers_poll())

        pending = [Publication.Status.PUBLISHED, Publication.Status.UNKNOWN]
        with job_run_recorded(job_name="reconcile_recent", trigger=trigger) as counts:
            for pub_id in publications.filter(status__in=pending).values_list("pk", flat=True):
                publication = publication_reconcile(publication_id=pub_id)
                counts[publication.status] = counts.get(publication.status, 0) + 1
                say(f"reconcile: publication {pub_id} {publication.status} {publication.permalink}".rstrip())

    def _outcomes_wait(self, *, account: Account, timeout_s: float, say: Any) -> None:
        """Wait until no publication of the account is still on its way (scheduled and due,
        publishing, or awaiting its read-back); the workers and the sweeps do the work."""
        deadline = time.monotonic() + timeout_s
        while True:
            in_flight = Publication.objects.filter(account=account).filter(
                Q(status__in=IN_FLIGHT)
                | Q(status=Publication.Status.SCHEDULED, scheduled_for__lte=timezone.now())
                # An Instagram container still processing: the poll job publishes it shortly.
                | Q(status=Publication.Status.SCHEDULED, container_id__gt="")
            )
            if not in_flight.exists():
                break
            if time.monotonic() >= deadline:
                waiting = ", ".join(f"{p.pk} {p.status}" for p in in_flight.order_by("pk")[:20])
                raise CommandError(
                    f"The workers did not settle every publication within {timeout_s:.0f} s "
                    f"(still on their way: {waiting}). Is a worker running against this broker?"
                )
            time.sleep(WAIT_POLL_S)
        for publication in Publication.objects.filter(account=account).order_by("pk"):
            say(f"outcome: publication {publication.pk} {publication.status} {publication.permalink}".rstrip())

    def _member(self, account: Account, username: str) -> Any:
        user = get_user_model().objects.filter(username=username, memberships__account=account).first()
        if user is None:
            raise CommandError(f"{username!r} is not a member of {account.slug}")
        return user
