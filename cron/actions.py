"""The operator's actions from the console, each audited as an OperatorAction.

Run a stage now for one account, pause or resume an account, resolve an alarm, retry a
failed publication once (only when nothing of it can have landed), the read-only support
view's record, and onboarding: create a business and invite its owner. Every call writes
its audit row, refused ones included, so the console's trail says what was tried as well
as what was done.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from accounts.errors import InviteNotSent, TeamChangeRefused
from accounts.models import Account, Role
from accounts.services import account_create, invite_create
from cron.models import Alarm, AlarmNotification, OperatorAction
from posting.models import Draft

# A stage the console can run for one account, and the job its run is recorded under.
STAGE_JOBS = {"research": "research_feeds", "compose": "compose_drafts", "gate": "gate_drafts"}


class ActionRefused(Exception):
    """The action cannot be done; the message says why, in words for the operator."""


def _audit(
    *, user: AbstractBaseUser, action: str, account: Account | None, target: str = "", ok: bool = True, detail: str = ""
) -> OperatorAction:
    return OperatorAction.objects.create(
        user_id=user.pk,
        username=user.get_username(),
        action=action,
        account=account,
        target=target,
        ok=ok,
        detail=detail[:500],
    )


def _refused(
    *, user: AbstractBaseUser, action: str, account: Account | None, target: str, detail: str, message: str
) -> ActionRefused:
    """Record the refusal (``detail``, for the trail) and return the error that tells the
    operator why (``message``), for the caller to raise where its reader can see it."""
    _audit(user=user, action=action, account=account, target=target, ok=False, detail=detail)
    return ActionRefused(message)


def account_stage_run_request(*, user: AbstractBaseUser, account: Account, stage: str) -> OperatorAction:
    """Queue one stage for one account now (recorded as a JobRun with trigger "console")."""
    from cron.tasks import account_stage_run_task

    if stage not in STAGE_JOBS:
        raise _refused(
            user=user,
            action=OperatorAction.Action.RUN_STAGE,
            account=account,
            target=stage,
            detail="unknown stage",
            message=f"No stage named {stage!r}; the stages are {', '.join(STAGE_JOBS)}.",
        )
    audit = _audit(user=user, action=OperatorAction.Action.RUN_STAGE, account=account, target=stage)
    transaction.on_commit(lambda: account_stage_run_task.delay(account.pk, stage))
    return audit


def account_stage_run(*, account_id: int, stage: str) -> dict[str, int]:
    """Run one stage for one account, recorded as a run of its job (the task calls this)."""
    from cron.services import job_run_recorded
    from posting.composer.services import drafts_compose_for_account
    from posting.gate.services import draft_gate
    from research.services import research_run_for_account

    account = Account.objects.get(pk=account_id)
    with job_run_recorded(job_name=STAGE_JOBS[stage], trigger="console") as counts:
        if stage == "research":
            run = research_run_for_account(account=account)
            counts.update(new_articles=run.new_articles, usable_articles=run.usable_articles)
        elif stage == "compose":
            counts["drafts"] = len(drafts_compose_for_account(account=account))
        else:
            pending = Draft.objects.filter(account=account, status=Draft.Status.DRAFTED).values_list("pk", flat=True)
            for draft_id in pending:
                verdict = draft_gate(draft_id=draft_id).gate_verdict or "unjudged"
                counts[verdict] = counts.get(verdict, 0) + 1
    return counts


def account_paused_set(*, user: AbstractBaseUser, account: Account, paused: bool) -> OperatorAction:
    """Pause (nothing is researched, drafted or digested for it) or resume an account."""
    Account.objects.filter(pk=account.pk).update(paused=paused)
    account.paused = paused
    action = OperatorAction.Action.PAUSE if paused else OperatorAction.Action.RESUME
    return _audit(user=user, action=action, account=account)


def alarm_resolve_by_operator(*, user: AbstractBaseUser, alarm_id: int) -> OperatorAction:
    """Resolve an open alarm by hand. Its watchdog opens it again if the condition still holds."""
    from cron.services import _alarm_notifications_queue

    alarm = Alarm.objects.select_related("account").filter(pk=alarm_id).first()
    if alarm is None or alarm.resolved_at is not None:
        raise _refused(
            user=user,
            action=OperatorAction.Action.RESOLVE_ALARM,
            account=alarm.account if alarm else None,
            target=f"alarm:{alarm_id}",
            detail="not open",
            message="This alarm is not open.",
        )
    with transaction.atomic():
        if Alarm.objects.filter(pk=alarm.pk, resolved_at__isnull=True).update(resolved_at=timezone.now()) != 1:
            raise ActionRefused("This alarm was resolved a moment ago.")
        alarm.refresh_from_db()
        _alarm_notifications_queue(alarm=alarm, event=AlarmNotification.Event.RESOLVED)
        return _audit(
            user=user,
            action=OperatorAction.Action.RESOLVE_ALARM,
            account=alarm.account,
            target=f"alarm:{alarm.pk}",
            detail=alarm.kind,
        )


def publication_retry_by_operator(*, user: AbstractBaseUser, publication_id: int) -> OperatorAction:
    """Retry a failed publication once, when nothing of it can have landed (publish decides)."""
    from publish.models import Publication
    from publish.services import RetryRefused, publication_retry_failed

    target = f"publication:{publication_id}"
    publication = Publication.objects.select_related("account").filter(pk=publication_id).first()
    account = publication.account if publication else None
    already = OperatorAction.objects.filter(action=OperatorAction.Action.RETRY_PUBLICATION, target=target, ok=True)
    if already.exists():
        raise _refused(
            user=user,
            action=OperatorAction.Action.RETRY_PUBLICATION,
            account=account,
            target=target,
            detail="already retried once",
            message="This publication was already retried once; look at why before anything else.",
        )
    try:
        publication_retry_failed(publication_id=publication_id)
    except RetryRefused as exc:
        raise _refused(
            user=user,
            action=OperatorAction.Action.RETRY_PUBLICATION,
            account=account,
            target=target,
            detail=str(exc),
            message=str(exc),
        ) from exc
    return _audit(user=user, action=OperatorAction.Action.RETRY_PUBLICATION, account=account, target=target)


def support_view_record(*, user: AbstractBaseUser, account: Account, page: str) -> OperatorAction:
    """Staff opened the read-only view of a customer's page (who, when, which account, which page)."""
    return _audit(user=user, action=OperatorAction.Action.SUPPORT_VIEW, account=account, target=page)


def account_create_by_operator(*, user: AbstractBaseUser, name: str, slug: str, timezone_name: str) -> Account:
    """Onboarding, step one: a new empty business (its owner is invited next)."""
    try:
        account = account_create(name=name, slug=slug, timezone_name=timezone_name)
    except TeamChangeRefused as exc:
        raise _refused(
            user=user,
            action=OperatorAction.Action.CREATE_ACCOUNT,
            account=None,
            target=slug.strip()[:100],
            detail=str(exc),
            message=str(exc),
        ) from exc
    _audit(
        user=user,
        action=OperatorAction.Action.CREATE_ACCOUNT,
        account=account,
        target=account.slug,
        detail=f"{account.name} ({account.timezone})",
    )
    return account


def owner_invite_by_operator(*, user: AbstractBaseUser, account: Account, email: str, site_url: str) -> OperatorAction:
    """Onboarding, step two: email the business's owner a one-time link (accounts' invite)."""
    try:
        sent = invite_create(account=account, email=email, role=Role.OWNER, invited_by=None, site_url=site_url)
    except (TeamChangeRefused, InviteNotSent) as exc:
        raise _refused(
            user=user,
            action=OperatorAction.Action.INVITE_OWNER,
            account=account,
            target=email.strip()[:100],
            detail=str(exc),
            message=str(exc),
        ) from exc
    # The audit names the address and the invite, never the link (it is the token).
    return _audit(
        user=user,
        action=OperatorAction.Action.INVITE_OWNER,
        account=account,
        target=sent.invite.email[:100],
        detail=f"invite:{sent.invite.pk}",
    )
