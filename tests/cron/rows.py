"""Rows the cron tests need from other apps, built directly (the watchdogs only read them)."""

from __future__ import annotations

from datetime import datetime
from itertools import count

from django.utils import timezone

from accounts.models import Account
from posting.models import Draft
from publish.models import Channel, Publication
from tests import factories

_serial = count(1)


def channel_create(*, account: Account, platform: str = "facebook_page", **fields: object) -> Channel:
    n = next(_serial)
    fields.setdefault("name", f"Page {n}")
    return Channel.objects.create(account=account, platform=platform, external_id=f"ext-{n}", **fields)


def draft_create(*, account: Account, **fields: object) -> Draft:
    n = next(_serial)
    article = factories.article_create(url=f"https://news.example/cron/{n}")
    return factories.draft_create(account=account, article=article, **fields)


def publication_create(
    *, account: Account, status: str = Publication.Status.LANDED, landed_at: datetime | None = None, **fields: object
) -> Publication:
    channel = fields.pop("channel", None) or channel_create(account=account)
    draft = draft_create(account=account, status=Draft.Status.APPROVED)
    n = next(_serial)
    if status in (Publication.Status.LANDED, Publication.Status.VANISHED):
        fields.setdefault("permalink", f"https://facebook.example/posts/{n}")
        fields.setdefault("platform_post_id", f"post-{n}")
        landed_at = landed_at or timezone.now()
    return Publication.objects.create(
        account=account,
        draft=draft,
        channel=channel,
        status=status,
        message=draft.text,
        scheduled_for=timezone.now(),
        landed_at=landed_at,
        **fields,
    )
