"""The LLM wrapper, driven through the real ``openai`` client against a local server."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from accounts.models import Account
from cron.selectors import llm_usage_summary
from posting.gate.core import JudgeVerdict
from posting.llm import (
    JUDGE_PROMPT_VERSION,
    LLMBadOutput,
    LLMNotConfigured,
    LLMUnavailable,
    key_fingerprint,
    llm_claim_judge,
    llm_complete_json,
    llm_deadline,
)
from posting.models import LLMUsage
from tests.llm_server import ORGANIZATION, LLMServer, Reply, serve_llm

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
    "additionalProperties": False,
}


@pytest.fixture
def llm(settings) -> Iterator[LLMServer]:
    yield from serve_llm(settings, timeout_s=0.5, max_retries=2)


def ask(account: Account | None) -> dict:
    result = llm_complete_json(
        account=account, purpose="test", system="Be brief.", user="Say hi.", schema_name="hi", schema=SCHEMA
    )
    return result.data


@pytest.mark.django_db
def test_a_completion_records_tokens_cost_key_fingerprint_and_organisation(llm: LLMServer, account: Account) -> None:
    llm.script(Reply.ok({"answer": "hi"}, prompt_tokens=1000, completion_tokens=500))

    assert ask(account) == {"answer": "hi"}

    usage = LLMUsage.objects.get()
    assert usage.account == account
    assert usage.status == LLMUsage.Status.OK
    assert (usage.prompt_tokens, usage.completion_tokens) == (1000, 500)
    # gpt-4o-mini: $0.15 per 1M input, $0.60 per 1M output.
    assert usage.cost_usd == Decimal("0.000450")
    assert usage.organization == ORGANIZATION
    assert usage.key_fingerprint == key_fingerprint("sk-test-landed-0123456789")
    assert "sk-test" not in usage.key_fingerprint


@pytest.mark.django_db
def test_the_request_asks_for_structured_json_output_with_the_key_in_a_header(llm: LLMServer, account) -> None:
    llm.script(Reply.ok({"answer": "hi"}))

    ask(account)

    request = llm.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test-landed-0123456789"
    assert request.body["response_format"]["type"] == "json_schema"
    assert request.body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert "sk-test" not in request.path


@pytest.mark.django_db
def test_a_429_with_retry_after_is_retried_and_every_throttle_is_counted(llm: LLMServer, account) -> None:
    llm.script(Reply.throttled(retry_after="0.05"), Reply.throttled(retry_after="0.05"), Reply.ok({"answer": "hi"}))

    assert ask(account) == {"answer": "hi"}

    assert len(llm.requests) == 3
    usage = LLMUsage.objects.get()
    assert usage.status == LLMUsage.Status.OK
    assert usage.throttled_responses == 2
    assert usage.retries == 2


@pytest.mark.django_db
def test_throttling_that_outlasts_the_retries_is_recorded_as_rate_limited(llm: LLMServer, account) -> None:
    llm.script(Reply.throttled(retry_after="0.01"))

    with pytest.raises(LLMUnavailable) as caught:
        ask(account)

    assert caught.value.status == LLMUsage.Status.RATE_LIMITED
    assert len(llm.requests) == 3  # one try and max_retries=2 retries
    usage = LLMUsage.objects.get()
    assert (usage.status, usage.throttled_responses) == (LLMUsage.Status.RATE_LIMITED, 3)
    # Which key was throttled is visible even though no call succeeded.
    assert usage.organization == ORGANIZATION


@pytest.mark.django_db
def test_a_500_is_retried_then_succeeds(llm: LLMServer, account) -> None:
    llm.script(Reply.server_error(500), Reply.ok({"answer": "hi"}))

    assert ask(account) == {"answer": "hi"}
    assert len(llm.requests) == 2


@pytest.mark.django_db
def test_persistent_5xx_is_recorded_as_a_server_error(llm: LLMServer, account) -> None:
    llm.script(Reply.server_error(503))

    with pytest.raises(LLMUnavailable):
        ask(account)

    assert LLMUsage.objects.get().status == LLMUsage.Status.SERVER_ERROR


@pytest.mark.django_db
def test_output_that_is_not_json_is_a_clear_malformed_error(llm: LLMServer, account) -> None:
    llm.script(Reply.ok("Sure! Here is your post: {answer: hi"))

    with pytest.raises(LLMBadOutput) as caught:
        ask(account)

    assert caught.value.status == LLMUsage.Status.MALFORMED
    usage = LLMUsage.objects.get()
    assert usage.status == LLMUsage.Status.MALFORMED
    # Tokens were still spent, so they are still counted.
    assert usage.prompt_tokens == 120


@pytest.mark.django_db
def test_a_body_that_is_not_a_completion_is_a_malformed_error(llm: LLMServer, account) -> None:
    llm.script(Reply.garbage_body())

    with pytest.raises(LLMBadOutput):
        ask(account)

    assert LLMUsage.objects.get().status == LLMUsage.Status.MALFORMED


@pytest.mark.django_db
def test_a_refusal_is_recorded_with_its_reason(llm: LLMServer, account) -> None:
    llm.script(Reply.refusal("I can't write that."))

    with pytest.raises(LLMBadOutput) as caught:
        ask(account)

    assert caught.value.status == LLMUsage.Status.REFUSAL
    assert "I can't write that." in LLMUsage.objects.get().detail


@pytest.mark.django_db
def test_a_model_slower_than_the_timeout_is_recorded_as_a_timeout(settings, account) -> None:
    server_gen = serve_llm(settings, timeout_s=0.2, max_retries=0)
    server = next(server_gen)
    try:
        server.script(Reply.slow(5.0, {"answer": "late"}))

        with pytest.raises(LLMUnavailable) as caught:
            ask(account)
    finally:
        server_gen.close()

    assert caught.value.status == LLMUsage.Status.TIMEOUT
    assert LLMUsage.objects.get().status == LLMUsage.Status.TIMEOUT


@pytest.mark.django_db
def test_an_unreachable_endpoint_is_a_connection_error(settings, account) -> None:
    server_gen = serve_llm(settings, timeout_s=0.5, max_retries=0)
    next(server_gen)
    server_gen.close()  # stopped: nothing listens on that port any more

    with pytest.raises(LLMUnavailable) as caught:
        ask(account)

    assert caught.value.status == LLMUsage.Status.CONNECTION


@pytest.mark.django_db
def test_without_a_key_nothing_is_called(settings) -> None:
    settings.OPENAI_API_KEY = ""

    with pytest.raises(LLMNotConfigured):
        ask(None)

    assert not LLMUsage.objects.exists()


@pytest.mark.django_db
def test_an_unknown_model_has_an_unknown_cost_not_zero(llm: LLMServer, account) -> None:
    llm.script(Reply.ok({"answer": "hi"}, model="llama-3-70b"))

    ask(account)

    usage = LLMUsage.objects.get()
    assert usage.model == "llama-3-70b"
    assert usage.cost_usd is None


@pytest.mark.django_db
def test_the_gate_judge_returns_the_models_verdict_on_a_claim(llm: LLMServer, account) -> None:
    llm.script(
        Reply.ok(
            {
                "verdict": "contradicted",
                "sentences": [4],
                "reason": "The article says Giant sued Trek, not the reverse.",
            }
        )
    )
    judge = llm_claim_judge(account=account)
    assert judge is not None

    answer = judge("Trek sued Giant.", {4: "Giant sued Trek in March.", 5: "The case opens in May."})

    assert answer == JudgeVerdict(
        verdict="contradicted",
        sentences=(4,),
        reason="The article says Giant sued Trek, not the reverse.",
        prompt_version=JUDGE_PROMPT_VERSION,
    )
    prompt = llm.requests[0].body["messages"][1]["content"]
    assert "CLAIM: Trek sued Giant." in prompt and "[4] Giant sued Trek in March.\n[5] The case opens" in prompt
    assert LLMUsage.objects.get().purpose == "gate_judge"


@pytest.mark.django_db
def test_a_judge_without_a_verdict_raises_so_the_gate_keeps_its_own_checks(llm: LLMServer, account) -> None:
    llm.script(Reply.ok({"reason": "not sure"}))
    judge = llm_claim_judge(account=account)
    assert judge is not None

    with pytest.raises(LLMBadOutput):
        judge("Trek sued Giant.", {1: "Giant sued Trek in March."})

    assert LLMUsage.objects.get().status == LLMUsage.Status.MALFORMED


def test_there_is_no_judge_without_a_key(settings) -> None:
    settings.OPENAI_API_KEY = ""

    assert llm_claim_judge(account=None) is None


@pytest.mark.django_db
def test_the_operator_summary_shows_the_key_identity_cost_and_throttles(llm: LLMServer, account) -> None:
    llm.script(Reply.throttled(retry_after="0.01"), Reply.ok({"answer": "hi"}, prompt_tokens=1000, completion_tokens=0))
    ask(account)

    summary = llm_usage_summary(since=timezone.now() - timedelta(hours=1))  # what the ops page shows

    assert summary["key_fingerprint"] == key_fingerprint("sk-test-landed-0123456789")
    assert summary["organization"] == ORGANIZATION
    assert summary["calls"] == 1
    assert summary["throttled"] == 1
    assert summary["by_status"] == {LLMUsage.Status.OK: 1}
    assert summary["by_purpose"] == {"test": 1}
    assert summary["cost_usd"] == Decimal("0.000150")
    assert "sk-test" not in repr(summary)


@pytest.mark.django_db
def test_under_a_spent_deadline_no_call_is_made_and_none_is_recorded(llm: LLMServer, account) -> None:
    """A web request's budget (llm_deadline): once it is spent the model is not asked at all,
    and the usage page counts no call that was never made."""
    # A deadline inside the request's (a longer one, say) never extends it.
    with llm_deadline(0.0), llm_deadline(60.0), pytest.raises(LLMUnavailable) as caught:
        ask(account)

    assert caught.value.status == LLMUsage.Status.TIMEOUT and caught.value.usage is None
    assert llm.requests == [] and not LLMUsage.objects.exists()


@pytest.mark.django_db
def test_a_deadline_gives_a_call_the_time_left_and_no_retries(settings, account) -> None:
    server_gen = serve_llm(settings, timeout_s=30.0, max_retries=2)
    server = next(server_gen)
    try:
        server.script(Reply.server_error(503))
        with llm_deadline(5.0), pytest.raises(LLMUnavailable):
            ask(account)
        calls = len(server.requests)
    finally:
        server_gen.close()

    assert calls == 1  # without a deadline the client retries a 503 twice (three calls)
    assert LLMUsage.objects.get().status == LLMUsage.Status.SERVER_ERROR
