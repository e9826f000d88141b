"""The landed watchdog: every paying, unpaused account past onboarding grace lands a post a day.

Time is controlled explicitly (time-machine); the DST cases use an account in
Europe/London on the nights its clocks change.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail

from accounts.models import Account
from cron.models import Alarm
from cron.notify import alarm_notifications_deliver_pending
from cron.watchdogs import Kind, watchdog_landed
from publish.models import Publication
from tests import factories
from tests.cron.rows import publication_create

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def operators(settings) -> None:
    settings.OPERATOR_EMAILS = ["ops@landed.example"]
    settings.ALARM_WEBHOOK_URL = ""
    settings.WATCHDOG_LANDED_WINDOW_HOURS = 24


def account_at(created_at: datetime, **fields: object) -> Account:
    fields.setdefault("slug", f"acct-{Account.objects.count() + 1}")
    account = factories.account_create(name=str(fields["slug"]), **fields)
    Account.objects.filter(pk=account.pk).update(created_at=created_at)
    account.refresh_from_db()
    return account


def open_landed_alarms() -> set[str]:
    return set(
        Alarm.objects.filter(kind=Kind.NOTHING_LANDED, resolved_at__isnull=True).values_list("account__slug", flat=True)
    )


def run_at(at: datetime) -> dict[str, int]:
    with time_machine.travel(at, tick=False):
        return watchdog_landed()


def test_a_paying_account_with_no_rows_at_all_alarms() -> None:
    account_at(T0 - timedelta(days=10), slug="silent")

    counts = run_at(T0)

    assert open_landed_alarms() == {"silent"}
    assert counts["accounts_checked"] == 1
    assert counts["alarms_opened"] == 1
    alarm = Alarm.objects.get()
    assert alarm.details["landed"] == 0
    assert alarm.details["window_hours"] == 24
    assert alarm.details["channels_connected"] == 0
    assert alarm.details["drafts_awaiting_approval"] == 0


def test_onboarding_grace_holds_the_alarm_until_it_ends() -> None:
    created = T0 - timedelta(hours=72)
    account_at(created, slug="new", onboarding_grace_hours=72)

    run_at(created + timedelta(hours=72) - timedelta(seconds=1))
    assert open_landed_alarms() == set()

    run_at(created + timedelta(hours=72))
    assert open_landed_alarms() == {"new"}


def test_paused_and_non_paying_accounts_are_not_watched_and_pausing_resolves() -> None:
    account_at(T0 - timedelta(days=10), slug="paused", paused=True)
    account_at(T0 - timedelta(days=10), slug="trial", is_paying=False)
    watched = account_at(T0 - timedelta(days=10), slug="watched")

    run_at(T0)
    assert open_landed_alarms() == {"watched"}

    Account.objects.filter(pk=watched.pk).update(paused=True)
    counts = run_at(T0 + timedelta(hours=1))
    assert open_landed_alarms() == set()
    assert counts["alarms_resolved"] == 1


def test_a_post_landed_in_the_window_keeps_the_account_quiet_and_one_outside_does_not() -> None:
    quiet = account_at(T0 - timedelta(days=10), slug="quiet")
    stale = account_at(T0 - timedelta(days=10), slug="stale")
    publication_create(account=quiet, landed_at=T0 - timedelta(hours=23, minutes=59))
    publication_create(account=stale, landed_at=T0 - timedelta(hours=24, seconds=1))
    # Published but never confirmed live is not landed.
    publication_create(account=stale, status=Publication.Status.PUBLISHED)

    run_at(T0)

    assert open_landed_alarms() == {"stale"}


def test_the_alarm_opens_once_not_every_tick_and_resolves_when_a_post_lands() -> None:
    account = account_at(T0 - timedelta(days=10), slug="late")
    # given the watchdog ticking hourly for half a day with nothing landing
    for hour in range(12):
        run_at(T0 + timedelta(hours=hour))
    assert Alarm.objects.count() == 1
    alarm_notifications_deliver_pending()
    assert len(mail.outbox) == 1

    # when a post lands, then the next tick resolves the alarm with a notice
    publication_create(account=account, landed_at=T0 + timedelta(hours=12, minutes=30))
    counts = run_at(T0 + timedelta(hours=13))

    assert counts["alarms_resolved"] == 1
    assert open_landed_alarms() == set()
    alarm_notifications_deliver_pending()
    assert "resolved" in mail.outbox[-1].subject
    assert len(mail.outbox) == 2


def test_the_window_is_24_real_hours_across_the_spring_dst_change_in_london() -> None:
    # Clocks in London go forward at 01:00 UTC on 29 March 2026: that local day has 23 hours.
    account = account_at(datetime(2026, 3, 1, tzinfo=UTC), slug="london-spring", timezone="Europe/London")
    # given a post that landed at 12:00 GMT on Saturday
    publication_create(account=account, landed_at=datetime(2026, 3, 28, 12, 0, tzinfo=UTC))

    # when the watchdog runs at 12:30 BST on Sunday (11:30 UTC, 23.5 real hours later)
    run_at(datetime(2026, 3, 29, 11, 30, tzinfo=UTC))
    # then the post is inside the window, though "the same local time yesterday" would miss it
    assert open_landed_alarms() == set()

    run_at(datetime(2026, 3, 29, 12, 0, 1, tzinfo=UTC))
    assert open_landed_alarms() == {"london-spring"}


def test_the_window_is_24_real_hours_across_the_autumn_dst_change_in_london() -> None:
    # Clocks in London go back at 01:00 UTC on 25 October 2026: that local day has 25 hours.
    account = account_at(datetime(2026, 10, 1, tzinfo=UTC), slug="london-autumn", timezone="Europe/London")
    # given a post that landed at 12:00 BST on Saturday (11:00 UTC)
    publication_create(account=account, landed_at=datetime(2026, 10, 24, 11, 0, tzinfo=UTC))

    # when the watchdog runs at 11:30 GMT on Sunday, 24.5 real hours later
    run_at(datetime(2026, 10, 25, 11, 30, tzinfo=UTC))

    # then the account alarms, though "since the same local time yesterday" would not
    assert open_landed_alarms() == {"london-autumn"}


def test_an_account_that_expects_no_posts_is_not_watched() -> None:
    account_at(T0 - timedelta(days=10), slug="no-cadence", cadence_per_day=0)
    run_at(T0)
    assert open_landed_alarms() == set()
