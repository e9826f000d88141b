"""Import a business's past posts from a CSV or JSON export and learn its voice.

python manage.py voice_import --account harbour-bikes --platform facebook_page posts.csv
python manage.py voice_import --account harbour-bikes --platform instagram posts.json --relearn
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.models import Account, Platform
from posting.voice.parsing import MAX_UPLOAD_BYTES, VoiceImportError, posts_parse
from posting.voice.services import VoiceNoPosts, voice_import, voice_import_from_channel, voice_learn_after_import
from publish.selectors import channel_connected_for


class Command(BaseCommand):
    help = "Import past posts (CSV or JSON) for an account and platform, then learn its voice if not yet learned."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path, nargs="?", help="CSV or JSON export (or use --from-channel)")
        parser.add_argument("--account", required=True, help="account slug")
        parser.add_argument("--platform", required=True, choices=Platform.values)
        parser.add_argument("--from-channel", action="store_true", help="read past posts from the connected channel")
        parser.add_argument("--relearn", action="store_true", help="relearn even if a voice was already learned")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path | None = options["file"]
        platform: str = options["platform"]
        if (path is None) == (not options["from_channel"]):
            raise CommandError("Give either a FILE or --from-channel.")
        try:
            account = Account.objects.get(slug=options["account"])
        except Account.DoesNotExist:
            raise CommandError(f"No account with slug {options['account']!r}.") from None
        created = (
            self._import_channel(account, platform) if path is None else self._import_file(account, platform, path)
        )
        self.stdout.write(f"Imported {created} new posts.")
        try:
            profile = voice_learn_after_import(account=account, platform=platform, relearn=options["relearn"])
        except VoiceNoPosts as exc:
            raise CommandError(str(exc)) from None
        if profile is not None:
            self.stdout.write(f"Learned the {Platform(platform).label} voice from {profile.source_post_count} posts.")
        else:
            self.stdout.write("Voice already learned; pass --relearn to update it.")

    def _import_file(self, account: Account, platform: str, path: Path) -> int:
        try:
            if path.stat().st_size > MAX_UPLOAD_BYTES:
                raise VoiceImportError(f"The file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB.")
            posts = posts_parse(data=path.read_bytes(), filename=path.name)
            return voice_import(account=account, platform=platform, posts=posts)
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}.") from None
        except VoiceImportError as exc:
            raise CommandError(f"Cannot import {path}: {exc}") from None

    def _import_channel(self, account: Account, platform: str) -> int:
        channel = channel_connected_for(account_id=account.pk, platform=platform)
        if channel is None:
            raise CommandError(f"{account} has no connected {Platform(platform).label}.")
        try:
            return voice_import_from_channel(channel=channel)
        except VoiceImportError as exc:
            raise CommandError(str(exc)) from None
