"""Tokens at rest: Fernet with a key list, rotation by re-encrypting, never the plaintext."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from cryptography.fernet import Fernet
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from accounts.models import Account, Platform
from publish.crypto import TokenDecryptError, token_decrypt, token_encrypt
from publish.models import Channel, ConnectGrant
from publish.oauth import services

OLD_KEY = Fernet.generate_key().decode()
NEW_KEY = Fernet.generate_key().decode()
PAGE_TOKEN = "EAAB-page-token-that-must-never-be-stored-in-clear"

pytestmark = pytest.mark.django_db


def _channel(account: Account, token: str = PAGE_TOKEN, external_id: str = "1001") -> Channel:
    return Channel.objects.create(
        account=account,
        platform=Platform.FACEBOOK_PAGE,
        external_id=external_id,
        name="Harbour Bikes",
        token_ciphertext=token_encrypt(token),
    )


def _raw_column(channel: Channel) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT token_ciphertext FROM publish_channel WHERE id = %s", [channel.pk])
        return cursor.fetchone()[0]


def test_the_token_column_never_holds_the_plaintext(account) -> None:
    channel = _channel(account)

    stored = _raw_column(channel)

    assert PAGE_TOKEN not in stored
    assert token_decrypt(stored) == PAGE_TOKEN
    assert PAGE_TOKEN not in repr(channel)
    assert PAGE_TOKEN not in str(channel)


def test_key_rotation_keeps_every_token_readable(account, member, capsys) -> None:
    # given: a channel and a pending page choice stored under the old key
    with override_settings(TOKEN_ENCRYPTION_KEYS=[OLD_KEY]):
        channel = _channel(account)
        under_old_key = _raw_column(channel)
        claim = services.oauth_claim_mint(
            account=account, user=member, session_key="session", platform=Platform.FACEBOOK_PAGE
        )
        grant = ConnectGrant.objects.create(
            claim=claim,
            secrets_ciphertext=token_encrypt(json.dumps({"page_tokens": {"1001": PAGE_TOKEN}})),
            expires_at=timezone.now() + timedelta(minutes=20),
        )

    # when: a new key goes first, old rows are still readable, and the command re-encrypts
    with override_settings(TOKEN_ENCRYPTION_KEYS=[NEW_KEY, OLD_KEY]):
        assert token_decrypt(_raw_column(channel)) == PAGE_TOKEN
        call_command("tokens_reencrypt")
    assert "channels: 1, grants: 1, unreadable: 0" in capsys.readouterr().out

    # then: with the old key removed the token still reads, from a new ciphertext
    with override_settings(TOKEN_ENCRYPTION_KEYS=[NEW_KEY]):
        rotated = _raw_column(channel)
        assert rotated != under_old_key
        assert PAGE_TOKEN not in rotated
        assert token_decrypt(rotated) == PAGE_TOKEN
        grant.refresh_from_db()
        assert PAGE_TOKEN in token_decrypt(grant.secrets_ciphertext)


def test_removing_the_old_key_before_re_encrypting_is_caught_by_the_command(account) -> None:
    with override_settings(TOKEN_ENCRYPTION_KEYS=[OLD_KEY]):
        channel = _channel(account)

    with override_settings(TOKEN_ENCRYPTION_KEYS=[NEW_KEY]):
        with pytest.raises(TokenDecryptError) as excinfo:
            token_decrypt(_raw_column(channel))
        assert PAGE_TOKEN not in str(excinfo.value)
        # The command refuses loudly and leaves the unreadable row as it was.
        before = _raw_column(channel)
        with pytest.raises(CommandError, match="1 token"):
            call_command("tokens_reencrypt")
        assert _raw_column(channel) == before


def test_the_admin_never_shows_a_token_or_its_ciphertext(account, admin_client) -> None:
    channel = _channel(account)

    listing = admin_client.get("/admin/publish/channel/").content.decode()
    change = admin_client.get(f"/admin/publish/channel/{channel.pk}/change/")

    assert change.status_code == 200
    for page in (listing, change.content.decode()):
        assert PAGE_TOKEN not in page
        assert channel.token_ciphertext not in page
