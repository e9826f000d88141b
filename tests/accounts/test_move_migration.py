"""Account and Membership moved from posting to accounts without touching a row.

The database is taken back to the last migrations before the move, filled the way a running
installation is (accounts, members in each role, rows of every app that points at an
account, the content type and permission rows that admin users hold), then migrated
forward to today's leaves and back again.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder

from accounts.models import Account, Membership, Role
from cron.models import Alarm

# The leaves just before the move; accounts did not exist yet.
BEFORE = [
    ("posting", "0005_merge_revisions_and_relevance"),
    ("publish", "0006_merge_kinds_and_recovery"),
    ("research", "0005_source_fetch_cost_and_run_skipped_feeds"),
    ("cron", "0005_daily_metric_passed"),
    ("accounts", None),
]


def _applied_state_apps():
    """The models as the database holds them now (every applied migration, nothing else)."""
    executor = MigrationExecutor(connection)
    applied = list(MigrationRecorder(connection).applied_migrations())
    return executor.loader.project_state(applied).apps


def _fill_before_the_move():
    apps = _applied_state_apps()
    with pytest.raises(LookupError):
        apps.get_model("accounts", "Account")  # the move has not happened yet
    User = apps.get_model("auth", "User")
    Account = apps.get_model("posting", "Account")
    Membership = apps.get_model("posting", "Membership")
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")

    # On an installation from before the move, the content types are posting's. The test
    # database was created at today's models, so relabel them back as they were.
    ContentType.objects.filter(app_label="accounts").update(app_label="posting")
    account_type = ContentType.objects.get(app_label="posting", model="account")
    change_account = Permission.objects.get(content_type=account_type, codename="change_account")
    staff = User.objects.create_user(username="staff", password="x" * 20, is_staff=True)
    staff.user_permissions.add(change_account)

    shop = Account.objects.create(
        name="Old Shop", slug="old-shop", industry="cycling", is_paying=True, topics=["bikes"], own_names=["Old Shop"]
    )
    other = Account.objects.create(name="Other", slug="other")
    for username, role in [("olive", "owner"), ("eddie", "editor"), ("vera", "viewer")]:
        Membership.objects.create(user=User.objects.create_user(username=username), account=shop, role=role)
    Membership.objects.create(user=User.objects.get(username="olive"), account=other, role="viewer")

    article = apps.get_model("research", "Article").objects.create(
        canonical_url="https://news.example/old", title="Old", text="The shop employs 12 mechanics."
    )
    apps.get_model("posting", "Draft").objects.create(
        account=shop, article=article, platform="facebook_page", text="12 mechanics."
    )
    apps.get_model("publish", "Channel").objects.create(account=shop, platform="facebook_page", external_id="p1")
    apps.get_model("research", "Subscription").objects.create(
        account=shop, source=apps.get_model("research", "Source").objects.create(url="https://news.example/feed")
    )
    apps.get_model("cron", "Alarm").objects.create(kind="nothing_landed", account=shop)
    return {
        "shop": shop.pk,
        "other": other.pk,
        "account_type": account_type.pk,
        "change_account": change_account.pk,
        "staff": staff.pk,
    }


@pytest.mark.django_db(transaction=True)
def test_moving_account_and_membership_to_accounts_keeps_every_row_and_link():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    try:
        # given an installation from before the move, with data in every app
        ids = _fill_before_the_move()

        # when it migrates to today's leaves
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())

        # then every account and membership is there, in today's models, with its role
        shop = Account.objects.get(pk=ids["shop"])
        assert (shop.slug, shop.industry, shop.is_paying, shop.topics) == ("old-shop", "cycling", True, ["bikes"])
        assert Account.objects.count() == 2
        roles = dict(Membership.objects.filter(account=shop).values_list("user__username", "role"))
        assert roles == {"olive": Role.OWNER, "eddie": Role.EDITOR, "vera": Role.VIEWER}
        assert Membership.objects.get(account_id=ids["other"]).role == Role.VIEWER
        # and the rows of the other apps still reach their account
        assert shop.drafts.get().text == "12 mechanics."
        assert shop.channels.get().external_id == "p1"
        assert shop.subscriptions.count() == 1
        assert Alarm.objects.get().account == shop
        # and the staff member's permission follows the model to its new app
        ContentType.objects.clear_cache()
        account_type = ContentType.objects.get_for_model(Account)
        assert account_type.pk == ids["account_type"]
        assert User.objects.get(pk=ids["staff"]).has_perm("accounts.change_account")

        # and the move can be undone without losing a row either
        executor = MigrationExecutor(connection)
        executor.migrate(BEFORE)
        apps = _applied_state_apps()
        assert apps.get_model("posting", "Account").objects.count() == 2
        assert apps.get_model("posting", "Membership").objects.count() == 4
        assert apps.get_model("contenttypes", "ContentType").objects.get(pk=ids["account_type"]).app_label == "posting"
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
