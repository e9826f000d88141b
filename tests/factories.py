"""Plain functions that build rows for tests; no factory framework needed yet."""

from __future__ import annotations

from django.contrib.auth.models import User

from posting.models import Account, Membership


def account_create(*, name: str = "Acme Bakery", slug: str = "acme-bakery", **fields: object) -> Account:
    fields.setdefault("industry", "cycling")
    fields.setdefault("is_paying", True)
    return Account.objects.create(name=name, slug=slug, **fields)


def member_create(*, account: Account, username: str = "owner", role: str = Membership.Role.OWNER) -> User:
    user = User.objects.create_user(username=username, password="correct horse battery staple")
    Membership.objects.create(user=user, account=account, role=role)
    return user
