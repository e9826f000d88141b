"""What an alarm says to the operator: which account, what is wrong, and what to do.

One sentence per alarm kind, read by the email, the webhook payload and the console, so
they cannot disagree. Text a customer chose (an account's name, a feed title, a post) is
quoted and truncated: it is data, never part of the sentence, and a long or odd one can
neither fill an email nor pass for the service's own words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cron.models import Alarm

QUOTE_MAX_CHARS = 80
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def quoted(text: object, *, limit: int = QUOTE_MAX_CHARS) -> str:
    """Customer text as a quotation: one line, at most ``limit`` characters, in quotes."""
    flat = " ".join(_CONTROL.sub(" ", str(text or "")).split())
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return f"“{flat}”"


@dataclass(frozen=True)
class AlarmText:
    summary: str
    action: str


def account_label(alarm: Alarm) -> str:
    if alarm.account is None:
        return "the service"
    return f"{quoted(alarm.account.name, limit=60)} ({alarm.account.slug})"


def _n(details: dict[str, Any], key: str, default: object = "?") -> object:
    value = details.get(key)
    return default if value is None else value


def alarm_text(alarm: Alarm) -> AlarmText:
    d = alarm.details or {}
    who = account_label(alarm)
    kind = alarm.kind
    platform = d.get("platform") or alarm.subject
    if kind == "nothing_landed":
        return AlarmText(
            f"{who}: nothing landed in the last {_n(d, 'window_hours')} h.",
            f"Check its channels ({_n(d, 'channels_connected')} connected) and drafts awaiting approval "
            f"({_n(d, 'drafts_awaiting_approval')}); if drafts wait, nudge the customer; if none, look at research.",
        )
    if kind == "nothing_landed_on_platform":
        return AlarmText(
            f"{who}: {_n(d, 'landed_elsewhere')} post(s) landed elsewhere but none on {platform} "
            f"in {_n(d, 'window_hours')} h.",
            f"Open the {platform} channel: reconnect it if asked, look at its latest failed or unknown publication, "
            "and Instagram's daily quota.",
        )
    if kind == "connect_funnel_broken":
        return AlarmText(
            f"Connecting {platform}: {_n(d, 'started')} started, none bound since {_n(d, 'since')}.",
            "Try the connect flow yourself with a test Page; see failed_by_reason; "
            "check the app's permissions and review.",
        )
    if kind == "job_down":
        return AlarmText(
            f"Job {alarm.subject} has not completed since {_n(d, 'last_completed_at', 'ever')}.",
            "Check that the worker and beat (or make run's scheduler) are running and read the job's last error.",
        )
    if kind == "research_starved":
        return AlarmText(
            f"{who}: research found nothing usable ({d.get('reason', 'no articles')}).",
            "Look at the account's sources on the console; replace failing feeds or add new ones with the customer.",
        )
    if kind == "source_failing":
        # A feed of one account's own choosing names that account; a preset feed is everyone's.
        whose = f"{who}: its source" if alarm.account is not None else "Source"
        return AlarmText(
            f"{whose} {quoted(d.get('title'))} failed {_n(d, 'consecutive_failures')} times in a row "
            f"({d.get('last_error_kind') or 'error'}).",
            "Open the feed yourself; if it moved or blocks us, replace it for the accounts that follow it.",
        )
    if kind == "source_failing_for_account":
        return AlarmText(
            f"{who}: its source {quoted(d.get('title'))} has not been read for {_n(d, 'failing_hours')} h "
            f"({d.get('last_error_kind') or 'error'}).",
            "Check the feed's address with the customer and replace it in the account's sources.",
        )
    if kind in ("gate_rejects_all", "gate_passes_all"):
        verb = "rejected" if kind == "gate_rejects_all" else "passed"
        return AlarmText(
            f"The gate {verb} all {_n(d, 'drafts')} drafts since {_n(d, 'since')}.",
            "Read a few verdicts on the console: a broken model answer or prompt shows at once.",
        )
    if kind == "llm_throttled":
        return AlarmText(
            f"The language model answered 429 {_n(d, 'throttled')} times in the last hour.",
            "Check the key's rate limits and billing with the provider.",
        )
    if kind == "llm_errors":
        return AlarmText(
            f"The language model failed {_n(d, 'errors')} times in the last hour.",
            "Check the key, the organisation and the provider's status page.",
        )
    if kind == "llm_key_changed":
        return AlarmText(
            "The language model key or organisation in use changed within a day.",
            "Confirm the change was yours; if not, rotate the key.",
        )
    if kind == "publications_stuck":
        return AlarmText(
            f"{who}: publications stuck unknown or unconfirmed ({_stuck_counts(d)}).",
            "Open each on the console: if the platform shows the post, reconcile will find it; if it shows nothing, "
            "retry once.",
        )
    if kind == "publication_refused":
        return AlarmText(
            f"{who}: {platform} refused {_n(d, 'refused')} post(s); latest {quoted(d.get('excerpt'), limit=60)}: "
            f"{quoted(d.get('reason'), limit=120)}.",
            "Read the platform's reason: a policy block needs the customer to edit the post; a reconnect or quota "
            "needs the channel fixed; then retry once from the console.",
        )
    if kind == "channel_needs_reconnect":
        return AlarmText(
            f"{who}: its {platform} channel {quoted(d.get('name'), limit=60)} needs reconnecting.",
            "Ask the customer to reconnect it on their Channels page.",
        )
    if kind == "token_expiring":
        return AlarmText(
            f"{who}: the {platform} token of {quoted(d.get('name'), limit=60)} expires {_n(d, 'expires_at')}.",
            "Ask the customer to reconnect before then.",
        )
    if kind == "channel_paused_long":
        return AlarmText(
            f"{who}: the {platform} channel {quoted(d.get('name'), limit=60)} is paused by a rate limit until "
            f"{_n(d, 'resumes_at')}.",
            "Usually Instagram's daily quota: lower the account's cadence or wait; check the app-level usage.",
        )
    if kind == "reflexive_approvals":
        return AlarmText(
            f"{who}: approvals look reflexive ({', '.join(d.get('signals', [])) or 'see details'}).",
            "Look at its review profile on the console; write to the approver kindly: the gate checks facts, "
            "not whether the post is right for the business.",
        )
    return AlarmText(f"{who}: {kind.replace('_', ' ')} {alarm.subject}".rstrip() + ".", "See the details.")


def _stuck_counts(details: dict[str, Any]) -> str:
    parts = [f"{details[key]} {key}" for key in ("unknown", "unconfirmed") if details.get(key)]
    return ", ".join(parts) or "see details"
