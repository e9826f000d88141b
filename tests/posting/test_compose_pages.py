"""What the customer sees of composing: why an article was chosen, the image, and the settings."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Account, Platform, Role
from posting.composer.services import drafts_compose_for_account
from posting.gate.services import drafts_gate_pending
from posting.models import ComposeSkip, Draft
from research.models import Article
from tests import factories
from tests.posting.test_composer import article_create


def retold_article_create(account: Account) -> Article:
    """article_create's story (the waterfront bike lanes) told by another outlet in other words."""
    return article_create(
        account,
        title="Waterfront bike lanes for Harbour City",
        body="Harbour City opens 12 kilometres of protected bike lanes on the waterfront on 3 May, the council said.\n"
        "Mayor Ana Lopes expects 6,000 riders a day on the 4.2 million euro route between the ferry terminal "
        "and the old town.",
    )


@pytest.mark.django_db
def test_a_draft_shows_why_this_article_and_its_image_as_a_thumbnail(account: Account, member_client: Client) -> None:
    article_create(account)
    drafts_compose_for_account(account=account)
    drafts_gate_pending()
    assert set(Draft.objects.filter(account=account).values_list("gate_verdict", flat=True)) == {"passed"}

    page = member_client.get(reverse("drafts", kwargs={"slug": account.slug})).content.decode()

    assert "Why this article: it is about" in page
    assert "lane" in page.split("Why this article: it is about", 1)[1][:200]
    assert '<img src="https://news.example/lanes.jpg"' in page


@pytest.mark.django_db
def test_article_images_are_off_by_default_so_instagram_is_skipped_with_the_reason(account: Account) -> None:
    article = article_create(account)
    account.use_article_images = False
    account.save()

    drafts = drafts_compose_for_account(account=account)

    assert [d.platform for d in drafts] == [Platform.FACEBOOK_PAGE]
    assert drafts[0].image_url == ""
    skip = ComposeSkip.objects.get(account=account, article=article)
    assert (skip.platform, skip.reason) == (Platform.INSTAGRAM, ComposeSkip.Reason.IMAGE_NOT_ALLOWED)


@pytest.mark.django_db
def test_an_article_from_another_trade_is_skipped_as_off_topic_with_its_score(account: Account) -> None:
    article = article_create(
        account,
        title="Neanderthal teeth found in a Spanish cave",
        body="Archaeologists found Neanderthal teeth in a cave near Burgos dated to 50,000 years ago.\n"
        "The fossils were published in the journal Nature by a team from Madrid.",
    )

    assert drafts_compose_for_account(account=account) == []

    skips = ComposeSkip.objects.filter(account=account, article=article)
    assert {s.reason for s in skips} == {ComposeSkip.Reason.OFF_TOPIC}
    assert all("Relevance" in s.detail for s in skips)


@pytest.mark.django_db
def test_the_same_story_from_another_outlet_is_not_drafted_twice(account: Account) -> None:
    first = article_create(account)
    retold = retold_article_create(account)

    drafts = drafts_compose_for_account(account=account)

    # The better-ranked telling is drafted (on both platforms); the other is skipped as the same story.
    [drafted] = {d.article_id for d in drafts}
    [skipped] = {first.pk, retold.pk} - {drafted}
    assert {s.reason for s in ComposeSkip.objects.filter(article_id=skipped)} == {ComposeSkip.Reason.SAME_STORY}
    # Named by the headline the customer saw, not by our id for it.
    title = first.title if drafted == first.pk else retold.title
    assert {s.detail for s in ComposeSkip.objects.filter(article_id=skipped)} == {
        f"Same story as \u201c{title}\u201d, already drafted."
    }
    assert drafts_compose_for_account(account=account) == []


@pytest.mark.django_db
def test_an_editor_sets_topics_images_and_bio_link_on_the_voice_page(account: Account) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(factories.member_create(account=account, username="ed", role=Role.EDITOR))
    url = reverse("voice:voice", kwargs={"slug": account.slug})
    page = client.get(url)
    token = page.cookies["csrftoken"].value

    response = client.post(
        reverse("voice:settings", kwargs={"slug": account.slug}),
        {
            "topics": "vinyl, turntables,  , vinyl",
            "use_article_images": "on",
            "instagram_bio_link": "https://example.com/links",
            "csrfmiddlewaretoken": token,
        },
    )

    assert response.status_code == 302
    account.refresh_from_db()
    assert account.topics == ["vinyl", "turntables"]
    assert account.use_article_images is True
    assert account.instagram_bio_link == "https://example.com/links"


@pytest.mark.django_db
def test_a_viewer_cannot_change_the_settings_and_a_bad_link_saves_nothing(account: Account) -> None:
    viewer = Client()
    viewer.force_login(factories.member_create(account=account, username="v", role=Role.VIEWER))
    editor = Client()
    editor.force_login(factories.member_create(account=account, username="e", role=Role.EDITOR))
    url = reverse("voice:settings", kwargs={"slug": account.slug})

    assert viewer.post(url, {"topics": "x"}).status_code == 403
    editor.post(url, {"topics": "vinyl", "instagram_bio_link": "not a link"})

    account.refresh_from_db()
    assert account.topics == [] and account.instagram_bio_link == ""


@pytest.mark.django_db
def test_the_drafts_page_lists_what_relevance_skipped_and_why(account: Account, member_client: Client) -> None:
    article_create(
        account,
        title="Astronomers map a distant galaxy",
        body="Astronomers using the Sierra telescope mapped a galaxy 12 billion light years away.\n"
        "The survey took 40 nights of observation and was published in the Astrophysical Journal.",
    )
    drafts_compose_for_account(account=account)

    page = member_client.get(reverse("drafts", kwargs={"slug": account.slug})).content.decode()

    assert "Skipped: not about your business" in page
    # One row per article, not one per platform, each with its "Draft it anyway" for the owner.
    assert page.count('<div class="skipped">') == 1 and page.count(">Draft it anyway</button>") == 1
    assert "Astronomers map a distant galaxy" in page
    assert "Not about what the business is about" in page and "Relevance 0." in page


@pytest.mark.django_db
def test_many_retellings_of_one_story_cost_the_same_queries_as_a_few(
    account: Account, django_assert_max_num_queries
) -> None:
    """Skips are recorded in one insert: a trade whose feeds retell one story forty times
    (a busy night) must not cost a round trip per article and platform."""

    def retellings(n: int, start: int) -> None:
        for i in range(start, start + n):
            article_create(
                account,
                title=f"Harbour City bike lanes, report {i}",
                body="Harbour City opens 12 kilometres of protected bike lanes on the waterfront on 3 May.\n"
                f"Mayor Ana Lopes expects 6,000 riders a day on the route, report {i} says.",
            )

    article_create(account)
    retellings(3, 0)
    with CaptureQueriesContext(connection) as few:
        drafts_compose_for_account(account=account)
    assert ComposeSkip.objects.filter(account=account, reason=ComposeSkip.Reason.SAME_STORY).count() == 6

    ComposeSkip.objects.all().delete()
    Draft.objects.all().delete()
    retellings(40, 3)
    with django_assert_max_num_queries(len(few.captured_queries) + 2):
        drafts_compose_for_account(account=account)
    assert ComposeSkip.objects.filter(account=account, reason=ComposeSkip.Reason.SAME_STORY).count() == 2 * 43
