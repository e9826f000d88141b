"""Run every stage for one account, headless, and print the funnel.

    python manage.py pipeline --account demo --approve-as demo [--embedded]

Research → compose → gate → (approve, standing in for the human, only with
--approve-as) → publish → reconcile. Each stage calls the same service the Celery
tasks call; each is safe to run twice.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from posting.models import Account, Draft
from posting.selectors import account_funnel
from publish.models import Publication


class Command(BaseCommand):
    help = "Run research → compose → gate → approve → publish → reconcile for one account and print the funnel."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--account", required=True, help="account slug")
        parser.add_argument(
            "--approve-as",
            metavar="USERNAME",
            help="approve every passed draft as this member (a stand-in for the human tap, for demos)",
        )
        parser.add_argument(
            "--embedded", action="store_true", help="start the Graph sandbox and demo feeds in this process first"
        )
        parser.add_argument("--json", action="store_true", help="print the funnel as one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        from posting.composer.services import drafts_compose_for_account
        from posting.gate.services import draft_gate
        from posting.services import draft_approve
        from publish.errors import NoConnectedChannel
        from publish.services import containers_poll, publication_publish
        from reconcile.services import publication_reconcile
        from research.services import research_run_for_account

        try:
            account = Account.objects.get(slug=options["account"])
        except Account.DoesNotExist:
            raise CommandError(f"No account with slug {options['account']!r}") from None
        if options["embedded"]:
            from posting.embedded import embedded_services_start

            embedded_services_start()

        say = (lambda msg: None) if options["json"] else (lambda msg: self.stdout.write(msg))

        run = research_run_for_account(account=account)
        say(f"research: {run.new_articles} new articles, {run.usable_articles} usable, {run.feeds_failed} feeds failed")

        drafts = drafts_compose_for_account(account=account)
        say(f"compose: {len(drafts)} new drafts")

        for draft_id in Draft.objects.filter(account=account, status=Draft.Status.DRAFTED).values_list("pk", flat=True):
            verdict = draft_gate(draft_id=draft_id).gate_verdict
            say(f"gate: draft {draft_id} {verdict}")

        if options["approve_as"]:
            user = self._member(account, options["approve_as"])
            awaiting = Draft.objects.filter(
                account=account, status=Draft.Status.GATED, gate_verdict=Draft.Verdict.PASSED
            )
            for draft in awaiting:
                try:
                    draft_approve(draft=draft, user=user)
                    say(f"approve: draft {draft.pk} ({draft.platform})")
                except NoConnectedChannel as exc:
                    say(f"approve: draft {draft.pk} not approved: {exc}")

        publications = Publication.objects.filter(account=account)
        for pub_id in publications.filter(status=Publication.Status.SCHEDULED).values_list("pk", flat=True):
            publication = publication_publish(publication_id=pub_id)
            say(f"publish: publication {pub_id} {publication.status} {publication.failure_reason}".rstrip())
        containers_poll()

        pending = [Publication.Status.PUBLISHED, Publication.Status.UNKNOWN]
        for pub_id in publications.filter(status__in=pending).values_list("pk", flat=True):
            publication = publication_reconcile(publication_id=pub_id)
            say(f"reconcile: publication {pub_id} {publication.status} {publication.permalink}".rstrip())

        funnel = account_funnel(account=account)
        if options["json"]:
            self.stdout.write(json.dumps({"account": account.slug, **funnel}))
        else:
            self.stdout.write("funnel: " + ", ".join(f"{k} {v}" for k, v in funnel.items()))

    def _member(self, account: Account, username: str) -> Any:
        user = get_user_model().objects.filter(username=username, memberships__account=account).first()
        if user is None:
            raise CommandError(f"{username!r} is not a member of {account.slug}")
        return user
