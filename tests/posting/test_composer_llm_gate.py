"""The model's post must pass the factual gate before anyone sees it: one retry, then offline."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from accounts.models import Account, Platform
from posting.composer.services import drafts_compose_for_account
from posting.models import LLMUsage, VoiceProfile
from tests.llm_server import LLMServer, Reply, serve_llm
from tests.posting.test_composer import article_create

PASSING = {
    "text": "Harbour City will open 12 kilometres of protected bike lanes along the waterfront on 3 May.",
    "claims": [{"text": "Harbour City will open 12 kilometres of protected bike lanes", "sentences": [1]}],
}
# 20 kilometres and 2010: numbers the article does not have.
FAILING = {
    "text": "Harbour City will open 20 kilometres of bike lanes in 2010, the biggest in Europe.",
    "claims": [{"text": "Harbour City will open 20 kilometres of bike lanes", "sentences": [1]}],
}


@pytest.fixture
def llm(settings) -> Iterator[LLMServer]:
    yield from serve_llm(settings, timeout_s=0.5, max_retries=0)


@pytest.fixture
def facebook_only(account: Account) -> Account:
    from publish.models import Channel

    Channel.objects.create(account=account, platform=Platform.FACEBOOK_PAGE, external_id="page-1")
    VoiceProfile.objects.create(
        account=account,
        platform=Platform.FACEBOOK_PAGE,
        stats={"post_count": 4, "person": "we", "person_rate": 1.0, "you_rate": 0.0, "sign_offs": ["Ride safe!"]},
        exemplars=["We fitted new mudguards to the whole club fleet this week.\nRide safe!"],
    )
    return account


def _prompts(llm: LLMServer) -> list[str]:
    return ["\n".join(m["content"] for m in request.body["messages"]) for request in llm.requests]


@pytest.mark.django_db
def test_a_post_that_passes_the_gate_is_the_draft_and_the_prompt_carries_voice_and_exemplars(
    llm: LLMServer, facebook_only: Account
) -> None:
    llm.script(Reply.ok(PASSING))
    article_create(facebook_only)

    [draft] = drafts_compose_for_account(account=facebook_only)

    assert (draft.composer, draft.text) == ("llm", PASSING["text"])
    [prompt] = _prompts(llm)
    assert 'Write as "we"' in prompt and "Use no emoji." in prompt and "Ride safe!" in prompt
    assert "We fitted new mudguards" in prompt


@pytest.mark.django_db
def test_bad_news_asks_the_model_for_a_serious_tone_and_good_news_does_not(
    llm: LLMServer, facebook_only: Account
) -> None:
    llm.script(Reply.ok(PASSING), Reply.ok(PASSING), Reply.ok(PASSING))
    facebook_only.cadence_per_day = 2
    facebook_only.save(update_fields=["cadence_per_day"])
    article_create(facebook_only)
    article_create(
        facebook_only,
        title="Quay Road bike lane closed after lorry crash injures two cyclists",
        body=(
            "Two cyclists were hurt on Sunday when a lorry crashed through the barrier of the Quay Road bike lane.\n"
            "Police closed the bike lane for six hours while the barrier was repaired.\n"
            "Cycling groups asked for stronger barriers on the busiest bike routes and more bike parking."
        ),
    )

    drafts_compose_for_account(account=facebook_only)

    # The crash article's prompt is asked twice: the scripted post is about the lanes, fails the
    # gate against it, and the retry carries the reasons.
    prompts = _prompts(llm)
    lanes = [p for p in prompts if "ARTICLE HEADLINE: Harbour City opens" in p]
    crash = [p for p in prompts if "ARTICLE HEADLINE: Quay Road" in p]
    assert lanes and crash and len(lanes) + len(crash) == len(prompts)
    assert not any("keep the tone serious" in p for p in lanes)
    assert all("keep the tone serious" in p for p in crash)


@pytest.mark.django_db
def test_a_post_failing_the_gate_is_retried_once_with_the_reasons_and_the_retry_is_used(
    llm: LLMServer, facebook_only: Account
) -> None:
    llm.script(Reply.ok(FAILING), Reply.ok(PASSING))
    article_create(facebook_only)

    [draft] = drafts_compose_for_account(account=facebook_only)

    assert (draft.composer, draft.text) == ("llm", PASSING["text"])
    first, retry = _prompts(llm)
    assert "FAILED THE FACT CHECK" not in first
    assert "FAILED THE FACT CHECK" in retry and "20" in retry.split("FAILED THE FACT CHECK", 1)[1]


@pytest.mark.django_db
def test_a_post_failing_the_gate_twice_is_never_shown_the_offline_draft_is(
    llm: LLMServer, facebook_only: Account
) -> None:
    llm.script(Reply.ok(FAILING), Reply.ok(FAILING))
    article_create(facebook_only)

    [draft] = drafts_compose_for_account(account=facebook_only)

    assert len(llm.requests) == 2
    assert draft.composer == "extractive"
    assert "20 kilometres" not in draft.text
    assert "failed the factual gate twice" in draft.composition.fallback_reason


@pytest.mark.django_db
def test_a_malformed_answer_falls_back_to_the_offline_draft_without_a_retry(
    llm: LLMServer, facebook_only: Account
) -> None:
    llm.script(Reply.ok("this is not JSON"))
    article_create(facebook_only)

    [draft] = drafts_compose_for_account(account=facebook_only)

    assert len(llm.requests) == 1
    assert draft.composer == "extractive"
    assert draft.composition.llm_usage.status == LLMUsage.Status.MALFORMED
