"""The channels page: status for the customer, connect and reconnect buttons, tenancy."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import Account, Platform, Role
from publish.crypto import token_encrypt
from publish.models import Channel, ConnectEvent, OAuthClaim
from tests import factories

pytestmark = pytest.mark.django_db

PAGE_TOKEN = "EAAB-page-token-for-the-channels-page"


def _channel(account: Account, **fields: object) -> Channel:
    fields.setdefault("platform", Platform.FACEBOOK_PAGE)
    fields.setdefault("external_id", "1001")
    fields.setdefault("name", "Harbour Bikes")
    return Channel.objects.create(account=account, token_ciphertext=token_encrypt(PAGE_TOKEN), **fields)


def _csrf(client: Client, url: str) -> str:
    client.get(url)
    return client.cookies["csrftoken"].value


def test_the_page_lists_channels_with_status_and_a_reconnect_button(account, member_client: Client) -> None:
    _channel(account)
    _channel(
        account,
        platform=Platform.INSTAGRAM,
        external_id="1784",
        name="harbourbikes",
        status=Channel.Status.NEEDS_RECONNECT,
        status_reason="Your Facebook password changed. Reconnect to keep publishing.",
    )

    response = member_client.get("/a/harbour-bikes/channels/")

    body = response.content.decode()
    assert response.status_code == 200
    assert "Harbour Bikes" in body
    assert "harbourbikes" in body
    assert "Needs reconnect" in body
    assert "Your Facebook password changed" in body
    assert "Reconnect</button>" in body
    assert "Connect Facebook &amp; Instagram" in body
    assert PAGE_TOKEN not in body


def test_connecting_mints_a_claim_and_redirects_to_the_dialog_with_it(account, member, member_client: Client) -> None:
    url = "/a/harbour-bikes/channels/"
    token = _csrf(member_client, url)

    response = member_client.post(f"{url}connect/", {"csrfmiddlewaretoken": token})

    assert response.status_code == 302
    location = urlsplit(response["Location"])
    assert f"{location.scheme}://{location.netloc}" == settings.GRAPH_DIALOG_BASE_URL
    assert location.path == f"/{settings.GRAPH_API_VERSION}/dialog/oauth"
    query = parse_qs(location.query)
    claim = OAuthClaim.objects.get()
    assert query["state"] == [claim.state]
    assert query["client_id"] == [settings.FACEBOOK_APP_ID]
    assert query["redirect_uri"] == ["http://testserver/connect/callback/"]
    assert "pages_manage_posts" in query["scope"][0]
    assert "auth_type" not in query
    assert settings.FACEBOOK_APP_SECRET not in response["Location"]
    assert (claim.account, claim.user) == (account, member)
    assert ConnectEvent.objects.filter(kind=ConnectEvent.Kind.STARTED, account=account).count() == 1


def test_reconnect_asks_again_for_declined_permissions(account, member_client: Client) -> None:
    url = "/a/harbour-bikes/channels/"
    token = _csrf(member_client, url)

    response = member_client.post(f"{url}connect/", {"csrfmiddlewaretoken": token, "rerequest": "1"})

    assert parse_qs(urlsplit(response["Location"]).query)["auth_type"] == ["rerequest"]


def test_connecting_without_the_csrf_token_is_refused(account, member_client: Client) -> None:
    response = member_client.post("/a/harbour-bikes/channels/connect/")

    assert response.status_code == 403
    assert not OAuthClaim.objects.exists()


@pytest.mark.parametrize("role", [Role.VIEWER, Role.EDITOR])
def test_a_viewer_or_editor_sees_channels_but_cannot_connect(account, role: Role) -> None:
    # A channel posts in the business's name: connecting is the owner's (Role.may_change_settings).
    viewer = factories.member_create(account=account, username="viewer", role=role)
    client = Client(enforce_csrf_checks=True)
    client.force_login(viewer)
    url = "/a/harbour-bikes/channels/"

    page = client.get(url)
    response = client.post(f"{url}connect/", {"csrfmiddlewaretoken": client.cookies["csrftoken"].value})

    assert page.status_code == 200
    assert "Connect Facebook" not in page.content.decode()
    assert response.status_code == 403
    assert not OAuthClaim.objects.exists()


def test_another_accounts_member_can_neither_see_nor_connect_the_channels(account, other_member) -> None:
    _channel(account)
    client = Client(enforce_csrf_checks=True)
    client.force_login(other_member)
    # A CSRF cookie from a page this user may see, so that only tenancy can refuse the POST.
    token = _csrf(client, "/a/other-co/channels/")

    page = client.get("/a/harbour-bikes/channels/")
    connect = client.post("/a/harbour-bikes/channels/connect/", {"csrfmiddlewaretoken": token})

    assert page.status_code == 404
    assert "Harbour Bikes" not in page.content.decode()
    assert connect.status_code == 404
    assert not OAuthClaim.objects.filter(account=account).exists()


def test_a_signed_out_visitor_is_sent_to_log_in(account) -> None:
    response = Client().get("/a/harbour-bikes/channels/")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
