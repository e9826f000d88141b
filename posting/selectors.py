"""Reads for the posting app. Every account-scoped page goes through account_for_member."""

from __future__ import annotations

from datetime import datetime

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
        .select_related("article", "composition")
        .order_by("-created_at")
    )


def account_funnel(*, account: Account, since: datetime | None = None) -> dict[str, int]:
    """Articles → drafts → gated → approved → published → landed for one account.

    ``since`` limits every stage to rows created after it (the operator's 24 h view);
    None counts everything. Published means the platform accepted the write and gave
    us an id; landed means a later read showed it live with a permalink.
    """
    from publish.models import Publication
    from research.selectors import articles_usable_for_account

    drafts = Draft.objects.filter(account=account)
    publications = Publication.objects.filter(account=account)
    if since is not None:
        drafts = drafts.filter(created_at__gte=since)
        publications = publications.filter(created_at__gte=since)
    return {
        "articles": articles_usable_for_account(account=account, since=since).count(),
        "drafts": drafts.count(),
        "gated": drafts.exclude(gate_verdict="").count(),
        "passed": drafts.filter(gate_verdict=Draft.Verdict.PASSED).count(),
        "approved": drafts.filter(status=Draft.Status.APPROVED).count(),
        "published": publications.exclude(platform_post_id="").count(),
        "landed": publications.filter(status=Publication.Status.LANDED).count(),
    }
