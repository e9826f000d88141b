"""Fixtures for publishing and reconcile tests: a real Graph sandbox on an ephemeral port,
and channels connected to it. Imported by tests/publish/test_publish*.py and tests/reconcile/."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import Account, Platform
from devkit.sandbox import GraphSandbox
from publish.models import Channel, Publication
from publish.services import channel_bind
from tests import factories


@dataclass
class SandboxPage:
    page_id: str
    instagram_id: str
    token: str
    facebook: Channel
    instagram: Channel


@pytest.fixture
def graph_sandbox(settings) -> Iterator[GraphSandbox]:
    sandbox = GraphSandbox()
    sandbox.start()
    settings.GRAPH_API_BASE_URL = sandbox.base_url
    # Short enough that a hung answer costs a test about a second.
    settings.GRAPH_TIMEOUT_S = 1.0
    # Reads are spaced in production; tests read back to back unless they test the spacing.
    settings.RECONCILE_MIN_INTERVAL_S = 0
    settings.RECONCILE_MAX_READS = 4
    yield sandbox
    sandbox.close()


@pytest.fixture
def sandbox_page(graph_sandbox: GraphSandbox, account: Account) -> SandboxPage:
    user = graph_sandbox.create_user()
    page = graph_sandbox.create_page(user["id"], name="Harbour Bikes")
    facebook = channel_bind(
        account=account,
        platform=Platform.FACEBOOK_PAGE,
        external_id=page["id"],
        name=page["name"],
        token=page["access_token"],
    )
    instagram = channel_bind(
        account=account,
        platform=Platform.INSTAGRAM,
        external_id=page["instagram_id"],
        name="harbourbikes",
        token=page["access_token"],
    )
    return SandboxPage(
        page_id=page["id"],
        instagram_id=page["instagram_id"],
        token=page["access_token"],
        facebook=facebook,
        instagram=instagram,
    )


def publication_make(*, channel: Channel, message: str = "", n: int = 1) -> Publication:
    """A scheduled, due publication of an approved draft, created directly (no task enqueued)."""
    account = channel.account
    article = factories.article_create(url=f"https://news.example/{channel.platform}/{n}-{timezone.now().timestamp()}")
    text = message or f"Harbour Bikes opened a second shop in Leith on Monday. ({channel.platform} {n})"
    draft = factories.draft_create(
        account=account, article=article, platform=channel.platform, text=text, status="approved"
    )
    is_instagram = channel.platform == Platform.INSTAGRAM
    return Publication.objects.create(
        account=account,
        draft=draft,
        channel=channel,
        message=text,
        link_url="" if is_instagram else article.canonical_url,
        image_url=article.lead_image_url if is_instagram else "",
        scheduled_for=timezone.now() - timedelta(seconds=1),
    )
