"""The demo business that ``make run`` seeds: a login, feeds and sandbox channels.

Idempotent: running it again finds what exists. Talks to the Graph sandbox over its
HTTP control API, so it works whether the sandbox runs in this process or another.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from posting.models import Account, Membership, Platform

DEMO_SLUG = "demo"
DEMO_PAST_POSTS = settings.BASE_DIR / "demo" / "past_posts.json"
DEMO_USERNAME = "demo"


@dataclass
class DemoLogin:
    account: Account
    username: str
    password: str


def demo_seed(*, feeds_url: str) -> DemoLogin:
    from publish.models import Channel
    from research.demo import ATOM_PATH, RSS_PATH
    from research.services import source_subscribe

    password = _demo_password()
    with transaction.atomic():
        account, _ = Account.objects.get_or_create(
            slug=DEMO_SLUG,
            defaults={
                "name": "Lighthouse Digital",
                "industry": "technology",
                "is_paying": True,
                "cadence_per_day": 3,
                "own_names": ["Lighthouse Digital", "@lighthousedigital"],
            },
        )
        user, created = get_user_model().objects.get_or_create(username=DEMO_USERNAME)
        if created or not user.check_password(password):
            user.set_password(password)
            user.save()
        Membership.objects.get_or_create(user=user, account=account, defaults={"role": Membership.Role.OWNER})
        for path, title in ((RSS_PATH, "Industry news (demo)"), (ATOM_PATH, "Science news (demo)")):
            source_subscribe(account=account, url=f"{feeds_url}{path}", title=title)

    if not Channel.objects.filter(account=account, status=Channel.Status.CONNECTED).exists():
        _sandbox_channels_connect(account)
    _demo_voice_learn(account)
    return DemoLogin(account=account, username=DEMO_USERNAME, password=password)


def _demo_voice_learn(account: Account) -> None:
    """Import the demo business's past posts and learn its voice, once (learned once, relearned on request)."""
    from posting.models import VoiceProfile
    from posting.voice.services import voice_import, voice_learn

    past_posts = json.loads(DEMO_PAST_POSTS.read_text())
    for platform, posts in past_posts.items():
        if VoiceProfile.objects.filter(account=account, platform=platform).exists():
            continue
        voice_import(account=account, platform=platform, posts=posts, origin="demo")
        voice_learn(account=account, platform=platform)


def _sandbox_channels_connect(account: Account) -> None:
    """Create a sandbox user and page (with Instagram) and bind both as channels.

    The real path is the OAuth connect flow on the Channels page; the demo skips the
    consent screen so drafts can be approved the moment the app opens.
    """
    from publish.services import channel_connect_sandbox

    control = f"{settings.GRAPH_API_BASE_URL}/_sandbox"
    user = _control(f"{control}/create_user", {"name": "Demo Owner"})
    page = _control(
        f"{control}/create_page", {"user_id": user["id"], "name": account.name, "ig_username": "lighthouse"}
    )
    channel_connect_sandbox(
        account=account,
        platform=Platform.FACEBOOK_PAGE,
        external_id=page["id"],
        name=page["name"],
        token=page["access_token"],
    )
    if page.get("instagram_id"):
        channel_connect_sandbox(
            account=account,
            platform=Platform.INSTAGRAM,
            external_id=page["instagram_id"],
            name="@lighthouse",
            token=page["access_token"],
        )


def _control(url: str, payload: dict[str, object]) -> dict[str, str]:
    response = requests.post(url, json=payload, timeout=10)
    response.raise_for_status()
    return response.json()


def _demo_password() -> str:
    """A random password kept under var/, so the printed login stays the same across runs."""
    path = settings.VAR_DIR / "demo_password"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(12))
        path.chmod(0o600)
    return path.read_text().strip()
