"""Issue 12 item 8: the operator's page on a 375 px phone, in Chromium: no sideways scroll,
with long names and many channels in the fleet."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from accounts.models import Platform
from cron.services import alarm_open
from tests import factories
from tests.cron.rows import channel_create, publication_create

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PASSWORD = "correct horse battery staple"

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


def test_the_console_fits_a_375px_phone_without_sideways_scrolling(tmp_path, settings) -> None:
    from playwright.sync_api import sync_playwright

    settings.OPERATOR_EMAILS = []
    settings.ALARM_WEBHOOK_URL = ""
    for n in range(3):
        account = factories.account_create(name="Harbour" + "bikes" * 30, slug=f"harbour-{n}")
        for platform in (Platform.FACEBOOK_PAGE, Platform.INSTAGRAM):
            channel = channel_create(account=account, platform=platform)
            publication_create(account=account, channel=channel)
        alarm_open(kind="source_failing_for_account", account=account, subject="source:1", details={"title": "x" * 300})
    User.objects.create_user(username="operator", password=PASSWORD, is_staff=True)
    client = Client()
    # Through the login form: django-axes authenticates with the request.
    assert client.post("/login/", {"username": "operator", "password": PASSWORD}).status_code == 302
    page_file = tmp_path / "ops.html"
    # Opened from a file, the page finds its stylesheet (static/landed/landed.css) by path.
    stylesheet = Path(__file__).resolve().parents[2] / "static" / "landed" / "landed.css"
    html = client.get("/ops/").content.decode()
    assert "/static/landed/landed.css" in html
    page_file.write_text(html.replace("/static/landed/landed.css", stylesheet.as_uri()))

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True)
            page.goto(page_file.as_uri())
            assert page.evaluate("document.documentElement.scrollWidth") <= 375
            box = page.locator("button:has-text('Run research now')").first.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375
        finally:
            browser.close()
