"""Fixtures shared by the whole suite. App-specific fixtures live in tests/<app>/conftest.py."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from django.conf import global_settings
from django.contrib.auth.models import User
from django.test import Client, override_settings

from accounts.models import Account
from config.celery_app import app as celery_app
from tests import factories
from tests.worker import stale_workers_kill


def pytest_sessionstart(session: pytest.Session) -> None:
    # Before any test database is created or task sent: a worker an interrupted run left
    # behind would take this run's tasks, or hold the database open (tests/worker.py).
    killed = stale_workers_kill()
    if killed:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line(f"killed {len(killed)} Celery worker(s) an earlier run left behind: pids {killed}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # make test runs two pytest processes (pytest-xdist, --dist loadgroup). The tests that start
    # real Celery workers or the product's own process are kept on one of them, one at a time:
    # two such tests at once put four or more busy processes on two cores, and the ones with a
    # night's deadline then missed it (a feed's re-read closed as starved).
    for item in items:
        if item.get_closest_marker("worker") or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.xdist_group("processes"))


# Django's default PBKDF2 (1.2 million iterations) costs ~0.3 s of CPU per hash, and most tests
# create a member (or sign one in): hashing was the largest part of the suite's time. Tests hash
# with MD5 instead; PBKDF2 stays listed so a hash written by a product process a test starts
# (landed_run, a Celery worker) still verifies here. Only this test process changes: the product
# and the processes tests start keep Django's default hashers.
TEST_PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]


@pytest.fixture(scope="session", autouse=True)
def fast_password_hasher() -> Iterator[None]:
    with override_settings(PASSWORD_HASHERS=TEST_PASSWORD_HASHERS):
        yield


@pytest.fixture
def product_password_hasher() -> Iterator[None]:
    """Hash as the product does, for a test whose user signs in inside a process it starts:
    that process has only Django's default hashers and cannot check an MD5 hash."""
    with override_settings(PASSWORD_HASHERS=global_settings.PASSWORD_HASHERS):
        yield


@pytest.fixture
def account(db) -> Account:
    return factories.account_create(name="Harbour Bikes", slug="harbour-bikes")


@pytest.fixture
def other_account(db) -> Account:
    return factories.account_create(name="Other Co", slug="other-co")


@pytest.fixture
def member(account: Account) -> User:
    return factories.member_create(account=account, username="owner")


@pytest.fixture
def member_client(member: User) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(member)
    return client


@pytest.fixture
def other_member(other_account: Account) -> User:
    return factories.member_create(account=other_account, username="intruder")


@pytest.fixture
def broker_unreachable(monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the real Celery app at a closed local port, as if Redis were down.

    The app caches its connection pools, so they are dropped to make the new URL count.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(celery_app.conf, "broker_write_url", f"redis://127.0.0.1:{port}/0")
    monkeypatch.setattr(celery_app, "_pool", None)
    monkeypatch.setattr(celery_app.amqp, "_producer_pool", None)
