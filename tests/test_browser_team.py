"""A team in a real browser (issue 11 items 5 and 10): the owner invites a member from the
Team page, the member opens the emailed link, sets a password, signs in and sees the account
in their role; a password reset from the login page through the emailed link to signing in
with the new password. At 375 px on a phone and at desktop width.

The product runs as ``manage.py landed_run`` (what `make run` starts) on free ports; its
emails go to the console backend, that is its log, where the test reads the links as a
person reads their inbox. Debian's Chromium drives it headless.
"""

from __future__ import annotations

import email
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser import CHROMIUM, CHROMIUM_FLAGS, landed_run_serving, needs_chromium
from tests.phone import PHONE_PROBLEMS_JS

NEW_PASSWORD = "a long new passphrase for landed 7"
RESET_PASSWORD = "another long passphrase after reset 9"

pytestmark = [pytest.mark.browser, needs_chromium]


class Product:
    def __init__(self, *, base_url: str, var_dir: Path, log_path: Path) -> None:
        self.base_url = base_url
        self.var_dir = var_dir
        self.log_path = log_path

    def password(self) -> str:
        return (self.var_dir / "demo_password").read_text().strip()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def _bodies_to(self, to: str) -> list[str]:
        """The decoded text of every email to ``to`` the console backend printed (between its
        rules of 79 dashes; the body may be quoted-printable, as a mail client decodes it)."""
        bodies = []
        for chunk in re.split(r"\n-{79}\n", self.log()):
            start = chunk.find("Content-Type: ")
            if start < 0:
                continue
            message = email.message_from_string(chunk[start:])
            if message["To"] == to:
                payload = message.get_payload(decode=True)
                if isinstance(payload, bytes):
                    bodies.append(payload.decode())
        return bodies

    def emailed_link(self, *, to: str, pattern: str) -> str:
        """The newest link matching ``pattern`` in an email to ``to`` (the console backend's output)."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            links = [found.group(0) for body in self._bodies_to(to) for found in re.finditer(pattern, body)]
            if links:
                return links[-1]
            time.sleep(0.2)
        raise AssertionError(f"no email to {to} with {pattern}:\n{self.log()[-3000:]}")


@pytest.fixture(scope="module")
def product(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Product]:
    # The console email backend prints each email into the log, where the tests read the links.
    with landed_run_serving(
        tmp_path_factory.mktemp("team-browser"), EMAIL_BACKEND="django.core.mail.backends.console.EmailBackend"
    ) as served:
        yield Product(base_url=served.base_url, var_dir=served.var_dir, log_path=served.log_path)


SIZES = {
    "phone": {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True},
    "desktop": {"viewport": {"width": 1280, "height": 800}},
}


@pytest.mark.parametrize(("size", "role"), [("phone", "editor"), ("desktop", "viewer")])
def test_an_invited_member_joins_signs_in_and_later_resets_the_password(product: Product, size: str, role: str) -> None:
    from playwright.sync_api import Page, expect, sync_playwright

    email = f"{role}-{size}@example.com"
    refused: list[str] = []

    def page_in(browser) -> Page:
        page = browser.new_context(**SIZES[size]).new_page()
        page.on("console", lambda m: refused.append(m.text) if "Content Security" in m.text else None)
        return page

    def usable(page: Page, where: str) -> None:
        if size == "phone":
            assert page.evaluate(PHONE_PROBLEMS_JS) == [], where

    def click(page: Page, locator) -> None:
        locator.tap() if size == "phone" else locator.click()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            # given: the owner, from Settings, opens Team and invites someone
            owner = page_in(browser)
            owner.goto(f"{product.base_url}/login/")
            owner.fill("#id_username", "demo")
            owner.fill("#id_password", product.password())
            click(owner, owner.get_by_role("button", name="Log in"))
            expect(owner).to_have_url(re.compile(r"/a/demo/drafts/$"))
            owner.goto(f"{product.base_url}/a/demo/settings/")
            click(owner, owner.get_by_role("link", name="Team"))
            expect(owner.get_by_role("heading", name="Team")).to_be_visible()
            usable(owner, "team")
            owner.fill("#id_email", email)
            owner.select_option("#id_role", role)
            click(owner, owner.get_by_role("button", name="Send invitation"))
            expect(owner.locator(".messages")).to_contain_text(f"Invitation sent to {email}")
            expect(owner.locator("li.invite", has_text=email)).to_be_visible()

            # when: the member opens the emailed link and sets a password
            link = product.emailed_link(to=email, pattern=r"http://127\.0\.0\.1:\d+/invite/[A-Za-z0-9_-]+/")
            member = page_in(browser)
            member.goto(link)
            assert "/invite/accept/" in member.url and link.rsplit("/", 2)[1] not in member.url
            expect(member.get_by_role("heading", name="Join")).to_be_visible()
            usable(member, "invite")
            member.fill("#id_password", NEW_PASSWORD)
            member.fill("#id_password_again", NEW_PASSWORD)
            click(member, member.get_by_role("button", name="Set password and join"))

            # then: they are in the account, in their role: no Settings, and buttons only for editors
            expect(member).to_have_url(re.compile(r"/a/demo/drafts/$"))
            nav = member.get_by_role("navigation", name="Main")
            expect(nav.get_by_role("link", name="Drafts")).to_be_visible()
            expect(nav.get_by_role("link", name="Settings")).to_have_count(0)
            approve = member.get_by_role("button", name=re.compile("^Approve: "))
            if role == "editor":
                expect(approve.first).to_be_visible()
            else:
                expect(approve).to_have_count(0)

            # and: signing out and in again with the address and the password works
            click(member, member.get_by_role("button", name="Log out"))
            expect(member).to_have_url(re.compile(r"/login/$"))
            member.fill("#id_username", email)
            member.fill("#id_password", NEW_PASSWORD)
            click(member, member.get_by_role("button", name="Log in"))
            expect(member).to_have_url(re.compile(r"/a/demo/drafts/$"))

            # and: the used link is refused with a clear page
            again = page_in(browser)
            again.goto(link)
            expect(again.get_by_role("heading", name="This invitation cannot be used")).to_be_visible()

            # when: later, they forget the password and reset it from the login page
            reset = page_in(browser)
            reset.goto(f"{product.base_url}/login/")
            click(reset, reset.get_by_role("link", name="Forgot your password?"))
            expect(reset.get_by_role("heading", name="Reset your password")).to_be_visible()
            usable(reset, "reset form")
            reset.fill("#id_email", email)
            click(reset, reset.get_by_role("button", name="Email me a link"))
            expect(reset.get_by_role("heading", name="Check your email")).to_be_visible()
            reset_link = product.emailed_link(to=email, pattern=r"http://127\.0\.0\.1:\d+/password-reset/\S+/\S+/")
            reset.goto(reset_link)
            expect(reset.get_by_role("heading", name="Choose a new password")).to_be_visible()
            usable(reset, "reset confirm")
            reset.fill("#id_new_password1", RESET_PASSWORD)
            reset.fill("#id_new_password2", RESET_PASSWORD)
            click(reset, reset.get_by_role("button", name="Save password"))
            expect(reset.get_by_role("heading", name="Password changed")).to_be_visible()

            # then: the new password signs in, the old one no longer does
            click(reset, reset.get_by_role("link", name="Sign in"))
            expect(reset).to_have_url(re.compile(r"/login/$"))
            reset.fill("#id_username", email)
            reset.fill("#id_password", NEW_PASSWORD)
            click(reset, reset.get_by_role("button", name="Log in"))
            expect(reset.locator(".messages")).to_contain_text("do not match")
            reset.fill("#id_username", email)
            reset.fill("#id_password", RESET_PASSWORD)
            click(reset, reset.get_by_role("button", name="Log in"))
            expect(reset).to_have_url(re.compile(r"/a/demo/drafts/$"))
            assert refused == []
        finally:
            browser.close()
