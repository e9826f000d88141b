"""The LLM composer through the real ``openai`` client against a local chat-completions server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from accounts.models import Account, Platform
from posting.composer.services import drafts_compose_for_account
from posting.gate.core import sentences_split
from posting.models import Draft, LLMUsage, VoiceProfile
from tests.llm_server import LLMServer, Reply, serve_llm
from tests.posting.test_composer import BODY, article_create, story_create

GOOD_POST = {
    "text": "Harbour City will open 12 kilometres of protected bike lanes along the waterfront on 3 May! "
    "\U0001f6b2 #harbourlife",
    "claims": [
        {"text": "Harbour City will open 12 kilometres of protected bike lanes", "sentences": [1]},
        {"text": "along the waterfront on 3 May", "sentences": [1]},
    ],
}


@pytest.fixture
def llm(settings) -> Iterator[LLMServer]:
    yield from serve_llm(settings, timeout_s=0.5, max_retries=1)


@pytest.fixture
def facebook_only(account: Account) -> Account:
    """One platform keeps each test to one model call."""
    from publish.models import Channel

    Channel.objects.create(account=account, platform=Platform.FACEBOOK_PAGE, external_id="page-1")
    return account


@pytest.mark.django_db
def test_with_a_key_the_model_writes_the_draft_and_its_claims_cite_sentences(
    llm: LLMServer, facebook_only: Account
) -> None:
    llm.script(Reply.ok(GOOD_POST, prompt_tokens=900, completion_tokens=80))
    article = article_create(facebook_only)

    [draft] = drafts_compose_for_account(account=facebook_only)

    assert draft.composer == "llm"
    assert draft.text == GOOD_POST["text"]
    assert draft.link_url == article.canonical_url
    assert draft.status == Draft.Status.DRAFTED
    composition = draft.composition
    assert composition.sources == [{"text": c["text"], "sentences": c["sentences"]} for c in GOOD_POST["claims"]]
    assert composition.fallback_reason == ""
    usage = composition.llm_usage
    assert (usage.account, usage.purpose, usage.status) == (facebook_only, "compose", LLMUsage.Status.OK)
    assert (usage.prompt_tokens, usage.completion_tokens) == (900, 80)


@pytest.mark.django_db
def test_the_prompt_numbers_the_full_body_and_marks_exemplars_style_only(
    llm: LLMServer, facebook_only: Account
) -> None:
    VoiceProfile.objects.create(
        account=facebook_only,
        platform=Platform.FACEBOOK_PAGE,
        stats={"post_count": 0},
        exemplars=["Our spring sale: 30% off all helmets until Sunday!"],
    )
    llm.script(Reply.ok(GOOD_POST))
    article_create(facebook_only)

    drafts_compose_for_account(account=facebook_only)

    prompt = "\n".join(m["content"] for m in llm.requests[0].body["messages"])
    for number, sentence in enumerate(sentences_split(BODY), start=1):
        assert f"[{number}] {sentence}" in prompt
    assert "STYLE ONLY" in prompt
    exemplar_line = next(line for line in prompt.splitlines() if "30% off all helmets" in line)
    style_only_at = prompt.index("STYLE ONLY")
    assert style_only_at < prompt.index(exemplar_line) < prompt.index("ARTICLE (numbered sentences)")


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (Reply.ok("Here's a great post about bike lanes!"), "not a JSON object"),
        (Reply.refusal("I can't help with that."), "refused"),
        (Reply.ok({"text": "Big news!", "claims": [{"text": "Big", "sentences": [99]}]}), "does not have"),
        (Reply.ok({"text": "Lanes open!", "claims": []}), "no claims"),
        (Reply.ok({"text": "Read it: https://evil.example", "claims": [{"text": "x", "sentences": [1]}]}), "URL"),
        (Reply.throttled(retry_after="0.01"), "Rate limited"),
        (Reply.server_error(502), "Server error"),
    ],
    ids=["malformed-json", "refusal", "invented-sentence", "no-claims", "url", "429-storm", "5xx"],
)
@pytest.mark.django_db
def test_an_unusable_model_answer_falls_back_to_extractive_with_the_reason_recorded(
    llm: LLMServer, facebook_only: Account, reply: Reply, reason: str
) -> None:
    llm.script(reply)
    article_create(facebook_only)

    [draft] = drafts_compose_for_account(account=facebook_only)

    assert draft.composer == "extractive"
    assert all(source["text"] in draft.text for source in draft.composition.sources)
    assert reason in draft.composition.fallback_reason
    # The operator sees the failed call too, never as a success.
    assert draft.composition.llm_usage.status != LLMUsage.Status.OK


@pytest.mark.django_db
def test_a_model_that_times_out_falls_back_and_the_timeout_is_recorded(settings, facebook_only: Account) -> None:
    server_gen = serve_llm(settings, timeout_s=0.2, max_retries=0)
    server = next(server_gen)
    try:
        server.script(Reply.slow(5.0, GOOD_POST))
        article_create(facebook_only)

        [draft] = drafts_compose_for_account(account=facebook_only)
    finally:
        server_gen.close()

    assert draft.composer == "extractive"
    assert draft.composition.llm_usage.status == LLMUsage.Status.TIMEOUT


@pytest.mark.django_db
def test_an_instagram_caption_over_the_hashtag_limit_is_refused(llm: LLMServer, account: Account) -> None:
    from publish.models import Channel

    Channel.objects.create(account=account, platform=Platform.INSTAGRAM, external_id="ig-1")
    tags = " ".join(f"#tag{i}" for i in range(31))
    llm.script(Reply.ok({"text": f"Lanes open on 3 May. {tags}", "claims": [{"text": "Lanes open", "sentences": [1]}]}))
    article_create(account)

    [draft] = drafts_compose_for_account(account=account)

    assert draft.platform == Platform.INSTAGRAM
    assert draft.composer == "extractive"
    assert "hashtags" in draft.composition.fallback_reason


@pytest.mark.django_db
def test_facts_leaking_from_the_style_only_exemplars_are_refused(llm: LLMServer, facebook_only: Account) -> None:
    VoiceProfile.objects.create(
        account=facebook_only,
        platform=Platform.FACEBOOK_PAGE,
        stats={"post_count": 1},
        exemplars=["Our spring sale with Shimano: 30% off all helmets until Sunday!"],
    )
    leaky = {
        "text": "Bike lanes open on 3 May, and Shimano helmets are 30% off!",
        "claims": [{"text": "Bike lanes open on 3 May", "sentences": [1]}],
    }
    llm.script(Reply.ok(leaky))
    article_create(facebook_only)

    [draft] = drafts_compose_for_account(account=facebook_only)

    assert draft.composer == "extractive"
    assert "facts from past posts" in draft.composition.fallback_reason
    assert "Shimano" in draft.composition.fallback_reason
    assert "Shimano" not in draft.text


@pytest.mark.django_db
def test_once_the_model_is_throttled_the_rest_of_the_run_does_not_wait_on_it(
    llm: LLMServer, facebook_only: Account
) -> None:
    facebook_only.cadence_per_day = 3
    facebook_only.save()
    article_create(facebook_only)
    for _ in range(2):
        story_create(facebook_only)
    llm.script(Reply.throttled(retry_after="0.01"))

    drafts = drafts_compose_for_account(account=facebook_only)

    assert len(drafts) == 3
    assert all(d.composer == "extractive" for d in drafts)
    # One call and its single retry (max_retries=1), not two per draft.
    assert len(llm.requests) == 2
    reasons = sorted(d.composition.fallback_reason for d in drafts)
    assert sum("unavailable earlier in this run" in r for r in reasons) == 2
