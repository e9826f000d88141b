"""Reading past posts out of an uploaded CSV or JSON file, with errors a customer can act on.

Accepted shapes:
- CSV with a header row; the text column is one of ``text``, ``message``, ``caption``,
  ``post`` or ``body``; an optional date column is one of ``posted_at``, ``created_time``,
  ``timestamp``, ``date``.
- JSON: a list of strings, a list of objects with those keys, or an object holding such a
  list under ``data`` (a Facebook Graph export) or ``posts``.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from typing import Any

from django.utils.dateparse import parse_date, parse_datetime

MAX_UPLOAD_BYTES = 2 * 1024 * 1024
MAX_POSTS = 5_000
TEXT_KEYS = ("text", "message", "caption", "post", "body")
DATE_KEYS = ("posted_at", "created_time", "timestamp", "date")


class VoiceImportError(Exception):
    """The upload cannot be read; the message says why, in words for the customer."""


def posts_parse(*, data: bytes, filename: str = "") -> list[dict[str, Any]]:
    """``[{"text": str, "posted_at": datetime | None}]`` from an uploaded file's bytes."""
    if len(data) > MAX_UPLOAD_BYTES:
        raise VoiceImportError(f"The file is larger than {MAX_UPLOAD_BYTES // (1024 * 1024)} MB.")
    try:
        content = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise VoiceImportError("The file is not UTF-8 text. Export it as CSV (UTF-8) or JSON.") from None
    if not content.strip():
        raise VoiceImportError("The file is empty.")
    looks_json = filename.lower().endswith(".json") or content.lstrip()[:1] in ("[", "{")
    records = _json_records(content) if looks_json else _csv_records(content)
    posts = [post for post in (_post(record) for record in records) if post is not None]
    if not posts:
        raise VoiceImportError("No posts with text were found in the file.")
    if len(posts) > MAX_POSTS:
        raise VoiceImportError(f"The file holds {len(posts)} posts; the most we import at once is {MAX_POSTS}.")
    return posts


def _json_records(content: str) -> list[Any]:
    try:
        data = json.loads(content)
    except ValueError as exc:
        raise VoiceImportError(f"The JSON could not be read (line {getattr(exc, 'lineno', '?')}).") from None
    if isinstance(data, dict):
        data = data.get("data", data.get("posts"))
    if not isinstance(data, list):
        raise VoiceImportError('The JSON must be a list of posts (or an object with a "data" or "posts" list).')
    return data


def _csv_records(content: str) -> list[Any]:
    try:
        reader = csv.DictReader(io.StringIO(content, newline=""))
        fields = {name.strip().lower() for name in (reader.fieldnames or []) if name}
        if not fields & set(TEXT_KEYS):
            raise VoiceImportError(
                "The CSV needs a header row with a column named one of: " + ", ".join(TEXT_KEYS) + "."
            )
        return [{(k or "").strip().lower(): v for k, v in row.items()} for row in reader]
    except csv.Error as exc:
        raise VoiceImportError(f"The CSV could not be read: {exc}.") from None


def _post(record: Any) -> dict[str, Any] | None:
    if isinstance(record, str):
        text, posted = record, None
    elif isinstance(record, dict):
        lowered = {str(k).lower(): v for k, v in record.items()}
        text = next((lowered[k] for k in TEXT_KEYS if isinstance(lowered.get(k), str) and lowered[k].strip()), "")
        posted = next((lowered[k] for k in DATE_KEYS if lowered.get(k)), None)
    else:
        return None
    text = text.strip()
    if not text:
        return None
    return {"text": text, "posted_at": _datetime(posted)}


def _datetime(value: Any) -> datetime | None:
    """A post date if it can be read; an unreadable date loses the date, never the post."""
    if isinstance(value, datetime):
        parsed: datetime | None = value
    elif isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(value, tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    elif isinstance(value, str):
        text = value.strip().replace("+0000", "+00:00")
        try:
            parsed = parse_datetime(text)
            if parsed is None and (day := parse_date(text)) is not None:
                parsed = datetime(day.year, day.month, day.day, tzinfo=UTC)
        except ValueError:
            return None
    else:
        return None
    if parsed is not None and parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed
