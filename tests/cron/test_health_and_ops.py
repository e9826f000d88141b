"""/healthz, /readyz and the operator page."""

from __future__ import annotations

import socket
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.utils import timezone

from accounts.models import Account
from cron.services import alarm_open
from posting.models import LLMUsage
from publish.models import ConnectEvent
from tests.cron.rows import publication_create


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_healthz_answers_without_any_secret() -> None:
    response = Client().get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_favicon_ico_leads_to_the_icon_the_pages_name() -> None:
    """Not a 404 (a warning in the operator's log on every visit from a browser that asks)."""
    response = Client().get("/favicon.ico")

    assert response.status_code == 301 and response["Location"].endswith("landed/icon.svg")


@pytest.mark.django_db
def test_readyz_is_ready_when_database_and_broker_answer() -> None:
    response = Client().get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "broker": "ok"}}


@pytest.mark.django_db
def test_readyz_fails_when_the_broker_is_unreachable_and_reveals_no_configuration() -> None:
    port = closed_port()
    with override_settings(CELERY_BROKER_URL=f"redis://:hunter2@127.0.0.1:{port}/3"):
        response = Client().get("/readyz")

    assert response.status_code == 503
    assert response.json() == {"status": "unavailable", "checks": {"database": "ok", "broker": "down"}}
    body = response.content.decode()
    for revealing in ("127.0.0.1", str(port), "redis", "hunter2", "postgres", "Error"):
        assert revealing not in body


@pytest.mark.django_db
def test_the_operator_page_is_for_staff_only(member_client: Client) -> None:
    assert Client().get("/ops/").status_code == 302
    assert member_client.get("/ops/").status_code == 403


@pytest.mark.django_db
def test_the_operator_page_lists_open_alarms_jobs_and_each_accounts_row(account: Account, settings) -> None:
    settings.OPERATOR_EMAILS = []
    settings.ALARM_WEBHOOK_URL = ""
    staff = User.objects.create_user(username="operator", password="x", is_staff=True)
    client = Client()
    client.force_login(staff)
    alarm_open(kind="nothing_landed", account=account, details={"landed": 0})
    publication_create(account=account, landed_at=timezone.now() - timedelta(hours=1))
    publication_create(account=account, landed_at=timezone.now() - timedelta(hours=30))
    ConnectEvent.objects.create(platform="instagram", account=account, kind=ConnectEvent.Kind.STARTED)
    LLMUsage.objects.create(
        model="gpt-4o-mini",
        purpose="compose",
        status=LLMUsage.Status.RATE_LIMITED,
        throttled_responses=3,
        key_fingerprint="sha256:abcd1234",
        organization="org-landed",
    )
    for _ in range(2):
        LLMUsage.objects.create(
            model="gpt-4o-mini",
            purpose="relevance",
            status=LLMUsage.Status.OK,
            key_fingerprint="sha256:abcd1234",
            organization="org-landed",
        )

    response = client.get("/ops/")

    assert response.status_code == 200
    page = response.content.decode()
    assert "nothing_landed" in page
    assert "publish_due" in page and "watchdog_jobs" in page
    # The fleet row reads landed from the one definition: 1 in 24 h, 2 in 7 days.
    (row,) = response.context["fleet"]
    assert row.account == account
    assert (row.landed["facebook_page"].day, row.landed["facebook_page"].week) == (1, 2)
    assert dict(response.context["connect_funnel"])["instagram"]["started"] == 1
    assert response.context["llm"]["throttled"] == 3
    # What the calls were for, so a bill or a throttle can be traced to drafting or relevance.
    assert response.context["llm"]["by_purpose"] == {"compose": 1, "relevance": 2}
    assert "For: compose 1, relevance 2" in page
    assert "sha256:abcd1234" in page and "org-landed" in page
    # The title is the title, and every section is in the page body, not inside <title>.
    assert "<title>Operator · Landed</title>" in page
    body = page.split("<body", 1)[1]
    assert "Connect funnel, last 24 h" in body and "Language model, last 24 h" in body


@pytest.mark.django_db
@pytest.mark.parametrize(
    "model", ["jobrun", "alarm", "alarmnotification", "morningdigest", "publicationnote", "dailymetric"]
)
def test_the_admin_lists_cron_records_read_only(model: str, account: Account, settings) -> None:
    settings.OPERATOR_EMAILS = []
    alarm_open(kind="nothing_landed", account=account, details={"landed": 0})
    admin_user = User.objects.create_superuser(username="admin", password="x", email="admin@landed.example")
    client = Client()
    client.force_login(admin_user)

    assert client.get(f"/admin/cron/{model}/").status_code == 200
    assert client.get(f"/admin/cron/{model}/add/").status_code == 403
