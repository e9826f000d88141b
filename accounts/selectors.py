"""Reads for tenancy. Every account-scoped page resolves its account through account_for_member."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import QuerySet
from django.http import Http404

from accounts.models import Account, Membership, Role


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


def account_editor_emails(*, account: Account) -> list[str]:
    """The addresses of active members who may edit (and so approve), sorted, no blanks."""
    return sorted(
        set(
            Membership.objects.filter(account=account, role__in=Role.editing(), user__is_active=True)
            .exclude(user__email="")
            .values_list("user__email", flat=True)
        )
    )
