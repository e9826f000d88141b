"""Re-encrypt every stored token with the newest key in TOKEN_ENCRYPTION_KEYS.

Rotation: put the new key first, deploy, run this, then remove the old key. Rows that
no configured key can read are counted and left untouched, never overwritten.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from publish.oauth.services import tokens_reencrypt


class Command(BaseCommand):
    help = "Re-encrypt every channel token (and pending connect grant) with the newest key."

    def handle(self, *args: Any, **options: Any) -> None:
        counts = tokens_reencrypt()
        self.stdout.write(", ".join(f"{name}: {value}" for name, value in sorted(counts.items())))
        if counts["unreadable"]:
            raise CommandError(
                f"{counts['unreadable']} token(s) cannot be decrypted with any configured key; "
                "keep the old key until those channels are reconnected."
            )
