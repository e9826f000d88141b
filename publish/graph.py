"""The one HTTP client for the Meta Graph API (and our Graph sandbox: only the base URL differs).

Publishing, reconcile, the connect flow and the token check (``publish.oauth.graph_auth``)
all speak to the platform through ``GraphClient`` and get its typed errors.

Every request goes to ``{GRAPH_API_BASE_URL}/{GRAPH_API_VERSION}/{path}`` with the token in
``Authorization: Bearer`` (never the query string, where it would leak into exception text
and access logs), explicit timeouts, and no automatic retries: whether a failed request may
be repeated is decided by the caller from the typed error raised here.

Classification follows docs/meta-graph-api.md section 4: by ``code`` and
``error_subcode``, never by HTTP status alone. Reads and writes differ: a failed read is
simply retried later, but a write that timed out, was reset, got a 5xx, an ambiguous code or
a garbage body may have taken effect, so it raises ``UnknownOutcome`` and must be reconciled
before any retry (docs/ARCHITECTURE.md lesson 2).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import requests
from django.conf import settings
from urllib3.exceptions import NewConnectionError

from publish.errors import (
    ContainerUnusable,
    NeedsReconnect,
    NotVisibleYet,
    PermanentPlatformError,
    PlatformError,
    Throttled,
    TransientError,
    UnknownOutcome,
)

MAX_BODY_BYTES = 1024 * 1024
SUMMARY_VALUE_CHARS = 500

# Throttle codes (reference section 4): app, user, Page, custom, BUC.
THROTTLE_CODES = frozenset({4, 17, 32, 341, 613, *range(80000, 80015)})
NEEDS_RECONNECT_CODES = frozenset({102, 190, 492, 10, *range(200, 300)})
# Write codes whose effect is unknown: transient service errors, policy blocks that
# sometimes accompany a post that went live, and "duplicate" answers that mean an
# earlier attempt may have landed.
AMBIGUOUS_WRITE_CODES = frozenset({1, 2, 368, 506})
AMBIGUOUS_WRITE_SUBCODES = frozenset({2207051})
# Instagram: publishing before the container is FINISHED, or a transiently missing builder.
NOT_READY = frozenset({(9007, 2207027), (24, 2207008)})
QUOTA_SUBCODE = 2207042
# Instagram: the container expired, or Meta could not fetch the media. Containers are
# invisible until media_publish, so a fresh container is the safe answer to all of these.
CONTAINER_UNUSABLE_SUBCODES = frozenset({2207020, 2207001, 2207003, 2207032, 2207052, 2207053})
READ_LAG = (100, 33)

DEFAULT_THROTTLE_S = 15 * 60
# The longest pause a usage header can ask for. Meta's estimates are minutes to an hour or so;
# a larger (or infinite) value is a malformed header, and would overflow a datetime.
MAX_REGAIN_S = 24 * 60 * 60
# Instagram's publishing quota is a rolling 24 h window; an hour is a humble first wait.
DEFAULT_QUOTA_WAIT_S = 60 * 60


@dataclass(frozen=True)
class RateLimitUsage:
    """What the rate-limit headers say: the highest usage percentage across every scope,
    and the longest ``estimated_time_to_regain_access`` (converted to seconds)."""

    max_pct: float = 0.0
    regain_s: int = 0


@dataclass(frozen=True)
class GraphResponse:
    body: dict[str, Any]
    http_status: int
    usage: RateLimitUsage = field(default_factory=RateLimitUsage)


class GraphObserver(Protocol):
    """Told about every request before it is sent and after it returns, so a caller can
    persist a fence first and what came back after (``publish.services`` writes
    PublishAttempt rows). ``sent`` never contains the token."""

    def request_started(self, *, kind: str, method: str, path: str, sent: dict[str, Any]) -> object: ...

    def request_finished(
        self,
        handle: object,
        *,
        http_status: int | None,
        received: dict[str, Any],
        error: PlatformError | None,
    ) -> None: ...


class GraphClient:
    """One token, one base URL. Build one per channel and operation.

    ``token`` may be empty for the few calls that authenticate by form fields instead (the
    OAuth code exchange): then no Authorization header and no appsecret_proof are sent.
    """

    def __init__(
        self,
        *,
        token: str,
        observer: GraphObserver | None = None,
        timeout_s: float | None = None,
        base_url: str | None = None,
        version: str | None = None,
    ) -> None:
        self._token = token
        self._observer = observer
        self._timeout_s = timeout_s if timeout_s is not None else settings.GRAPH_TIMEOUT_S
        base = (base_url or settings.GRAPH_API_BASE_URL).rstrip("/")
        self._root = f"{base}/{version or settings.GRAPH_API_VERSION}"
        self._session = requests.Session()
        # Talk to the configured base URL only: no proxy or netrc credentials from the environment.
        self._session.trust_env = False

    def __repr__(self) -> str:
        return f"<GraphClient {self._root}>"

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> GraphClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def read(self, path: str, *, kind: str, params: Mapping[str, Any] | None = None) -> GraphResponse:
        """GET. Raises NeedsReconnect, Throttled, NotVisibleYet (100/33), TransientError or
        PermanentPlatformError."""
        return self._request("GET", path, kind=kind, fields=dict(params or {}), write=False, expect=())

    def write(
        self,
        path: str,
        *,
        kind: str,
        data: Mapping[str, Any] | None = None,
        expect: tuple[str, ...] = ("id",),
    ) -> GraphResponse:
        """POST. A 2xx without every ``expect`` field is garbage, hence UnknownOutcome."""
        return self._request("POST", path, kind=kind, fields=dict(data or {}), write=True, expect=expect)

    def delete(self, path: str, *, kind: str, params: Mapping[str, Any] | None = None) -> GraphResponse:
        """DELETE (giving up a permission grant). Classified like a write: an answer we did
        not get may mean it took effect, so a timeout raises UnknownOutcome."""
        return self._request("DELETE", path, kind=kind, fields=dict(params or {}), write=True, expect=("success",))

    # --- internals --------------------------------------------------------------------

    def _request(
        self, method: str, path: str, *, kind: str, fields: dict[str, Any], write: bool, expect: tuple[str, ...]
    ) -> GraphResponse:
        path = path.lstrip("/")
        handle = None
        if self._observer is not None:
            handle = self._observer.request_started(kind=kind, method=method, path=path, sent=_summarise(fields))
        http_status: int | None = None
        received: dict[str, Any] = {}
        try:
            response = self._send(method, path, fields, write=write)
            http_status = response.http_status
            received = {
                "body": _summarise(response.body),
                "usage_pct": response.usage.max_pct,
                "regain_s": response.usage.regain_s,
            }
            missing = [name for name in expect if not response.body.get(name)]
            if missing:
                raise UnknownOutcome(f"2xx answer without {', '.join(missing)}", http_status=http_status)
        except PlatformError as exc:
            if exc.http_status is not None:
                http_status = exc.http_status
            received = received or {"error": exc.kind, "detail": exc.detail}
            if self._observer is not None:
                self._observer.request_finished(handle, http_status=http_status, received=received, error=exc)
            raise
        if self._observer is not None:
            self._observer.request_finished(handle, http_status=http_status, received=received, error=None)
        return response

    def _send(self, method: str, path: str, fields: dict[str, Any], *, write: bool) -> GraphResponse:
        payload = {**fields, **self._proof()}
        url = f"{self._root}/{path}"
        headers = {"Accept": "application/json"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        # Connect quickly or not at all; the read timeout bounds a hung platform.
        timeout = (min(5.0, self._timeout_s), self._timeout_s)
        # No redirects: a token, a proof or the client secret must never follow one elsewhere.
        options: dict[str, Any] = {"headers": headers, "timeout": timeout, "stream": True, "allow_redirects": False}
        try:
            if method == "GET":
                raw = self._session.get(url, params=payload, **options)
            elif method == "DELETE":
                raw = self._session.delete(url, params=payload, **options)
            else:
                raw = self._session.post(url, data=payload, **options)
            content = _read_capped(raw)
        except requests.ConnectTimeout:
            # The TCP connection was never made, so the platform never saw the request.
            raise TransientError("could not connect to the Graph API (timeout)") from None
        except requests.Timeout:
            cls = UnknownOutcome if write else TransientError
            raise cls(f"no answer within {self._timeout_s:g}s") from None
        except requests.ConnectionError as exc:
            if _never_connected(exc):
                raise TransientError("could not connect to the Graph API") from None
            cls = UnknownOutcome if write else TransientError
            raise cls("connection lost before an answer arrived") from None
        except requests.RequestException:
            cls = UnknownOutcome if write else TransientError
            raise cls("request failed before an answer arrived") from None

        usage = rate_limit_usage(raw.headers)
        body = _parse_json(content)
        if body is None:
            cls = UnknownOutcome if write else TransientError
            raise cls(f"unreadable answer (HTTP {raw.status_code}, not JSON)", http_status=raw.status_code)
        error = body.get("error")
        if raw.status_code >= 400 or error is not None:
            raise error_classify(
                http_status=raw.status_code,
                error=error if isinstance(error, dict) else {},
                write=write,
                usage=usage,
                retry_after=raw.headers.get("Retry-After", ""),
            )
        return GraphResponse(body=body, http_status=raw.status_code, usage=usage)

    def _proof(self) -> dict[str, str]:
        # appsecret_proof lets the platform reject a stolen token used without our secret
        # ("Require App Secret"); it is an HMAC of the token, not the token.
        secret = settings.FACEBOOK_APP_SECRET
        if not secret or not self._token:
            return {}
        digest = hmac.new(secret.encode(), self._token.encode(), hashlib.sha256).hexdigest()
        return {"appsecret_proof": digest}


def error_classify(
    *,
    http_status: int,
    error: Mapping[str, Any],
    write: bool,
    usage: RateLimitUsage | None = None,
    retry_after: str = "",
) -> PlatformError:
    """Turn a Graph error envelope into the typed error that tells the caller what to do."""
    code = graph_int(error.get("code"))
    subcode = graph_int(error.get("error_subcode"))
    message = str(error.get("message") or f"HTTP {http_status}")[:300]
    info = {"http_status": http_status, "code": code, "subcode": subcode}

    if subcode in AMBIGUOUS_WRITE_SUBCODES:
        # 2207051 arrives with code 4 but has been seen on posts that went live.
        return UnknownOutcome(message, **info) if write else TransientError(message, **info)
    if subcode == QUOTA_SUBCODE:
        return Throttled(message, retry_after_s=_wait_s(usage, retry_after, DEFAULT_QUOTA_WAIT_S), **info)
    if code in THROTTLE_CODES:
        return Throttled(message, retry_after_s=_wait_s(usage, retry_after, DEFAULT_THROTTLE_S), **info)
    if code in NEEDS_RECONNECT_CODES or subcode == 492:
        return NeedsReconnect(message, **info)
    if (code, subcode) in NOT_READY:
        return TransientError(message, **info)
    if subcode in CONTAINER_UNUSABLE_SUBCODES:
        return ContainerUnusable(message, **info)
    if (code, subcode) == READ_LAG and not write:
        return NotVisibleYet(message, **info)
    if code in AMBIGUOUS_WRITE_CODES:
        return UnknownOutcome(message, **info) if write else TransientError(message, **info)
    if code is None or http_status >= 500 or error.get("is_transient") is True:
        # An envelope we do not recognise: on a write the platform may have acted.
        return UnknownOutcome(message, **info) if write else TransientError(message, **info)
    return PermanentPlatformError(message, **info)


def rate_limit_usage(headers: Mapping[str, str]) -> RateLimitUsage:
    """Parse X-App-Usage, X-Page-Usage and X-Business-Use-Case-Usage. Malformed headers
    count as no information, never as an error."""
    percentages: list[float] = []
    regain_minutes: list[float] = []
    for name in ("X-App-Usage", "X-Page-Usage", "X-Ad-Account-Usage"):
        parsed = _parse_json(headers.get(name, "").encode())
        if parsed:
            percentages.extend(_numbers(parsed, ("call_count", "total_time", "total_cputime")))
    buc = _parse_json(headers.get("X-Business-Use-Case-Usage", "").encode())
    for entries in (buc or {}).values():
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict):
                percentages.extend(_numbers(entry, ("call_count", "total_time", "total_cputime")))
                regain_minutes.extend(_numbers(entry, ("estimated_time_to_regain_access",)))
    # Only finite, non-negative numbers: json.loads accepts NaN and Infinity, and a header must
    # never turn into an exception or a pause of a thousand years.
    regain = max((m for m in regain_minutes if math.isfinite(m) and m > 0), default=0.0)
    pct = max((p for p in percentages if math.isfinite(p) and p >= 0), default=0.0)
    return RateLimitUsage(max_pct=pct, regain_s=min(math.ceil(regain * 60), MAX_REGAIN_S))


def _wait_s(usage: RateLimitUsage | None, retry_after: str, default: int) -> int:
    if usage is not None and usage.regain_s > 0:
        return usage.regain_s
    if retry_after.strip().isdigit():
        return min(max(int(retry_after.strip()), 1), MAX_REGAIN_S)
    return default


def _numbers(data: Mapping[str, Any], names: tuple[str, ...]) -> list[float]:
    values = []
    for name in names:
        value = data.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            values.append(float(value))
    return values


def graph_int(value: Any) -> int | None:
    """An integer the Graph API sent as a number or a digit string; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.lstrip("-").isdigit():
        return int(value)
    return None


def _parse_json(content: bytes) -> dict[str, Any] | None:
    try:
        parsed = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        return None
    return parsed if isinstance(parsed, dict) else None


def _read_capped(raw: requests.Response) -> bytes:
    chunks: list[bytes] = []
    size = 0
    try:
        for chunk in raw.iter_content(64 * 1024):
            size += len(chunk)
            if size > MAX_BODY_BYTES:
                break
            chunks.append(chunk)
    finally:
        raw.close()
    return b"".join(chunks)


def _never_connected(exc: requests.ConnectionError) -> bool:
    """True when the TCP connection was refused or never resolved: nothing was sent."""
    reason: BaseException | None = exc
    seen = 0
    while reason is not None and seen < 6:
        if isinstance(reason, NewConnectionError):
            return True
        nested = getattr(reason, "reason", None) or (reason.args[0] if reason.args else None)
        reason = nested if isinstance(nested, BaseException) else None
        seen += 1
    return False


def _summarise(data: Mapping[str, Any]) -> dict[str, Any]:
    """What a PublishAttempt keeps of a request or answer: short values, never secrets."""
    summary: dict[str, Any] = {}
    for key, value in data.items():
        if key in {"access_token", "appsecret_proof", "input_token", "client_secret"}:
            continue
        if isinstance(value, str) and len(value) > SUMMARY_VALUE_CHARS:
            summary[key] = value[:SUMMARY_VALUE_CHARS] + "…"
        elif isinstance(value, dict | list):
            text = json.dumps(value, default=str)
            summary[key] = value if len(text) <= SUMMARY_VALUE_CHARS * 2 else text[: SUMMARY_VALUE_CHARS * 2] + "…"
        else:
            summary[key] = value
    return summary
