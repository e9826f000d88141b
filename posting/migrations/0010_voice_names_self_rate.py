"""Fill ``names_self_rate`` into voices learned before it existed (session 8).

A voice is learned once (``posting.voice.services.voice_learn``) and relearned only on request, so
profiles learned earlier would never get the new statistic, and their platforms would keep
borrowing another platform's "we" where their posts speak of the business by name. This adds that
one number to each stored profile, from the same past posts and the account's names, and changes
nothing else the customer learned.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations


def names_self_rate_fill(apps: Any, schema_editor: Any) -> None:
    from posting.voice.stats import names_self_rate

    VoiceProfile = apps.get_model("posting", "VoiceProfile")
    PastPost = apps.get_model("posting", "PastPost")
    for profile in VoiceProfile.objects.select_related("account").iterator():
        if (
            not isinstance(profile.stats, dict)
            or "names_self_rate" in profile.stats
            or not profile.stats.get("post_count")
        ):
            continue
        texts = PastPost.objects.filter(account_id=profile.account_id, platform=profile.platform).values_list(
            "text", flat=True
        )
        posts = [text.strip() for text in texts if text and text.strip()]
        if not posts:
            continue
        names = [profile.account.name, *(profile.account.own_names or [])]
        profile.stats = {**profile.stats, "names_self_rate": names_self_rate(posts, names)}
        profile.save(update_fields=["stats"])


class Migration(migrations.Migration):
    dependencies = [
        ("posting", "0009_pastpost_meaning"),
        ("accounts", "0003_account_description_meaning"),
    ]

    operations = [migrations.RunPython(names_self_rate_fill, migrations.RunPython.noop)]
