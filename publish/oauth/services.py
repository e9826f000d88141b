"""Connecting channels: claims, the callback, the page pick, token checks and the funnel.

The claim is the connect flow's CSRF defence and its one-time ticket (docs/ARCHITECTURE.md lesson 4):
minted when the customer starts, consumed exactly once by the callback with a conditional
update only one request can win, and touched by nothing else until it expired long ago.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import time
from collections import Counter
from datetime import datetime, timedelta
from typing import NoReturn

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import Count
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from accounts.models import Account, Platform
from accounts.selectors import member_may_change_settings
from publish.crypto import TokenDecryptError, token_decrypt, token_encrypt, token_rotate
from publish.errors import PlatformError
from publish.models import Channel, ConnectEvent, ConnectGrant, OAuthClaim
from publish.oauth import graph_auth
from publish.oauth.errors import (
    ClaimExpired,
    ClaimReplayed,
    ClaimUnknown,
    ClaimWrongSession,
    ConnectAlreadyDone,
    ConnectDenied,
    ConnectError,
    ConnectInProgress,
    ConnectInterrupted,
    ExchangeFailed,
    GrantUnavailable,
    NoPageChosen,
    NoPages,
    PermissionsDeclined,
    PlatformUnavailable,
)
from publish.services import channel_bind, channel_mark_needs_reconnect

logger = logging.getLogger(__name__)

CLAIM_TTL = timedelta(minutes=10)
# Cleanup leaves a claim alone until it has been expired this long, so that no clock skew
# or slow job can ever remove a claim a customer is still using.
CLAIM_CLEANUP_AFTER = timedelta(hours=1)
# How long the customer has to pick pages after the callback; the grant holds tokens.
GRANT_TTL = timedelta(minutes=20)
TOKEN_EXPIRY_WARNING = timedelta(days=7)
# A repeated callback in the same browser (a reload, a double navigation) waits this long for
# the request that won the claim, then follows it to its page choice.
REPEAT_WAIT_S = 15.0
REPEAT_POLL_S = 0.25
# A won claim with neither a page choice nor an outcome after this long lost its request: a
# callback lives at most the web worker's timeout (gunicorn --timeout 60 in docker-compose.yml;
# the four Graph calls are bounded by GRAPH_TIMEOUT_S each), so its process died after the
# code was spent, and the code cannot be exchanged again.
CALLBACK_ABANDONED_AFTER = timedelta(seconds=90)

# What secrets.token_urlsafe(32) can produce, with room for longer states later.
_STATE_SHAPE = re.compile(r"[A-Za-z0-9_-]{32,64}")

# Whoever brought the browser back from Facebook: the callback is not login_required, so a
# signed-out browser gets the claim's own error rather than a login page.
Visitor = User | AnonymousUser


def oauth_claim_mint(*, account: Account, user: User, session_key: str, platform: str) -> OAuthClaim:
    """Start a connect attempt: a fresh claim bound to this account, user and browser session."""
    if not session_key:
        raise ValueError("a claim must be bound to a saved session")
    with transaction.atomic():
        claim = OAuthClaim.objects.create(
            # 32 bytes = 256 random bits; the state is the only thing the callback trusts.
            state=secrets.token_urlsafe(32),
            account=account,
            user=user,
            session_binding=session_binding(session_key),
            platform=platform,
            expires_at=timezone.now() + CLAIM_TTL,
        )
        ConnectEvent.objects.create(platform=platform, account=account, kind=ConnectEvent.Kind.STARTED)
    return claim


def oauth_claim_consume(*, state: str, user: Visitor, session_key: str) -> OAuthClaim:
    """Consume the claim named by ``state`` exactly once, or raise why it cannot be consumed.

    The conditional update is the whole race: of two simultaneous callbacks with one state,
    PostgreSQL lets exactly one UPDATE match the ``consumed_at IS NULL`` row.
    """
    if not _STATE_SHAPE.fullmatch(state):
        # Anything we could not have minted is unknown before it reaches the database (a NUL
        # byte, for one, would make PostgreSQL raise instead of answering "no such row").
        state = ""
    now = timezone.now()
    binding = session_binding(session_key) if session_key else ""
    if state and binding and user.pk is not None:
        won = OAuthClaim.objects.filter(
            state=state,
            consumed_at__isnull=True,
            expires_at__gt=now,
            user_id=user.pk,
            session_binding=binding,
        ).update(consumed_at=now, callback_at=now)
        if won == 1:
            consumed = OAuthClaim.objects.select_related("account").get(state=state)
            ConnectEvent.objects.create(
                platform=consumed.platform, account=consumed.account, kind=ConnectEvent.Kind.CALLBACK
            )
            return consumed
    error, claim = _claim_refusal(state=state, user=user, binding=binding, now=now)
    if isinstance(error, ClaimReplayed):
        # Only this user in this browser gets here (another session is ClaimWrongSession):
        # a repeat of its own callback, which connect_callback resolves to the winner's outcome.
        error.claim = claim
        raise error
    if claim is None:
        # Anyone can send this URL any state, signed out, as often as they like: a state we
        # never issued (or cleaned up long ago) explains no row, so it writes none.
        logger.info("connect callback with an unknown state refused")
        raise error
    if isinstance(error, ClaimWrongSession):
        _funnel_failed_once(claim=claim, reason=error.reason)
    else:
        _funnel_failed(platform=claim.platform, account=claim.account, reason=error.reason)
    raise error


def connect_callback(
    *, state: str, code: str, error: str, user: Visitor, session_key: str, redirect_uri: str
) -> ConnectGrant:
    """The whole callback: consume the claim, then exchange, check grants, list Pages.

    No Graph call happens unless this request won the claim. The Graph calls run outside
    any database transaction: the claim is already spent and committed, so a slow platform
    holds no locks.
    """
    try:
        claim = oauth_claim_consume(state=state, user=user, session_key=session_key)
    except ClaimReplayed as repeat:
        if repeat.claim is None:
            # oauth_claim_consume attaches the claim to every replay it raises; without one there is nothing to follow.
            raise
        return _callback_repeated(repeat.claim)
    if error:
        _claim_failed(claim, ConnectDenied(account=claim.account))
    if not code:
        _claim_failed(claim, ExchangeFailed("Facebook sent no sign-in code.", account=claim.account))
    try:
        short = graph_auth.code_exchange(code=code, redirect_uri=redirect_uri)
        user_token = graph_auth.long_lived_token(short_token=short.access_token)
    except PlatformError as exc:
        logger.warning("connect %s: token exchange failed: %s", claim.pk, exc)
        _claim_failed(claim, ExchangeFailed(account=claim.account))
    try:
        granted = graph_auth.permissions_granted(user_token=user_token.access_token)
        declined = [name for name in graph_auth.REQUIRED_PERMISSIONS if granted.get(name) != "granted"]
        if declined:
            _claim_failed(claim, PermissionsDeclined(declined, account=claim.account))
        pages = graph_auth.pages_list(user_token=user_token.access_token)
    except PlatformError as exc:
        logger.warning("connect %s: listing grants or pages failed: %s", claim.pk, exc)
        _claim_failed(claim, PlatformUnavailable(account=claim.account))
    if not pages:
        _claim_failed(claim, NoPages(account=claim.account))
    # Only the Page tokens are kept for the pick: they are all binding needs, and Page tokens
    # made from a long-lived user token do not expire, so the user token is dropped here.
    held = {"page_tokens": {page.id: page.access_token for page in pages}}
    if any(page.instagram_id for page in pages):
        # Instagram connects through Facebook Login: its part of the funnel starts when
        # Facebook offers a linked Instagram account, and is counted as Instagram's own.
        ConnectEvent.objects.bulk_create(
            ConnectEvent(platform=Platform.INSTAGRAM, account=claim.account, kind=kind)
            for kind in (ConnectEvent.Kind.STARTED, ConnectEvent.Kind.CALLBACK)
        )
    return ConnectGrant.objects.create(
        claim=claim,
        secrets_ciphertext=token_encrypt(json.dumps(held)),
        pages=[
            {
                "id": page.id,
                "name": page.name,
                "instagram_id": page.instagram_id,
                "instagram_username": page.instagram_username,
            }
            for page in pages
        ],
        expires_at=timezone.now() + GRANT_TTL,
    )


def connect_pages_bind(*, grant_id: int, user: User, session_key: str, page_ids: list[str]) -> list[Channel]:
    """Bind the chosen Pages (and their Instagram accounts) as channels; the grant is then gone."""
    binding = session_binding(session_key) if session_key else ""
    with transaction.atomic():
        # The row lock makes a double-submitted picker bind once: the second waits, then
        # finds the grant deleted.
        grant = (
            ConnectGrant.objects.select_for_update(of=("self",))
            .select_related("claim__account")
            .filter(pk=grant_id, claim__user_id=user.pk, expires_at__gt=timezone.now())
            .first()
        )
        if grant is None or not binding or not constant_time_compare(grant.claim.session_binding, binding):
            raise GrantUnavailable()
        claim, account = grant.claim, grant.claim.account
        # Membership is checked again at the last step: access may be revoked mid-connect.
        if not member_may_change_settings(user=user, account=account):
            raise GrantUnavailable()
        wanted = set(page_ids)
        chosen = [page for page in grant.pages if page["id"] in wanted]
        if not chosen:
            raise NoPageChosen(account=account)
        try:
            page_tokens = json.loads(token_decrypt(grant.secrets_ciphertext))["page_tokens"]
        except TokenDecryptError:
            grant.delete()
            raise GrantUnavailable(account=account) from None
        channels: list[Channel] = []
        for page in chosen:
            token = page_tokens[page["id"]]
            channels.append(
                channel_bind(
                    account=account,
                    platform=Platform.FACEBOOK_PAGE,
                    external_id=page["id"],
                    name=page["name"],
                    token=token,
                )
            )
            if page["instagram_id"]:
                # Instagram via Facebook Login publishes with the linked Page's token.
                channels.append(
                    channel_bind(
                        account=account,
                        platform=Platform.INSTAGRAM,
                        external_id=page["instagram_id"],
                        name=page["instagram_username"] or page["name"],
                        token=token,
                    )
                )
        OAuthClaim.objects.filter(pk=claim.pk).update(
            outcome=OAuthClaim.Outcome.BOUND, outcome_detail=f"{len(channels)} channel(s) bound"
        )
        # One "bound" per platform that got a channel: an Instagram account bound through its
        # Page counts for Instagram, not only for the Facebook flow that carried it.
        bound_platforms = {claim.platform} | {channel.platform for channel in channels}
        ConnectEvent.objects.bulk_create(
            ConnectEvent(platform=platform, account=account, kind=ConnectEvent.Kind.BOUND)
            for platform in sorted(bound_platforms)
        )
        grant.delete()
    return channels


def oauth_claims_cleanup() -> dict[str, int]:
    """Delete claims that expired more than an hour ago, page choices past their window and
    connect-funnel rows that no claim explains.

    Never touches an unexpired claim: the incident this exists for was a job that consumed
    a claim 3.26 s after minting while the customer sat on the consent screen.
    """
    now = timezone.now()
    _, grants = ConnectGrant.objects.filter(expires_at__lt=now).delete()
    _, claims = OAuthClaim.objects.filter(expires_at__lt=now - CLAIM_CLEANUP_AFTER).delete()
    # Funnel rows no claim explains: anonymous callbacks with forged states wrote these
    # before such callbacks stopped writing anything.
    unexplained, _ = ConnectEvent.objects.filter(account__isnull=True).delete()
    return {
        "claims_deleted": claims.get("publish.OAuthClaim", 0),
        "grants_deleted": grants.get("publish.ConnectGrant", 0) + claims.get("publish.ConnectGrant", 0),
        "connect_events_unexplained_deleted": unexplained,
    }


def channels_check_tokens() -> dict[str, int]:
    """Ask the platform about every connected channel's token (daily).

    A rejected or expired token puts the channel in ``needs_reconnect`` with a reason the
    customer sees next to a Reconnect button; a check that could not reach the platform
    changes nothing (absence of an answer is not evidence of a dead token).
    """
    counts: Counter[str] = Counter(checked=0, valid=0, needs_reconnect=0, expiring_soon=0, check_failed=0)
    for channel in Channel.objects.filter(status=Channel.Status.CONNECTED).exclude(token_ciphertext="").iterator():
        counts["checked"] += 1
        now = timezone.now()
        try:
            check = graph_auth.token_debug(token=token_decrypt(channel.token_ciphertext))
        except TokenDecryptError:
            counts["needs_reconnect"] += channel_mark_needs_reconnect(
                channel=channel,
                reason="The stored token cannot be read with the configured keys; reconnect to renew it.",
            )
            continue
        except PlatformError as exc:
            logger.warning("token check for channel %s failed: %s", channel.pk, exc)
            counts["check_failed"] += 1
            continue
        Channel.objects.filter(pk=channel.pk).update(token_checked_at=now, token_expires_at=check.expires_at)
        if not check.is_valid or (check.expires_at is not None and check.expires_at <= now):
            counts["needs_reconnect"] += channel_mark_needs_reconnect(channel=channel, reason=_rejection_reason(check))
            continue
        counts["valid"] += 1
        if check.expires_at is not None and check.expires_at <= now + TOKEN_EXPIRY_WARNING:
            counts["expiring_soon"] += 1
    return dict(counts)


def connect_funnel(*, since: datetime) -> dict[str, dict]:
    """Connect funnel per platform since ``since``: started, callbacks, bound, failures by reason."""
    funnel: dict[str, dict] = {
        platform: {"started": 0, "callbacks": 0, "bound": 0, "failed": 0, "failed_by_reason": {}}
        for platform in Platform.values
    }
    rows = (
        ConnectEvent.objects.filter(created_at__gte=since)
        .values("platform", "kind", "reason")
        .annotate(n=Count("id"))
        .order_by()
    )
    keys: dict[str, str] = {
        ConnectEvent.Kind.STARTED: "started",
        ConnectEvent.Kind.CALLBACK: "callbacks",
        ConnectEvent.Kind.BOUND: "bound",
        ConnectEvent.Kind.FAILED: "failed",
    }
    for row in rows:
        entry = funnel.setdefault(
            row["platform"], {"started": 0, "callbacks": 0, "bound": 0, "failed": 0, "failed_by_reason": {}}
        )
        entry[keys[row["kind"]]] += row["n"]
        if row["kind"] == ConnectEvent.Kind.FAILED:
            reasons = entry["failed_by_reason"]
            reasons[row["reason"]] = reasons.get(row["reason"], 0) + row["n"]
    return funnel


def tokens_reencrypt(*, batch_size: int = 200) -> dict[str, int]:
    """Re-encrypt channel tokens and pending grants with the newest key (``tokens_reencrypt``).

    Each row is locked while it is rewritten, so a reconnect saving a new token at the same
    moment is never overwritten by the rotated copy of the old one.
    """
    counts: Counter[str] = Counter(channels=0, grants=0, unreadable=0)
    for model, field_name, counter in (
        (Channel, "token_ciphertext", "channels"),
        (ConnectGrant, "secrets_ciphertext", "grants"),
    ):
        ids = list(model.objects.exclude(**{field_name: ""}).values_list("pk", flat=True))
        for start in range(0, len(ids), batch_size):
            with transaction.atomic():
                for row in model.objects.select_for_update().filter(pk__in=ids[start : start + batch_size]):
                    try:
                        rotated = token_rotate(getattr(row, field_name))
                    except TokenDecryptError:
                        counts["unreadable"] += 1
                        continue
                    model.objects.filter(pk=row.pk).update(**{field_name: rotated})
                    counts[counter] += 1
    return dict(counts)


def session_binding(session_key: str) -> str:
    """What a claim stores of the browser session: a keyed hash, never the session key itself."""
    return salted_hmac("publish.oauth.session_binding", session_key, algorithm="sha256").hexdigest()


def _claim_refusal(*, state: str, user: Visitor, binding: str, now: datetime) -> tuple[ConnectError, OAuthClaim | None]:
    """Why a callback lost, told apart after the fact for the page and the funnel."""
    claim = OAuthClaim.objects.select_related("account").filter(state=state).first() if state else None
    if claim is None:
        return ClaimUnknown(), None
    if claim.user_id != user.pk or not binding or not constant_time_compare(claim.session_binding, binding):
        # No account on the error: the page must not offer another user a way into it.
        return ClaimWrongSession(), claim
    if claim.consumed_at is None and claim.expires_at <= now:
        return ClaimExpired(account=claim.account), claim
    # Consumed already; or unexpired and unconsumed when read, which means another request
    # consumed it between our UPDATE and this read.
    return ClaimReplayed(account=claim.account), claim


def _callback_repeated(claim: OAuthClaim) -> ConnectGrant:
    """The same browser delivered a callback whose claim its own earlier request won.

    Waits briefly for that request, then leads to its page choice; says it already bound,
    or how it ended; or, when the winner's process died after spending the code, says to
    start again and counts the attempt as interrupted in the connect funnel (once).
    """
    deadline = time.monotonic() + REPEAT_WAIT_S
    while True:
        claim.refresh_from_db(fields=["outcome", "outcome_detail", "callback_at"])
        grant = ConnectGrant.objects.filter(claim=claim).first()
        if grant is not None:
            if grant.expires_at <= timezone.now():
                raise GrantUnavailable(account=claim.account)
            return grant
        if claim.outcome == OAuthClaim.Outcome.BOUND:
            raise ConnectAlreadyDone(account=claim.account)
        if claim.outcome_detail == ConnectInterrupted.reason:
            raise ConnectInterrupted(account=claim.account)
        if claim.outcome:
            # The winner failed and was counted; this repeat shows the same ending, uncounted.
            raise ClaimReplayed(_ENDINGS.get(claim.outcome, ClaimReplayed.message), account=claim.account)
        if claim.callback_at is not None and claim.callback_at <= timezone.now() - CALLBACK_ABANDONED_AFTER:
            interrupted = OAuthClaim.objects.filter(pk=claim.pk, outcome=OAuthClaim.Outcome.PENDING).update(
                outcome=OAuthClaim.Outcome.FAILED, outcome_detail=ConnectInterrupted.reason
            )
            if interrupted:
                _funnel_failed(platform=claim.platform, account=claim.account, reason=ConnectInterrupted.reason)
            raise ConnectInterrupted(account=claim.account)
        if time.monotonic() >= deadline:
            raise ConnectInProgress(account=claim.account)
        time.sleep(REPEAT_POLL_S)


# How a failed connect ended, told again to a repeat of its callback.
_ENDINGS: dict[str, str] = {
    OAuthClaim.Outcome.DENIED: ConnectDenied.message,
    OAuthClaim.Outcome.DECLINED_PERMISSIONS: PermissionsDeclined.message + " Start again from the Channels page.",
    OAuthClaim.Outcome.EXCHANGE_FAILED: ExchangeFailed.message,
    OAuthClaim.Outcome.NO_PAGES: NoPages.message,
}


def _claim_failed(claim: OAuthClaim, error: ConnectError) -> NoReturn:
    """Record why a consumed claim did not bind anything, then raise it to the view."""
    outcome = {
        ConnectDenied.reason: OAuthClaim.Outcome.DENIED,
        PermissionsDeclined.reason: OAuthClaim.Outcome.DECLINED_PERMISSIONS,
        ExchangeFailed.reason: OAuthClaim.Outcome.EXCHANGE_FAILED,
        NoPages.reason: OAuthClaim.Outcome.NO_PAGES,
    }.get(error.reason, OAuthClaim.Outcome.FAILED)
    OAuthClaim.objects.filter(pk=claim.pk).update(outcome=outcome, outcome_detail=error.reason)
    _funnel_failed(platform=claim.platform, account=claim.account, reason=error.reason)
    raise error


def _funnel_failed(*, platform: str, account: Account | None, reason: str) -> None:
    ConnectEvent.objects.create(platform=platform, account=account, kind=ConnectEvent.Kind.FAILED, reason=reason)


@transaction.atomic
def _funnel_failed_once(*, claim: OAuthClaim, reason: str) -> None:
    """Count a refusal that anyone holding the callback URL can repeat (another browser, signed
    out) once per claim: the claim explains one failure, not one per request. The claim's row
    lock makes concurrent repeats count once too."""
    locked = OAuthClaim.objects.select_for_update().get(pk=claim.pk)
    counted = ConnectEvent.objects.filter(
        platform=locked.platform,
        account_id=locked.account_id,
        kind=ConnectEvent.Kind.FAILED,
        reason=reason,
        created_at__gte=locked.created_at,
    )
    if not counted.exists():
        _funnel_failed(platform=locked.platform, account=claim.account, reason=reason)


def _rejection_reason(check: graph_auth.TokenCheck) -> str:
    if check.is_valid:
        return "Facebook says the access expired. Reconnect to keep publishing."
    detail = {
        458: "the Landed app was removed from your Facebook account",
        459: "Facebook needs you to log in and pass a security checkpoint",
        460: "your Facebook password changed",
        463: "the access expired",
        464: "your Facebook account is not confirmed",
        467: "you logged out of Facebook or the access was revoked",
    }.get(check.error_subcode or 0, "Facebook no longer accepts Landed's access")
    return f"{detail[0].upper()}{detail[1:]}. Reconnect to keep publishing."
