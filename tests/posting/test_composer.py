"""Composing drafts: platforms, images, cadence, idempotency and the account's voice (no LLM)."""

from __future__ import annotations

import json
from itertools import count

import pytest

from accounts.models import Account, Platform
from posting.composer.extractive import compose_extractive
from posting.composer.services import drafts_compose_all, drafts_compose_for_account
from posting.gate.core import gate_evaluate, sentences_split
from posting.models import ComposeSkip, Composition, Draft, TextSHA256, VoiceProfile
from publish.models import Channel
from research.models import Article, Source, Subscription
from tests import factories

BODY = """Harbour City will open 12 kilometres of protected bike lanes along the waterfront on 3 May, the council \
said on Tuesday.
The lanes connect the ferry terminal with the old town and cost 4.2 million euros to build.
Mayor Ana Lopes said the route would carry 6,000 riders a day within a year.
It is the largest cycling project in the region since 2009.
Click here to subscribe to our newsletter for more stories like this.
We have covered the project since it was first proposed.
Local shops along the route expect more customers once the lanes open."""

# Distinct cycling stories: composing dedupes by story, so tests that need several drafts
# need several stories, not one story at several URLs.
OTHER_STORIES = [
    (
        "Velo Norte recalls carbon forks",
        "Velo Norte has recalled 8,400 carbon forks sold between 2021 and 2023 after reports of cracking.\n"
        "Owners of the Strada and Gravel models should stop riding and return the bike to a dealer.\n"
        "The company said a replacement fork would be fitted free of charge.",
    ),
    (
        "Kestrel Cycles opens a gravel bike factory in Porto",
        "Kestrel Cycles will build 30,000 gravel bikes a year at a new factory in Porto from September.\n"
        "The plant employs 140 people and assembles frames, wheels and groupsets on one line.\n"
        "Chief executive Marta Silva said bike shops would get shorter waiting times.",
    ),
    (
        "Ridgeline tyre prices rise 9 percent",
        "Ridgeline will raise the price of its road and mountain bike tyres by 9 percent on 1 June.\n"
        "The tyre maker blamed the cost of natural rubber, which rose sharply over the winter.\n"
        "Cyclists can still buy the Ridgeline Trail tyre at the old price until the end of May.",
    ),
]
_urls = count(1)
_stories = count(0)


def article_create(
    account: Account, *, body: str = BODY, image: str = "https://news.example/lanes.jpg", **fields
) -> Article:
    """A usable article listed by a source the account subscribes to (Instagram may use its image)."""
    if not account.use_article_images:
        account.use_article_images = True
        account.save(update_fields=["use_article_images"])
    source, _ = Source.objects.get_or_create(url=f"https://news.example/{account.slug}/feed.xml")
    Subscription.objects.get_or_create(account=account, source=source)
    article = Article.objects.create(
        source=source,
        canonical_url=f"https://news.example/story-{next(_urls)}",
        title=fields.pop("title", "Harbour City opens waterfront bike lanes"),
        text=body,
        lead_image_url=image,
        extraction_status=fields.pop("extraction_status", Article.Extraction.OK),
        **fields,
    )
    article.sources.add(source)
    return article


@pytest.mark.django_db
def test_it_drafts_one_facebook_post_with_the_article_link_and_one_instagram_caption_with_its_image(
    account: Account,
) -> None:
    article = article_create(account)

    drafts = drafts_compose_for_account(account=account)

    by_platform = {d.platform: d for d in drafts}
    assert set(by_platform) == {Platform.FACEBOOK_PAGE, Platform.INSTAGRAM}
    facebook, instagram = by_platform[Platform.FACEBOOK_PAGE], by_platform[Platform.INSTAGRAM]
    assert facebook.link_url == article.canonical_url and not facebook.image_url
    assert instagram.image_url == article.lead_image_url and not instagram.link_url
    assert all(d.status == Draft.Status.DRAFTED and d.composer == "extractive" for d in drafts)
    assert len(instagram.text) <= 2200


@pytest.mark.django_db
def test_extractive_drafts_quote_the_article_verbatim_and_record_which_sentences(account: Account) -> None:
    article_create(account)

    draft = drafts_compose_for_account(account=account)[0]

    quoted = draft.composition.sources
    assert 1 <= len(quoted) <= 3
    body_sentences = sentences_split(BODY)
    for source in quoted:
        assert body_sentences[source["sentence"] - 1] == source["text"]
        assert source["text"] in draft.text
    # Boilerplate and the article's own first person never make it into a post.
    assert "newsletter" not in draft.text
    assert "We have covered" not in draft.text


@pytest.mark.django_db
def test_no_image_means_no_instagram_draft_and_the_reason_is_recorded(account: Account) -> None:
    article = article_create(account, image="")

    drafts = drafts_compose_for_account(account=account)

    assert [d.platform for d in drafts] == [Platform.FACEBOOK_PAGE]
    skip = ComposeSkip.objects.get(account=account, article=article)
    assert (skip.platform, skip.reason) == (Platform.INSTAGRAM, ComposeSkip.Reason.NO_IMAGE)


@pytest.mark.django_db
def test_composing_twice_creates_nothing_new(account: Account) -> None:
    article_create(account, image="")
    drafts_compose_for_account(account=account)

    assert drafts_compose_for_account(account=account) == []

    assert Draft.objects.filter(account=account).count() == 1
    assert ComposeSkip.objects.filter(account=account).count() == 1
    assert Composition.objects.count() == 1


@pytest.mark.django_db
def test_cadence_caps_drafts_per_platform_per_day(account: Account) -> None:
    account.cadence_per_day = 2
    account.save()
    article_create(account)
    for _ in range(3):
        story_create(account)

    drafts = drafts_compose_for_account(account=account)

    assert sorted(d.platform for d in drafts) == sorted([Platform.FACEBOOK_PAGE] * 2 + [Platform.INSTAGRAM] * 2)
    assert drafts_compose_for_account(account=account) == []


def story_create(account: Account, **fields) -> Article:
    """An article about a story no other test article tells."""
    title, body = OTHER_STORIES[next(_stories) % len(OTHER_STORIES)]
    return article_create(account, title=title, body=body, **fields)


@pytest.mark.django_db
def test_a_draft_the_gate_rejected_frees_its_slot_for_another_article(account: Account) -> None:
    article_create(account)
    story_create(account)
    first = drafts_compose_for_account(account=account)
    facebook = next(d for d in first if d.platform == Platform.FACEBOOK_PAGE)
    Draft.objects.filter(pk=facebook.pk).update(
        status=Draft.Status.GATED, gate_verdict=Draft.Verdict.REJECTED, gate_text_sha256=TextSHA256("text")
    )

    second = drafts_compose_for_account(account=account)

    assert [d.platform for d in second] == [Platform.FACEBOOK_PAGE]
    assert second[0].article_id != facebook.article_id


@pytest.mark.django_db
def test_only_platforms_with_a_channel_are_drafted_once_any_is_connected(account: Account) -> None:
    Channel.objects.create(account=account, platform=Platform.FACEBOOK_PAGE, external_id="page-1")
    article_create(account)

    drafts = drafts_compose_for_account(account=account)

    assert [d.platform for d in drafts] == [Platform.FACEBOOK_PAGE]


@pytest.mark.django_db
def test_articles_that_are_not_usable_for_the_account_are_never_drafted(
    account: Account, other_account: Account
) -> None:
    article_create(account, extraction_status=Article.Extraction.INSUFFICIENT)
    article_create(other_account)

    assert drafts_compose_for_account(account=account) == []


@pytest.mark.django_db
def test_an_article_with_nothing_quotable_is_skipped_with_a_reason(account: Account) -> None:
    article = article_create(account, body="Click here to subscribe.\nShort.\nWe loved it.", image="")

    assert drafts_compose_for_account(account=account) == []

    skip = ComposeSkip.objects.get(article=article, platform=Platform.FACEBOOK_PAGE)
    assert skip.reason == ComposeSkip.Reason.NO_SENTENCES


@pytest.mark.django_db
def test_the_draft_is_shaped_by_the_voice_emoji_sign_off_and_hashtags(account: Account) -> None:
    VoiceProfile.objects.create(
        account=account,
        platform=Platform.INSTAGRAM,
        stats={
            "post_count": 10,
            "length": {"median": 150, "p25": 120, "p75": 200, "min": 80, "max": 260},
            "emoji": {"rate": 0.8, "per_post": 1.2, "placement": "end", "top": ["\U0001f6b2"]},
            "hashtags": {
                "rate": 0.9,
                "per_post": 2,
                "typical": 2,
                "placement": "end",
                "top": ["#harbourlife", "#ride"],
            },
            "sign_offs": ["See you on the road!"],
        },
    )
    article_create(account)

    instagram = next(d for d in drafts_compose_for_account(account=account) if d.platform == Platform.INSTAGRAM)

    blocks = instagram.text.split("\n\n")
    # Opening, the facts (with the emoji where the business puts it: at the end), sign-off, tags.
    assert blocks[1].endswith("\U0001f6b2")
    assert "See you on the road!" in blocks
    assert blocks[-1] == "#harbourlife #ride"
    # A short voice (median 150 characters) gets a one-sentence post.
    assert len(instagram.composition.sources) == 1


@pytest.mark.django_db
def test_compose_all_skips_paused_accounts() -> None:
    active = factories.account_create(name="Active", slug="active")
    paused = factories.account_create(name="Paused", slug="paused", paused=True)
    article_create(active)
    article_create(paused)

    counts = drafts_compose_all()

    assert counts == {"accounts": 1, "drafts": 2, "accounts_failed": 0}
    assert not Draft.objects.filter(account=paused).exists()


@pytest.mark.django_db
def test_the_compose_job_queues_one_task_per_active_account(django_capture_on_commit_callbacks) -> None:
    import redis
    from django.conf import settings

    from cron.jobs import job_get

    accounts = [factories.account_create(name=f"Shop {n}", slug=f"shop-{n}") for n in range(3)]
    factories.account_create(name="Paused", slug="paused", paused=True)
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.delete("celery", "compose")

    # when the cron job runs (on a broker: tasks go to the workers, none composes here)
    with django_capture_on_commit_callbacks(execute=True):
        counts = job_get("compose_drafts").service_function()()

    # then every active account has its own task, so the workers compose them side by side,
    # on the compose queue: the drafts they hand the gate never wait behind the other accounts
    queued = [json.loads(message) for message in broker.lrange("compose", 0, -1)]
    assert broker.llen("celery") == 0
    broker.delete("celery", "compose")
    assert counts == {"accounts": 3}
    assert sorted(m["headers"]["task"] for m in queued) == ["posting.tasks.account_drafts_compose_task"] * 3
    assert sorted(m["headers"]["argsrepr"] for m in queued) == sorted(f"({a.pk},)" for a in accounts)
    assert not Draft.objects.exists()


def test_extractive_sentence_numbers_are_the_gates_numbers() -> None:
    post = compose_extractive(title="Harbour City opens waterfront bike lanes", body=BODY, platform="x", stats={})
    gate_numbered = dict(enumerate(sentences_split(BODY), start=1))

    assert post is not None
    assert all(gate_numbered[s["sentence"]] == s["text"] for s in post.sources)


def test_a_sentence_that_leans_on_the_one_before_is_never_quoted_alone() -> None:
    body = (
        "It was the biggest order in the history of the company and a surprise to many analysts.\n"
        "Northwind Traders ordered 40 electric vans from Volta Motors for delivery in 2026."
    )

    post = compose_extractive(title="Northwind orders vans", body=body, platform="facebook_page", stats={})

    assert post is not None
    assert [source["sentence"] for source in post.sources] == [2]
    assert "It was the biggest order" not in post.text


def test_extractive_drafts_pass_the_factual_gate() -> None:
    for platform in ("facebook_page", "instagram"):
        post = compose_extractive(
            title="Harbour City opens waterfront bike lanes", body=BODY, platform=platform, stats={}, industry="cycling"
        )
        assert post is not None

        result = gate_evaluate(text=post.text, title="Harbour City opens waterfront bike lanes", body=BODY)

        assert result.verdict == "passed", result.claims
