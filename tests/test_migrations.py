from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_every_model_change_has_a_committed_migration() -> None:
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out)
    except SystemExit:  # --check exits non-zero when a migration is missing
        pytest.fail(f"models changed without a migration (run manage.py makemigrations):\n{out.getvalue()}")


def _apps_at(target: list[tuple[str, str]]) -> Any:
    """Migrate the test database to ``target`` and return the models as they were there."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    executor.migrate(target)
    return executor.loader.project_state(target).apps


def _voice_learned_then(apps: Any, *, name: str, own_names: list[str], posts: list[str], stats: dict) -> int:
    """An account with Instagram posts and the voice learned from them as stored then; its id."""
    account = apps.get_model("accounts", "Account").objects.create(
        name=name, slug=name.lower().replace(" ", "-"), own_names=own_names
    )
    for text in posts:
        apps.get_model("posting", "PastPost").objects.create(account=account, platform="instagram", text=text)
    apps.get_model("posting", "VoiceProfile").objects.create(account=account, platform="instagram", stats=stats)
    return account.pk


def _stats_after(target: list[tuple[str, str]], account_id: int) -> dict:
    return _apps_at(target).get_model("posting", "VoiceProfile").objects.get(account_id=account_id).stats


@pytest.mark.django_db(transaction=True)
def test_voices_learned_before_names_self_rate_get_it_filled_in() -> None:
    """posting 0010 adds the share of posts naming the business to voices learned before it, from
    their own past posts and the account's names, and leaves the rest of what was learned alone."""
    apps = _apps_at([("posting", "0009_pastpost_meaning")])
    old = {"post_count": 4, "person": "", "person_rate": 0.0, "you_rate": 0.0}
    posts = ["Skylark over the valley", "The burner, up close", "Frost on the field", "Skylark's shadow"]
    account_id = _voice_learned_then(
        apps, name="Skylark Balloon Flights", own_names=["Skylark"], posts=posts, stats=old
    )
    try:
        stats = _stats_after([("posting", "0010_voice_names_self_rate")], account_id)
        assert stats == {**old, "names_self_rate": 0.5}
    finally:
        call_command("migrate", verbosity=0)


@pytest.mark.django_db(transaction=True)
def test_voices_learned_before_session_14_relearn_the_sign_off_as_written() -> None:
    """posting 0012 relearns the sign-off (with the business's own emoji) and what depends on it,
    and the third-person rate, from the profile's own past posts; the rest stays as learned."""
    apps = _apps_at([("posting", "0011_taught_article")])
    old = {"post_count": 3, "person": "we", "person_rate": 0.333, "sign_offs": ["Cheers from the vines"]}
    posts = [
        f"{news} \U0001f347\n#HollinsHillVineyard\nCheers from the vines \U0001f347"
        for news in ["Our Bacchus is back in stock.", "Budburst on the top slope.", "Cellar door opens Thursday."]
    ]
    account_id = _voice_learned_then(
        apps, name="Hollins Hill Vineyard", own_names=["Hollins Hill"], posts=posts, stats=old
    )
    try:
        stats = _stats_after([("posting", "0012_voice_sign_off_as_written")], account_id)
        assert stats["sign_offs"] == ["Cheers from the vines \U0001f347"]
        assert stats["names_self_rate"] == 0.0
        assert {key: stats[key] for key in old if key != "sign_offs"} == {
            "post_count": 3,
            "person": "we",
            "person_rate": 0.333,
        }
    finally:
        call_command("migrate", verbosity=0)
