"""Fixtures shared by the whole suite. App-specific fixtures live in tests/<app>/conftest.py."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from posting.models import Account
from tests import factories


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
