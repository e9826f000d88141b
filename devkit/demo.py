"""The demo business that ``make run`` seeds: a login, feeds, a voice and sandbox channels.

Harbour Hi-Fi is an independent hi-fi and record shop (like the service's first real
customer). It reads the demo site's audio-trade feed and a general news digest with
off-topic stories in it (``devkit/demo_feeds.py``), and its past posts
(``demo/past_posts.json``) have a voice of their own: "we", speaking to "you", a
question in about half of them, a signed-off Facebook post with a link, two or three
of its own hashtags and its own two emoji on Instagram only.

Idempotent, and it converges: running it again finds what exists and brings a demo
account seeded by an older version (a var/ kept from before) up to this definition.
Talks to the Graph sandbox over its HTTP control API, so it works whether the sandbox
runs in this process or another.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass

import requests
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from accounts.models import Account, Membership, Platform, Role
from devkit.demo_feeds import ATOM_PATH, AUDIO_FEED_PATH, DIGEST_FEED_PATH, RSS_PATH
from posting.models import PastPost, VoiceProfile
from posting.voice.services import voice_import, voice_learn
from publish.models import Channel
from publish.services import channel_bind
from research.services import source_subscribe, source_unsubscribe

DEMO_SLUG = "demo"
DEMO_PAST_POSTS = settings.BASE_DIR / "demo" / "past_posts.json"
DEMO_USERNAME = "demo"
DEMO_BUSINESS = {
    "name": "Harbour Hi-Fi",
    "industry": "audio retail",
    # A small shop posts a couple of times a day, not a feed's worth.
    "cadence_per_day": 2,
    "own_names": ["Harbour Hi-Fi", "@harbourhifi"],
    "topics": ["turntables", "vinyl", "speakers", "amplifiers", "headphones"],
    # The demo feeds' lead images were drawn for the demo (scripts/demo_images.py), so the
    # demo may use them; a real account decides this itself (off by default: the
    # publisher's image).
    "use_article_images": True,
}
DEMO_INSTAGRAM_USERNAME = "harbourhifi"
# How demo past posts are marked, so a changed past_posts.json replaces only its own.
DEMO_ORIGIN = "demo"


@dataclass
class DemoLogin:
    account: Account
    username: str
    password: str


def demo_seed(*, feeds_url: str) -> DemoLogin:
    password = _demo_password()
    with transaction.atomic():
        account, _ = Account.objects.update_or_create(
            slug=DEMO_SLUG, defaults=DEMO_BUSINESS, create_defaults={**DEMO_BUSINESS, "is_paying": True}
        )
        user, created = get_user_model().objects.get_or_create(username=DEMO_USERNAME)
        if created or not user.check_password(password):
            user.set_password(password)
            user.save()
        Membership.objects.get_or_create(user=user, account=account, defaults={"role": Role.OWNER})
        for path, title in ((AUDIO_FEED_PATH, "Audio trade news"), (DIGEST_FEED_PATH, "News digest")):
            source_subscribe(account=account, url=f"{feeds_url}{path}", title=title)
        # Earlier demos read the real pages' feeds; those are test fixtures now.
        retired = {f"{feeds_url}{path}" for path in (RSS_PATH, ATOM_PATH)}
        for source_id in account.subscriptions.filter(source__url__in=retired).values_list("source_id", flat=True):
            source_unsubscribe(account=account, source_id=source_id)

    if not Channel.objects.filter(account=account, status=Channel.Status.CONNECTED).exists():
        _sandbox_channels_connect(account)
    _demo_voice_learn(account)
    return DemoLogin(account=account, username=DEMO_USERNAME, password=password)


def _demo_voice_learn(account: Account) -> None:
    """Import the demo business's past posts and learn its voice, per platform, when they
    are not what ``demo/past_posts.json`` says (first run, or the file changed)."""
    past_posts = json.loads(DEMO_PAST_POSTS.read_text())
    for platform, posts in past_posts.items():
        wanted = {post["text"].strip() for post in posts}
        demo_posts = PastPost.objects.filter(account=account, platform=platform, origin=DEMO_ORIGIN)
        if set(demo_posts.values_list("text", flat=True)) != wanted:
            demo_posts.delete()
            voice_import(account=account, platform=platform, posts=posts, origin=DEMO_ORIGIN)
        elif VoiceProfile.objects.filter(account=account, platform=platform).exists():
            continue
        voice_learn(account=account, platform=platform)


def _sandbox_channels_connect(account: Account) -> None:
    """Create a sandbox user and page (with Instagram) and bind both as channels.

    The real path is the OAuth connect flow on the Channels page; the demo skips the
    consent screen so drafts can be approved the moment the app opens.
    """
    control = f"{settings.GRAPH_API_BASE_URL}/_sandbox"
    user = _control(f"{control}/create_user", {"name": "Demo Owner"})
    page = _control(
        f"{control}/create_page", {"user_id": user["id"], "name": account.name, "ig_username": DEMO_INSTAGRAM_USERNAME}
    )
    channel_bind(
        account=account,
        platform=Platform.FACEBOOK_PAGE,
        external_id=page["id"],
        name=page["name"],
        token=page["access_token"],
    )
    if page.get("instagram_id"):
        channel_bind(
            account=account,
            platform=Platform.INSTAGRAM,
            external_id=page["instagram_id"],
            name=f"@{DEMO_INSTAGRAM_USERNAME}",
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
