"""Viewer checks for every state-changing URL issue 11 added: a viewer reads the account's
pages and changes nothing (403), whatever the URL. The tenancy matrix (tests/test_tenancy.py)
walks the resolver and covers the same URLs for members of other accounts."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import Account, Role
from posting.models import Draft
from publish.models import Publication
from tests import factories
from tests.reconcile import fixtures
from tests.reconcile.fixtures import SandboxPage, publication_make

graph_sandbox = fixtures.graph_sandbox
sandbox_page = fixtures.sandbox_page

pytestmark = pytest.mark.django_db

# Every POST issue 11 added, with the {pub}, {draft} or {chan} (channel) it acts on.
WRITES = [
    "queue/times/",
    "queue/{pub}/move/",
    "queue/{pub}/post-now/",
    "queue/{pub}/back-to-drafts/",
    "drafts/bulk/",
    "drafts/undo/",
    "history/{pub}/retry/",
    "settings/",
    "channels/{chan}/disconnect/",
]
READS = ["queue/", "history/", "drafts/"]


@pytest.fixture
def viewer_client(account: Account) -> Client:
    viewer = factories.member_create(account=account, username="viewer", role=Role.VIEWER)
    client = Client(enforce_csrf_checks=True)
    client.force_login(viewer)
    return client


@pytest.mark.parametrize("route", WRITES)
def test_a_viewer_changes_nothing(route: str, sandbox_page: SandboxPage, account: Account, viewer_client) -> None:
    publication = publication_make(channel=sandbox_page.facebook)
    Publication.objects.filter(pk=publication.pk).update(status="failed", failure_kind="never_seen")
    before = list(Publication.objects.values_list("status", "scheduled_for", "slot_at"))
    drafts_before = list(Draft.objects.values_list("status", flat=True))
    viewer_client.get("/login/")
    data = {
        "decision": "reject",
        "action": "approve",
        "draft": [str(publication.draft_id), f"{publication.draft_id}:"],
        "platform": "facebook_page",
        "weekdays": ["0"],
        "times": "09:00",
        "timezone": "Asia/Tokyo",
    }
    url = f"/a/{account.slug}/" + route.format(
        pub=publication.pk, draft=publication.draft_id, chan=sandbox_page.facebook.pk
    )

    response = viewer_client.post(url, data, HTTP_X_CSRFTOKEN=viewer_client.cookies["csrftoken"].value)

    assert response.status_code == 403, url
    assert list(Publication.objects.values_list("status", "scheduled_for", "slot_at")) == before
    assert list(Draft.objects.values_list("status", flat=True)) == drafts_before
    account.refresh_from_db()
    assert account.timezone == "UTC"
    sandbox_page.facebook.refresh_from_db()
    assert sandbox_page.facebook.status == "connected" and sandbox_page.facebook.token_ciphertext


@pytest.mark.parametrize("route", READS)
def test_a_viewer_reads_without_the_buttons(route: str, account: Account, viewer_client) -> None:
    factories.draft_create(account=account)
    page = viewer_client.get(f"/a/{account.slug}/{route}").content.decode()
    for control in ("Post now", "Approve selected", "Send it again", "Save Facebook Page times", ">Undo<"):
        assert control not in page
