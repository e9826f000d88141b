"""Issue 12 item 8: every operator page on a 375 px phone, in Chromium: no sideways scroll,
tap targets at least 44 px high, form fields at 16 px or more (the checks of the customer's
pages, tests/phone.py). The pages: the sign-in (what `createoperator`'s user goes through) and
its lockout, the two-factor setup and verify, the console /ops/ with a fleet of long names,
many channels and alarms, and the read-only support views of an account's drafts, queue
and history.

Each page is rendered by the real views through the test client and opened from a file
(its stylesheet found by path), so no server has to run."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django_otp.plugins.otp_totp.models import TOTPDevice

from accounts.models import Platform
from cron.services import alarm_open
from tests import factories
from tests.browser import CHROMIUM, CHROMIUM_FLAGS, needs_chromium
from tests.cron.rows import channel_create, publication_create
from tests.phone import PHONE_PROBLEMS_JS

PASSWORD = "correct horse battery staple"
STYLESHEET = Path(__file__).resolve().parents[2] / "static" / "landed" / "landed.css"
LONG_NAME = "Harbour" + "bikes" * 30

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.browser,
    needs_chromium,
]


def _signed_in(username: str) -> Client:
    client = Client()
    # Through the login form: django-axes authenticates with the request.
    assert client.post("/login/", {"username": username, "password": PASSWORD}).status_code == 302
    return client


def _page(client: Client, url: str, *, status: int = 200, data: dict[str, str] | None = None) -> str:
    response = client.post(url, data) if data is not None else client.get(url)
    assert response.status_code == status, (url, response.status_code)
    html = response.content.decode()
    assert "/static/landed/landed.css" in html, url
    return html


def _phone_problems(pages: dict[str, str], folder: Path) -> dict[str, list[str]]:
    """Each page opened at 375 px in Chromium; what a phone user would trip over on it."""
    from playwright.sync_api import sync_playwright

    problems: dict[str, list[str]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True)
            for n, (name, html) in enumerate(pages.items()):
                path = folder / f"page-{n}.html"
                path.write_text(html.replace("/static/landed/landed.css", STYLESHEET.as_uri()))
                page.goto(path.as_uri())
                problems[name] = page.evaluate(PHONE_PROBLEMS_JS)
        finally:
            browser.close()
    return problems


@pytest.fixture
def fleet(settings) -> list[str]:
    """Three accounts with long names, both platforms, posts and alarms with long customer text."""
    settings.OPERATOR_EMAILS = []
    settings.ALARM_WEBHOOK_URL = ""
    slugs = []
    for n in range(3):
        account = factories.account_create(name=LONG_NAME, slug=f"harbour-{n}")
        for platform in (Platform.FACEBOOK_PAGE, Platform.INSTAGRAM):
            channel = channel_create(account=account, platform=platform)
            publication_create(account=account, channel=channel)
        factories.draft_create(account=account, text="Harbour Bikes opened a second shop in Leith " + "x" * 200)
        alarm_open(kind="source_failing_for_account", account=account, subject="source:1", details={"title": "x" * 300})
        slugs.append(account.slug)
    return slugs


def test_the_console_fits_a_375px_phone_without_sideways_scrolling(tmp_path, fleet) -> None:
    User.objects.create_user(username="operator", password=PASSWORD, is_staff=True)
    html = _page(_signed_in("operator"), "/ops/")

    from playwright.sync_api import sync_playwright

    page_file = tmp_path / "ops.html"
    page_file.write_text(html.replace("/static/landed/landed.css", STYLESHEET.as_uri()))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True)
            page.goto(page_file.as_uri())
            assert page.evaluate("document.documentElement.scrollWidth") <= 375
            box = page.locator("button:has-text('Run research now')").first.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375
        finally:
            browser.close()


def test_every_operator_page_is_usable_on_a_375px_phone(tmp_path, settings, fleet) -> None:
    settings.AXES_FAILURE_LIMIT = 2
    operator = User.objects.create_user(username="operator", password=PASSWORD, is_staff=True)
    User.objects.create_user(username="newcomer", password=PASSWORD, is_staff=True)
    pages: dict[str, str] = {"sign-in": _page(Client(), "/login/")}

    # Two-factor: a new operator adds an app; one with an app enters a code.
    settings.STAFF_REQUIRE_2FA = True
    pages["2fa setup"] = _page(_signed_in("newcomer"), "/2fa/setup/?next=/ops/")
    TOTPDevice.objects.create(user=operator, name="authenticator", confirmed=True)
    pages["2fa verify"] = _page(_signed_in("operator"), "/2fa/verify/?next=/ops/")
    settings.STAFF_REQUIRE_2FA = False

    staff = _signed_in("operator")
    pages["console"] = _page(staff, "/ops/")
    for view in ("drafts", "queue", "history"):
        pages[f"support view: {view}"] = _page(staff, f"/ops/accounts/{fleet[0]}/view/{view}/")

    # Last (it locks this address out too): the lockout page, as django-axes answers the
    # attempt over the limit.
    stranger = Client()
    wrong = {"username": "operator-typo", "password": "wrong"}
    for _ in range(2):
        stranger.post("/login/", wrong)
    pages["locked out"] = _page(stranger, "/login/", status=429, data=wrong)

    problems = _phone_problems(pages, tmp_path)

    assert problems == {name: [] for name in pages}
