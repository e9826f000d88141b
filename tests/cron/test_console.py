"""Issue 12 item 1: the fleet at a glance on /ops/, with per-account 30-day funnels from the
daily rollups and service-wide charts, server-rendered SVG, in a fixed number of queries."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from accounts.models import Account, Platform
from cron.models import DailyMetric, JobRun
from cron.services import alarm_open
from posting.models import Draft, LLMUsage
from publish.models import Channel
from research.models import ResearchRun
from tests import factories
from tests.cron.rows import channel_create, draft_create, publication_create

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
PASSWORD = "correct horse battery staple"


@pytest.fixture(autouse=True)
def no_channels(settings) -> None:
    settings.OPERATOR_EMAILS = []
    settings.ALARM_WEBHOOK_URL = ""


@pytest.fixture
def operator_client() -> Client:
    User.objects.create_user(username="operator", password=PASSWORD, is_staff=True)
    client = Client()
    # Through the login form: django-axes authenticates with the request.
    assert client.post("/login/", {"username": "operator", "password": PASSWORD}).status_code == 302
    return client


def busy_account(n: int) -> Account:
    """An account with a row in every table the console reads."""
    account = factories.account_create(name=f"Shop {n:02d}", slug=f"shop-{n:02d}")
    Account.objects.filter(pk=account.pk).update(created_at=NOW - timedelta(days=40))
    facebook = channel_create(account=account, platform=Platform.FACEBOOK_PAGE)
    channel_create(account=account, platform=Platform.INSTAGRAM)
    publication_create(account=account, channel=facebook, landed_at=NOW - timedelta(hours=2))
    waiting = draft_create(account=account, status=Draft.Status.GATED, gate_verdict=Draft.Verdict.PASSED)
    Draft.objects.filter(pk=waiting.pk).update(gated_at=NOW - timedelta(hours=1))
    ResearchRun.objects.create(account=account, finished_at=NOW - timedelta(hours=1), usable_articles=3)
    for back in range(3):
        DailyMetric.objects.create(account=account, day=(NOW - timedelta(days=back)).date(), articles=5, landed=1)
    return account


def get_ops(client: Client) -> tuple[int, str, int]:
    with time_machine.travel(NOW, tick=False), CaptureQueriesContext(connection) as queries:
        response = client.get("/ops/")
    return response.status_code, response.content.decode(), len(queries)


def test_the_console_costs_the_same_number_of_queries_for_5_and_50_accounts(operator_client: Client) -> None:
    for n in range(5):
        busy_account(n)
    get_ops(operator_client)  # the operator's user is then read from the cache in both (accounts/principal.py)
    status, page, with_five = get_ops(operator_client)
    assert status == 200 and page.count('class="funnel"') == 5

    for n in range(5, 50):
        busy_account(n)
    status, page, with_fifty = get_ops(operator_client)
    assert status == 200 and page.count('class="funnel"') == 50

    assert with_fifty == with_five, (with_five, with_fifty)


def test_each_account_has_one_row_with_its_numbers_and_those_needing_attention_come_first(
    operator_client: Client,
) -> None:
    calm = busy_account(1)
    troubled = busy_account(2)
    Channel.objects.filter(account=troubled, platform=Platform.INSTAGRAM).update(status=Channel.Status.NEEDS_RECONNECT)
    with time_machine.travel(NOW, tick=False):
        alarm_open(kind="nothing_landed_on_platform", account=troubled, subject="instagram", details={})
    Account.objects.filter(pk=troubled.pk).update(paused=True)

    with time_machine.travel(NOW, tick=False):
        response = operator_client.get("/ops/")

    rows = response.context["fleet"]
    assert [row.account.pk for row in rows] == [troubled.pk, calm.pk]
    first = rows[0]
    assert first.attention[:2] == ["1 open alarm", "a channel needs reconnecting"]
    assert first.landed["facebook_page"].day == 1 and first.landed["facebook_page"].month == 1
    assert (first.drafts_waiting, first.usable_last_run, first.open_alarms) == (1, 3, 1)
    assert first.pass_rate == 1.0
    assert len(first.funnel) == 30 and first.funnel[-1]["articles"] == 5 and first.funnel[0]["articles"] == 0
    page = response.content.decode()
    assert "paused" in page and "FB 1/1/1" in page and "a channel needs reconnecting" in page
    assert page.index("shop-02") < page.index("shop-01")


def test_the_charts_are_inline_svg_drawn_from_the_rollups_with_nothing_loaded_from_elsewhere(
    operator_client: Client,
) -> None:
    busy_account(1)
    with time_machine.travel(NOW - timedelta(days=1), tick=False):
        JobRun.objects.create(job="publish_due", slot=NOW - timedelta(days=1), outcome="ok", finished_at=NOW)
        LLMUsage.objects.create(model="m", purpose="gate", status=LLMUsage.Status.RATE_LIMITED, throttled_responses=4)

    status, page, _ = get_ops(operator_client)

    assert status == 200
    # the account's funnel (one line per stage) and three service-wide charts
    assert page.count('<svg class="chart"') == 4
    assert "<title>researched: 15</title>" in page and "<title>landed: 3</title>" in page
    assert "Landed per day" in page and "Job runs per day" in page and "LLM calls and 429s per day" in page
    assert "429s 4" in page
    assert "<script" not in page and "cdn" not in page.lower()
    assert 'src="http' not in page and 'href="http' not in page


def test_an_account_name_in_a_chart_title_is_escaped(operator_client: Client) -> None:
    account = busy_account(1)
    Account.objects.filter(pk=account.pk).update(name="<b>Bold & Co</b>")
    _, page, _ = get_ops(operator_client)
    assert "<b>Bold" not in page and "&lt;b&gt;Bold &amp; Co&lt;/b&gt;" in page
