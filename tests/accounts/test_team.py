"""A team (issue 11 item 5): the owner invites by email with a one-time link, removes members
(never the last owner); editors and viewers change nothing of the team; an invited person,
new or with a login already, accepts once; a forged, reused, revoked or expired link gets
a clear page and changes nothing. Emails go to Django's locmem outbox (pytest-django)."""

from __future__ import annotations

import re
import threading
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts import services
from accounts.content_version import account_content_changed, member_versions_changed
from accounts.errors import InviteUnusable, TeamChangeRefused
from accounts.models import Account, Invite, Membership, Role
from tests import factories

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"
NEW_PASSWORD = "a new and rather long passphrase 42"


def _csrf(client: Client) -> str:
    if "csrftoken" not in client.cookies:
        client.get("/login/")
    return client.cookies["csrftoken"].value


def _post(client: Client, url: str, data: dict[str, str] | None = None):
    return client.post(url, {**(data or {}), "csrfmiddlewaretoken": _csrf(client)})


def _client_for(user: User) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def _link_in(message: mail.EmailMessage) -> str:
    found = re.search(r"https?://\S+/invite/[A-Za-z0-9_-]+/", message.body)
    assert found, message.body
    return found.group(0)


def _path(link: str) -> str:
    return "/" + link.split("/", 3)[3]


def _invite(member_client: Client, account: Account, email: str, role: str = "editor") -> str:
    response = _post(member_client, f"/a/{account.slug}/team/invite/", {"email": email, "role": role})
    assert response.status_code == 302
    return _path(_link_in(mail.outbox[-1]))


def test_the_owner_invites_a_new_person_who_sets_a_password_and_joins_once(
    account: Account, member_client: Client
) -> None:
    path = _invite(member_client, account, "  Ed@Example.com ", role="viewer")

    message = mail.outbox[0]
    assert message.to == ["ed@example.com"]
    assert account.name in message.subject
    # Only the token's hash is stored: the link itself is nowhere in the database.
    token = path.rstrip("/").rsplit("/", 1)[1]
    invite = Invite.objects.get()
    assert token not in invite.token_hash and len(invite.token_hash) == 64
    assert invite.expires_at - invite.created_at == timedelta(days=7)

    newcomer = Client(enforce_csrf_checks=True)
    landing = newcomer.get(path)
    # The token moves into the session; the page the person uses has no token in its address.
    assert landing.status_code == 302 and landing["Location"] == "/invite/accept/"
    page = newcomer.get("/invite/accept/")
    assert page.status_code == 200 and "Choose a password" in page.content.decode()

    differ = _post(newcomer, "/invite/accept/", {"password": NEW_PASSWORD, "password_again": "something else"})
    assert differ.status_code == 400 and not User.objects.filter(username="ed@example.com").exists()
    weak = _post(newcomer, "/invite/accept/", {"password": "123", "password_again": "123"})
    assert weak.status_code == 400 and not User.objects.filter(username="ed@example.com").exists()

    joined = _post(newcomer, "/invite/accept/", {"password": NEW_PASSWORD, "password_again": NEW_PASSWORD})

    assert joined.status_code == 302 and joined["Location"] == f"/a/{account.slug}/drafts/"
    user = User.objects.get(username="ed@example.com")
    assert user.email == "ed@example.com" and user.check_password(NEW_PASSWORD)
    assert Membership.objects.get(user=user).role == Role.VIEWER
    assert newcomer.get(f"/a/{account.slug}/drafts/").status_code == 200  # signed in
    invite.refresh_from_db()
    assert invite.claimed_at is not None and invite.claimed_by == user

    # The same link again, in another browser: a clear page, and nothing changes.
    again = Client()
    again.get(path)
    replay = again.get("/invite/accept/")
    assert replay.status_code == 410 and "already accepted" in replay.content.decode()
    assert Membership.objects.filter(account=account).count() == 2


def test_an_existing_login_joins_after_signing_in_as_that_address(account: Account, member_client: Client) -> None:
    other = factories.account_create(name="Second Shop", slug="second-shop")
    existing = factories.member_create(account=other, username="sam", role=Role.OWNER)
    existing.email = "sam@example.com"
    existing.save()
    path = _invite(member_client, account, "sam@example.com", role="editor")

    browser = Client()
    browser.get(path)
    page = browser.get("/invite/accept/").content.decode()
    assert "already have a Landed login" in page and "/login/?next=/invite/accept/" in page
    # Signing in keeps the session (and the invitation in it).
    signed_in = browser.post("/login/?next=/invite/accept/", {"username": "sam", "password": PASSWORD})
    assert signed_in.status_code == 302 and signed_in["Location"] == "/invite/accept/"
    assert "Join Harbour Bikes" in browser.get("/invite/accept/").content.decode()

    joined = browser.post("/invite/accept/")

    assert joined.status_code == 302
    assert Membership.objects.get(user=existing, account=account).role == Role.EDITOR
    assert Membership.objects.get(user=existing, account=other).role == Role.OWNER  # untouched


def test_someone_signed_in_as_another_address_cannot_accept(account: Account, member_client: Client) -> None:
    path = _invite(member_client, account, "invitee@example.com")
    stranger = factories.member_create(account=factories.account_create(slug="elsewhere"), username="stranger")
    browser = _client_for(stranger)
    browser.get(path)

    refused = _post(browser, "/invite/accept/")

    assert refused.status_code == 400 and "This invitation is for invitee@example.com" in refused.content.decode()
    assert not Membership.objects.filter(user=stranger, account=account).exists()
    assert Invite.objects.get().claimed_at is None


@pytest.mark.parametrize("state", ["forged", "expired", "revoked"])
def test_a_forged_expired_or_revoked_link_gets_a_clear_page_and_changes_nothing(
    state: str, account: Account, member_client: Client
) -> None:
    path = _invite(member_client, account, "late@example.com")
    invite = Invite.objects.get()
    if state == "forged":
        path = path[:-3] + ("AAA/" if not path.endswith("AAA/") else "BBB/")
    elif state == "expired":
        Invite.objects.filter(pk=invite.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    else:
        assert _post(member_client, f"/a/{account.slug}/team/invites/{invite.pk}/revoke/").status_code == 302
    browser = Client(enforce_csrf_checks=True)
    browser.get(path)

    page = browser.get("/invite/accept/")
    post = _post(browser, "/invite/accept/", {"password": NEW_PASSWORD, "password_again": NEW_PASSWORD})

    expected = {"forged": "not valid", "expired": "expired", "revoked": "withdrawn"}[state]
    assert page.status_code == 410 and expected in page.content.decode()
    assert post.status_code == 410
    assert not User.objects.filter(username="late@example.com").exists()
    assert Membership.objects.filter(account=account).count() == 1


def test_no_invite_in_the_session_is_a_clear_page() -> None:
    assert Client().get("/invite/accept/").status_code == 410


@pytest.mark.django_db(transaction=True)
def test_two_requests_with_one_link_join_once(account: Account) -> None:
    """The claim is one conditional UPDATE: of two simultaneous accepts, exactly one wins."""
    owner = factories.member_create(account=account, username="owner")
    joiner = User.objects.create_user(username="jo", email="jo@example.com", password=PASSWORD)
    token = (
        services.invite_create(
            account=account, email="jo@example.com", role="editor", invited_by=owner, site_url="http://x"
        )
        .link.rstrip("/")
        .rsplit("/", 1)[1]
    )
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def accept() -> None:
        try:
            start.wait()
            services.invite_accept(token=token, user=joiner)
            outcomes.append("joined")
        except InviteUnusable:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=accept) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(outcomes) == ["joined", "refused"]
    assert Membership.objects.filter(user=joiner, account=account).count() == 1


def test_inviting_again_replaces_the_open_link_and_members_are_refused(account: Account, member_client: Client) -> None:
    first = _invite(member_client, account, "twice@example.com")
    second = _invite(member_client, account, "twice@example.com")
    assert first != second
    assert Invite.objects.filter(revoked_at__isnull=True).count() == 1
    browser = Client()
    browser.get(first)
    assert browser.get("/invite/accept/").status_code == 410

    member = User.objects.get(username="owner")
    member.email = "owner@example.com"
    member.save()
    response = _post(member_client, f"/a/{account.slug}/team/invite/", {"email": "OWNER@example.com", "role": "editor"})
    assert response.status_code == 302 and len(mail.outbox) == 2
    assert "already a member" in member_client.get(f"/a/{account.slug}/team/").content.decode()
    bad = _post(member_client, f"/a/{account.slug}/team/invite/", {"email": "not an address", "role": "editor"})
    assert bad.status_code == 302 and len(mail.outbox) == 2


def test_an_unsendable_invite_is_withdrawn_and_said(account: Account, member_client: Client, settings) -> None:
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", 9, 1.0  # nothing listens

    _post(member_client, f"/a/{account.slug}/team/invite/", {"email": "lost@example.com", "role": "editor"})

    assert "could not be sent" in member_client.get(f"/a/{account.slug}/team/").content.decode()
    assert Invite.objects.get().revoked_at is not None


def test_the_owner_removes_members_but_never_the_last_owner(account: Account, member: User) -> None:
    owner_client = _client_for(member)
    editor = factories.member_create(account=account, username="ed", role=Role.EDITOR)
    owner_membership = Membership.objects.get(user=member)

    last = _post(owner_client, f"/a/{account.slug}/team/members/{owner_membership.pk}/remove/")
    assert last.status_code == 302 and Membership.objects.filter(pk=owner_membership.pk).exists()
    assert "needs an owner" in owner_client.get(f"/a/{account.slug}/team/").content.decode()

    gone = _post(owner_client, f"/a/{account.slug}/team/members/{Membership.objects.get(user=editor).pk}/remove/")
    assert gone.status_code == 302
    assert not Membership.objects.filter(user=editor).exists() and User.objects.filter(pk=editor.pk).exists()

    with pytest.raises(TeamChangeRefused):
        services.member_remove(account=account, membership_id=owner_membership.pk)
    # A member of another account cannot be removed through this one.
    stranger = factories.member_create(account=factories.account_create(slug="elsewhere"), username="x")
    with pytest.raises(TeamChangeRefused):
        services.member_remove(account=account, membership_id=Membership.objects.get(user=stranger).pk)


def test_the_owner_changes_roles_but_the_last_owner_cannot_step_down(account: Account, member: User) -> None:
    owner_client = _client_for(member)
    editor = factories.member_create(account=account, username="ed", role=Role.EDITOR)
    ed, own = Membership.objects.get(user=editor), Membership.objects.get(user=member)

    assert _post(owner_client, f"/a/{account.slug}/team/members/{ed.pk}/role/", {"role": "viewer"}).status_code == 302
    assert Membership.objects.get(pk=ed.pk).role == Role.VIEWER
    _post(owner_client, f"/a/{account.slug}/team/members/{own.pk}/role/", {"role": "editor"})
    assert Membership.objects.get(pk=own.pk).role == Role.OWNER
    assert "make someone else owner first" in owner_client.get(f"/a/{account.slug}/team/").content.decode()
    _post(owner_client, f"/a/{account.slug}/team/members/{ed.pk}/role/", {"role": "sovereign"})
    assert Membership.objects.get(pk=ed.pk).role == Role.VIEWER

    # With a second owner, the first may step down.
    _post(owner_client, f"/a/{account.slug}/team/members/{ed.pk}/role/", {"role": "owner"})
    _post(owner_client, f"/a/{account.slug}/team/members/{own.pk}/role/", {"role": "editor"})
    assert dict(Membership.objects.values_list("pk", "role")) == {ed.pk: Role.OWNER, own.pk: Role.EDITOR}


TEAM_WRITES = [
    "team/invite/",
    "team/invites/{invite}/revoke/",
    "team/members/{membership}/remove/",
    "team/members/{membership}/role/",
]


@pytest.mark.parametrize("role", [Role.EDITOR, Role.VIEWER])
@pytest.mark.parametrize("route", TEAM_WRITES)
def test_editors_and_viewers_change_nothing_of_the_team(
    role: Role, route: str, account: Account, member: User, member_client: Client
) -> None:
    _invite(member_client, account, "pending@example.com")
    invite = Invite.objects.get()
    someone = factories.member_create(account=account, username="someone", role=role)
    client = _client_for(someone)
    url = f"/a/{account.slug}/" + route.format(invite=invite.pk, membership=Membership.objects.get(user=member).pk)
    before = (
        list(Membership.objects.order_by("pk").values_list("pk", "role")),
        list(Invite.objects.values_list("pk", "revoked_at", "claimed_at")),
        len(mail.outbox),
    )

    response = _post(client, url, {"email": "new@example.com", "role": "owner"})

    assert response.status_code == 403, url
    after = (
        list(Membership.objects.order_by("pk").values_list("pk", "role")),
        list(Invite.objects.values_list("pk", "revoked_at", "claimed_at")),
        len(mail.outbox),
    )
    assert after == before
    # They see the team, without a single button that changes it.
    page = client.get(f"/a/{account.slug}/team/").content.decode()
    assert "Owner" in page
    for control in ("Remove", "Send invitation", "Withdraw", "Change role"):
        assert control not in page


def test_the_team_page_is_linked_from_settings_and_the_nav_is_unchanged(
    account: Account, member_client: Client
) -> None:
    settings_page = member_client.get(f"/a/{account.slug}/settings/").content.decode()
    assert f'href="/a/{account.slug}/team/"' in settings_page
    team = member_client.get(f"/a/{account.slug}/team/").content.decode()
    nav = team.split('<nav aria-label="Main"', 1)[1].split("</nav>", 1)[0]
    assert re.findall(r">([A-Za-z]+)</a>", nav) == [
        "Drafts", "Queue", "History", "Channels", "Sources", "Voice", "Settings"
    ]  # fmt: skip
    assert 'aria-current="page">Settings' in nav


def test_the_switcher_lists_the_other_businesses_at_no_extra_query(account: Account, member: User) -> None:
    client = _client_for(member)
    client.get(f"/a/{account.slug}/history/")
    # Both reads below are rendered, not the cached page (posting/page_cache.py), and read the
    # user and memberships afresh (accounts/principal.py): here a new content and member
    # version, below a new membership (which replaces both; the navigation is in the page's key).
    account_content_changed([account.pk])
    member_versions_changed([member.pk])
    with CaptureQueriesContext(connection) as alone:
        page = client.get(f"/a/{account.slug}/history/").content.decode()
    assert 'class="switcher"' not in page

    second = factories.account_create(name="Second Shop", slug="second-shop")
    Membership.objects.create(user=member, account=second, role=Role.VIEWER)
    with CaptureQueriesContext(connection) as two:
        page = client.get(f"/a/{account.slug}/history/").content.decode()

    assert 'class="switcher"' in page and 'href="/a/second-shop/drafts/">Second Shop<' in page
    assert len(two.captured_queries) == len(alone.captured_queries)
    home = client.get("/")
    assert home.status_code == 200 and "Second Shop" in home.content.decode()
