"""Never two drafts about one story, over a night of real articles (issue 10, item 1).

Real PostgreSQL, the real composer, gate and sentence model: nothing mocked. The night's batch is
a split's articles, so "a name no other article of the night carries" means what it does in
production (``relevance.story_names_common``).
"""

from __future__ import annotations

import json

import pytest

from accounts.models import Platform
from posting.composer.checking import article_file_load, business_file_load
from posting.composer.evaluation import DATA_DIR
from posting.composer.relevance import SAME_STORY_BATCH_MIN
from posting.composer.services import drafts_compose_for_account
from posting.models import ComposeSkip, PastPost
from research.models import Article
from tests import factories
from tests.posting.test_composer import article_create

pytestmark = pytest.mark.django_db

SPLIT = DATA_DIR / "blind22"  # tuned-on
RECALL = "toys-01-magnetic-building-set-recalled-after-child-swallows-pieces.txt"
SHELVES = "safety-01-shops-told-to-clear-shelves-of-stacking-magnet-kit.txt"


def test_a_second_outlets_report_of_a_recall_sharing_few_words_is_skipped_as_the_same_story() -> None:
    told = business_file_load(SPLIT / "businesses" / "pennywhistle-toys.json")
    account = factories.account_create(name=told.name, slug="toys", industry=told.industry, own_names=told.own_names)
    account.cadence_per_day = 2
    account.save()
    PastPost.objects.bulk_create(
        [PastPost(account=account, platform=Platform.FACEBOOK_PAGE, text=text) for text in told.facebook_posts]
        + [PastPost(account=account, platform=Platform.INSTAGRAM, text=text) for text in told.instagram_posts]
    )
    # The night: the two reports and 18 of the split's articles the shop would not post about.
    relevant = set(json.loads((SPLIT / "labels.json").read_text())["pennywhistle-toys"]["relevant"])
    others = [path.name for path in sorted((SPLIT / "articles").glob("*.txt")) if path.name not in relevant]
    night = [RECALL, SHELVES, *others[:18]]
    assert len(night) >= SAME_STORY_BATCH_MIN
    created: dict[str, Article] = {}
    for name in night:
        found = article_file_load(SPLIT / "articles" / name)
        created[name] = article_create(account, title=found.title, body=found.body)

    drafted = {draft.article_id for draft in drafts_compose_for_account(account=account)}

    pair = {created[RECALL].pk, created[SHELVES].pk}
    assert len(drafted & pair) == 1
    [other] = pair - drafted
    skip = ComposeSkip.objects.filter(account=account, article_id=other).first()
    assert skip is not None and skip.reason == ComposeSkip.Reason.SAME_STORY
    assert "Same story as" in skip.detail
