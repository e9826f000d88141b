"""OAuth claims at the service level: minted, consumed exactly once, cleaned up only long after."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth.models import User
from django.utils import timezone

from accounts.models import Account, Platform
from publish.models import ConnectEvent, OAuthClaim
from publish.oauth import services
from publish.oauth.errors import ClaimExpired, ClaimReplayed, ClaimUnknown, ClaimWrongSession

SESSION = "browser-session-one"

pytestmark = pytest.mark.django_db


def _mint(account: Account, user: User, session_key: str = SESSION) -> OAuthClaim:
    return services.oauth_claim_mint(
        account=account, user=user, session_key=session_key, platform=Platform.FACEBOOK_PAGE
    )


def test_a_claim_carries_at_least_128_random_bits_and_expires_in_about_ten_minutes(account, member) -> None:
    claim = _mint(account, member)
    other = _mint(account, member)

    # token_urlsafe(32): 32 random bytes, 43 url-safe characters.
    assert len(claim.state) >= 43
    assert claim.state != other.state
    assert timedelta(minutes=9) < claim.expires_at - timezone.now() <= timedelta(minutes=10)
    # The claim stores a keyed hash of the session, never the session key itself.
    assert SESSION not in claim.session_binding


def test_a_claim_is_consumed_once_and_a_replay_is_refused(account, member) -> None:
    claim = _mint(account, member)

    consumed = services.oauth_claim_consume(state=claim.state, user=member, session_key=SESSION)
    assert consumed.pk == claim.pk
    assert consumed.consumed_at is not None

    with pytest.raises(ClaimReplayed):
        services.oauth_claim_consume(state=claim.state, user=member, session_key=SESSION)


def test_another_browser_session_cannot_consume_and_the_claim_still_works_for_its_own(account, member) -> None:
    claim = _mint(account, member)

    with pytest.raises(ClaimWrongSession):
        services.oauth_claim_consume(state=claim.state, user=member, session_key="someone-elses-session")

    assert services.oauth_claim_consume(state=claim.state, user=member, session_key=SESSION).pk == claim.pk


def test_another_user_cannot_consume_a_claim(account, member, other_member) -> None:
    claim = _mint(account, member)

    with pytest.raises(ClaimWrongSession):
        services.oauth_claim_consume(state=claim.state, user=other_member, session_key=SESSION)


def test_an_expired_claim_is_refused(account, member) -> None:
    claim = _mint(account, member)

    with time_machine.travel(timezone.now() + timedelta(minutes=10, seconds=1)), pytest.raises(ClaimExpired):
        services.oauth_claim_consume(state=claim.state, user=member, session_key=SESSION)


@pytest.mark.parametrize("state", ["", "not-a-state-we-issued", "x" * 500])
def test_an_unknown_state_is_refused(account, member, state: str) -> None:
    _mint(account, member)

    with pytest.raises(ClaimUnknown):
        services.oauth_claim_consume(state=state, user=member, session_key=SESSION)


def test_cleanup_deletes_only_claims_that_expired_more_than_an_hour_ago(account, member) -> None:
    # given: a claim minted long ago, one that expired minutes ago, and a live one
    start = timezone.now()
    with time_machine.travel(start - timedelta(hours=2)):
        old = _mint(account, member)
    with time_machine.travel(start - timedelta(minutes=15)):
        recently_expired = _mint(account, member)
    live = _mint(account, member)

    # when
    counts = services.oauth_claims_cleanup()

    # then: only the long-expired one is gone, and the live one still consumes
    assert counts["claims_deleted"] == 1
    remaining = set(OAuthClaim.objects.values_list("pk", flat=True))
    assert remaining == {recently_expired.pk, live.pk}
    assert old.pk not in remaining
    assert services.oauth_claim_consume(state=live.state, user=member, session_key=SESSION).pk == live.pk


def test_the_funnel_counts_started_callbacks_and_failures_by_reason(account, member) -> None:
    since = timezone.now() - timedelta(minutes=1)
    first, second = _mint(account, member), _mint(account, member)
    services.oauth_claim_consume(state=first.state, user=member, session_key=SESSION)
    with pytest.raises(ClaimReplayed):
        services.oauth_claim_consume(state=first.state, user=member, session_key=SESSION)
    with pytest.raises(ClaimWrongSession):
        services.oauth_claim_consume(state=second.state, user=member, session_key="other")
    with pytest.raises(ClaimUnknown):
        services.oauth_claim_consume(state="nope", user=member, session_key=SESSION)

    funnel = services.connect_funnel(since=since)

    assert funnel[Platform.FACEBOOK_PAGE] == {
        "started": 2,
        "callbacks": 1,
        "bound": 0,
        # The repeat from the same browser is not a failure by itself: connect_callback
        # follows it to the first request's outcome (tests/publish/test_oauth_flow.py).
        "failed": 2,
        "failed_by_reason": {"cross_session": 1, "unknown_state": 1},
    }
    assert funnel[Platform.INSTAGRAM]["started"] == 0
    assert ConnectEvent.objects.filter(kind=ConnectEvent.Kind.FAILED, account=None).count() == 1
