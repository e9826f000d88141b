"""One definition of what each role may do, read by every page and service that asks."""

from __future__ import annotations

import pytest

from accounts.models import Role
from accounts.selectors import member_may_edit
from tests import factories


def test_owners_and_editors_may_edit_and_viewers_may_not() -> None:
    assert {role for role in Role if role.may_edit} == {Role.OWNER, Role.EDITOR} == Role.editing()


@pytest.mark.django_db
def test_member_may_edit_follows_the_role_in_that_account_only(account, other_account) -> None:
    editor = factories.member_create(account=account, username="ed", role=Role.EDITOR)
    viewer = factories.member_create(account=account, username="vi", role=Role.VIEWER)

    assert member_may_edit(user=editor, account=account)
    assert not member_may_edit(user=viewer, account=account)
    # a member of one account has no role in another
    assert not member_may_edit(user=editor, account=other_account)
