"""Channel tokens at rest: Fernet with a key list (the first encrypts, all decrypt).

Rotation: put a new key first in TOKEN_ENCRYPTION_KEYS, run
``manage.py tokens_reencrypt``, then drop the old key.
"""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


class TokenDecryptError(Exception):
    """The ciphertext was not made with any configured key (key removed too early?)."""


def _fernet() -> MultiFernet:
    keys = settings.TOKEN_ENCRYPTION_KEYS
    if not keys:
        raise ImproperlyConfigured("TOKEN_ENCRYPTION_KEYS is empty")
    try:
        return MultiFernet([Fernet(key.encode()) for key in keys])
    except ValueError as exc:
        raise ImproperlyConfigured("TOKEN_ENCRYPTION_KEYS holds a value that is not a Fernet key") from exc


def token_encrypt(plaintext: str) -> str:
    return _fernet().encrypt(plaintext.encode()).decode()


def token_decrypt(ciphertext: str) -> str:
    try:
        return _fernet().decrypt(ciphertext.encode()).decode()
    except InvalidToken:
        # Never include the ciphertext or any key material in the message.
        raise TokenDecryptError("token cannot be decrypted with the configured keys") from None


def token_rotate(ciphertext: str) -> str:
    """Re-encrypt with the newest key (MultiFernet.rotate keeps the original timestamp)."""
    try:
        return _fernet().rotate(ciphertext.encode()).decode()
    except InvalidToken:
        raise TokenDecryptError("token cannot be decrypted with the configured keys") from None
