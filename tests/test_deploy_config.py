"""The documented production configuration (.env.example, README "Deploy") passes the deploy
check, runs behind a TLS proxy on another host, and reaches every container of docker-compose.yml."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from cryptography.fernet import Fernet
from django.contrib.auth.models import User

from tests import worker

ROOT = Path(__file__).resolve().parent.parent
APP_SERVICES = ("web", "worker", "beat")
# What a person fills into the blanks of .env.example.
FILLED_IN = {
    "SECRET_KEY": secrets.token_urlsafe(50),
    "CRON_SECRET": secrets.token_urlsafe(40),
    "TOKEN_ENCRYPTION_KEYS": Fernet.generate_key().decode(),
    "POSTGRES_PASSWORD": "pw-" + secrets.token_hex(8),
    "FACEBOOK_APP_ID": "1234567890",
    "FACEBOOK_APP_SECRET": secrets.token_hex(16),
    "OPERATOR_EMAILS": "ops@landed.example.com",
    "EMAIL_HOST": "smtp.landed.example.com",
    "EMAIL_HOST_USER": "landed",
    "EMAIL_HOST_PASSWORD": secrets.token_hex(8),
}


def documented_env() -> dict[str, str]:
    values = {}
    for line in (ROOT / ".env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            values[name] = value or FILLED_IN.get(name, "")
    # Nothing from the test run's own environment: only what the documentation says.
    return {"PATH": os.environ["PATH"], "DJANGO_SETTINGS_MODULE": "config.settings", **values}


def _manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_documented_configuration_passes_the_deploy_check() -> None:
    result = _manage(documented_env(), "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_deploy_check_says_what_is_missing() -> None:
    # given the documented configuration with HSTS turned off and alarm mail going to the console
    env = documented_env()
    env["DJANGO_SECURE_HSTS_SECONDS"] = "0"
    env["EMAIL_BACKEND"] = "django.core.mail.backends.console.EmailBackend"
    env["SITE_URL"] = "http://127.0.0.1:8000"
    # when the check runs, then it fails and names each problem
    result = _manage(env, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode != 0
    for check_id in ("security.W004", "landed.W002", "landed.W006"):
        assert check_id in result.stderr


def test_the_deploy_check_counts_alarms_that_reach_no_one() -> None:
    env = documented_env() | {"OPERATOR_EMAILS": "", "ALARMS_NOWHERE": "1"}
    result = _manage(env, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode != 0
    assert "landed.W001" in result.stderr and "Alarms reach no one" in result.stderr


# A login from the browser: https://landed.example.com, through a TLS proxy on another host
# that passes Host through and sets X-Forwarded-Proto, to the app on plain HTTP.
PROXIED_LOGIN = """
import django; django.setup()
from django.test import Client
client = Client(enforce_csrf_checks=True)
proxy = {"HTTP_HOST": "landed.example.com", "HTTP_X_FORWARDED_PROTO": "https", "REMOTE_ADDR": "10.0.0.9"}
page = client.get("/login/", **proxy)
token = page.cookies["csrftoken"].value
answer = client.post(
    "/login/", {"username": "owner", "password": "a long enough password", "csrfmiddlewaretoken": token},
    HTTP_ORIGIN="https://landed.example.com", HTTP_REFERER="https://landed.example.com/login/", **proxy,
)
print(page.status_code, answer.status_code, answer.get("Location"), page.get("Strict-Transport-Security"), sep="|")
"""


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("product_password_hasher")  # the owner signs in inside a production process
def test_a_login_behind_a_tls_proxy_with_the_documented_configuration_is_accepted() -> None:
    User.objects.create_user(username="owner", password="a long enough password")
    # The documented hosts (db, redis) are compose's: here, the test run's own database and Redis
    # (the cache and the sessions' read copy live in Redis when REDIS_URL is set).
    env = documented_env() | {"DATABASE_URL": worker.test_database_url(), "REDIS_URL": os.environ["REDIS_URL"]}
    result = subprocess.run(
        [sys.executable, "-c", PROXIED_LOGIN],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    page, login, location, hsts = result.stdout.strip().split("|")
    # then the CSRF origin check accepts the https:// origin and the owner is logged in
    assert (page, login, location) == ("200", "302", "/")
    assert hsts == "max-age=31536000; includeSubDomains; preload"


def test_every_container_gets_the_whole_env_file_and_nothing_overrides_it() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert set(compose["services"]) == {*APP_SERVICES, "db", "redis"}
    for name in APP_SERVICES:
        service = compose["services"][name]
        env_files = service["env_file"] if isinstance(service["env_file"], list) else [service["env_file"]]
        assert ".env" in env_files, name
        # An environment: entry would win over the env file and silently drop the operator's value.
        assert "environment" not in service, name
        assert {"db", "redis"} <= set(service["depends_on"]), name


def test_every_documented_variable_is_one_the_settings_read() -> None:
    settings_source = (ROOT / "config" / "settings.py").read_text()
    compose_source = (ROOT / "docker-compose.yml").read_text()
    for name in documented_env():
        if name in ("PATH", "DJANGO_SETTINGS_MODULE"):
            continue
        assert f'"{name}"' in settings_source or f"${{{name}" in compose_source, name
