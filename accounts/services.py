"""Writes for tenancy: the team of an account (invites, accepting them, removing members) and
creating an account (the operator's onboarding).

An invite's link is a one-time ticket like the OAuth connect claim (docs/ARCHITECTURE.md
lesson 4): only its token's hash is stored, and accepting it is a single conditional UPDATE
on ``claimed_at IS NULL`` that only one request can win. A forged, reused, revoked or
expired link raises ``InviteUnusable`` and changes nothing.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
import zoneinfo
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email, validate_slug
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.errors import InviteNotSent, InviteUnusable, TeamChangeRefused
from accounts.models import Account, Invite, Membership, Role
from accounts.selectors import invite_for_token, invite_token_hash, users_with_email

logger = logging.getLogger(__name__)

INVITE_TTL = timedelta(days=7)
# Where the emailed link lands; it moves the token into the session and redirects, so the
# token is never in the address bar (or a Referer) of the page the person then uses.
INVITE_LINK_PATH = "/invite/{token}/"


@dataclass(frozen=True)
class InviteSent:
    invite: Invite
    # Only in memory, for the email; the database has its hash alone.
    link: str


def _email_normalised(email: str) -> str:
    email = email.strip().lower()
    try:
        validate_email(email)
    except ValidationError:
        raise TeamChangeRefused("Enter an email address like name@example.com.") from None
    return email


def invite_create(*, account: Account, email: str, role: str, invited_by: User | None, site_url: str) -> InviteSent:
    """Invite an address into the account with a role, and email it the one-time link.

    Inviting an address again replaces its open invite (the old link stops working). A
    member already in the account is refused. If the email cannot be sent, the invite is
    withdrawn (nobody could use it) and ``InviteNotSent`` says so.
    """
    email = _email_normalised(email)
    try:
        role_value = Role(role)
    except ValueError:
        raise TeamChangeRefused("Pick a role: owner, editor or viewer.") from None
    if Membership.objects.filter(account=account, user__in=users_with_email(email=email)).exists():
        raise TeamChangeRefused(f"{email} is already a member of {account.name}.")
    token = secrets.token_urlsafe(32)
    now = timezone.now()
    with transaction.atomic():
        Invite.objects.filter(account=account, email=email, claimed_at__isnull=True, revoked_at__isnull=True).update(
            revoked_at=now
        )
        invite = Invite.objects.create(
            account=account,
            email=email,
            role=role_value.value,
            token_hash=invite_token_hash(token),
            invited_by=invited_by,
            created_at=now,
            expires_at=now + INVITE_TTL,
        )
    link = site_url.rstrip("/") + INVITE_LINK_PATH.format(token=token)
    context = {
        "account": account,
        "role": role_value.label.lower(),
        "link": link,
        "inviter": (invited_by.get_full_name() or invited_by.email or invited_by.username) if invited_by else "Landed",
        "days": INVITE_TTL.days,
    }
    try:
        send_mail(
            subject=f"You're invited to {account.name} on Landed",
            message=render_to_string("accounts/email/invite.txt", context),
            from_email=settings.DEFAULT_FROM_EMAIL,
            recipient_list=[email],
        )
    except Exception as exc:
        # Never log the link: it is the token.
        logger.warning("invite %s: the email could not be sent: %s", invite.pk, type(exc).__name__)
        Invite.objects.filter(pk=invite.pk, claimed_at__isnull=True).update(revoked_at=timezone.now())
        raise InviteNotSent(
            f"The invitation email to {email} could not be sent; nothing was changed. Try again."
        ) from exc
    return InviteSent(invite=invite, link=link)


def invite_revoke(*, account: Account, invite_id: int) -> Invite:
    """Withdraw a pending invite of this account: its link stops working at once."""
    revoked = Invite.objects.filter(
        pk=invite_id, account=account, claimed_at__isnull=True, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())
    invite = Invite.objects.filter(pk=invite_id, account=account).first()
    if invite is None:
        raise TeamChangeRefused("No such invitation.")
    if revoked != 1:
        raise TeamChangeRefused(f"The invitation to {invite.email} was already used or withdrawn.")
    return invite


def invite_check(*, token: str) -> Invite:
    """The invite the link names if it can still be accepted; ``InviteUnusable`` otherwise."""
    invite = invite_for_token(token=token)
    if invite is None:
        raise InviteUnusable("unknown", "This invitation link is not valid. Ask for a new invitation.")
    if invite.claimed_at is not None:
        raise InviteUnusable("used", "This invitation was already accepted. Sign in to use the account.")
    if invite.revoked_at is not None:
        raise InviteUnusable("revoked", "This invitation was withdrawn. Ask the owner for a new one.")
    if invite.expires_at <= timezone.now():
        raise InviteUnusable("expired", "This invitation has expired. Ask the owner for a new one.")
    return invite


def _invite_claim(*, token: str, user: User) -> Invite:
    """The one conditional UPDATE that spends the link; call inside a transaction."""
    invite = invite_check(token=token)
    won = Invite.objects.filter(
        pk=invite.pk, claimed_at__isnull=True, revoked_at__isnull=True, expires_at__gt=timezone.now()
    ).update(claimed_at=timezone.now(), claimed_by=user)
    if won != 1:
        # Another request spent it (or it was withdrawn) between the check and now.
        raise InviteUnusable("used", "This invitation was just used or withdrawn. Sign in to use the account.")
    invite.refresh_from_db()
    return invite


def invite_accept(*, token: str, user: User) -> Membership:
    """A signed-in person whose address the invite names joins the account with its role.

    Someone already a member keeps the role they have (the invite is spent either way).
    """
    invite = invite_check(token=token)
    if invite.email not in {user.email.lower(), user.username.lower()}:
        raise TeamChangeRefused(
            f"This invitation is for {invite.email}, and you are signed in as {user.email or user.username}. "
            "Sign out, then open the link again."
        )
    with transaction.atomic():
        invite = _invite_claim(token=token, user=user)
        membership, _ = Membership.objects.get_or_create(
            user=user, account=invite.account, defaults={"role": invite.role}
        )
    return membership


def invite_accept_new_user(*, token: str, password: str) -> Membership:
    """Someone new to Landed accepts: a login whose username is the invited address, with
    the password they chose, and the membership. All or nothing."""
    invite = invite_check(token=token)
    if users_with_email(email=invite.email).exists():
        raise TeamChangeRefused("You already have a Landed login for this address: sign in to accept.")
    user = User(username=invite.email, email=invite.email)
    try:
        validate_password(password, user)
    except ValidationError as exc:
        raise TeamChangeRefused(" ".join(exc.messages)) from None
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
            invite = _invite_claim(token=token, user=user)
            return Membership.objects.create(user=user, account=invite.account, role=invite.role)
    except IntegrityError:
        # The same address was created a moment ago (a second tab): nothing of this one stays.
        raise TeamChangeRefused("You already have a Landed login for this address: sign in to accept.") from None


def member_remove(*, account: Account, membership_id: int) -> Membership:
    """Take a member out of the account (their login stays; other accounts are untouched).

    The last owner cannot be removed: an account always has someone who can invite. The
    owners are locked first, so two owners removing each other at once cannot both win.
    """
    with transaction.atomic():
        owners = list(
            Membership.objects.select_for_update()
            .filter(account=account, role=Role.OWNER)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        membership = Membership.objects.select_related("user").filter(pk=membership_id, account=account).first()
        if membership is None:
            raise TeamChangeRefused("That person is not a member of this account.")
        if membership.role == Role.OWNER and owners == [membership.pk]:
            raise TeamChangeRefused("An account needs an owner: invite another owner before removing this one.")
        membership.delete()
    return membership


def member_role_set(*, account: Account, membership_id: int, role: str) -> Membership:
    """Give a member another role. The last owner cannot step down (the owners are locked
    first, as for removal, so two owners demoting each other cannot both win)."""
    try:
        new_role = Role(role)
    except ValueError:
        raise TeamChangeRefused("Pick a role: owner, editor or viewer.") from None
    with transaction.atomic():
        owners = list(
            Membership.objects.select_for_update()
            .filter(account=account, role=Role.OWNER)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        membership = Membership.objects.select_related("user").filter(pk=membership_id, account=account).first()
        if membership is None:
            raise TeamChangeRefused("That person is not a member of this account.")
        if membership.role == Role.OWNER and new_role != Role.OWNER and owners == [membership.pk]:
            raise TeamChangeRefused("An account needs an owner: make someone else owner first.")
        Membership.objects.filter(pk=membership.pk).update(role=new_role.value)
        membership.role = new_role.value
    return membership


def account_create(*, name: str, slug: str, timezone_name: str) -> Account:
    """A new customer business, empty: the operator invites its owner next."""
    name = name.strip()
    slug = slug.strip().lower()
    if not name or len(name) > 200:
        raise TeamChangeRefused("Give the business a name (up to 200 characters).")
    try:
        validate_slug(slug)
    except ValidationError:
        raise TeamChangeRefused(
            "The slug is letters, digits, hyphens and underscores only, e.g. harbour-bikes."
        ) from None
    if len(slug) > 80:
        raise TeamChangeRefused("The slug is at most 80 characters.")
    if timezone_name not in zoneinfo.available_timezones():
        raise TeamChangeRefused(f"{timezone_name!r} is not a time zone; pick one like Europe/London.")
    try:
        with transaction.atomic():
            return Account.objects.create(name=name, slug=slug, timezone=timezone_name)
    except IntegrityError:
        raise TeamChangeRefused(f"The slug {slug!r} is taken; pick another.") from None


# Password reset emails per address per hour; beyond it the form answers the same and sends
# nothing (a soft limit against mail-bombing someone, never an oracle). Counted in the cache
# (Redis, shared by every process, when configured).
RESET_EMAILS_PER_HOUR = 3
RESET_WINDOW_S = 3600
# While the cache cannot be reached, each process counts on its own: the limit then holds per
# process (a few times RESET_EMAILS_PER_HOUR across workers) instead of not at all. Bounded, so
# a flood of addresses cannot grow it without end.
RESET_LOCAL_MAX_ADDRESSES = 10_000
_reset_local: dict[str, list[float]] = {}
_reset_local_lock = threading.Lock()


def password_reset_email_allowed(email: str) -> bool:
    """May one more reset email go to ``email`` this hour? Counts this request."""
    key = "landed:reset:" + hashlib.sha256(email.strip().lower().encode()).hexdigest()
    cache.add(key, 0, timeout=RESET_WINDOW_S)
    try:
        sent = cache.incr(key)
    except ValueError as exc:
        # config/cache.py chains the Redis error when the cache is unreachable; a bare
        # ValueError is the key expiring between add and incr, a first email.
        sent = _reset_counted_here(key) if exc.__cause__ is not None else 1
    return sent <= RESET_EMAILS_PER_HOUR


def _reset_counted_here(key: str) -> int:
    now = time.monotonic()
    with _reset_local_lock:
        recent = [at for at in _reset_local.pop(key, []) if now - at < RESET_WINDOW_S]
        recent.append(now)
        _reset_local[key] = recent  # popped and set again: now the newest in insertion order
        if len(_reset_local) > RESET_LOCAL_MAX_ADDRESSES:
            # Least recently asked first (dicts keep insertion order).
            for stale in list(_reset_local)[: len(_reset_local) - RESET_LOCAL_MAX_ADDRESSES]:
                del _reset_local[stale]
        return len(recent)
