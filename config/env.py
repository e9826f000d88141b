"""Tiny typed helpers that read settings from the environment.

Each raises ImproperlyConfigured on a value it cannot use, so a typo in production
stops the process at start-up instead of silently falling back to a default.
A ``NAME_FILE`` variable (Docker secrets) is read when ``NAME`` itself is unset.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    """The variable's value; an empty one counts as unset (an env file lists blanks to fill in)."""
    value = os.environ.get(name)
    if value:
        return value
    file_path = os.environ.get(f"{name}_FILE")
    if file_path:
        try:
            return Path(file_path).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE points at an unreadable file: {exc.strerror}") from exc
    return default


def env_bool(name: str, default: bool = False) -> bool:
    raw = env_str(name, "").strip().lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false), got {raw!r}")


def env_int(name: str, default: int) -> int:
    raw = env_str(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from exc


def env_float(name: str, default: float) -> float:
    raw = env_str(name, "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError as exc:
        raise ImproperlyConfigured(f"{name} must be a number, got {raw!r}") from exc


def env_list(name: str, default: list[str] | None = None) -> list[str]:
    raw = env_str(name, "")
    if not raw.strip():
        return list(default or [])
    return [item.strip() for item in raw.split(",") if item.strip()]


def fernet_key_problems(name: str, keys: list[str]) -> list[str]:
    """Why each entry of a Fernet key list is unusable, naming its position, never its value."""
    problems = []
    for position, key in enumerate(keys, start=1):
        try:
            Fernet(key)
        except (ValueError, TypeError):
            problems.append(
                f"{name} entry {position} of {len(keys)} is not a Fernet key (32 url-safe base64-encoded "
                "bytes; make one with: python -c 'from cryptography.fernet import Fernet; "
                "print(Fernet.generate_key().decode())')."
            )
    return problems


def generated_secret(path: Path, *, nbytes: int = 48) -> str:
    """Read a secret kept under var/, creating it on first use (embedded default only)."""
    if path.exists():
        return path.read_text().strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(nbytes)
    path.write_text(value)
    path.chmod(0o600)
    return value
