from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_every_model_change_has_a_committed_migration() -> None:
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out)
    except SystemExit:  # --check exits non-zero when a migration is missing
        pytest.fail(f"models changed without a migration (run manage.py makemigrations):\n{out.getvalue()}")


@pytest.mark.django_db(transaction=True)
def test_voices_learned_before_names_self_rate_get_it_filled_in() -> None:
    """posting 0010 adds the share of posts naming the business to voices learned before it, from
    their own past posts and the account's names, and leaves the rest of what was learned alone."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = [("posting", "0009_pastpost_meaning")], [("posting", "0010_voice_names_self_rate")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    account = apps.get_model("accounts", "Account").objects.create(
        name="Skylark Balloon Flights", slug="skylark", own_names=["Skylark"]
    )
    for text in ["Skylark over the valley", "The burner, up close", "Frost on the field", "Skylark's shadow"]:
        apps.get_model("posting", "PastPost").objects.create(account=account, platform="instagram", text=text)
    old = {"post_count": 4, "person": "", "person_rate": 0.0, "you_rate": 0.0}
    apps.get_model("posting", "VoiceProfile").objects.create(account=account, platform="instagram", stats=old)
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        apps = executor.loader.project_state(after).apps
        profile = apps.get_model("posting", "VoiceProfile").objects.get(account_id=account.pk)
        assert profile.stats == {**old, "names_self_rate": 0.5}
    finally:
        call_command("migrate", verbosity=0)


@pytest.mark.django_db(transaction=True)
def test_voices_learned_before_session_14_relearn_the_sign_off_as_written() -> None:
    """posting 0012 relearns the sign-off (with the business's own emoji) and what depends on it,
    and the third-person rate, from the profile's own past posts; the rest stays as learned."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = [("posting", "0011_taught_article")], [("posting", "0012_voice_sign_off_as_written")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    account = apps.get_model("accounts", "Account").objects.create(
        name="Hollins Hill Vineyard", slug="hollins", own_names=["Hollins Hill"]
    )
    for news in ["Our Bacchus is back in stock.", "Budburst on the top slope.", "Cellar door opens Thursday."]:
        text = f"{news} \U0001f347\n#HollinsHillVineyard\nCheers from the vines \U0001f347"
        apps.get_model("posting", "PastPost").objects.create(account=account, platform="instagram", text=text)
    old = {"post_count": 3, "person": "we", "person_rate": 0.333, "sign_offs": ["Cheers from the vines"]}
    apps.get_model("posting", "VoiceProfile").objects.create(account=account, platform="instagram", stats=old)
    try:
        executor = MigrationExecutor(connection)
        executor.migrate(after)
        apps = executor.loader.project_state(after).apps
        profile = apps.get_model("posting", "VoiceProfile").objects.get(account_id=account.pk)
        assert profile.stats["sign_offs"] == ["Cheers from the vines \U0001f347"]
        assert profile.stats["names_self_rate"] == 0.0
        assert {key: profile.stats[key] for key in old if key != "sign_offs"} == {
            "post_count": 3,
            "person": "we",
            "person_rate": 0.333,
        }
    finally:
        call_command("migrate", verbosity=0)
