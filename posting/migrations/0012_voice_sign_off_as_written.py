"""Relearn the sign-off and the third-person rate of voices learned before session 14.

A voice is learned once (``posting.voice.services.voice_learn``) and relearned only on request.
Session 14 changed two of its statistics (``posting.voice.stats``): the sign-off keeps the
business's own emoji when it writes the line the same way every time ("Cheers from the vines 🍇")
and may be a long address-and-hours line, and the business names itself only where its name is
written as a name ("Banker & Mallet", not a list of tools: "Banker, mallet, claw chisel"). Stored
profiles would keep the old values, and their drafts the old sign-off. This recomputes those from
the same past posts and the account's names (with the two statistics read off the sign-offs: the
calls to action and recurring phrases, which leave the sign-off out) and changes nothing else.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations

RELEARNED = ("sign_offs", "calls_to_action", "phrases", "names_self_rate")


def sign_offs_relearn(apps: Any, schema_editor: Any) -> None:
    from posting.voice.stats import voice_stats

    VoiceProfile = apps.get_model("posting", "VoiceProfile")
    PastPost = apps.get_model("posting", "PastPost")
    for profile in VoiceProfile.objects.select_related("account").iterator():
        if not isinstance(profile.stats, dict) or not profile.stats.get("post_count"):
            continue
        texts = PastPost.objects.filter(account_id=profile.account_id, platform=profile.platform).values_list(
            "text", flat=True
        )
        posts = [text.strip() for text in texts if text and text.strip()]
        if not posts:
            continue
        names = [profile.account.name, *(profile.account.own_names or [])]
        learned = voice_stats(posts, own_names=names)
        profile.stats = {**profile.stats, **{key: learned[key] for key in RELEARNED if key in learned}}
        profile.save(update_fields=["stats"])


class Migration(migrations.Migration):
    dependencies = [("posting", "0011_taught_article")]

    operations = [migrations.RunPython(sign_offs_relearn, migrations.RunPython.noop)]
