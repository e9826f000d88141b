"""Notifications to the operator: alarms by email, Sentry and signed webhook. (The customers'
emails, the morning digest and same-day notes, are cron/customer_mail.py.)

Alarm notices go through an outbox: detection writes one AlarmNotification per channel
(``cron.services``), and delivery happens here, outside the watchdog run, one attempt at a
time. A retryable failure is retried by the delivery task (Celery's retry, with backoff)
and by the delivery job; no watchdog ever sleeps on a dead endpoint.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import smtplib
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import requests
import sentry_sdk
from django.conf import settings
from django.core.mail import send_mail
from django.db.models import F, Q
from django.template.loader import render_to_string
from django.utils import timezone

from cron.alarm_text import account_label, alarm_text, quoted
from cron.errors import NotificationFailed, NotificationRetry
from cron.models import Alarm, AlarmNotification

logger = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Landed-Signature"


# How long a worker holds a notification while it sends it: far longer than any one send
# (EMAIL_TIMEOUT, ALARM_WEBHOOK_TIMEOUT_S), so only a worker that died lets another retry.
DELIVERY_CLAIM = timedelta(minutes=5)
# Rows one run of the delivery job sends at most; the next tick continues.
DELIVERY_BATCH = 200


def customer_text(text: str) -> str:
    """Customer-chosen text (a feed's or page's title, a business name) as an alarm shows it:
    quoted, with control characters escaped and cut to ALARM_CUSTOMER_TEXT_MAX_CHARS, so
    that it reads as a name, cannot pose as the alarm's own words or span lines."""
    limit = max(1, settings.ALARM_CUSTOMER_TEXT_MAX_CHARS)
    text = str(text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return json.dumps(text, ensure_ascii=False)


def alarm_channels_configured() -> list[str]:
    """The channels an alarm notice goes to now (AlarmNotification.Channel values)."""
    channels: list[str] = []
    if settings.OPERATOR_EMAILS:
        channels.append(AlarmNotification.Channel.EMAIL)
    if settings.SENTRY_DSN:
        channels.append(AlarmNotification.Channel.SENTRY)
    if settings.ALARM_WEBHOOK_URL:
        channels.append(AlarmNotification.Channel.WEBHOOK)
    return channels


def alarm_notification_deliver(*, notification_id: int) -> str:
    """Claim one undelivered notification and send it once, without waiting between tries.

    Returns "delivered", "gave_up" (a permanent failure, the attempts are used up, or the
    channel is no longer configured) or "not_claimed" (delivered, given up, or held by
    another worker or a backoff). A retryable failure raises NotificationRetry, saying when
    the next attempt is due; the row is held until then.
    """
    now = timezone.now()
    claimed = (
        AlarmNotification.objects.filter(pk=notification_id, delivered_at__isnull=True, given_up_at__isnull=True)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lte=now))
        .update(claimed_until=now + DELIVERY_CLAIM, attempts=F("attempts") + 1)
    )
    if claimed != 1:
        return "not_claimed"
    notification = AlarmNotification.objects.select_related("alarm__account").get(pk=notification_id)
    mine = AlarmNotification.objects.filter(pk=notification.pk, delivered_at__isnull=True, given_up_at__isnull=True)
    if notification.channel not in alarm_channels_configured():
        mine.update(
            given_up_at=timezone.now(), claimed_until=None, last_error=f"{notification.channel}: not configured"
        )
        _alarm_notify_error_refresh(alarm_id=notification.alarm_id)
        return "gave_up"
    try:
        CHANNEL_SENDERS[notification.channel](alarm=notification.alarm, event=notification.event)
    except NotificationFailed as exc:
        logger.warning("alarm %s %s: %s", notification.alarm_id, notification.event, exc)
        attempts = max(1, settings.ALARM_WEBHOOK_ATTEMPTS)
        if exc.permanent or notification.attempts >= attempts:
            error = str(exc) if exc.permanent else f"{exc} after {notification.attempts} attempts"
            mine.update(given_up_at=timezone.now(), claimed_until=None, last_error=error[:500])
            _alarm_notify_error_refresh(alarm_id=notification.alarm_id)
            return "gave_up"
        retry_in_s = settings.ALARM_WEBHOOK_BACKOFF_S * 2 ** (notification.attempts - 1)
        mine.update(claimed_until=timezone.now() + timedelta(seconds=retry_in_s), last_error=str(exc)[:500])
        _alarm_notify_error_refresh(alarm_id=notification.alarm_id)
        raise NotificationRetry(str(exc), retry_in_s=retry_in_s) from exc
    mine.update(delivered_at=timezone.now(), claimed_until=None, last_error="")
    _alarm_notify_error_refresh(alarm_id=notification.alarm_id)
    return "delivered"


def alarm_notifications_deliver_pending() -> dict[str, int]:
    """The delivery job: send every pending notification that no worker holds, once each.

    The delivery task enqueued at detection normally gets there first; this catches what a
    lost message, a dead worker or a backoff left behind. A channel that fails in this run
    is not tried again until the next one, so a dead endpoint costs one timeout per tick,
    not one per pending notice.
    """
    now = timezone.now()
    pending = list(
        AlarmNotification.objects.filter(delivered_at__isnull=True, given_up_at__isnull=True)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lte=now))
        .order_by("created_at")
        .values_list("pk", "channel")[:DELIVERY_BATCH]
    )
    counts: Counter[str] = Counter()
    failing: set[str] = set()
    for notification_id, channel in pending:
        if channel in failing:
            counts["deferred"] += 1
            continue
        try:
            counts[alarm_notification_deliver(notification_id=notification_id)] += 1
        except NotificationRetry:
            counts["failed"] += 1
            failing.add(channel)
    return {"delivered": 0, "failed": 0, "deferred": 0, "gave_up": 0, "not_claimed": 0} | dict(counts)


def _alarm_notify_error_refresh(*, alarm_id: int) -> None:
    """Say on the alarm why its latest notice has not reached some channel (blank when it has)."""
    latest: dict[str, AlarmNotification] = {}
    for notification in AlarmNotification.objects.filter(alarm_id=alarm_id).order_by("-created_at", "-pk"):
        latest.setdefault(notification.channel, notification)
    errors = [row.last_error for _, row in sorted(latest.items()) if row.delivered_at is None and row.last_error]
    Alarm.objects.filter(pk=alarm_id).update(last_notify_error="; ".join(errors)[:500])


def alarm_payload(*, alarm: Alarm, event: str) -> dict[str, Any]:
    text = alarm_text(alarm)
    return {
        "event": event,
        "alarm": {
            "id": alarm.pk,
            "kind": alarm.kind,
            "account": alarm.account.slug if alarm.account else None,
            "subject": alarm.subject,
            "opened_at": alarm.opened_at.isoformat() if alarm.opened_at else None,
            "resolved_at": alarm.resolved_at.isoformat() if alarm.resolved_at else None,
            "details": alarm.details,
            # The account named and what to do, customer text quoted (cron/alarm_text.py).
            "summary": text.summary,
            "action": text.action,
        },
        "sent_at": timezone.now().isoformat(),
    }


def webhook_signature(*, secret: str, body: bytes) -> str:
    """The X-Landed-Signature value: ``sha256=`` + hex HMAC-SHA256 of the raw body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _alarm_email(*, alarm: Alarm, event: str) -> bool:
    # The business name is the customer's: quoted, escaped onto one line, bounded (a newline
    # in a mail subject would make send_mail refuse the notice, and it would reach no one).
    account = f" ({customer_text(alarm.account.name)})" if alarm.account else ""
    subject = f"[Landed] alarm {event}: {alarm.kind}{account}"
    context = {
        "alarm": alarm,
        "event": event,
        "site_url": settings.SITE_URL,
        "text": alarm_text(alarm),
        "account": account_label(alarm),
        # Details may carry customer text (an excerpt, a feed title): each value on one line, cut short.
        "details": [(key, quoted(value, limit=120)) for key, value in (alarm.details or {}).items()],
    }
    body = render_to_string("cron/email/alarm.txt", context)
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, settings.OPERATOR_EMAILS)
    except (smtplib.SMTPException, OSError) as exc:
        raise NotificationFailed(f"email: {type(exc).__name__}", permanent=False) from exc
    return True


def _alarm_sentry(*, alarm: Alarm, event: str) -> bool:
    with sentry_sdk.new_scope() as scope:
        scope.set_tag("alarm_kind", alarm.kind)
        scope.set_tag("alarm_event", event)
        scope.set_context("alarm", alarm_payload(alarm=alarm, event=event)["alarm"])
        sentry_sdk.capture_message(f"alarm {event}: {alarm.kind}", level="info" if event == "resolved" else "error")
    return True


def _alarm_webhook(*, alarm: Alarm, event: str) -> bool:
    """POST the signed payload once; the outbox retries a retryable failure with backoff.

    A 4xx other than 429 is permanent (retrying the same body cannot help). The URL is
    never put in an error or log: webhook URLs often carry a secret path.
    """
    body = json.dumps(alarm_payload(alarm=alarm, event=event), sort_keys=True).encode()
    headers = {
        "Content-Type": "application/json",
        SIGNATURE_HEADER: webhook_signature(secret=settings.ALARM_WEBHOOK_SECRET, body=body),
    }
    try:
        response = requests.post(
            settings.ALARM_WEBHOOK_URL,
            data=body,
            headers=headers,
            timeout=settings.ALARM_WEBHOOK_TIMEOUT_S,
            allow_redirects=False,
        )
    except requests.RequestException as exc:
        raise NotificationFailed(f"webhook: {type(exc).__name__}", permanent=False) from None
    if response.status_code < 300:
        return True
    failure = f"webhook: HTTP {response.status_code}"
    raise NotificationFailed(failure, permanent=response.status_code < 500 and response.status_code != 429)


CHANNEL_SENDERS: dict[str, Callable[..., bool]] = {
    AlarmNotification.Channel.EMAIL: _alarm_email,
    AlarmNotification.Channel.SENTRY: _alarm_sentry,
    AlarmNotification.Channel.WEBHOOK: _alarm_webhook,
}
