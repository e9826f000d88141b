"""HSTS, the SSL redirect behind the proxy and the Content-Security-Policy.

The production part runs in a subprocess with only the documented production environment
(.env.example, filled in) so that DEBUG is off exactly as deployed; the page walk runs
in-process against every customer page, the operator page and the admin, and checks that
nothing on them needs what the policy refuses (inline styles, inline scripts, handlers).
"""

from __future__ import annotations

import json
import subprocess
import sys
from html.parser import HTMLParser

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests import factories, worker
from tests.test_deploy_config import ROOT, _manage, documented_env


def production_env_with_defaults() -> dict[str, str]:
    """The documented configuration, leaving the SSL redirect and HSTS to their defaults
    behind the proxy (the defaults are what a shorter .env gets)."""
    env = documented_env() | {"DATABASE_URL": worker.test_database_url()}
    for name in ("DJANGO_SECURE_SSL_REDIRECT", "DJANGO_SECURE_HSTS_SECONDS"):
        env.pop(name)
    return env


PROBE = """
import json, django; django.setup()
from django.test import Client
host = {"HTTP_HOST": "landed.example.com", "REMOTE_ADDR": "10.0.0.9"}
tls = {**host, "HTTP_X_FORWARDED_PROTO": "https"}
client = Client()
out = {}
for name, path, headers in [
    ("plain_login", "/login/", host), ("plain_healthz", "/healthz", host),
    ("tls_login", "/login/", tls), ("tls_admin_login", "/admin/login/", tls),
]:
    r = client.get(path, **headers)
    out[name] = {"status": r.status_code, "location": r.get("Location"), "hsts": r.get("Strict-Transport-Security"),
                 "csp": r.get("Content-Security-Policy"), "html": r.content.decode(errors="replace")}
print(json.dumps(out))
"""


@pytest.mark.django_db(transaction=True)
def test_production_redirects_plain_http_and_sends_hsts_and_a_content_security_policy() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=production_env_with_defaults(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    answers = json.loads(result.stdout.strip().splitlines()[-1])

    # plain HTTP through the proxy is sent to HTTPS; the container's health check is not
    assert answers["plain_login"]["status"] == 301
    assert answers["plain_login"]["location"] == "https://landed.example.com/login/"
    assert answers["plain_healthz"]["status"] != 301
    for name in ("tls_login", "tls_admin_login"):
        answer = answers[name]
        assert answer["status"] == 200, name
        assert answer["hsts"].startswith("max-age=31536000"), name
        policy = dict(part.strip().split(" ", 1) for part in answer["csp"].split(";"))
        assert policy["script-src"] == "'self'" and policy["style-src"] == "'self'", policy
        assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'", policy
        assert "'unsafe-inline'" not in answer["csp"]
        assert inline_code(answer["html"]) == [], name


def test_the_production_defaults_pass_the_deploy_check_at_warning_level() -> None:
    result = _manage(production_env_with_defaults(), "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


class _InlineCode(HTMLParser):
    """What a policy without 'unsafe-inline' refuses: <style> blocks, style attributes,
    inline <script> (a JSON data block is data, not code) and on* handler attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = dict(attrs)
        if tag == "style":
            self.found.append("<style>")
        if tag == "script" and "src" not in names and names.get("type") != "application/json":
            self.found.append("<script> without src")
        for name, _ in attrs:
            if name == "style" or name.startswith("on"):
                self.found.append(f"<{tag} {name}=...>")


def inline_code(html: str) -> list[str]:
    parser = _InlineCode()
    parser.feed(html)
    return parser.found


@pytest.mark.django_db
def test_no_page_of_the_product_or_the_admin_needs_inline_code(account) -> None:
    from research.models import Source, Subscription
    from tests.cron.rows import publication_create
    from tests.test_tenancy import ACCOUNT_ROUTES, _concrete

    # given an account with a draft (and its picture), a source, a channel and a landed post
    draft = factories.draft_create(account=account)
    publication_create(account=account)
    source = Source.objects.create(url="https://feeds.example/cycling.xml", title="Cycling news")
    Subscription.objects.create(account=account, source=source)
    owner = factories.member_create(account=account, username="owner")
    User.objects.filter(pk=owner.pk).update(is_staff=True, is_superuser=True)
    client = Client()
    signed_in = client.post("/login/", {"username": "owner", "password": "correct horse battery staple"})
    assert signed_in.status_code == 302

    pages = [_concrete(route, account.slug, draft.pk) for route in ACCOUNT_ROUTES]
    pages += ["/ops/", "/admin/", "/admin/posting/draft/", f"/admin/posting/draft/{draft.pk}/change/", "/login/"]
    checked = 0
    for path in pages:
        response = client.get(path)
        if response.status_code != 200 or "text/html" not in response.get("Content-Type", ""):
            continue
        checked += 1
        assert "Content-Security-Policy" in response, path
        assert inline_code(response.content.decode()) == [], path
    assert checked >= 8
