"""The one way Landed talks to a language model: the official ``openai`` client, recorded.

Every call, whatever its outcome, leaves an ``LLMUsage`` row: tokens, cost, the key's
fingerprint, the organisation the endpoint says the key belongs to, and how many 429s it
met. Lesson 6 (docs/ARCHITECTURE.md): the operator must be able to see which key production holds
and whether it is being throttled, without anyone ever seeing the key itself.

Retries with backoff on 429/5xx are the client's own (``max_retries``); it honours
``retry-after`` up to two minutes. What comes back must be JSON matching the caller's
schema; anything else is an ``LLMBadOutput`` so callers can fall back instead of guessing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import httpx2
import openai
from django.conf import settings

from accounts.models import Account
from posting.gate.core import JUDGE_VERDICTS, JudgeVerdict
from posting.models import LLMUsage

logger = logging.getLogger(__name__)

# USD per million tokens (input, output), matched by the longest prefix of the model name
# the endpoint reports. https://openai.com/api/pricing/ ; an unknown model costs "unknown"
# (NULL), never zero.
PRICES_PER_MTOK: dict[str, tuple[Decimal, Decimal]] = {
    "gpt-4o-mini": (Decimal("0.15"), Decimal("0.60")),
    "gpt-4o": (Decimal("2.50"), Decimal("10.00")),
    "gpt-4.1-nano": (Decimal("0.10"), Decimal("0.40")),
    "gpt-4.1-mini": (Decimal("0.40"), Decimal("1.60")),
    "gpt-4.1": (Decimal("2.00"), Decimal("8.00")),
}


# When the model calls of this context must be done by (time.monotonic()), or None: no limit but
# each call's own timeout and retries. See ``llm_deadline``.
_deadline: ContextVar[float | None] = ContextVar("llm_deadline", default=None)
# Under a deadline, a call with less time than this left is not started: it could not finish.
DEADLINE_CALL_MIN_S = 0.5


@contextmanager
def llm_deadline(seconds: float) -> Iterator[None]:
    """Every model call inside the block finishes within ``seconds`` of its start, in all.

    Why: a customer's tap (Draft it anyway, Save and check) composes and judges inside the web
    request, and each call may take OPENAI_TIMEOUT_S times 1 + OPENAI_MAX_RETRIES; a few of them
    outlast the web server's worker timeout, which kills the request half done. Under a deadline a
    call gets the time left and no retries, and once the time is spent no call is started: the
    callers already fall back (the offline composer, the gate's own checks) when the model does
    not answer. A nested deadline never extends the one around it.
    """
    ends = time.monotonic() + seconds
    outer = _deadline.get()
    token = _deadline.set(ends if outer is None else min(outer, ends))
    try:
        yield
    finally:
        _deadline.reset(token)


def llm_request_budget(get_response: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Middleware: every web request's model calls share LLM_REQUEST_BUDGET_S (``llm_deadline``)."""

    def middleware(request: Any) -> Any:
        with llm_deadline(settings.LLM_REQUEST_BUDGET_S):
            return get_response(request)

    return middleware


class LLMError(Exception):
    """A model call that produced nothing usable. ``status`` is an ``LLMUsage.Status``."""

    def __init__(self, message: str, *, status: str, usage: LLMUsage | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.usage = usage


class LLMNotConfigured(LLMError):
    """No API key: callers use their non-LLM path."""


class LLMUnavailable(LLMError):
    """Throttled, 5xx, timeout or connection failure after the client's retries."""


class LLMBadOutput(LLMError):
    """The endpoint answered, but with a refusal or output that is not the JSON asked for."""


@dataclass(frozen=True)
class LLMResult:
    data: dict[str, Any]
    usage: LLMUsage


def llm_configured() -> bool:
    return bool(settings.OPENAI_API_KEY)


def key_fingerprint(key: str) -> str:
    """A short, stable identity for a key that reveals nothing usable about it."""
    if not key:
        return ""
    return "sha256:" + hashlib.sha256(key.encode()).hexdigest()[:12]


def llm_complete_json(
    *,
    account: Account | None,
    purpose: str,
    system: str,
    user: str,
    schema_name: str,
    schema: dict[str, Any],
    max_tokens: int = 800,
) -> LLMResult:
    """Ask the configured model for one JSON object matching ``schema`` (structured output).

    Raises ``LLMNotConfigured``, ``LLMUnavailable`` or ``LLMBadOutput``; in every case but
    the first an ``LLMUsage`` row records what happened.
    """
    if not llm_configured():
        raise LLMNotConfigured("No OPENAI_API_KEY is configured.", status=LLMUsage.Status.API_ERROR)
    timeout, retries = settings.OPENAI_TIMEOUT_S, settings.OPENAI_MAX_RETRIES
    ends = _deadline.get()
    if ends is not None:
        left = ends - time.monotonic()
        if left < DEADLINE_CALL_MIN_S:
            # No call was made, so no LLMUsage row: the usage page counts calls, not skips.
            raise LLMUnavailable("No time left for the model in this request.", status=LLMUsage.Status.TIMEOUT)
        timeout, retries = min(timeout, left), 0
    record = _CallRecord(account=account, purpose=purpose, model=settings.OPENAI_MODEL)
    with _client(record, timeout=timeout, max_retries=retries) as client:
        try:
            raw = client.chat.completions.with_raw_response.create(
                model=settings.OPENAI_MODEL,
                messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": schema_name, "schema": schema, "strict": True},
                },
                max_tokens=max_tokens,
                temperature=0.4,
            )
        except openai.APITimeoutError:
            raise record.fail(LLMUnavailable, LLMUsage.Status.TIMEOUT, "The model did not answer in time.") from None
        except openai.APIConnectionError:
            raise record.fail(LLMUnavailable, LLMUsage.Status.CONNECTION, "Could not connect to the model.") from None
        except openai.APIStatusError as exc:
            record.note_headers(exc.response.headers)
            raise record.fail(LLMUnavailable, *_status_failure(exc)) from None
        record.note_headers(raw.headers)
        try:
            completion = raw.parse()
            choice = completion.choices[0]
        except (openai.APIError, ValueError, TypeError, IndexError, AttributeError):
            raise record.fail(
                LLMBadOutput, LLMUsage.Status.MALFORMED, "The response was not a chat completion."
            ) from None
    record.note_usage(completion)
    if getattr(choice.message, "refusal", None):
        raise record.fail(LLMBadOutput, LLMUsage.Status.REFUSAL, f"The model refused: {choice.message.refusal}"[:300])
    data = _json_object(choice.message.content)
    if data is None:
        raise record.fail(LLMBadOutput, LLMUsage.Status.MALFORMED, "The model's output was not a JSON object.")
    return LLMResult(data=data, usage=record.save(LLMUsage.Status.OK, ""))


def _status_failure(exc: openai.APIStatusError) -> tuple[str, str]:
    """The usage status and a message for an HTTP error that outlasted the client's retries.

    Only the status code goes into the message: an error body may echo request details.
    """
    if isinstance(exc, openai.RateLimitError):
        return LLMUsage.Status.RATE_LIMITED, "Rate limited (429) after retries."
    if isinstance(exc, openai.InternalServerError):
        return LLMUsage.Status.SERVER_ERROR, f"Server error {exc.status_code} after retries."
    return LLMUsage.Status.API_ERROR, f"API error {exc.status_code}."


def usage_mark_malformed(*, usage: LLMUsage, detail: str) -> None:
    """A well-formed JSON answer the caller still could not use counts as malformed output."""
    usage.status = LLMUsage.Status.MALFORMED
    usage.detail = detail[:500]
    usage.save(update_fields=["status", "detail"])


def _json_object(content: str | None) -> dict[str, Any] | None:
    if not content:
        return None
    try:
        data = json.loads(content)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _client(record: _CallRecord, *, timeout: float, max_retries: int) -> openai.OpenAI:
    def count_responses(response: httpx2.Response) -> None:
        record.responses += 1
        if response.status_code == 429:
            record.throttled_responses += 1

    return openai.OpenAI(
        base_url=settings.OPENAI_BASE_URL or None,
        api_key=settings.OPENAI_API_KEY,
        timeout=timeout,
        max_retries=max_retries,
        # The client retries 429s internally; this hook lets us count every one of them.
        http_client=openai.DefaultHttpxClient(event_hooks={"response": [count_responses]}),
    )


class _CallRecord:
    """Accumulates what one call learned, then writes exactly one LLMUsage row."""

    def __init__(self, *, account: Account | None, purpose: str, model: str) -> None:
        self.account = account
        self.purpose = purpose
        self.model = model
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.throttled_responses = 0
        self.responses = 0
        self.organization = ""

    def note_headers(self, headers: Mapping[str, str]) -> None:
        self.organization = headers.get("openai-organization", "")[:200] or self.organization

    def note_usage(self, completion: Any) -> None:
        self.model = (getattr(completion, "model", None) or self.model)[:100]
        usage = getattr(completion, "usage", None)
        if usage is not None:
            self.prompt_tokens = int(usage.prompt_tokens or 0)
            self.completion_tokens = int(usage.completion_tokens or 0)

    def cost(self) -> Decimal | None:
        matches = [prefix for prefix in PRICES_PER_MTOK if self.model.startswith(prefix)]
        if not matches:
            return None
        price_in, price_out = PRICES_PER_MTOK[max(matches, key=len)]
        return (price_in * self.prompt_tokens + price_out * self.completion_tokens) / Decimal(1_000_000)

    def save(self, status: str, detail: str) -> LLMUsage:
        return LLMUsage.objects.create(
            account=self.account,
            model=self.model,
            purpose=self.purpose,
            status=status,
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cost_usd=self.cost(),
            key_fingerprint=key_fingerprint(settings.OPENAI_API_KEY),
            organization=self.organization,
            throttled_responses=min(self.throttled_responses, 32767),
            retries=min(max(self.responses - 1, 0), 32767),
            detail=detail[:500],
        )

    def fail(self, error_type: type[LLMError], status: str, message: str) -> LLMError:
        usage = self.save(status, message)
        logger.warning("llm %s for account %s: %s", self.purpose, getattr(self.account, "pk", None), message)
        return error_type(message, status=status, usage=usage)


# The gate's claim judge (issue 9). Bump the version whenever the prompt or schema changes:
# it is stored with every verdict the judge gives, so a verdict can be traced to its prompt.
JUDGE_PROMPT_VERSION = "gate-judge-2"
JUDGE_SYSTEM = """You check one factual claim from a social media post against numbered sentences from a news article.
Answer "supported" only if the sentences state the claim: the same numbers, dates, names, roles (who did what to whom)
and polarity. Paraphrase is fine. Answer "contradicted" if the sentences say something incompatible with the claim, and
"not_stated" if they do not say it (anything added, changed or generalised).
List in "sentences" the numbers of the sentences you relied on (only numbers shown to you).
"reason" is one short sentence for the business owner, in plain words, saying what the article does or does not say.
Answer with JSON only."""
JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["supported", "contradicted", "not_stated"]},
        "sentences": {"type": "array", "items": {"type": "integer"}},
        "reason": {"type": "string"},
    },
    "required": ["verdict", "sentences", "reason"],
    "additionalProperties": False,
}


class ClaimJudge:
    """The factual gate's sentence judge (``posting.gate.core.SentenceJudge``) on the configured model.

    It raises ``LLMError`` when the model gives no usable answer (not JSON, no verdict, a
    sentence number it was not shown), after marking the call's ``LLMUsage`` row malformed,
    so the gate falls back on its own checks instead of treating a bad answer as a verdict.
    """

    prompt_version = JUDGE_PROMPT_VERSION

    def __init__(self, *, account: Account | None) -> None:
        self.account = account

    def __call__(self, claim: str, sentences: Mapping[int, str]) -> JudgeVerdict:
        numbered = "\n".join(f"[{number}] {sentence}" for number, sentence in sorted(sentences.items()))
        result = llm_complete_json(
            account=self.account,
            purpose="gate_judge",
            system=JUDGE_SYSTEM,
            user=f"CLAIM: {claim}\n\nARTICLE SENTENCES:\n{numbered}",
            schema_name="claim_verdict",
            schema=JUDGE_SCHEMA,
            max_tokens=200,
        )
        verdict, cited, reason = (result.data.get(key) for key in ("verdict", "sentences", "reason"))
        numbers = _sentence_numbers(cited)
        problem = ""
        if verdict not in JUDGE_VERDICTS:
            problem = "The judge gave no verdict."
        elif numbers is None:
            problem = "The judge cited no sentence numbers."
        elif unknown := [number for number in numbers if number not in sentences]:
            problem = f"The judge cited sentence {unknown[0]}, which it was not shown."
        if problem or numbers is None:
            usage_mark_malformed(usage=result.usage, detail=problem)
            raise LLMBadOutput(problem, status=LLMUsage.Status.MALFORMED, usage=result.usage)
        return JudgeVerdict(
            verdict=str(verdict),
            sentences=numbers,
            reason=reason[:300] if isinstance(reason, str) else "",
            prompt_version=JUDGE_PROMPT_VERSION,
        )


def _sentence_numbers(cited: object) -> tuple[int, ...] | None:
    """The sentence numbers a judge cited, or None unless it gave a list of integers."""
    if isinstance(cited, list) and all(isinstance(number, int) for number in cited):
        return tuple(cited)
    return None


def llm_claim_judge(*, account: Account | None) -> ClaimJudge | None:
    """The factual gate's optional judge, or None without a key."""
    if not llm_configured():
        return None
    return ClaimJudge(account=account)
