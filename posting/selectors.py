"""Reads for the posting app. Every account-scoped page goes through account_for_member."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import QuerySet
from django.http import Http404

from posting.models import Account, Draft, Membership


def account_for_member(*, user: AbstractBaseUser | AnonymousUser, slug: str) -> Account:
    """The account with this slug if the user is a member of it; 404 otherwise.

    404 rather than 403 so that a non-member cannot even learn that the slug exists.
    """
    if not user.is_authenticated:
        raise Http404("No such account")
    try:
        return Account.objects.get(slug=slug, memberships__user=user)
    except Account.DoesNotExist:
        raise Http404("No such account") from None


def accounts_for_member(*, user: AbstractBaseUser) -> QuerySet[Account]:
    return Account.objects.filter(memberships__user=user).order_by("name")


def membership_role(*, user: AbstractBaseUser, account: Account) -> str | None:
    return Membership.objects.filter(user=user, account=account).values_list("role", flat=True).first()


def drafts_awaiting_approval(*, account: Account) -> QuerySet[Draft]:
    return (
        Draft.objects.filter(account=account, status=Draft.Status.GATED, gate_verdict=Draft.Verdict.PASSED)
        .select_related("article")
        .order_by("-created_at")
    )
