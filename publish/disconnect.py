"""Disconnecting a channel (the owner's, from the Channels page): revoke our token at the
platform, delete our copy, mark the channel disconnected and take its queued posts out of
the queue. Every publication and its history stay: History still shows what landed there.

Two steps, because one talks to the platform and the other writes rows:
``channel_token_revoke`` makes the network call outside any transaction, then
``channel_mark_disconnected`` changes the rows in the caller's transaction (posting's
``channel_disconnect`` runs both and sends the withdrawn drafts back to Drafts with them).

Queued posts go back to drafts rather than waiting: the owner chose to stop posting
there, and a post held until some later reconnect would go out at a time nobody picked.
Connecting the same Page again (the ordinary connect flow) rebinds the channel with a
fresh token; the drafts can then be approved again into new posting times. An Instagram
account connected through its Page posts with the Page's token, so the two are
disconnected together (``channels_sharing_connection``): revoking one revokes both.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.utils import timezone

from accounts.models import Account
from publish.crypto import TokenDecryptError, token_decrypt
from publish.errors import NeedsReconnect, PermanentPlatformError, PlatformError
from publish.lifecycle import Event, publication_transition
from publish.models import Channel, ChannelDisconnect, Publication
from publish.oauth import graph_auth

Status = Channel.Status


class DisconnectRefused(Exception):
    """Nothing changed; the message says why in the customer's words (never a token)."""


@dataclass(frozen=True)
class Revoke:
    revoked: bool
    # Why not (blank when revoked), for the owner and the audit row.
    detail: str = ""


@dataclass(frozen=True)
class Disconnected:
    channels: list[Channel]
    revoke: Revoke
    withdrawn_draft_ids: list[int]


def channel_for_disconnect(*, account: Account, channel_id: int) -> Channel:
    """The account's channel (Channel.DoesNotExist for another account's); refused if already disconnected."""
    channel = Channel.objects.get(account=account, pk=channel_id)
    if channel.status == Status.DISCONNECTED:
        raise DisconnectRefused(f"{channel} is already disconnected.")
    return channel


def channels_sharing_connection(*, channel: Channel) -> list[Channel]:
    """The channel and every other live channel of the account that posts with the same
    token: an Instagram account connected through Facebook Login posts with its Page's
    token, so revoking one revokes both, and they are disconnected together."""
    together = [channel]
    if not channel.token_ciphertext:
        return together
    try:
        token = token_decrypt(channel.token_ciphertext)
    except TokenDecryptError:
        return together
    others = (
        Channel.objects.filter(account_id=channel.account_id)
        .exclude(pk=channel.pk)
        .exclude(token_ciphertext="")
        .exclude(status=Status.DISCONNECTED)
        .order_by("pk")
    )
    for other in others:
        try:
            if token_decrypt(other.token_ciphertext) == token:
                together.append(other)
        except TokenDecryptError:
            continue
    return together


def channel_token_revoke(*, channel: Channel) -> Revoke:
    """Ask the platform to give up the grant behind the channel's token.

    A platform that does not answer raises DisconnectRefused (nothing changed: try again);
    revoking twice is harmless, the second finds the token dead.
    """
    if not channel.token_ciphertext:
        return Revoke(False, "We held no token for it, so there was nothing to revoke.")
    try:
        token = token_decrypt(channel.token_ciphertext)
    except TokenDecryptError:
        return Revoke(False, "Our copy of the token could not be read, so there was nothing to revoke.")
    try:
        graph_auth.token_revoke(token=token)
    except NeedsReconnect:
        return Revoke(True, "It had already stopped working at Facebook.")
    except PermanentPlatformError as exc:
        return Revoke(False, f"Facebook refused to revoke it ({exc.kind}); our copy is deleted all the same.")
    except PlatformError:
        raise DisconnectRefused("Facebook did not answer, so nothing was changed. Try again in a minute.") from None
    return Revoke(True)


def channels_mark_disconnected(*, channels: list[Channel], user: User, revoke: Revoke) -> Disconnected:
    """Delete the tokens, mark the channels disconnected, withdraw their queued publications
    and write an audit row each. Call inside a transaction; the caller returns the drafts.

    Each queued publication leaves by the lifecycle's conditional WITHDRAW, so one a worker
    has already claimed is going out and stays (its read-back then finds no token and it
    ends unconfirmed, never guessed). Returns the drafts whose publications left.
    """
    now = timezone.now()
    withdrawn: list[int] = []
    done: list[Channel] = []
    for channel in channels:
        changed = (
            Channel.objects.filter(pk=channel.pk)
            .exclude(status=Status.DISCONNECTED)
            .update(
                status=Status.DISCONNECTED,
                token_ciphertext="",
                token_expires_at=None,
                token_checked_at=None,
                throttled_until=None,
                throttled_since=None,
                status_reason=f"Disconnected by {user.get_username()} on {now:%d %b %Y}.",
            )
        )
        if changed != 1:
            continue  # Another request disconnected it a moment ago.
        left: list[int] = []
        queued = Publication.objects.filter(channel=channel, status=Publication.Status.SCHEDULED)
        for publication_id, draft_id in queued.values_list("pk", "draft_id"):
            if publication_transition(event=Event.WITHDRAW, publication_id=publication_id, slot_at=None):
                left.append(draft_id)
        ChannelDisconnect.objects.create(
            channel=channel,
            account_id=channel.account_id,
            user=user,
            username=user.get_username(),
            revoked=revoke.revoked,
            revoke_detail=revoke.detail[:300],
            withdrawn=len(left),
        )
        withdrawn += left
        channel.refresh_from_db()
        done.append(channel)
    if not done:
        raise DisconnectRefused(f"{channels[0]} is already disconnected.")
    return Disconnected(channels=done, revoke=revoke, withdrawn_draft_ids=withdrawn)


def channel_queued_count(*, channels: list[Channel]) -> int:
    """How many posts wait in the queue for these channels (the confirm page says so)."""
    return Publication.objects.filter(channel__in=channels, status=Publication.Status.SCHEDULED).count()
