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
def test_approving_and_posting_now_while_the_broker_is_down_are_committed_and_answered_as_queued(
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

    # when the customer approves while Redis is down: the post takes a slot in the database,
    # which needs no broker at all
    response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/approve/")
    assert response.status_code == 302
    assert "Approved: it goes out" in member_client.get(response["Location"]).content.decode()
    draft.refresh_from_db()
    assert draft.status == Draft.Status.APPROVED
    publication = Publication.objects.get(draft=draft)
    assert publication.slot_at is not None

    # and then asks for it to go out now, still with Redis down
    response = _csrf_post(member_client, f"/a/{account.slug}/queue/{publication.pk}/post-now/")

    # then the page answers normally and says plainly that it is queued
    assert response.status_code == 302
    page = member_client.get(response["Location"]).content.decode()
    assert "Posting now: it goes out as soon as our queue is back, within minutes." in page
    publication.refresh_from_db()
    assert publication.status == Publication.Status.SCHEDULED
    assert publication.slot_at is None
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


@pytest.mark.django_db(transaction=True)
def test_signing_in_reading_and_approving_work_while_the_cache_is_unreachable(
    account, member, member_client: Client, caplog
) -> None:
    # Given the cache's Redis unreachable (a closed port: the server is down), with the page
    # and user caches on (they are whenever REDIS_URL is set); the broker stays up here
    from django.test import override_settings

    from accounts.models import Membership
    from accounts.services import member_remove

    channel = Channel.objects.create(
        account=account,
        platform=Platform.FACEBOOK_PAGE,
        external_id="1002",
        name="Harbour Bikes",
        token_ciphertext=token_encrypt("EAAB-page-token"),
    )
    assert channel.pk
    draft = factories.draft_create(account=account)
    colleague = factories.member_create(account=account, username="colleague", role="editor")
    membership = Membership.objects.get(user=colleague, account=account)
    down = {
        "default": {
            "BACKEND": "config.cache.ReusedClientRedisCache",
            "LOCATION": f"redis://127.0.0.1:{_closed_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    with override_settings(CACHES=down, VERSIONED_CACHES=True):
        # when a signed-in customer reads every page: the session and the user come from the
        # database, the pages are rendered
        for page in ("drafts", "queue", "history"):
            assert member_client.get(f"/a/{account.slug}/{page}/").status_code == 200
        # and approves: committed, and the queue shows it at once
        response = _csrf_post(member_client, f"/a/{account.slug}/drafts/{draft.pk}/approve/")
        assert response.status_code == 302
        publication = Publication.objects.get(draft=draft)
        assert f'id="queued-{publication.pk}"' in member_client.get(f"/a/{account.slug}/queue/").content.decode()

        # and someone signs in afresh
        fresh = Client()
        response = fresh.post("/login/", {"username": "owner", "password": "correct horse battery staple"})
        assert response.status_code == 302
        assert fresh.get(f"/a/{account.slug}/drafts/").status_code == 200

        # but a change of membership is refused while cached access cannot follow it (a removed
        # member would keep a cached entry when the cache came back): nothing is committed
        with pytest.raises(RuntimeError):
            member_remove(account=account, membership_id=membership.pk)
        assert Membership.objects.filter(pk=membership.pk).exists()

    assert "cache unreachable" in caplog.text
