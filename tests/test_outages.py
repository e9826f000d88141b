"""A person or a scheduler never sees a 500 for something that worked or can be retried:
the broker down while approving, the database down under a cron route."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.test import Client

from accounts.models import Platform
from posting.models import Draft
from publish.crypto import token_encrypt
from publish.models import Channel, Publication
from publish.services import publications_publish_due
from tests import factories

ROOT = Path(__file__).resolve().parent.parent


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _csrf_post(client: Client, url: str):
    client.get("/login/")
    return client.post(url, {}, HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)


@pytest.mark.django_db(transaction=True)
def test_approving_while_the_broker_is_down_is_committed_and_answered_as_queued(
    account, member_client: Client, broker_unreachable: None, monkeypatch: pytest.MonkeyPatch, caplog
) -> None:
    Channel.objects.create(
        account=account,
        platform=Platform.FACEBOOK_PAGE,
        external_id="1001",
        name="Harbour Bikes",
        token_ciphertext=token_encrypt("EAAB-page-token"),
    )
    draft = factories.draft_create(account=account)

    # when the customer approves while Redis is down
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/approve/")

    # then the page answers normally and says plainly that it is queued
    assert response.status_code == 302
    page = member_client.get(response["Location"]).content.decode()
    assert "Approved and queued; it will go out when the queue is back." in page
    draft.refresh_from_db()
    assert draft.status == Draft.Status.APPROVED
    publication = Publication.objects.get(draft=draft)
    assert publication.status == Publication.Status.SCHEDULED
    assert f"publication {publication.pk} not enqueued" in caplog.text

    # and when the queue is back, the publish sweep sends it
    monkeypatch.undo()
    queue = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    queue.delete("celery")
    assert publications_publish_due()["enqueued"] == 1
    assert queue.llen("celery") == 1
    queue.delete("celery")
    queue.close()


def test_a_cron_route_answers_503_with_retry_after_when_the_database_is_down() -> None:
    # A real process whose database is a closed port: PostgreSQL stopped.
    probe = (
        "import os, django; django.setup(); from django.test import Client; "
        "r = Client().post('/cron/publish_due/', HTTP_AUTHORIZATION='Bearer ' + os.environ['CRON_SECRET']); "
        "print(r.status_code, r.get('Retry-After'), r.content.decode())"
    )
    env = os.environ | {"DATABASE_URL": f"postgres://postgres@127.0.0.1:{_closed_port()}/landed"}
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    status, retry_after, body = result.stdout.strip().split(" ", 2)
    assert (status, retry_after) == ("503", "30")
    assert body == '{"error": "database unavailable, retry later"}'
