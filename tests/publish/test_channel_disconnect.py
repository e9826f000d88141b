"""Disconnecting a channel (issue 11, item 6): the owner's alone, with a confirm step and
CSRF; our token revoked at the platform (the Graph sandbox over HTTP) and deleted here;
queued posts back to Drafts; every publication and its history kept; reconnect works."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import requests
import time_machine
from django.test import Client
from django.utils import timezone

from accounts.models import Account, Platform, Role
from devkit.sandbox import GraphSandbox
from posting.models import Draft
from publish.crypto import token_decrypt
from publish.models import Channel, ChannelDisconnect, Publication
from reconcile.services import engagement_fetch, landed_recheck
from tests import factories

# The sandbox fixtures of the connect flow's tests, shared rather than copied.
from tests.publish.test_oauth_flow import CHANNELS, connect_start, consent, fb_page, fb_user, pick, sandbox  # noqa: F401
from tests.test_security_headers import inline_code

pytestmark = pytest.mark.django_db


def connect(client: Client, page_id: str) -> None:
    callback = client.get(consent(connect_start(client)))
    assert pick(client, callback["Location"], [page_id]).status_code == 302


def queued_publication(account: Account, channel: Channel, n: int) -> Publication:
    draft = factories.draft_create(account=account, article=factories.article_create(url=f"https://news.example/q{n}"))
    Draft.objects.filter(pk=draft.pk).update(status=Draft.Status.APPROVED, decided_at=timezone.now())
    at = (timezone.now() + timedelta(days=1, hours=n)).replace(second=0, microsecond=0)
    return Publication.objects.create(
        account=account, draft=draft, channel=channel, message=draft.text, scheduled_for=at, slot_at=at
    )


def landed_publication(account: Account, channel: Channel) -> Publication:
    draft = factories.draft_create(account=account, article=factories.article_create(url="https://news.example/landed"))
    return Publication.objects.create(
        account=account,
        draft=draft,
        channel=channel,
        message=draft.text,
        scheduled_for=timezone.now(),
        status=Publication.Status.LANDED,
        permalink="https://facebook.example/posts/1",
        platform_post_id="1_1",
        landed_at=timezone.now(),
    )


def page_token_works(sandbox: GraphSandbox, token: str) -> bool:  # noqa: F811
    answer = requests.get(f"{sandbox.base_url}/v26.0/me", headers={"Authorization": f"Bearer {token}"}, timeout=5)
    return answer.status_code == 200


def csrf_post(client: Client, url: str) -> Any:
    client.get(CHANNELS)
    return client.post(url, {"csrfmiddlewaretoken": client.cookies["csrftoken"].value})


def test_the_owner_confirms_then_disconnects_revoking_the_token_and_keeping_history_and_reconnects(
    account: Account,
    member_client: Client,
    sandbox: GraphSandbox,  # noqa: F811
    fb_page: dict[str, Any],  # noqa: F811
) -> None:
    connect(member_client, fb_page["id"])
    facebook = Channel.objects.get(account=account, platform=Platform.FACEBOOK_PAGE)
    instagram = Channel.objects.get(account=account, platform=Platform.INSTAGRAM)
    token = token_decrypt(facebook.token_ciphertext)
    queued = [queued_publication(account, facebook, n) for n in (1, 2)]
    landed = landed_publication(account, facebook)
    url = f"/a/{account.slug}/channels/{facebook.pk}/disconnect/"

    # The Channels page offers it; GET is only the confirm page, and changes nothing.
    assert url in member_client.get(CHANNELS).content.decode()
    confirm = member_client.get(url)
    page = confirm.content.decode()
    assert confirm.status_code == 200
    assert "2 queued posts go back to Drafts" in page
    assert "Content-Security-Policy" in confirm and inline_code(page) == []
    assert "harbourbikes" in page and "disconnected too" in page  # the Instagram account shares the token
    assert Channel.objects.get(pk=facebook.pk).status == Channel.Status.CONNECTED
    assert page_token_works(sandbox, token)

    # Without the CSRF token the POST is refused.
    assert member_client.post(url).status_code == 403
    assert Channel.objects.get(pk=facebook.pk).status == Channel.Status.CONNECTED

    done = csrf_post(member_client, url)

    assert done.status_code == 302 and done["Location"] == CHANNELS
    assert not page_token_works(sandbox, token)  # revoked at the platform
    revokes = [r for r in sandbox.requests_log() if r["method"] == "DELETE" and r["path"].endswith("/me/permissions")]
    assert len(revokes) == 1 and not revokes[0]["token_in_query"]
    for channel in (facebook, instagram):
        channel.refresh_from_db()
        assert channel.status == Channel.Status.DISCONNECTED
        assert channel.token_ciphertext == ""
    for publication in queued:
        publication.refresh_from_db()
        assert (publication.status, publication.slot_at) == (Publication.Status.WITHDRAWN, None)
        assert Draft.objects.get(pk=publication.draft_id).status == Draft.Status.GATED
    landed.refresh_from_db()
    assert (landed.status, landed.permalink) == (Publication.Status.LANDED, "https://facebook.example/posts/1")
    audit = ChannelDisconnect.objects.get(channel=facebook)
    assert (audit.username, audit.revoked, audit.withdrawn) == ("owner", True, 2)
    assert ChannelDisconnect.objects.filter(channel=instagram).exists()
    channels_page = member_client.get(CHANNELS).content.decode()
    assert "Disconnected" in channels_page and "2 queued posts went back to Drafts" in channels_page
    assert token not in channels_page
    assert "https://facebook.example/posts/1" in member_client.get(f"/a/{account.slug}/history/").content.decode()

    # A second disconnect changes nothing and says so.
    again = csrf_post(member_client, url)
    assert again.status_code == 302
    assert ChannelDisconnect.objects.filter(channel=facebook).count() == 1

    # Reconnect: the same channels, connected again with a fresh, working token.
    connect(member_client, fb_page["id"])
    facebook.refresh_from_db()
    assert facebook.status == Channel.Status.CONNECTED
    assert page_token_works(sandbox, token_decrypt(facebook.token_ciphertext))
    assert Channel.objects.filter(account=account).count() == 2


@pytest.mark.parametrize("role", [Role.EDITOR, Role.VIEWER])
def test_only_the_owner_may_disconnect(
    role: str,
    account: Account,
    member_client: Client,
    sandbox: GraphSandbox,  # noqa: F811
    fb_page: dict[str, Any],  # noqa: F811
) -> None:
    connect(member_client, fb_page["id"])
    facebook = Channel.objects.get(account=account, platform=Platform.FACEBOOK_PAGE)
    client = Client(enforce_csrf_checks=True)
    client.force_login(factories.member_create(account=account, username=f"a-{role}", role=role))
    url = f"/a/{account.slug}/channels/{facebook.pk}/disconnect/"

    assert url not in client.get(CHANNELS).content.decode()
    assert client.get(url).status_code == 403
    assert csrf_post(client, url).status_code == 403

    facebook.refresh_from_db()
    assert facebook.status == Channel.Status.CONNECTED and facebook.token_ciphertext
    assert not [r for r in sandbox.requests_log() if r["method"] == "DELETE"]


def test_a_platform_that_does_not_answer_changes_nothing(
    account: Account,
    member_client: Client,
    sandbox: GraphSandbox,  # noqa: F811
    fb_page: dict[str, Any],  # noqa: F811
    settings,
) -> None:
    connect(member_client, fb_page["id"])
    facebook = Channel.objects.get(account=account, platform=Platform.FACEBOOK_PAGE)
    queued = queued_publication(account, facebook, 1)
    sandbox.inject(method="DELETE", path_regex=r"/me/permissions", kind="html_502", times=1)

    done = csrf_post(member_client, f"/a/{account.slug}/channels/{facebook.pk}/disconnect/")

    assert done.status_code == 302
    facebook.refresh_from_db()
    assert facebook.status == Channel.Status.CONNECTED and facebook.token_ciphertext
    assert Publication.objects.get(pk=queued.pk).status == Publication.Status.SCHEDULED
    assert not ChannelDisconnect.objects.exists()
    assert "Facebook did not answer, so nothing was changed" in member_client.get(CHANNELS).content.decode()


def test_a_channel_whose_token_is_already_dead_is_still_disconnected(
    account: Account,
    member_client: Client,
    sandbox: GraphSandbox,  # noqa: F811
    fb_page: dict[str, Any],  # noqa: F811
) -> None:
    connect(member_client, fb_page["id"])
    facebook = Channel.objects.get(account=account, platform=Platform.FACEBOOK_PAGE)
    sandbox.invalidate_token(token_decrypt(facebook.token_ciphertext))

    csrf_post(member_client, f"/a/{account.slug}/channels/{facebook.pk}/disconnect/")

    facebook.refresh_from_db()
    assert facebook.status == Channel.Status.DISCONNECTED and facebook.token_ciphertext == ""
    audit = ChannelDisconnect.objects.get(channel=facebook)
    assert audit.revoked and "already stopped working" in audit.revoke_detail


def test_reading_back_leaves_a_disconnected_channels_landed_posts_as_they_were(
    account: Account,
    member_client: Client,
    sandbox: GraphSandbox,  # noqa: F811
    fb_page: dict[str, Any],  # noqa: F811
) -> None:
    connect(member_client, fb_page["id"])
    facebook = Channel.objects.get(account=account, platform=Platform.FACEBOOK_PAGE)
    landed = landed_publication(account, facebook)
    csrf_post(member_client, f"/a/{account.slug}/channels/{facebook.pk}/disconnect/")

    # A day later the recheck and the engagement sweep come by: with no token there is
    # nothing to read, so the post is neither called vanished nor retried every hour.
    with time_machine.travel(timezone.now() + timedelta(days=2)):
        assert landed_recheck()["checked"] == 0
        assert engagement_fetch()["errors"] == 0

    landed.refresh_from_db()
    assert landed.status == Publication.Status.LANDED


def test_the_operator_reads_the_disconnect_trail_in_the_admin_and_cannot_edit_it(account: Account) -> None:
    from django.contrib.auth.models import User

    channel = Channel.objects.create(account=account, platform=Platform.FACEBOOK_PAGE, external_id="9", name="Page 9")
    row = ChannelDisconnect.objects.create(channel=channel, account=account, username="ann", revoked=True, withdrawn=3)
    client = Client()
    client.force_login(User.objects.create_superuser(username="op", password="x", email="op@landed.example"))

    listing = client.get("/admin/publish/channeldisconnect/")
    assert listing.status_code == 200 and "ann" in listing.content.decode()
    assert client.get("/admin/publish/channeldisconnect/add/").status_code == 403
    assert client.post(f"/admin/publish/channeldisconnect/{row.pk}/delete/", {"post": "yes"}).status_code == 403
    assert ChannelDisconnect.objects.filter(pk=row.pk).exists()
