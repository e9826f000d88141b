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
fresh token; the drafts can then be approved again into new posting times.
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
    channel: Channel
    revoke: Revoke
    withdrawn_draft_ids: list[int]


def channel_for_disconnect(*, account: Account, channel_id: int) -> Channel:
    """The account's channel (Channel.DoesNotExist for another account's); refused if already disconnected."""
    channel = Channel.objects.get(account=account, pk=channel_id)
    if channel.status == Status.DISCONNECTED:
        raise DisconnectRefused(f"{channel} is already disconnected.")
    return channel


def channel_token_revoke(*, channel: Channel) -> Revoke:
    """Ask the platform to give up the grant behind the channel's token.

    A platform that does not answer raises DisconnectRefused (nothing changed: try again);
    revoking twice is harmless, the second finds the token dead. A token that another of
    the account's channels still uses (an Instagram account posts with its Page's token) is
    not revoked: that would silently cut the other channel off too.
    """
    if not channel.token_ciphertext:
        return Revoke(False, "We held no token for it.")
    try:
        token = token_decrypt(channel.token_ciphertext)
    except TokenDecryptError:
        return Revoke(False, "Our copy of the token could not be read, so there was nothing to revoke.")
    for other in (
        Channel.objects.filter(account_id=channel.account_id)
        .exclude(pk=channel.pk)
        .exclude(token_ciphertext="")
        .exclude(status=Status.DISCONNECTED)
    ):
        try:
            shared = token_decrypt(other.token_ciphertext) == token
        except TokenDecryptError:
            continue
        if shared:
            return Revoke(
                False,
                f"{other} still uses the same Facebook connection, so it was not revoked at Facebook; "
                f"disconnect {other} too to revoke it.",
            )
    try:
        graph_auth.token_revoke(token=token)
    except NeedsReconnect:
        return Revoke(True, "It had already stopped working at Facebook.")
    except PermanentPlatformError as exc:
        return Revoke(False, f"Facebook refused to revoke it ({exc.kind}); our copy is deleted all the same.")
    except PlatformError:
        raise DisconnectRefused("Facebook did not answer, so nothing was changed. Try again in a minute.") from None
    return Revoke(True)


def channel_mark_disconnected(*, channel: Channel, user: User, revoke: Revoke) -> Disconnected:
    """Delete the token, mark the channel disconnected, withdraw its queued publications and
    write the audit row. Call inside a transaction; the caller returns the drafts.

    Each queued publication leaves by the lifecycle's conditional WITHDRAW, so one a worker
    has already claimed is going out and stays (its read-back then finds no token, and it
    ends unconfirmed rather than guessed). Returns the drafts whose publications left.
    """
    now = timezone.now()
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
        raise DisconnectRefused(f"{channel} is already disconnected.")
    withdrawn: list[int] = []
    queued = Publication.objects.filter(channel=channel, status=Publication.Status.SCHEDULED)
    for publication_id, draft_id in queued.values_list("pk", "draft_id"):
        if publication_transition(event=Event.WITHDRAW, publication_id=publication_id, slot_at=None):
            withdrawn.append(draft_id)
    ChannelDisconnect.objects.create(
        channel=channel,
        account_id=channel.account_id,
        user=user,
        username=user.get_username(),
        revoked=revoke.revoked,
        revoke_detail=revoke.detail[:300],
        withdrawn=len(withdrawn),
    )
    channel.refresh_from_db()
    return Disconnected(channel=channel, revoke=revoke, withdrawn_draft_ids=withdrawn)


def channel_queued_count(*, channel: Channel) -> int:
    """How many posts wait in the queue for this channel (the confirm page says so)."""
    return Publication.objects.filter(channel=channel, status=Publication.Status.SCHEDULED).count()
