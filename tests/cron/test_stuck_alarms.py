"""Issue 12 item 3: stuck things become alarms that name the account and say what to do.

A refused publication, one unknown past its deadline, one platform silent while another
lands, Instagram's own connect funnel, a source failing for an account for a day. Time is
moved with time-machine; text the customer chose is quoted and truncated in every notice.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail
from django.test import override_settings

from accounts.models import Account, Platform
from cron.alarm_text import alarm_text, quoted
from cron.models import Alarm
from cron.notify import alarm_notifications_deliver_pending, alarm_payload
from cron.watchdogs import Kind, watchdog_connect_funnel, watchdog_landed, watchdog_publishing, watchdog_research
from publish.kinds import FailureKind
from publish.models import Channel, ConnectEvent, Publication
from research.models import Source, Subscription
from tests import factories
from tests.cron.rows import channel_create, publication_create

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
LONG_POST = "Big news!\nOur summer sale starts " + "really " * 40 + "soon."


@pytest.fixture(autouse=True)
def operators(settings) -> None:
    settings.OPERATOR_EMAILS = ["ops@landed.example"]
    settings.ALARM_WEBHOOK_URL = ""
    settings.WATCHDOG_HEARTBEAT_URL = ""
    settings.WATCHDOG_LANDED_WINDOW_HOURS = 24


def open_alarms(kind: str) -> list[Alarm]:
    return list(Alarm.objects.filter(kind=kind, resolved_at__isnull=True).select_related("account"))


def established(**fields: object) -> Account:
    fields.setdefault("slug", f"acct-{Account.objects.count() + 1}")
    fields.setdefault("name", "Harbour Bikes")
    account = factories.account_create(**fields)
    Account.objects.filter(pk=account.pk).update(created_at=T0 - timedelta(days=30))
    account.refresh_from_db()
    return account


# --- Refused and unknown publications ------------------------------------------------------


@override_settings(WATCHDOG_STUCK_MINUTES=60)
def test_a_post_facebook_blocked_with_368_stays_unknown_and_alarms_past_its_deadline() -> None:
    account = established()
    with time_machine.travel(T0, tick=False):
        publication_create(
            account=account,
            status=Publication.Status.UNKNOWN,
            publishing_started_at=T0,
            failure_kind=FailureKind.UNKNOWN_OUTCOME,
            failure_reason="(#368) Temporarily blocked for policies violations",
        )
    with time_machine.travel(T0 + timedelta(minutes=59), tick=False):
        watchdog_publishing()
    assert open_alarms(Kind.PUBLICATIONS_STUCK) == []

    with time_machine.travel(T0 + timedelta(minutes=61), tick=False):
        watchdog_publishing()
    (alarm,) = open_alarms(Kind.PUBLICATIONS_STUCK)
    text = alarm_text(alarm)
    assert "“Harbour Bikes”" in text.summary and account.slug in text.summary
    assert "1 unknown" in text.summary
    assert "(#368)" in alarm.details["reason"]
    assert "retry once" in text.action


@override_settings(WATCHDOG_REFUSED_LOOKBACK_HOURS=72)
def test_a_refused_publication_alarms_per_account_and_platform_quoting_the_post_briefly() -> None:
    account = established(name="Harbour Bikes\n<script>")
    instagram = channel_create(account=account, platform=Platform.INSTAGRAM)
    with time_machine.travel(T0, tick=False):
        refused = publication_create(
            account=account,
            status=Publication.Status.FAILED,
            channel=instagram,
            failure_kind=FailureKind.PERMANENT,
            failure_reason="(#9004) The media could not be fetched",
        )
        Publication.objects.filter(pk=refused.pk).update(message=LONG_POST)
        publication_create(account=account, status=Publication.Status.LANDED)  # Facebook is fine

    with time_machine.travel(T0 + timedelta(minutes=5), tick=False):
        watchdog_publishing()
    (alarm,) = open_alarms(Kind.PUBLICATION_REFUSED)
    assert (alarm.account_id, alarm.subject) == (account.pk, Platform.INSTAGRAM)
    assert alarm.details["publication_ids"] == [refused.pk]

    # the notice names the account, quotes the post cut short on one line, and says what to do
    alarm_notifications_deliver_pending()
    (email,) = mail.outbox
    assert "“Harbour Bikes <script>”" in email.body
    assert "“Big news! Our summer sale starts really" in email.body
    assert LONG_POST not in email.body and "\nOur summer" not in email.body
    assert "What to do: Read the platform's reason" in email.body
    assert "(#9004)" in email.body
    payload = alarm_payload(alarm=alarm, event="opened")["alarm"]
    assert payload["summary"] == alarm_text(alarm).summary and payload["action"]

    # it stays open through the lookback, then clears
    with time_machine.travel(T0 + timedelta(hours=71), tick=False):
        watchdog_publishing()
    assert len(open_alarms(Kind.PUBLICATION_REFUSED)) == 1
    with time_machine.travel(T0 + timedelta(hours=73), tick=False):
        watchdog_publishing()
    assert open_alarms(Kind.PUBLICATION_REFUSED) == []


def test_quoted_text_is_one_line_bounded_and_marked_as_a_quotation() -> None:
    assert quoted("a\nb\x00c\u2028d") == "“a b c d”"
    long = quoted("x" * 500, limit=20)
    assert long == "“" + "x" * 19 + "…”"


# --- One platform silent while another lands ----------------------------------------------


def test_an_account_landing_on_facebook_but_not_on_instagram_alarms_for_instagram() -> None:
    account = established()
    with time_machine.travel(T0 - timedelta(days=2), tick=False):
        facebook = channel_create(account=account, platform=Platform.FACEBOOK_PAGE)
        instagram = channel_create(account=account, platform=Platform.INSTAGRAM)
    with time_machine.travel(T0 - timedelta(hours=3), tick=False):
        publication_create(account=account, channel=facebook)

    with time_machine.travel(T0, tick=False):
        watchdog_landed()
    assert open_alarms(Kind.NOTHING_LANDED) == []
    (alarm,) = open_alarms(Kind.NOTHING_LANDED_ON_PLATFORM)
    assert (alarm.account_id, alarm.subject, alarm.details["landed_elsewhere"]) == (account.pk, "instagram", 1)
    assert "none on instagram" in alarm_text(alarm).summary

    # when Instagram lands too, it resolves
    with time_machine.travel(T0 + timedelta(minutes=30), tick=False):
        publication_create(account=account, channel=instagram)
        watchdog_landed()
    assert open_alarms(Kind.NOTHING_LANDED_ON_PLATFORM) == []


def test_a_platform_connected_within_the_window_owes_nothing_yet() -> None:
    account = established()
    with time_machine.travel(T0 - timedelta(days=2), tick=False):
        facebook = channel_create(account=account, platform=Platform.FACEBOOK_PAGE)
    with time_machine.travel(T0 - timedelta(hours=2), tick=False):
        channel_create(account=account, platform=Platform.INSTAGRAM)
        publication_create(account=account, channel=facebook)
    with time_machine.travel(T0, tick=False):
        watchdog_landed()
    assert open_alarms(Kind.NOTHING_LANDED_ON_PLATFORM) == []


def test_a_disconnected_platform_is_not_expected_to_land() -> None:
    account = established()
    with time_machine.travel(T0 - timedelta(days=2), tick=False):
        facebook = channel_create(account=account, platform=Platform.FACEBOOK_PAGE)
        channel_create(account=account, platform=Platform.INSTAGRAM, status=Channel.Status.REVOKED)
        publication_create(account=account, channel=facebook, landed_at=T0 - timedelta(hours=1))
    with time_machine.travel(T0, tick=False):
        watchdog_landed()
    assert open_alarms(Kind.NOTHING_LANDED_ON_PLATFORM) == []


# --- Instagram's own connect funnel --------------------------------------------------------


@override_settings(WATCHDOG_CONNECT_SETTLE_MINUTES=30)
def test_instagram_offered_but_never_bound_alarms_for_instagram_while_facebook_binds() -> None:
    account = established()
    with time_machine.travel(T0, tick=False):
        for platform in (Platform.FACEBOOK_PAGE, Platform.INSTAGRAM):
            ConnectEvent.objects.create(platform=platform, account=account, kind=ConnectEvent.Kind.STARTED)
        ConnectEvent.objects.create(platform=Platform.FACEBOOK_PAGE, account=account, kind=ConnectEvent.Kind.BOUND)
    with time_machine.travel(T0 + timedelta(minutes=31), tick=False):
        watchdog_connect_funnel()
    assert [alarm.subject for alarm in open_alarms(Kind.CONNECT_FUNNEL_BROKEN)] == [Platform.INSTAGRAM]


# --- A source failing for an account for a day --------------------------------------------


@override_settings(WATCHDOG_SOURCE_FAILING_HOURS=24, WATCHDOG_SOURCE_MAX_FAILURES=1000)
def test_a_source_failing_for_an_account_for_a_day_alarms_for_that_account_with_its_title_quoted() -> None:
    account = established()
    paused = established(paused=True)
    with time_machine.travel(T0 - timedelta(days=3), tick=False):
        source = Source.objects.create(url="https://feeds.example/k.xml?key=SECRET", title="Trade News")
        Subscription.objects.create(account=account, source=source, title="My\nfavourite " + "feed " * 40)
        Subscription.objects.create(account=paused, source=source)
    Source.objects.filter(pk=source.pk).update(last_success_at=T0, consecutive_failures=8, last_error_kind="blocked")

    with time_machine.travel(T0 + timedelta(hours=23, minutes=59), tick=False):
        watchdog_research()
    assert open_alarms(Kind.SOURCE_FAILING_FOR_ACCOUNT) == []

    with time_machine.travel(T0 + timedelta(hours=24, minutes=1), tick=False):
        watchdog_research()
    (alarm,) = open_alarms(Kind.SOURCE_FAILING_FOR_ACCOUNT)
    assert (alarm.account_id, alarm.subject) == (account.pk, f"source:{source.pk}")
    text = alarm_text(alarm)
    assert "“My favourite feed" in text.summary and "…”" in text.summary
    assert "SECRET" not in str(alarm.details) and "feeds.example" not in text.summary
    assert "24 h" in text.summary

    # a successful read clears it
    Source.objects.filter(pk=source.pk).update(last_success_at=T0 + timedelta(hours=25), consecutive_failures=0)
    with time_machine.travel(T0 + timedelta(hours=25), tick=False):
        watchdog_research()
    assert open_alarms(Kind.SOURCE_FAILING_FOR_ACCOUNT) == []


# Conditions of the service, not of one account (a job, the model, the gate overall, the
# app's connect flow): they have no account to name. A failing feed is either (below).
SERVICE_WIDE = {
    Kind.JOB_DOWN,
    Kind.LLM_THROTTLED,
    Kind.LLM_ERRORS,
    Kind.LLM_KEY_CHANGED,
    Kind.GATE_REJECTS_ALL,
    Kind.GATE_PASSES_ALL,
    Kind.CONNECT_FUNNEL_BROKEN,
}


@pytest.mark.parametrize(
    "kind", sorted(value for name, value in vars(Kind).items() if name.isupper() and isinstance(value, str))
)
def test_every_alarm_kind_says_what_to_do_in_its_own_words_and_names_its_account(kind: str) -> None:
    account = None if kind in SERVICE_WIDE else Account(name="Harbour Bikes", slug="harbour-bikes")
    text = alarm_text(Alarm(kind=kind, account=account, subject="instagram", details={}))
    # the generic fallback is for kinds from an older release still open in the database
    assert text.action and text.action != "See the details.", kind
    if account is not None:
        assert "“Harbour Bikes” (harbour-bikes)" in text.summary


def test_a_failing_feed_of_the_accounts_own_choosing_names_the_account_and_a_preset_one_does_not() -> None:
    details = {"title": "Trade News", "consecutive_failures": 3, "last_error_kind": "blocked"}
    account = Account(name="Harbour Bikes", slug="harbour-bikes")
    own = alarm_text(Alarm(kind=Kind.SOURCE_FAILING, account=account, subject="source:1", details=details))
    preset = alarm_text(Alarm(kind=Kind.SOURCE_FAILING, account=None, subject="source:1", details=details))
    assert own.summary == "“Harbour Bikes” (harbour-bikes): its source “Trade News” failed 3 times in a row (blocked)."
    assert preset.summary == "Source “Trade News” failed 3 times in a row (blocked)."
