"""Notifications: alarms to the operator (email, Sentry, signed webhook) and the customers'
daily digest of drafts awaiting approval."""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import smtplib
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import requests
from django.conf import settings
from django.core.mail import send_mail, send_mass_mail
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from cron.errors import NotificationFailed
from cron.models import Alarm, ApprovalDigest
from posting.models import Account, Membership

logger = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Landed-Signature"
# A digest lists this many drafts and links to the rest: it is a nudge, not the approval page.
DIGEST_MAX_DRAFTS = 10


def alarm_notify(*, alarm: Alarm, event: str) -> tuple[int, list[str]]:
    """Tell the operator about an alarm ``event`` ("opened", "reminder", "resolved").

    Every configured channel is tried; returns how many were reached and why the others
    were not (error texts name the channel and the failure, never a URL or a secret).
    """
    delivered = 0
    errors: list[str] = []
    for channel in _alarm_channels():
        name = channel.__name__.removeprefix("_alarm_")
        paused_until = _channel_paused_until.get(name)
        if paused_until is not None and timezone.now() < paused_until:
            errors.append(f"{name}: skipped, it failed moments ago")
            continue
        try:
            delivered += int(channel(alarm=alarm, event=event))
        except NotificationFailed as exc:
            logger.warning("alarm %s %s: %s", alarm.pk, event, exc)
            errors.append(str(exc))
            if not exc.permanent:
                _channel_paused_until[name] = timezone.now() + timedelta(seconds=settings.ALARM_CHANNEL_PAUSE_S)
        else:
            _channel_paused_until.pop(name, None)
    return delivered, errors


# Channels that just failed with a retryable error, per process: a watchdog run opening a
# hundred alarms while the webhook is down pays the webhook's retry budget once, not a
# hundred times. Alarms that reached no channel are tried again at the next tick.
_channel_paused_until: dict[str, datetime] = {}


def alarm_channels_reset() -> None:
    """Forget paused channels (tests, and an operator who fixed the endpoint)."""
    _channel_paused_until.clear()


def alarm_channels_configured() -> bool:
    return bool(_alarm_channels())


def _alarm_channels() -> list[Callable[..., bool]]:
    channels: list[Callable[..., bool]] = []
    if settings.OPERATOR_EMAILS:
        channels.append(_alarm_email)
    if settings.SENTRY_DSN:
        channels.append(_alarm_sentry)
    if settings.ALARM_WEBHOOK_URL:
        channels.append(_alarm_webhook)
    return channels


def alarm_payload(*, alarm: Alarm, event: str) -> dict[str, Any]:
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
        },
        "sent_at": timezone.now().isoformat(),
    }


def webhook_signature(*, secret: str, body: bytes) -> str:
    """The X-Landed-Signature value: ``sha256=`` + hex HMAC-SHA256 of the raw body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def _alarm_email(*, alarm: Alarm, event: str) -> bool:
    account = f" ({alarm.account.name})" if alarm.account else ""
    subject = f"[Landed] alarm {event}: {alarm.kind}{account}"
    body = render_to_string("cron/email/alarm.txt", {"alarm": alarm, "event": event, "site_url": settings.SITE_URL})
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, settings.OPERATOR_EMAILS)
    except (smtplib.SMTPException, OSError) as exc:
        raise NotificationFailed(f"email: {type(exc).__name__}", permanent=False) from exc
    return True


def _alarm_sentry(*, alarm: Alarm, event: str) -> bool:
    import sentry_sdk

    with sentry_sdk.new_scope() as scope:
        scope.set_tag("alarm_kind", alarm.kind)
        scope.set_tag("alarm_event", event)
        scope.set_context("alarm", alarm_payload(alarm=alarm, event=event)["alarm"])
        sentry_sdk.capture_message(f"alarm {event}: {alarm.kind}", level="info" if event == "resolved" else "error")
    return True


def _alarm_webhook(*, alarm: Alarm, event: str) -> bool:
    """POST the signed payload, retrying transient failures with exponential backoff.

    A 4xx other than 429 is permanent (retrying the same body cannot help). The URL is
    never put in an error or log: webhook URLs often carry a secret path.
    """
    body = json.dumps(alarm_payload(alarm=alarm, event=event), sort_keys=True).encode()
    headers = {
        "Content-Type": "application/json",
        SIGNATURE_HEADER: webhook_signature(secret=settings.ALARM_WEBHOOK_SECRET, body=body),
    }
    attempts = max(1, settings.ALARM_WEBHOOK_ATTEMPTS)
    failure = ""
    for attempt in range(attempts):
        if attempt:
            time.sleep(settings.ALARM_WEBHOOK_BACKOFF_S * 2 ** (attempt - 1))
        try:
            response = requests.post(
                settings.ALARM_WEBHOOK_URL,
                data=body,
                headers=headers,
                timeout=settings.ALARM_WEBHOOK_TIMEOUT_S,
                allow_redirects=False,
            )
        except requests.RequestException as exc:
            failure = type(exc).__name__
            continue
        if response.status_code < 300:
            return True
        failure = f"HTTP {response.status_code}"
        if response.status_code < 500 and response.status_code != 429:
            raise NotificationFailed(f"webhook: {failure}", permanent=True)
    raise NotificationFailed(f"webhook: {failure} after {attempts} attempts", permanent=False)


# --- Approval digests -------------------------------------------------------------------


def approval_digests_send() -> dict[str, int]:
    """Email each active account's approvers the drafts awaiting them, once per local day.

    An account's day and morning are its own (Account.timezone), so a digest goes out at
    APPROVAL_DIGEST_LOCAL_HOUR local time on both sides of a DST change. The digest row
    and the email share one transaction: a failed send leaves no row, and the next run
    tries again.
    """
    from posting.selectors import drafts_awaiting_approval

    now = timezone.now()
    counts: Counter[str] = Counter()
    for account in Account.objects.filter(paused=False):
        local_now = _local_time(account=account, at=now)
        if local_now.hour < settings.APPROVAL_DIGEST_LOCAL_HOUR:
            continue
        day = local_now.date()
        if ApprovalDigest.objects.filter(account=account, day=day).exists():
            continue
        waiting = drafts_awaiting_approval(account=account)
        total = waiting.count()
        if total == 0:
            continue
        recipients = _approver_emails(account=account)
        if not recipients:
            counts["no_recipients"] += 1
            continue
        subject = f"{total} draft{'s' if total != 1 else ''} for {account.name} awaiting your approval"
        shown = list(waiting[:DIGEST_MAX_DRAFTS])
        body = render_to_string(
            "cron/email/approval_digest.txt",
            {
                "account": account,
                "drafts": shown,
                "total": total,
                "more": total - len(shown),
                "url": settings.SITE_URL + reverse("drafts", kwargs={"slug": account.slug}),
            },
        )
        try:
            with transaction.atomic():
                ApprovalDigest.objects.create(account=account, day=day, drafts=total, recipients=len(recipients))
                send_mass_mail([(subject, body, settings.DEFAULT_FROM_EMAIL, [email]) for email in recipients])
        except IntegrityError:
            continue  # Another worker sent today's digest for this account.
        except (smtplib.SMTPException, OSError) as exc:
            logger.warning("approval digest for account %s not sent: %s", account.pk, type(exc).__name__)
            counts["failed"] += 1
            continue
        counts["digests_sent"] += 1
        counts["emails_sent"] += len(recipients)
    return {"digests_sent": 0, "emails_sent": 0, **counts}


def _local_time(*, account: Account, at: datetime) -> datetime:
    try:
        return at.astimezone(ZoneInfo(account.timezone))
    except (ZoneInfoNotFoundError, ValueError):
        # An unusable timezone must not stop the digest: fall back to UTC.
        return at.astimezone(ZoneInfo("UTC"))


def _approver_emails(*, account: Account) -> list[str]:
    """Members who can approve (owners and editors) with an email address, active users only."""
    return sorted(
        set(
            Membership.objects.filter(
                account=account,
                role__in=[Membership.Role.OWNER, Membership.Role.EDITOR],
                user__is_active=True,
            )
            .exclude(user__email="")
            .values_list("user__email", flat=True)
        )
    )
