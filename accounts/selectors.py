"""Reads for tenancy. Every account-scoped page resolves its account through account_for_member."""

from __future__ import annotations

import hashlib
from datetime import datetime

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q, QuerySet
from django.http import Http404

from accounts.models import Account, Invite, Membership, Role


def account_for_member(*, user: User | AnonymousUser, slug: str) -> Account:
    """The account with this slug if the user is a member of it; 404 otherwise.

    404 rather than 403 so that a non-member cannot even learn that the slug exists.
    """
    if not user.is_authenticated:
        raise Http404("No such account")
    try:
        return Account.objects.get(slug=slug, memberships__user=user)
    except Account.DoesNotExist:
        raise Http404("No such account") from None


def accounts_for_member(*, user: User) -> QuerySet[Account]:
    return Account.objects.filter(memberships__user=user).order_by("name")


def membership_role(*, user: User | AnonymousUser, account: Account) -> Role | None:
    """The user's role in the account; None for anyone who is not a member."""
    if not user.is_authenticated:
        return None
    role = Membership.objects.filter(user=user, account=account).values_list("role", flat=True).first()
    return Role(role) if role is not None else None


def member_may_edit(*, user: User | AnonymousUser, account: Account) -> bool:
    """Whether the user may change things in this account (``Role.may_edit``)."""
    role = membership_role(user=user, account=account)
    return role is not None and role.may_edit


def member_may_change_settings(*, user: User | AnonymousUser, account: Account) -> bool:
    """Whether the user is the account's owner (``Role.may_change_settings``): settings,
    channels, and the team."""
    role = membership_role(user=user, account=account)
    return role is not None and role.may_change_settings


def memberships_of_user(*, user: User | AnonymousUser) -> list[Membership]:
    """Every membership of the user, with its account, by account name: one query, read by
    the header (the current role and the account switcher) on every account page."""
    if not user.is_authenticated:
        return []
    return list(Membership.objects.filter(user=user).select_related("account").order_by("account__name"))


def team_members(*, account: Account) -> list[Membership]:
    """The account's members with their users: owners first, then by name."""
    order = {Role.OWNER: 0, Role.EDITOR: 1, Role.VIEWER: 2}
    members = list(Membership.objects.filter(account=account).select_related("user"))
    return sorted(members, key=lambda m: (order.get(Role(m.role), 3), m.user.email or m.user.username))


def invites_pending(*, account: Account, now: datetime) -> QuerySet[Invite]:
    return Invite.objects.filter(account=account).pending(now=now).order_by("email")


def invite_for_token(*, token: str) -> Invite | None:
    """The invite this link's token names (any state), or None. Only the token's hash is stored."""
    if not token or len(token) > 128:
        return None
    return Invite.objects.select_related("account").filter(token_hash=invite_token_hash(token)).first()


def invite_token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def users_with_email(*, email: str) -> QuerySet[User]:
    """Users this address already belongs to (their email, or a username that is the address)."""
    return User.objects.filter(Q(email__iexact=email) | Q(username__iexact=email))
