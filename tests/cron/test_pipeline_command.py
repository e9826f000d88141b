"""`manage.py pipeline`: every stage headless, ending in a post the sandbox shows live; and the
demo business it runs on (`make run`, `make pipeline`)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from accounts.models import Account, Platform
from cron.models import JobRun
from devkit.demo import DEMO_PAST_POSTS, demo_seed
from devkit.demo_feeds import ATOM_PATH, AUDIO_FEED_PATH, DIGEST_FEED_PATH, RSS_PATH, demo_site_server
from devkit.devserver import StaticSiteServer
from devkit.sandbox import GraphSandbox
from posting.models import Draft, PastPost, VoiceProfile
from posting.voice.services import voice_import, voice_learn
from publish.models import Channel, Publication
from research.services import source_subscribe

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_broker(settings) -> None:
    # As `make pipeline` runs it, with no broker: publish and reconcile run in the command.
    # With a broker the workers publish (tests/test_pipeline_worker.py).
    settings.CELERY_TASK_ALWAYS_EAGER = True


@pytest.fixture
def sandbox(settings) -> Iterator[GraphSandbox]:
    sb = GraphSandbox()
    sb.start()
    settings.GRAPH_API_BASE_URL = sb.base_url
    yield sb
    sb.close()


@pytest.fixture
def feeds(settings) -> Iterator[StaticSiteServer]:
    server = demo_site_server()
    settings.RESEARCH_ALLOW_HOSTS = [f"127.0.0.1:{server.port}"]
    yield server
    server.stop()


def test_the_demo_account_ends_with_landed_posts_read_back_from_the_sandbox(sandbox, feeds, settings, tmp_path):
    # given: the demo business make run seeds (feeds, sandbox channels, voice)
    settings.VAR_DIR = tmp_path
    login = demo_seed(feeds_url=feeds.base_url)

    # when: the headless pipeline runs, approving as the demo owner
    out = StringIO()
    call_command("pipeline", account=login.account.slug, approve_as=login.username, json=True, stdout=out)
    funnel = json.loads(out.getvalue().strip().splitlines()[-1])

    # then: every stage produced something, and posts landed
    assert funnel["articles"] > 0
    assert funnel["drafts"] > 0
    assert funnel["approved"] > 0
    assert funnel["landed"] >= 1
    live = {p["id"]: p["permalink_url"] for p in sandbox.posts()} | {m["id"]: m["permalink"] for m in sandbox.media()}
    for publication in Publication.objects.filter(status=Publication.Status.LANDED):
        # The permalink is the one the platform shows for that post...
        assert publication.permalink == live[publication.platform_post_id]
    # ...and it was learned by reading the post back, not from the publish response.
    reads = [r for r in sandbox.requests_log() if r["method"] == "GET" and "/p/" not in r["path"]]
    landed_ids = Publication.objects.filter(status=Publication.Status.LANDED).values_list("platform_post_id", flat=True)
    for post_id in landed_ids:
        assert any(r["path"].endswith(f"/{post_id}") for r in reads), post_id
    # and each stage it ran is recorded as a run of its job, so /ops/ does not read "never"
    recorded = {run.job: run for run in JobRun.objects.filter(trigger="pipeline")}
    stages = {"research_feeds", "compose_drafts", "gate_drafts", "publish_due", "poll_ig_containers"}
    assert stages | {"reconcile_recent"} <= set(recorded)
    assert all(run.outcome == JobRun.Outcome.OK for run in recorded.values())
    assert recorded["compose_drafts"].counts["drafts"] == funnel["drafts"]


def test_running_it_twice_publishes_nothing_twice(sandbox, feeds, settings, tmp_path):
    settings.VAR_DIR = tmp_path
    login = demo_seed(feeds_url=feeds.base_url)
    call_command("pipeline", account=login.account.slug, approve_as=login.username, json=True, stdout=StringIO())
    posts_after_first = len(sandbox.posts()) + len(sandbox.media())

    call_command("pipeline", account=login.account.slug, approve_as=login.username, json=True, stdout=StringIO())

    assert len(sandbox.posts()) + len(sandbox.media()) == posts_after_first


def test_an_unknown_account_is_a_clear_error(db):
    with pytest.raises(CommandError, match="No account with slug"):
        call_command("pipeline", account="nope", stdout=StringIO())


def test_approving_as_a_non_member_is_refused(sandbox, feeds, settings, tmp_path, other_member):
    settings.VAR_DIR = tmp_path
    login = demo_seed(feeds_url=feeds.base_url)
    with pytest.raises(CommandError, match="not a member"):
        call_command("pipeline", account=login.account.slug, approve_as=other_member.username, stdout=StringIO())


# Emoji as the voice module counts them, in a plain form: pictographs, symbols, dingbats.
EMOJI = re.compile("[\U0001f300-\U0001faff\u2600-\u27bf]")
SIGN_OFF = "\u2014 The Harbour Hi-Fi team"


def test_the_demo_past_posts_have_one_distinct_consistent_voice():
    past = json.loads(DEMO_PAST_POSTS.read_text())
    facebook = [post["text"] for post in past[Platform.FACEBOOK_PAGE]]
    instagram = [post["text"] for post in past[Platform.INSTAGRAM]]
    assert 10 <= len(facebook) <= 12 and 8 <= len(instagram) <= 10

    for posts in (facebook, instagram):
        # "we", speaking to "you", a question in about half the posts
        assert all(re.search(r"\b(we|we're|we've|we'll|us|our)\b", p, re.IGNORECASE) for p in posts)
        assert sum(bool(re.search(r"\byou", p, re.IGNORECASE)) for p in posts) / len(posts) >= 0.5
        assert 0.35 <= sum("?" in p for p in posts) / len(posts) <= 0.65
    # Facebook: signed off, mostly with a link, never an emoji or a hashtag
    assert sum(p.endswith("\n" + SIGN_OFF) for p in facebook) >= 0.7 * len(facebook)
    assert sum("https://" in p for p in facebook) >= 0.6 * len(facebook)
    assert not any(EMOJI.search(p) or "#" in p for p in facebook)
    # Instagram: its own two emoji and its own three hashtags, no links, no sign-off
    assert {e for p in instagram for e in EMOJI.findall(p)} == {"\U0001f3b6", "\U0001f3a7"}
    assert {t for p in instagram for t in re.findall(r"#\w+", p)} == {"#harbourhifi", "#vinylnight", "#listeningroom"}
    assert all(EMOJI.search(p) and "#harbourhifi" in p for p in instagram)
    assert not any("http" in p or "link in bio" in p.lower() or SIGN_OFF in p for p in instagram)


def test_the_demo_business_is_a_hi_fi_shop_reading_audio_trade_news(sandbox, feeds, settings, tmp_path):
    settings.VAR_DIR = tmp_path

    account = demo_seed(feeds_url=feeds.base_url).account

    assert (account.name, account.industry) == ("Harbour Hi-Fi", "audio retail")
    assert set(account.own_names) == {"Harbour Hi-Fi", "@harbourhifi"}
    subscribed = set(account.subscriptions.values_list("source__url", flat=True))
    assert subscribed == {f"{feeds.base_url}{AUDIO_FEED_PATH}", f"{feeds.base_url}{DIGEST_FEED_PATH}"}
    instagram = Channel.objects.get(account=account, platform=Platform.INSTAGRAM)
    assert instagram.name == "@harbourhifi"
    past = json.loads(DEMO_PAST_POSTS.read_text())
    for platform, posts in past.items():
        assert VoiceProfile.objects.get(account=account, platform=platform).source_post_count == len(posts)


def test_seeding_again_brings_an_older_demo_account_up_to_date(sandbox, feeds, settings, tmp_path):
    # given: a var/ seeded by the old demo (a web agency reading the real pages' feeds)
    settings.VAR_DIR = tmp_path
    old = Account.objects.create(slug="demo", name="Lighthouse Digital", industry="technology", is_paying=True)
    for path in (RSS_PATH, ATOM_PATH):
        source_subscribe(account=old, url=f"{feeds.base_url}{path}")
    voice_import(account=old, platform=Platform.FACEBOOK_PAGE, posts=[{"text": "We build websites."}], origin="demo")
    voice_learn(account=old, platform=Platform.FACEBOOK_PAGE)

    # when: make run seeds it again, twice
    account = demo_seed(feeds_url=feeds.base_url).account
    posts_after_first = list(PastPost.objects.order_by("pk").values_list("pk", flat=True))
    demo_seed(feeds_url=feeds.base_url)

    # then: it is the hi-fi shop, reading its own feeds, in its own voice, and stays so
    assert account.pk == old.pk and account.name == "Harbour Hi-Fi"
    subscribed = set(account.subscriptions.values_list("source__url", flat=True))
    assert subscribed == {f"{feeds.base_url}{AUDIO_FEED_PATH}", f"{feeds.base_url}{DIGEST_FEED_PATH}"}
    past = json.loads(DEMO_PAST_POSTS.read_text())
    stored = set(PastPost.objects.filter(account=account).values_list("text", flat=True))
    assert stored == {post["text"] for posts in past.values() for post in posts}
    profile = VoiceProfile.objects.get(account=account, platform=Platform.FACEBOOK_PAGE)
    assert profile.source_post_count == len(past[Platform.FACEBOOK_PAGE])
    assert list(PastPost.objects.order_by("pk").values_list("pk", flat=True)) == posts_after_first


def test_the_demo_drafts_audio_trade_stories_and_skips_the_digests_other_trades(sandbox, feeds, settings, tmp_path):
    # given: the demo business, whose second-newest article is a telescope story from the digest
    settings.VAR_DIR = tmp_path
    login = demo_seed(feeds_url=feeds.base_url)

    # when: the pipeline drafts its day's posts
    call_command("pipeline", account=login.account.slug, json=True, stdout=StringIO())

    # then: every draft is about an audio-trade story
    drafted = list(Draft.objects.filter(account=login.account).values_list("article__canonical_url", flat=True))
    assert drafted
    assert all("/audio/" in url for url in drafted), drafted
