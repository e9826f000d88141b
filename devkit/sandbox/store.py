"""The sandbox's state: one SQLite database, a file when persistence is wanted.

One connection guarded by one lock: the HTTP server answers from many threads, and the
injection counters and id sequence must be consumed exactly once even under concurrent
requests (two publish attempts racing is a case the tests create on purpose).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (id TEXT PRIMARY KEY, name TEXT NOT NULL, permissions TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
    token TEXT PRIMARY KEY, kind TEXT NOT NULL, user_id TEXT, page_id TEXT, parent TEXT,
    scopes TEXT NOT NULL, issued_at REAL NOT NULL, expires_at REAL NOT NULL, invalid_subcode INTEGER
);
CREATE TABLE IF NOT EXISTS pages (
    id TEXT PRIMARY KEY, user_id TEXT NOT NULL, name TEXT NOT NULL, ig_id TEXT, ig_username TEXT,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS posts (
    id TEXT PRIMARY KEY, page_id TEXT NOT NULL, message TEXT NOT NULL, link TEXT NOT NULL,
    photo_id TEXT, image_url TEXT NOT NULL, status_type TEXT NOT NULL, created_at REAL NOT NULL,
    deleted_at REAL, lag_reads INTEGER NOT NULL, unpublished_reads INTEGER NOT NULL,
    reactions INTEGER NOT NULL DEFAULT 0, comments INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS photos (
    id TEXT PRIMARY KEY, page_id TEXT NOT NULL, url TEXT NOT NULL, caption TEXT NOT NULL, post_id TEXT,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS containers (
    id TEXT PRIMARY KEY, ig_id TEXT NOT NULL, media_type TEXT NOT NULL, image_url TEXT NOT NULL,
    caption TEXT NOT NULL, created_at REAL NOT NULL, polls_left INTEGER NOT NULL, outcome TEXT NOT NULL,
    error_subcode INTEGER, media_id TEXT
);
CREATE TABLE IF NOT EXISTS media (
    id TEXT PRIMARY KEY, ig_id TEXT NOT NULL, container_id TEXT NOT NULL, caption TEXT NOT NULL,
    media_url TEXT NOT NULL, media_type TEXT NOT NULL, shortcode TEXT NOT NULL, created_at REAL NOT NULL,
    deleted_at REAL, lag_reads INTEGER NOT NULL, unpublished_reads INTEGER NOT NULL,
    reactions INTEGER NOT NULL DEFAULT 0, comments INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS codes (
    code TEXT PRIMARY KEY, user_id TEXT NOT NULL, client_id TEXT NOT NULL, redirect_uri TEXT NOT NULL,
    granted TEXT NOT NULL, created_at REAL NOT NULL, used_at REAL, login TEXT NOT NULL DEFAULT 'facebook'
);
CREATE TABLE IF NOT EXISTS injections (
    id INTEGER PRIMARY KEY AUTOINCREMENT, method TEXT NOT NULL, path_regex TEXT NOT NULL, kind TEXT NOT NULL,
    params TEXT NOT NULL, remaining INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS requests (
    id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, method TEXT NOT NULL, path TEXT NOT NULL,
    query TEXT NOT NULL, body TEXT NOT NULL, status INTEGER NOT NULL, token_via TEXT NOT NULL,
    injected TEXT NOT NULL
);
"""

_TABLES = (
    "meta",
    "users",
    "tokens",
    "pages",
    "posts",
    "photos",
    "containers",
    "media",
    "codes",
    "injections",
    "requests",
)

# Ids look like Graph ids (digit strings) and never collide across object types, so a
# GET /{id} can tell a page from a post from a container by lookup alone.
_FIRST_ID = 100000000000001
REQUEST_LOG_KEEP = 10000

# Bumped whenever _SCHEMA changes shape. A state file of an older version is brought up to
# date with _MIGRATIONS (statements that lead *to* each version); one of a newer or unknown
# version is refused with a clear message instead of failing later on a missing column.
SCHEMA_VERSION = 2
_MIGRATIONS = {
    2: ["ALTER TABLE codes ADD COLUMN login TEXT NOT NULL DEFAULT 'facebook'"],
}


class StateFileError(Exception):
    """The state file was written by an incompatible sandbox version."""


class Store:
    """Thread-safe access to the sandbox database. Every method takes the lock."""

    def __init__(self, path: Path | None) -> None:
        self._lock = threading.RLock()
        target = str(path) if path is not None else ":memory:"
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(target, check_same_thread=False, isolation_level=None)
        self._db.row_factory = sqlite3.Row
        self._schema_ensure(target)

    def _schema_ensure(self, target: str) -> None:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        has_tables = self._db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0]
        if not has_tables:
            self._db.executescript(_SCHEMA)
        else:
            # Version 0 with tables: a file from before versioning, which had version 1's schema.
            version = version or 1
            if version > SCHEMA_VERSION:
                self._db.close()
                raise StateFileError(
                    f"{target} holds sandbox state of schema version {version}, newer than this sandbox's "
                    f"{SCHEMA_VERSION}: delete the file (it only holds sandbox data) or pass another state path."
                )
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _MIGRATIONS[step]:
                    self._db.execute(statement)
        self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock and one SQLite transaction; commit on success, roll back on error."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def reset(self) -> None:
        with self.transaction() as db:
            for table in _TABLES:
                db.execute(f"DELETE FROM {table}")  # noqa: S608 (fixed table names)
            db.execute("DELETE FROM sqlite_sequence")

    # --- meta: settings, clock, id sequence ----------------------------------------
    def meta_get(self, key: str, default: Any = None) -> Any:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row["value"]) if row else default

    def meta_set(self, key: str, value: Any) -> None:
        with self.transaction() as db:
            db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, json.dumps(value)),
            )

    def next_id(self) -> str:
        with self.transaction() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'next_id'").fetchone()
            value = json.loads(row["value"]) if row else _FIRST_ID
            db.execute(
                "INSERT INTO meta (key, value) VALUES ('next_id', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (json.dumps(value + 1),),
            )
        return str(value)

    def clock_advance(self, seconds: float) -> None:
        with self.transaction() as db:
            row = db.execute("SELECT value FROM meta WHERE key = 'clock_offset'").fetchone()
            offset = (json.loads(row["value"]) if row else 0.0) + seconds
            db.execute(
                "INSERT INTO meta (key, value) VALUES ('clock_offset', ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (json.dumps(offset),),
            )

    def now(self) -> float:
        """Virtual time: the wall clock plus the offset ``advance_clock`` accumulated."""
        return time.time() + float(self.meta_get("clock_offset", 0.0))

    # --- generic row access --------------------------------------------------------
    def one(self, sql: str, params: tuple[Any, ...] = ()) -> dict[str, Any] | None:
        with self._lock:
            row = self._db.execute(sql, params).fetchone()
        return dict(row) if row else None

    def all(self, sql: str, params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(row) for row in self._db.execute(sql, params).fetchall()]

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> int:
        """Run one write in its own transaction; return the number of rows changed."""
        with self.transaction() as db:
            return db.execute(sql, params).rowcount

    # --- injections ----------------------------------------------------------------
    def injection_add(self, *, method: str, path_regex: str, kind: str, params: dict[str, Any], times: int) -> None:
        self.execute(
            "INSERT INTO injections (method, path_regex, kind, params, remaining) VALUES (?, ?, ?, ?, ?)",
            (method.upper(), path_regex, kind, json.dumps(params), times),
        )

    def injections_live(self) -> list[dict[str, Any]]:
        rows = self.all("SELECT * FROM injections WHERE remaining != 0 ORDER BY id")
        for row in rows:
            row["params"] = json.loads(row["params"])
        return rows

    def injection_consume(self, injection_id: int) -> bool:
        """Take one use of an injection; False when another request took the last one first."""
        with self.transaction() as db:
            row = db.execute("SELECT remaining FROM injections WHERE id = ?", (injection_id,)).fetchone()
            if row is None or row["remaining"] == 0:
                return False
            # remaining < 0 means "every time"; a positive count is spent exactly once per use.
            if row["remaining"] > 0:
                db.execute("UPDATE injections SET remaining = remaining - 1 WHERE id = ?", (injection_id,))
        return True

    # --- request log ---------------------------------------------------------------
    def request_record(
        self,
        *,
        method: str,
        path: str,
        query: dict[str, Any],
        body: dict[str, Any],
        status: int,
        token_via: str,
        injected: str,
    ) -> None:
        now = self.now()
        with self.transaction() as db:
            db.execute(
                "INSERT INTO requests (at, method, path, query, body, status, token_via, injected) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (now, method, path, json.dumps(query), json.dumps(body), status, token_via, injected),
            )
            # A long-running demo sandbox must not grow without bound: keep the recent log.
            db.execute("DELETE FROM requests WHERE id <= (SELECT MAX(id) FROM requests) - ?", (REQUEST_LOG_KEEP,))

    def requests(self) -> list[dict[str, Any]]:
        rows = self.all("SELECT * FROM requests ORDER BY id")
        for row in rows:
            row["query"] = json.loads(row["query"])
            row["body"] = json.loads(row["body"])
        return rows
