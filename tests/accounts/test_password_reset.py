"""Password reset by email (issue 11 item 5): Django's own views, styled, linked from the
login page. A known and an unknown address get the same answer (no oracle for who has a
login); the emailed link sets a new password once; a burst to one address is capped."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.cache import cache
from django.test import Client

pytestmark = pytest.mark.django_db
NEW_PASSWORD = "a new and rather long passphrase 42"


@pytest.fixture(autouse=True)
def _fresh_limit() -> None:
    cache.clear()


def _ask(client: Client, email: str):
    return client.post("/password-reset/", {"email": email})


def test_the_login_page_links_to_the_reset() -> None:
    assert 'href="/password-reset/"' in Client().get("/login/").content.decode()


def test_a_reset_through_the_emailed_link_then_signing_in_with_the_new_password() -> None:
    User.objects.create_user(username="pat", email="pat@example.com", password="the old password 123")
    client = Client()

    sent = _ask(client, "PAT@example.com")

    assert sent.status_code == 302 and sent["Location"] == "/password-reset/sent/"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["pat@example.com"]
    assert "Your username: pat" in mail.outbox[0].body
    link = re.search(r"http://testserver(/password-reset/\S+/\S+/)", mail.outbox[0].body)
    assert link
    # Django moves the token into the session and redirects to a URL without it.
    form = client.get(link.group(1), follow=True)
    assert "Choose a new password" in form.content.decode()
    done = client.post(form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302 and done["Location"] == "/password-reset/done/"

    signed_in = Client().post("/login/", {"username": "pat", "password": NEW_PASSWORD})
    assert signed_in.status_code == 302
    # The link is spent: the password changed, so its token no longer verifies.
    again = Client().get(link.group(1), follow=True)
    assert "not valid" in again.content.decode()


def test_an_unknown_address_gets_the_same_answer_and_no_email() -> None:
    User.objects.create_user(username="pat", email="pat@example.com", password="x")
    known, unknown = _ask(Client(), "pat@example.com"), _ask(Client(), "nobody@example.com")

    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert [m.to for m in mail.outbox] == [["pat@example.com"]]


def test_a_burst_of_requests_for_one_address_sends_at_most_three() -> None:
    User.objects.create_user(username="pat", email="pat@example.com", password="x")
    answers = {(_ask(Client(), "pat@example.com")["Location"]) for _ in range(6)}

    assert answers == {"/password-reset/sent/"}
    assert len(mail.outbox) == 3


def test_while_the_cache_is_unreachable_a_burst_is_still_limited_in_each_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given the cache's Redis down (a closed port), as config/cache.py degrades: reads miss,
    # writes are skipped and incr cannot count
    import socket

    from django.test import override_settings

    from accounts import services

    monkeypatch.setattr(services, "_reset_local", {})
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    down = {
        "default": {
            "BACKEND": "config.cache.ReusedClientRedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed}/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    User.objects.create_user(username="pat", email="pat@example.com", password="x")
    with override_settings(CACHES=down):
        answers = {(_ask(Client(), "pat@example.com")["Location"]) for _ in range(6)}
    # then the answer is the same, and this process sent no more than the hourly limit
    assert answers == {"/password-reset/sent/"}
    assert len(mail.outbox) == services.RESET_EMAILS_PER_HOUR
