"""The product's one number, read in every place that shows it, agrees on the same data.

"Landed" is ``Publication.objects.landed()`` (docs/ARCHITECTURE.md, "The one number"): LANDED
or VANISHED, counted at ``landed_at``. The operator's page, the daily metrics, the customer's
History page, the landed watchdog and ``manage.py pipeline`` must all say the same thing, so
the data here has a publication in every status, a post that landed and then vanished, and
one that landed outside the 24 h window.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from django.test import Client

from accounts.models import Account
from cron.console import FUNNEL_STAGES
from cron.management.commands import pipeline
from cron.models import Alarm, DailyMetric
from cron.services import daily_metrics_rollup
from cron.watchdogs import Kind, watchdog_landed
from posting.selectors import account_funnel
from publish.models import Publication
from tests import factories
from tests.cron.rows import publication_create

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
IN_WINDOW = T0 - timedelta(hours=2)
OUTSIDE_WINDOW = T0 - timedelta(days=3)
FUNNEL_KEYS = {"articles", "drafts", "gated", "passed", "approved", "published", "landed"}
NOT_LANDED = [s for s in Publication.Status if s not in (Publication.Status.LANDED, Publication.Status.VANISHED)]


@pytest.fixture(autouse=True)
def operators(settings) -> None:
    settings.OPERATOR_EMAILS = ["ops@landed.example"]
    settings.ALARM_WEBHOOK_URL = ""
    settings.WATCHDOG_LANDED_WINDOW_HOURS = 24


def account_with(slug: str, *, landed_at: list[datetime], vanished_at: list[datetime]) -> Account:
    account = factories.account_create(name=slug, slug=slug)
    Account.objects.filter(pk=account.pk).update(created_at=T0 - timedelta(days=10))
    for status in NOT_LANDED:
        publication_create(account=account, status=status)
    for at in landed_at:
        publication_create(account=account, status=Publication.Status.LANDED, landed_at=at)
    for at in vanished_at:
        publication_create(account=account, status=Publication.Status.VANISHED, landed_at=at)
    return account


def test_console_history_watchdog_daily_metrics_and_pipeline_count_landed_alike() -> None:
    # given: one account with a post landed in the window, one that landed there and then
    # vanished, and one landed days ago; one whose only post in the window vanished; one
    # whose only landed post is old; each with a publication in every other status.
    busy = account_with("busy", landed_at=[IN_WINDOW, OUTSIDE_WINDOW], vanished_at=[IN_WINDOW])
    vanished_only = account_with("vanished-only", landed_at=[OUTSIDE_WINDOW], vanished_at=[IN_WINDOW])
    stale = account_with("stale", landed_at=[OUTSIDE_WINDOW], vanished_at=[])
    staff = User.objects.create_user(username="operator", password="x", is_staff=True)
    owner = factories.member_create(account=busy, username="owner")

    with time_machine.travel(T0, tick=False):
        # when: every reader of the number reads it
        operator = Client()
        operator.force_login(staff)
        # The console's fleet: each account's landed count in the last 24 h, all platforms.
        console = {row.account: row.landed_24h for row in operator.get("/ops/").context["fleet"]}
        customer = Client()
        customer.force_login(owner)
        history = customer.get(f"/a/{busy.slug}/history/").context["landed"]
        watchdog_landed()
        daily_metrics_rollup()

    # then: the 24 h views count the landed and the vanished post, not the old one
    window = {a: Publication.objects.filter(account=a).landed(start=T0 - timedelta(hours=24)).count() for a in console}
    assert {a.slug: n for a, n in window.items()} == {"busy": 2, "vanished-only": 1, "stale": 0}
    assert {a.slug: n for a, n in console.items()} == {"busy": 2, "vanished-only": 1, "stale": 0}
    assert DailyMetric.objects.get(account=busy, day=T0.date()).landed == 2
    # the watchdog alarms exactly where the console shows nothing landed
    alarmed = set(Alarm.objects.filter(kind=Kind.NOTHING_LANDED).values_list("account__slug", flat=True))
    assert alarmed == {a.slug for a, n in console.items() if n == 0} == {stale.slug}
    # the all-time views (History, manage.py pipeline's funnel) count all three of busy's
    assert history == 3
    assert pipeline.account_funnel is account_funnel
    assert account_funnel(account=busy)["landed"] == 3
    assert account_funnel(account=vanished_only)["landed"] == 2
    # the funnel has one set of keys, wherever it is read
    assert set(account_funnel(account=busy)) == FUNNEL_KEYS
    # and the console's 30-day chart draws stages of that same funnel, from its daily rollups
    assert set(FUNNEL_STAGES) <= FUNNEL_KEYS
