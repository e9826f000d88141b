"""The connect flow end to end: our views, the real Graph sandbox over HTTP, real PostgreSQL."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import time_machine
from django.db import connection
from django.test import Client
from django.utils import timezone

from accounts.models import Account, Membership, Platform
from devkit.sandbox import GraphSandbox
from publish.crypto import token_decrypt
from publish.models import Channel, ConnectEvent, ConnectGrant, OAuthClaim
from publish.oauth import graph_auth, services

CHANNELS = "/a/harbour-bikes/channels/"


@pytest.fixture
def sandbox(settings) -> Iterator[GraphSandbox]:
    sb = GraphSandbox()
    sb.start()
    settings.GRAPH_API_BASE_URL = sb.base_url
    settings.GRAPH_DIALOG_BASE_URL = sb.base_url
    sb.set_consent(mode="grant")
    yield sb
    sb.close()


@pytest.fixture
def fb_user(sandbox: GraphSandbox) -> dict[str, Any]:
    return sandbox.create_user(name="Ann Harbour")


@pytest.fixture
def fb_page(sandbox: GraphSandbox, fb_user: dict[str, Any]) -> dict[str, Any]:
    return sandbox.create_page(fb_user["id"], name="Harbour Bikes", ig_username="harbourbikes")


def connect_start(client: Client, *, rerequest: bool = False) -> str:
    """Press "Connect Facebook & Instagram"; the dialog URL the browser is sent to."""
    client.get(CHANNELS)
    data = {"csrfmiddlewaretoken": client.cookies["csrftoken"].value}
    if rerequest:
        data["rerequest"] = "1"
    response = client.post(f"{CHANNELS}connect/", data)
    assert response.status_code == 302
    return response["Location"]


def consent(dialog_url: str) -> str:
    """The browser at Facebook: the sandbox decides and redirects; our callback path and query."""
    response = requests.get(dialog_url, allow_redirects=False, timeout=5)
    assert response.status_code == 302, response.text
    location = urlsplit(response.headers["Location"])
    assert f"{location.scheme}://{location.netloc}" == "http://testserver"
    return f"{location.path}?{location.query}"


def pick(client: Client, pick_url: str, page_ids: list[str]) -> Any:
    client.get(pick_url)
    return client.post(pick_url, {"csrfmiddlewaretoken": client.cookies["csrftoken"].value, "page": page_ids})


def code_exchanges(sandbox: GraphSandbox) -> list[dict[str, Any]]:
    return [
        row
        for row in sandbox.requests_log()
        if row["path"].endswith("/oauth/access_token") and "code" in {**row["query"], **(row["body"] or {})}
    ]


def token_exchanges(sandbox: GraphSandbox) -> list[dict[str, Any]]:
    return [row for row in sandbox.requests_log() if row["path"].endswith("/oauth/access_token")]


def run_every_periodic_job() -> list[str]:
    """Every job in the cron registry, each one's service called as its route would call it.

    No job is skipped: a service that cannot be imported fails the test rather than
    quietly leaving a job that might touch the claim out of it.
    """
    from cron.jobs import JOBS

    ran = []
    for job in JOBS:
        job.service_function()()
        ran.append(job.name)
    return ran


@pytest.mark.django_db
def test_connecting_and_checking_tokens_work_when_the_app_requires_appsecret_proof(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    # The connect flow and the token check use the one Graph client, which signs every
    # token-bearing call ("Require App Secret" on the app).
    sandbox.set_appsecret_proof(required=True)

    callback = member_client.get(consent(connect_start(member_client)))
    done = pick(member_client, callback["Location"], [fb_page["id"]])

    assert done["Location"] == CHANNELS
    assert Channel.objects.filter(account=account, status=Channel.Status.CONNECTED).count() == 2
    assert services.channels_check_tokens()["valid"] == 2


@pytest.mark.django_db
def test_connecting_binds_the_page_and_its_instagram_account(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any], caplog
) -> None:
    caplog.set_level(logging.DEBUG)

    # when: the customer connects, consents and picks the page
    dialog = connect_start(member_client)
    callback = member_client.get(consent(dialog))
    assert callback.status_code == 302
    picker = member_client.get(callback["Location"])
    done = pick(member_client, callback["Location"], [fb_page["id"]])

    # then: both channels are bound with working, encrypted page tokens
    assert picker.status_code == 200
    assert "Harbour Bikes" in picker.content.decode()
    assert "@harbourbikes" in picker.content.decode()
    assert done.status_code == 302
    assert done["Location"] == CHANNELS
    facebook = Channel.objects.get(account=account, platform=Platform.FACEBOOK_PAGE)
    instagram = Channel.objects.get(account=account, platform=Platform.INSTAGRAM)
    assert (facebook.external_id, facebook.name, facebook.status) == (fb_page["id"], "Harbour Bikes", "connected")
    assert (instagram.external_id, instagram.name) == (fb_page["instagram_id"], "harbourbikes")
    page_token = token_decrypt(facebook.token_ciphertext)
    me = requests.get(
        f"{sandbox.base_url}/v26.0/me", headers={"Authorization": f"Bearer {page_token}"}, timeout=5
    ).json()
    assert me["id"] == fb_page["id"]
    assert page_token not in facebook.token_ciphertext
    # the grant that held the tokens between callback and pick is gone
    assert not ConnectGrant.objects.exists()
    assert OAuthClaim.objects.get().outcome == OAuthClaim.Outcome.BOUND
    funnel = services.connect_funnel(since=timezone.now() - timedelta(minutes=5))
    assert funnel[Platform.FACEBOOK_PAGE] | {"failed_by_reason": {}} == {
        "started": 1,
        "callbacks": 1,
        "bound": 1,
        "failed": 0,
        "failed_by_reason": {},
    }
    # and the Instagram account bound through the Page counts for Instagram too
    assert funnel[Platform.INSTAGRAM] == {
        "started": 1,
        "callbacks": 1,
        "bound": 1,
        "failed": 0,
        "failed_by_reason": {},
    }

    # and: no token of ours travelled in a URL, a page, a redirect or a log line
    channels_page = member_client.get(CHANNELS).content.decode()
    assert "Connected" in channels_page
    log = sandbox.requests_log()
    assert not any(row["token_in_query"] for row in log)
    assert not any(row["token_via"] in {"query", "body"} for row in log)
    for text in (dialog, callback["Location"], picker.content.decode(), channels_page, caplog.text):
        assert page_token not in text
        assert "EAAS" not in text  # the prefix of every token the sandbox issues, user tokens included
        assert "landed-sandbox-secret" not in text


@pytest.mark.django_db
def test_a_claim_survives_every_periodic_job_at_3_26_s_and_5_min(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    # given: the customer pressed Connect and sits on the consent screen
    start = timezone.now()
    dialog = connect_start(member_client)

    # when: every periodic job runs 3.26 s later and again 5 minutes later
    with time_machine.travel(start + timedelta(seconds=3.26), tick=False):
        ran = run_every_periodic_job()
        assert {"expire_oauth_claims", "check_tokens", "cleanup_old_records"} <= set(ran)
        assert OAuthClaim.objects.get().consumed_at is None
    with time_machine.travel(start + timedelta(minutes=5)):
        run_every_periodic_job()
        assert OAuthClaim.objects.get().consumed_at is None

        # then: the customer's consent still binds the channel
        callback = member_client.get(consent(dialog))
        assert callback.status_code == 302, callback.content.decode()
        assert pick(member_client, callback["Location"], [fb_page["id"]]).status_code == 302
    assert Channel.objects.filter(account=account, status=Channel.Status.CONNECTED).count() == 2


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_callbacks_with_one_state_bind_once_and_exchange_once(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    # given: one consented callback URL, delivered twice at the same moment (double click,
    # a browser retry) from the same browser session
    callback_url = consent(connect_start(member_client))
    twin = Client()
    twin.cookies = member_client.cookies
    barrier = threading.Barrier(2)
    responses: list[Any] = []

    def deliver(client: Client) -> None:
        try:
            barrier.wait(timeout=5)
            responses.append(client.get(callback_url))
        finally:
            connection.close()

    # when
    threads = [threading.Thread(target=deliver, args=(client,)) for client in (member_client, twin)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    # then: one wins the claim and exchanges the code once; the other waits for it and both
    # lead the browser to the same page choice
    assert [response.status_code for response in responses] == [302, 302]
    assert responses[0]["Location"] == responses[1]["Location"]
    assert len(code_exchanges(sandbox)) == 1
    assert len(token_exchanges(sandbox)) == 2  # the code, then the long-lived exchange
    assert pick(member_client, responses[0]["Location"], [fb_page["id"]]).status_code == 302
    assert Channel.objects.filter(account=account, platform=Platform.FACEBOOK_PAGE).count() == 1
    assert not ConnectEvent.objects.filter(kind=ConnectEvent.Kind.FAILED).exists()


@pytest.mark.django_db
def test_a_reloaded_callback_leads_to_the_same_page_choice_without_a_token_exchange(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    callback_url = consent(connect_start(member_client))
    first = member_client.get(callback_url)
    exchanges_before = len(token_exchanges(sandbox))

    # when the browser reloads the callback before picking
    reload = member_client.get(callback_url)

    # then it is at the same page choice, and Facebook was not asked again
    assert reload.status_code == 302
    assert reload["Location"] == first["Location"]
    assert len(token_exchanges(sandbox)) == exchanges_before


@pytest.mark.django_db
def test_a_callback_reloaded_after_the_pick_leads_to_the_channels_without_a_token_exchange(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    callback_url = consent(connect_start(member_client))
    first = member_client.get(callback_url)
    pick(member_client, first["Location"], [fb_page["id"]])
    exchanges_before = len(token_exchanges(sandbox))

    replay = member_client.get(callback_url, follow=True)

    assert replay.redirect_chain == [(CHANNELS, 302)]
    assert "This connection is already done." in replay.content.decode()
    assert len(token_exchanges(sandbox)) == exchanges_before
    assert not ConnectEvent.objects.filter(kind=ConnectEvent.Kind.FAILED).exists()


@pytest.mark.django_db
def test_a_callback_whose_first_request_died_after_spending_the_code_says_start_again_and_is_counted(
    account: Account, member, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    # given: the first delivery of the callback won the claim, and then its worker died
    # (killed at the web timeout, a deploy) before it could hold a page choice
    callback_url = consent(connect_start(member_client))
    state = parse_qs(urlsplit(callback_url).query)["state"][0]
    services.oauth_claim_consume(state=state, user=member, session_key=member_client.session.session_key)

    # when: the customer reloads once that request can no longer be running
    with time_machine.travel(timezone.now() + services.CALLBACK_ABANDONED_AFTER + timedelta(seconds=1)):
        reload = member_client.get(callback_url)
        again = member_client.get(callback_url)

    # then: a plain "start again" page with a way back, no exchange, counted once in the funnel
    for page in (reload, again):
        assert page.status_code == 400
        assert "Connecting was interrupted" in page.content.decode()
        assert "start again" in page.content.decode()
    assert code_exchanges(sandbox) == []
    funnel = services.connect_funnel(since=timezone.now() - timedelta(hours=1))
    assert funnel[Platform.FACEBOOK_PAGE]["failed_by_reason"] == {"interrupted": 1}


@pytest.mark.django_db
def test_a_callback_in_another_browser_session_is_refused_and_the_owner_can_still_finish(
    account: Account, member, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    callback_url = consent(connect_start(member_client))
    same_user_other_browser = Client()
    same_user_other_browser.force_login(member)

    elsewhere = same_user_other_browser.get(callback_url)
    signed_out = Client().get(callback_url)

    for response in (elsewhere, signed_out):
        assert response.status_code == 400
        assert "another browser session" in response.content.decode()
        assert "Try again" not in response.content.decode()
    assert token_exchanges(sandbox) == []
    # the claim was not spent by the refused attempts
    assert member_client.get(callback_url).status_code == 302


@pytest.mark.django_db
def test_an_expired_claim_is_refused_without_a_token_exchange(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    callback_url = consent(connect_start(member_client))

    with time_machine.travel(timezone.now() + timedelta(minutes=11)):
        response = member_client.get(callback_url)

    assert response.status_code == 400
    assert "expired" in response.content.decode()
    assert "Try again" in response.content.decode()
    assert token_exchanges(sandbox) == []


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["", "?state=forged-state-value&code=abc", "?code=abc"])
def test_an_unknown_state_is_refused_without_a_token_exchange(
    account: Account, member_client: Client, sandbox: GraphSandbox, query: str
) -> None:
    response = member_client.get(f"/connect/callback/{query}")

    assert response.status_code == 400
    assert "not one we issued" in response.content.decode()
    assert token_exchanges(sandbox) == []


@pytest.mark.django_db
def test_a_customer_who_cancels_the_dialog_gets_a_clear_page_and_nothing_is_exchanged(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    sandbox.set_consent(mode="deny")
    callback_url = consent(connect_start(member_client))
    assert "error=access_denied" in callback_url

    response = member_client.get(callback_url)

    assert response.status_code == 400
    assert "You cancelled the Facebook dialog" in response.content.decode()
    assert token_exchanges(sandbox) == []
    assert OAuthClaim.objects.get().outcome == OAuthClaim.Outcome.DENIED
    assert services.connect_funnel(since=timezone.now() - timedelta(minutes=5))[Platform.FACEBOOK_PAGE][
        "failed_by_reason"
    ] == {"denied": 1}


@pytest.mark.django_db
def test_a_declined_permission_is_explained_and_asking_again_binds(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    # given: the customer unticks pages_manage_posts in the dialog
    sandbox.set_consent(mode="decline", declined=["pages_manage_posts"])

    response = member_client.get(consent(connect_start(member_client)))

    # then: a page says which permission and offers to ask again, and nothing is bound
    body = response.content.decode()
    assert response.status_code == 400
    assert "pages_manage_posts" in body
    assert "Ask again" in body
    assert 'name="rerequest" value="1"' in body
    assert not Channel.objects.exists()
    assert not ConnectGrant.objects.exists()
    assert OAuthClaim.objects.get().outcome == OAuthClaim.Outcome.DECLINED_PERMISSIONS

    # when: they ask again and grant everything this time
    sandbox.set_consent(mode="grant")
    dialog = connect_start(member_client, rerequest=True)
    assert parse_qs(urlsplit(dialog).query)["auth_type"] == ["rerequest"]
    callback = member_client.get(consent(dialog))
    pick(member_client, callback["Location"], [fb_page["id"]])

    assert Channel.objects.filter(account=account).count() == 2


@pytest.mark.django_db
def test_a_page_without_instagram_says_so_plainly_and_binds_only_facebook(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_user: dict[str, Any]
) -> None:
    plain = sandbox.create_page(fb_user["id"], name="Harbour Cafe", with_instagram=False)
    sandbox.create_page(fb_user["id"], name="Harbour Bikes", ig_username="harbourbikes")

    callback = member_client.get(consent(connect_start(member_client)))
    picker = member_client.get(callback["Location"]).content.decode()
    pick(member_client, callback["Location"], [plain["id"]])

    assert "No Instagram professional account is linked to this Page" in picker
    assert "@harbourbikes" in picker
    bound = Channel.objects.get(account=account)
    assert (bound.platform, bound.external_id) == (Platform.FACEBOOK_PAGE, plain["id"])


@pytest.mark.django_db
def test_every_page_is_offered_when_the_platform_pages_the_list(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_user: dict[str, Any], monkeypatch
) -> None:
    names = [f"Branch {n}" for n in range(5)]
    for name in names:
        sandbox.create_page(fb_user["id"], name=name, with_instagram=False)
    monkeypatch.setattr(graph_auth, "ACCOUNTS_PAGE_SIZE", 2)

    callback = member_client.get(consent(connect_start(member_client)))
    picker = member_client.get(callback["Location"]).content.decode()

    assert all(name in picker for name in names)
    accounts_calls = [row for row in sandbox.requests_log() if row["path"].endswith("/me/accounts")]
    assert len(accounts_calls) == 3


@pytest.mark.django_db
def test_a_user_without_pages_is_told_so(account: Account, member_client: Client, fb_user: dict[str, Any]) -> None:
    response = member_client.get(consent(connect_start(member_client)))

    assert response.status_code == 400
    assert "does not manage any Page" in response.content.decode()
    assert OAuthClaim.objects.get().outcome == OAuthClaim.Outcome.NO_PAGES


@pytest.mark.django_db
def test_a_failing_code_exchange_is_a_clear_error_not_a_500(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any], caplog
) -> None:
    sandbox.inject(method="*", path_regex=r"/oauth/access_token$", kind="html_502")

    response = member_client.get(consent(connect_start(member_client)))

    assert response.status_code == 502
    assert "Facebook did not complete the sign-in" in response.content.decode()
    assert OAuthClaim.objects.get().outcome == OAuthClaim.Outcome.EXCHANGE_FAILED
    assert "landed-sandbox-secret" not in caplog.text


@pytest.mark.django_db
def test_reconnecting_a_channel_that_needs_it_restores_it(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    # given: a bound page whose token the platform later rejected
    callback = member_client.get(consent(connect_start(member_client)))
    pick(member_client, callback["Location"], [fb_page["id"]])
    Channel.objects.filter(account=account).update(status=Channel.Status.NEEDS_RECONNECT, status_reason="dead")
    old = Channel.objects.get(platform=Platform.FACEBOOK_PAGE).token_ciphertext

    # when: the customer presses Reconnect and goes through the dialog again
    callback = member_client.get(consent(connect_start(member_client, rerequest=True)))
    pick(member_client, callback["Location"], [fb_page["id"]])

    # then: same channels, connected again with a fresh token
    channels = Channel.objects.filter(account=account)
    assert channels.count() == 2
    assert {channel.status for channel in channels} == {Channel.Status.CONNECTED}
    assert {channel.status_reason for channel in channels} == {""}
    assert channels.get(platform=Platform.FACEBOOK_PAGE).token_ciphertext != old


@pytest.mark.django_db
def test_another_user_cannot_use_someone_elses_page_choice(
    account: Account, member_client: Client, other_member, fb_page: dict[str, Any]
) -> None:
    callback = member_client.get(consent(connect_start(member_client)))
    intruder = Client()
    intruder.force_login(other_member)

    assert intruder.get(callback["Location"]).status_code == 404
    assert intruder.post(callback["Location"], {"page": [fb_page["id"]]}).status_code == 404
    assert not Channel.objects.exists()


@pytest.mark.django_db
def test_picking_no_page_asks_again_and_keeps_the_choice_open(
    account: Account, member_client: Client, fb_page: dict[str, Any]
) -> None:
    callback = member_client.get(consent(connect_start(member_client)))

    response = pick(member_client, callback["Location"], [])
    forged = pick(member_client, callback["Location"], ["999999"])

    for answer in (response, forged):
        assert answer.status_code == 302
        assert answer["Location"] == callback["Location"]
    assert not Channel.objects.exists()
    assert ConnectGrant.objects.count() == 1
    assert pick(member_client, callback["Location"], [fb_page["id"]]).status_code == 302
    assert Channel.objects.count() == 2


@pytest.mark.django_db
def test_a_member_removed_during_the_connect_cannot_bind(
    account: Account, member, member_client: Client, fb_page: dict[str, Any]
) -> None:
    callback = member_client.get(consent(connect_start(member_client)))
    Membership.objects.filter(user=member, account=account).delete()

    response = pick(member_client, callback["Location"], [fb_page["id"]])

    assert response.status_code == 302
    assert not Channel.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("state", ["%00", "abc%00def", "%F0%9F%92%A5" * 30])
def test_a_garbled_state_is_a_clear_400_not_a_500(member_client: Client, state: str) -> None:
    response = member_client.get(f"/connect/callback/?state={state}&code=x")

    assert response.status_code == 400
    assert "not one we issued" in response.content.decode()


@pytest.mark.django_db
def test_a_page_choice_id_out_of_range_is_a_404(member_client: Client) -> None:
    assert member_client.get("/connect/pick/99999999999999999999999/").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["non_json", "html_502", "token_expired"])
def test_a_broken_page_listing_is_a_clear_error_and_binds_nothing(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any], kind: str
) -> None:
    sandbox.inject(method="GET", path_regex=r"/me/accounts$", kind=kind)

    response = member_client.get(consent(connect_start(member_client)))

    assert response.status_code == 502
    assert "Nothing was connected" in response.content.decode()
    assert not Channel.objects.exists()
    assert not ConnectGrant.objects.exists()
    assert services.connect_funnel(since=timezone.now() - timedelta(minutes=5))[Platform.FACEBOOK_PAGE][
        "failed_by_reason"
    ] == {"graph_error": 1}


@pytest.mark.django_db
def test_the_interactive_consent_page_leads_back_to_a_bound_channel(
    account: Account, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    # given: the consent page a person sees in the demo, not the headless shortcut
    sandbox.set_consent(mode="page")
    dialog = connect_start(member_client)
    page = requests.get(dialog, timeout=5)
    assert "Grant all" in page.text

    # when: they press "Grant all" (the form posts its hidden fields back to the dialog)
    fields = dict(re.findall(r"name='([^']+)' value='([^']*)'", page.text))
    fields.pop("keep", None)
    fields["decision"] = "grant"
    answer = requests.post(dialog.split("?")[0], data=fields, allow_redirects=False, timeout=5)
    location = urlsplit(answer.headers["Location"])
    callback = member_client.get(f"{location.path}?{location.query}")

    # then
    assert pick(member_client, callback["Location"], [fb_page["id"]]).status_code == 302
    assert Channel.objects.filter(account=account).count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_double_submitted_page_choice_binds_once(
    account: Account, member_client: Client, fb_page: dict[str, Any]
) -> None:
    callback = member_client.get(consent(connect_start(member_client)))
    pick_url = callback["Location"]
    member_client.get(pick_url)
    data = {"csrfmiddlewaretoken": member_client.cookies["csrftoken"].value, "page": [fb_page["id"]]}
    twin = Client(enforce_csrf_checks=True)
    twin.cookies = member_client.cookies
    barrier = threading.Barrier(2)

    def submit(client: Client) -> None:
        try:
            barrier.wait(timeout=5)
            client.post(pick_url, data)
        finally:
            connection.close()

    threads = [threading.Thread(target=submit, args=(client,)) for client in (member_client, twin)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert Channel.objects.filter(account=account).count() == 2
    # One bound event per platform bound (the Page and its Instagram account), once.
    bound = ConnectEvent.objects.filter(kind=ConnectEvent.Kind.BOUND)
    assert sorted(bound.values_list("platform", flat=True)) == ["facebook_page", "instagram"]
    assert not ConnectGrant.objects.exists()


def database_rows() -> dict[str, int]:
    """Rows in every table of the project and Django's own (sessions included)."""
    from django.apps import apps

    return {model._meta.label: model.objects.count() for model in apps.get_models()}


@pytest.mark.django_db
def test_forged_callbacks_insert_no_row_and_a_real_claim_explains_one_failure(
    account: Account, member, member_client: Client, sandbox: GraphSandbox, fb_page: dict[str, Any]
) -> None:
    callback_url = consent(connect_start(member_client))
    before = database_rows()

    # when: 200 signed-out callbacks with forged, garbled or missing states, and the real
    # callback URL replayed 50 times from other browsers
    forged = [f"/connect/callback/?state=forged-{i:04d}-{'x' * 40}&code=c{i}" for i in range(150)]
    forged += ["/connect/callback/?code=abc", "/connect/callback/", "/connect/callback/?state=%00&error=denied"] * 16
    assert len(forged) >= 190
    for url in forged:
        assert Client().get(url).status_code == 400
    for _ in range(50):
        assert Client().get(callback_url).status_code == 400

    # then: nothing was written but the one failure the real claim explains
    after = database_rows()
    changed = {label: (before[label], after[label]) for label in after if after[label] != before[label]}
    assert changed == {"publish.ConnectEvent": (before["publish.ConnectEvent"], before["publish.ConnectEvent"] + 1)}
    assert ConnectEvent.objects.get(kind=ConnectEvent.Kind.FAILED).reason == "cross_session"
    assert token_exchanges(sandbox) == []
    # and the owner still finishes
    assert member_client.get(callback_url).status_code == 302
