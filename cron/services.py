"""Writes of the cron app: job runs, alarms, the daily metrics rollup and record cleanup."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import partial
from traceback import format_exception
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max, Q, QuerySet
from django.utils import timezone
from kombu.exceptions import OperationalError as KombuOperationalError

from accounts.models import Account
from cron.errors import JobResultInvalid, JobRunNotEnqueued
from cron.jobs import job_get
from cron.models import Alarm, AlarmNotification, DailyMetric, JobRun, MorningDigest, PublicationNote
from cron.notify import alarm_channels_configured, customer_text
from posting.selectors import account_funnel

logger = logging.getLogger(__name__)

# Defence in depth for error text stored on a JobRun and shown to the operator: services
# must never put a token in an exception message, but if one ever does, it stops here.
_SECRET_PATTERNS = (
    re.compile(r"(?i)(bearer\s+)\S+"),
    re.compile(r"(?i)((?:access_token|client_secret|input_token|fb_exchange_token|api[_-]?key)[=:]\s*)[^&\s\"']+"),
)
_ERROR_MAX_CHARS = 2000


# --- Job runs ---------------------------------------------------------------------------


@transaction.atomic
def job_run_request(*, job_name: str, at: datetime | None = None, trigger: str = "cron") -> tuple[JobRun, bool]:
    """The run of ``job_name`` for the slot containing ``at``, created and enqueued if new.

    A second delivery in the same slot (a retried cron call, beat and an external cron
    both configured) finds the existing row and enqueues nothing. The task is enqueued
    only after commit, so a worker can never look for a row that is not there yet.
    Raises cron.jobs.UnknownJob for a name outside the registry and JobRunNotEnqueued
    when the broker is unreachable (the run is then not recorded either).
    """
    job = job_get(job_name)
    slot = job.slot(at or timezone.now())
    run, created = JobRun.objects.get_or_create(job=job.name, slot=slot, defaults={"trigger": trigger})
    if created:
        transaction.on_commit(lambda: _job_run_enqueue(job_run_id=run.pk))
    return run, created


def _job_run_enqueue(*, job_run_id: int) -> None:
    """Hand the run to the broker; if the broker cannot take it, take the row back.

    A run row without a message would sit queued for the whole slot while every retry of
    the cron call is answered "duplicate". Deleting it lets the scheduler's retry create
    and enqueue it again; JobRunNotEnqueued tells the caller to answer with a retryable error.
    """
    # Imported here: the tasks module imports this one.
    from cron.tasks import job_run_task

    try:
        job_run_task.delay(job_run_id)
    except KombuOperationalError as exc:
        logger.error("cron run %s could not be enqueued: %s", job_run_id, type(exc).__name__)
        JobRun.objects.filter(pk=job_run_id, outcome=JobRun.Outcome.QUEUED).delete()
        raise JobRunNotEnqueued("the broker did not accept the run; retry the call") from exc


def job_run_execute(*, job_run_id: int) -> JobRun:
    """Run one queued JobRun: call its job's service and record the counts it produced.

    The run is claimed with a conditional update, so a redelivered message (acks_late)
    does not run a job twice; a run left ``running`` longer than the task time limit was
    lost with its worker and may be claimed again. A failure is recorded on the row with
    its error text (redacted), never only in a log.
    """
    now = timezone.now()
    lost_before = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    claimable = Q(outcome=JobRun.Outcome.QUEUED) | Q(outcome=JobRun.Outcome.RUNNING, started_at__lt=lost_before)
    claimed = JobRun.objects.filter(claimable, pk=job_run_id).update(
        outcome=JobRun.Outcome.RUNNING, started_at=now, finished_at=None, error=""
    )
    run = JobRun.objects.get(pk=job_run_id)
    if claimed != 1:
        return run  # Another worker has it, or it already finished.

    mine = JobRun.objects.filter(pk=run.pk, outcome=JobRun.Outcome.RUNNING, started_at=now)
    try:
        counts = _counts_checked(job_get(run.job).service_function()())
    except Exception as exc:
        # The traceback is logged redacted, like the error text, instead of via exc_info.
        logger.error("cron job %s (run %s) failed\n%s", run.job, run.pk, _redacted("".join(format_exception(exc))))
        mine.update(outcome=JobRun.Outcome.FAILED, finished_at=timezone.now(), error=error_text(exc))
    else:
        mine.update(outcome=JobRun.Outcome.OK, finished_at=timezone.now(), counts=counts)
    run.refresh_from_db()
    return run


@contextmanager
def job_run_recorded(*, job_name: str, trigger: str) -> Iterator[dict[str, int]]:
    """Record a stage that runs outside the cron route and beat (``manage.py pipeline``,
    ``make run``, an operator's "run now") as a JobRun of its registered job.

    Yields the dict the caller fills with what the stage produced. The run gets its own
    slot (the moment it started, never a period boundary), so it neither takes nor blocks
    the scheduled run of that period; the jobs watchdog and the console then see the job
    as run, not "new / never". A failure is recorded with its redacted error and re-raised.
    """
    job = job_get(job_name)
    started = timezone.now()
    run = _job_run_adhoc_create(job_name=job.name, started=started, trigger=trigger)
    counts: dict[str, int] = {}
    try:
        yield counts
    except BaseException as exc:
        JobRun.objects.filter(pk=run.pk).update(
            outcome=JobRun.Outcome.FAILED, finished_at=timezone.now(), error=error_text(exc), counts=counts
        )
        raise
    JobRun.objects.filter(pk=run.pk).update(
        outcome=JobRun.Outcome.OK, finished_at=timezone.now(), counts=_counts_checked(counts)
    )


def _job_run_adhoc_create(*, job_name: str, started: datetime, trigger: str) -> JobRun:
    job = job_get(job_name)
    slot = started
    for _ in range(100):
        if job.slot(slot) == slot:
            slot += timedelta(microseconds=1)  # A period boundary belongs to the scheduled run.
            continue
        try:
            with transaction.atomic():
                return JobRun.objects.create(
                    job=job.name, slot=slot, trigger=trigger, started_at=started, outcome=JobRun.Outcome.RUNNING
                )
        except IntegrityError:
            slot += timedelta(microseconds=1)  # Two ad-hoc runs in the same microsecond.
    raise RuntimeError(f"no free slot for an ad-hoc run of {job_name}")


def error_text(exc: BaseException) -> str:
    """What an operator sees of a failure: the error type and message, redacted and bounded."""
    return _redacted(f"{type(exc).__name__}: {exc}")[:_ERROR_MAX_CHARS]


def _redacted(text: str) -> str:
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(r"\1[redacted]", text)
    return text


def _counts_checked(result: Any) -> dict[str, int]:
    if not isinstance(result, dict) or not all(
        isinstance(key, str) and isinstance(value, int) and not isinstance(value, bool) for key, value in result.items()
    ):
        raise JobResultInvalid(f"the service returned {type(result).__name__}, not a dict of counts")
    return result


# --- Alarms -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Condition:
    """A condition a watchdog found true now: what an open alarm stands for."""

    kind: str
    account: Account | None = None
    subject: str = ""
    details: dict[str, Any] = field(default_factory=dict, compare=False)
    # How a summary names several conditions of this kind ("sources failing"): used when
    # one account has more than ALARMS_PER_ACCOUNT_KIND of them.
    counted_as: str = field(default="", compare=False)

    @property
    def key(self) -> tuple[str, int | None, str]:
        return (self.kind, self.account.pk if self.account else None, self.subject)


# The subject of the one alarm that counts an account's conditions beyond the cap.
ALARM_SUMMARY_SUBJECT = "more"


def _conditions_bounded(conditions: list[Condition]) -> list[Condition]:
    """At most ALARMS_PER_ACCOUNT_KIND conditions per account and kind; beyond that, the
    first cap - 1 stay as they are and one summary condition counts the rest.

    The ones kept are those whose alarm is already open, then by subject, so the set of
    alarms does not churn (resolve one, open another) from one watchdog run to the next.
    Conditions without an account are the operator's own (a job, a platform) and are
    not bounded here.
    """
    cap = max(1, settings.ALARMS_PER_ACCOUNT_KIND)
    groups: dict[tuple[str, int], list[Condition]] = {}
    accounts: dict[int, Account] = {}
    bounded: list[Condition] = []
    for condition in conditions:
        if condition.account is None:
            bounded.append(condition)
        else:
            accounts[condition.account.pk] = condition.account
            groups.setdefault((condition.kind, condition.account.pk), []).append(condition)
    for (kind, account_id), group in groups.items():
        if len(group) <= cap:
            bounded.extend(group)
            continue
        already_open = set(
            Alarm.objects.filter(kind=kind, account_id=account_id, resolved_at__isnull=True).values_list(
                "subject", flat=True
            )
        )
        group.sort(key=lambda condition: (condition.subject not in already_open, condition.subject))
        kept, rest = group[: cap - 1], group[cap - 1 :]
        account = accounts[account_id]
        counted_as = group[0].counted_as or f"{kind} conditions"
        bounded.extend(kept)
        bounded.append(
            Condition(
                kind=kind,
                account=account,
                subject=ALARM_SUMMARY_SUBJECT,
                details={
                    "summary": f"and {len(rest)} more {counted_as} for {customer_text(account.name)}",
                    "more": len(rest),
                    "subjects": [condition.subject for condition in rest[:20]],
                },
            )
        )
    return bounded


def alarm_open(
    *, kind: str, account: Account | None = None, subject: str = "", details: dict[str, Any]
) -> tuple[Alarm, bool]:
    """Open the alarm for this condition, or keep the open one; returns (alarm, created).

    One open alarm per (kind, account, subject) is enforced by a partial unique index, so
    two watchdog runs racing here still open it once. A new alarm is notified at once; an
    open one again every ALARM_RENOTIFY_HOURS, not at every tick.
    """
    alarm = _open_alarms(kind=kind, account=account, subject=subject).first()
    created = False
    if alarm is None:
        try:
            with transaction.atomic():
                alarm = Alarm.objects.create(
                    kind=kind, account=account, subject=subject, details=details, last_notified_at=timezone.now()
                )
            created = True
        except IntegrityError:
            # Another worker opened it between our read and our insert.
            alarm = _open_alarms(kind=kind, account=account, subject=subject).get()
    if created:
        _alarm_notifications_queue(alarm=alarm, event=AlarmNotification.Event.OPENED)
        return alarm, True

    Alarm.objects.filter(pk=alarm.pk).update(details=details)
    alarm.details = details
    now = timezone.now()
    renotify_before = now - timedelta(hours=settings.ALARM_RENOTIFY_HOURS)
    if alarm.last_notified_at is None or alarm.last_notified_at <= renotify_before:
        # Claim the re-notification so that concurrent runs send it once.
        claimed = Alarm.objects.filter(pk=alarm.pk, last_notified_at=alarm.last_notified_at).update(
            last_notified_at=now
        )
        if claimed == 1:
            alarm.last_notified_at = now
            _alarm_notifications_queue(alarm=alarm, event=AlarmNotification.Event.REMINDER)
    return alarm, False


def alarm_resolve(*, kind: str, account: Account | None = None, subject: str = "") -> Alarm | None:
    """Resolve the open alarm for this condition, if any, and send a resolution notice."""
    alarm = _open_alarms(kind=kind, account=account, subject=subject).first()
    if alarm is None:
        return None
    now = timezone.now()
    if Alarm.objects.filter(pk=alarm.pk, resolved_at__isnull=True).update(resolved_at=now) != 1:
        return None  # Another worker resolved it first and sent the notice.
    alarm.resolved_at = now
    _alarm_notifications_queue(alarm=alarm, event=AlarmNotification.Event.RESOLVED)
    return alarm


def alarms_sync(*, kinds: set[str], conditions: list[Condition]) -> dict[str, int]:
    """Make the open alarms of ``kinds`` match the conditions a watchdog found true now.

    Each condition opens (or keeps) its alarm; every open alarm of these kinds whose
    condition no longer holds is resolved. A watchdog passes only the kinds it owns. One
    account's conditions of one kind open at most ALARMS_PER_ACCOUNT_KIND alarms, the last
    of which counts the rest (``_conditions_bounded``).
    """
    found = len(conditions)
    conditions = _conditions_bounded(conditions)
    current = {condition.key for condition in conditions}
    opened = 0
    for condition in conditions:
        _, created = alarm_open(
            kind=condition.kind, account=condition.account, subject=condition.subject, details=condition.details
        )
        opened += int(created)
    resolved = 0
    for alarm in Alarm.objects.filter(kind__in=kinds, resolved_at__isnull=True).select_related("account"):
        if (alarm.kind, alarm.account_id, alarm.subject) not in current:
            resolved += int(alarm_resolve(kind=alarm.kind, account=alarm.account, subject=alarm.subject) is not None)
    return {"conditions": found, "alarms_opened": opened, "alarms_resolved": resolved}


def _open_alarms(*, kind: str, account: Account | None, subject: str) -> QuerySet[Alarm]:
    alarms = Alarm.objects.filter(kind=kind, subject=subject, resolved_at__isnull=True)
    return alarms.filter(account=account) if account is not None else alarms.filter(account__isnull=True)


def _alarm_notifications_queue(*, alarm: Alarm, event: str) -> None:
    """Write the notice for every configured channel to the outbox and hand each to the
    delivery task after commit; nothing is sent from here (cron.notify delivers).

    With no channel configured there is nothing to queue, and the alarm says so on the
    operator page.
    """
    channels = alarm_channels_configured()
    if not channels:
        alarm.last_notify_error = (
            "no notification channel is configured (OPERATOR_EMAILS, SENTRY_DSN, ALARM_WEBHOOK_URL)"
        )
        Alarm.objects.filter(pk=alarm.pk).update(last_notify_error=alarm.last_notify_error)
        return
    notifications = AlarmNotification.objects.bulk_create(
        AlarmNotification(alarm=alarm, channel=channel, event=event) for channel in channels
    )
    for notification in notifications:
        transaction.on_commit(partial(_alarm_notification_enqueue, notification_id=notification.pk))


def _alarm_notification_enqueue(*, notification_id: int) -> None:
    # Imported here: the tasks module imports this one.
    from cron.tasks import alarm_notification_deliver_task

    try:
        alarm_notification_deliver_task.delay(notification_id)
    except KombuOperationalError:
        # The broker is down: the row waits in the outbox for the delivery job, and the
        # watchdog that found the alarm still completes.
        logger.warning("alarm notification %s not enqueued; the delivery job will send it", notification_id)


# --- Housekeeping -----------------------------------------------------------------------


def daily_metrics_rollup() -> dict[str, int]:
    """Store each account's funnel for yesterday and today (UTC) so far.

    Yesterday is recomputed too because events land late (a post confirmed after
    midnight for a write before it); rows are upserted, so running twice is harmless.
    """
    today = timezone.now().date()
    days = (today - timedelta(days=1), today)
    rows = 0
    for account in Account.objects.all():
        for day in days:
            start = datetime.combine(day, datetime.min.time(), tzinfo=UTC)
            funnel = account_funnel(account=account, start=start, end=start + timedelta(days=1))
            DailyMetric.objects.update_or_create(account=account, day=day, defaults=funnel)
            rows += 1
    return {"metric_rows": rows}


def old_records_cleanup() -> dict[str, int]:
    """Delete job runs, digests and resolved alarms past retention.

    The latest finished run of each job is kept whatever its age: the jobs watchdog
    derives a job's status from it.
    """
    now = timezone.now()
    run_cutoff = now - timedelta(days=settings.JOBRUN_RETENTION_DAYS)
    latest_ids = (
        JobRun.objects.filter(finished_at__isnull=False)
        .order_by()
        .values("job")
        .annotate(latest=Max("id"))
        .values("latest")
    )
    runs, _ = JobRun.objects.filter(slot__lt=run_cutoff).exclude(id__in=latest_ids).delete()
    digests, _ = MorningDigest.objects.filter(claimed_at__lt=run_cutoff).delete()
    notes, _ = PublicationNote.objects.filter(created_at__lt=run_cutoff).delete()
    alarms, _ = Alarm.objects.filter(resolved_at__lt=now - timedelta(days=settings.ALARM_RETENTION_DAYS)).delete()
    return {
        "job_runs_deleted": runs,
        "digests_deleted": digests,
        "notes_deleted": notes,
        "alarms_deleted": alarms,
    }
