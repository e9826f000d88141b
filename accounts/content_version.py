"""Each account's content version: a token in the cache that changes after every committed
write to the rows the customer's pages show (drafts, publications, channels, posting slots,
members, the account itself, engagement, compose skips).

The pages cache their rendered HTML under it (``posting/page_cache.py``): a write makes a new
version, so the next GET renders afresh and nothing is invalidated by hand. To miss no write
path (services, workers, the gate, reconcile, the admin) the bump is made where every write
passes, not in each service: a ``post_save``/``post_delete`` receiver for saves and deletes of
one row, and ``ContentVersionedQuerySet`` for ``update()``/``delete()``/``bulk_create()``/
``bulk_update()`` (which send no signals). Each model registers itself in its app's
``ready()`` with ``track``.

The bump that counts runs after the transaction commits (``transaction.on_commit``): a
page rendered from the old rows is stored under the old version and never read again, and a
page read after the commit sees the new version. (Inside a transaction it also bumps at
once, for the transaction's own reads.) A reader takes the version *before* reading rows, so
a page can only ever be stored under a version older than its data, never newer.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.db import models, transaction
from django.db.models.signals import post_delete, post_save

logger = logging.getLogger(__name__)

_M = TypeVar("_M", bound=models.Model)


def _version_key(account_id: int) -> str:
    # The database's name too: one Redis may serve several databases (the test suite's
    # workers each have their own, with the same account ids).
    return f"landed:content-version:{settings.DATABASES['default']['NAME']}:{account_id}"


def account_content_versions(account_id: int) -> str:
    """The key under which this account's version is kept (read with the page in one call)."""
    return _version_key(account_id)


def account_content_version_fresh(account_id: int) -> str:
    """The version when the cache has none (first use, or evicted): a new token, so no page
    stored under an older one can match. If another process set one first, that one wins."""
    token = uuid.uuid4().hex
    if cache.add(_version_key(account_id), token, timeout=None):
        return token
    return str(cache.get(_version_key(account_id)) or token)


def account_content_changed(account_ids: Iterable[int | None]) -> None:
    """Give these accounts a new content version once the current transaction commits."""
    if not settings.VERSIONED_CACHES:
        return
    ids = {account_id for account_id in account_ids if account_id is not None}
    if not ids:
        return

    def content_version_bump() -> None:
        try:
            if cache.set_many({_version_key(account_id): uuid.uuid4().hex for account_id in ids}, timeout=None):
                # config/cache.py reports what it could not store; a cache that cannot be
                # reached serves no page from it either.
                logger.warning("content version of accounts %s not replaced: cache unreachable", sorted(ids))
        except Exception:
            # The write is committed either way; a page cached before it is then rendered
            # again once it is a minute old (page_cache.PAGE_FRESH_SECONDS).
            logger.exception("could not bump the content version of accounts %s", sorted(ids))

    if transaction.get_connection().in_atomic_block:
        # Inside a transaction: once now, so its own later reads (and a test's, which never
        # commits) see the change, and again at commit, since a page rendered meanwhile by
        # another request from the rows before this write would be stored under the first.
        content_version_bump()
    transaction.on_commit(content_version_bump)


def member_version_key(user_id: int) -> str:
    """Where a user's *member version* is kept: replaced after every committed write to their
    memberships or to an account they belong to (and to the user, accounts/principal.py)."""
    return f"landed:member-version:{settings.DATABASES['default']['NAME']}:{user_id}"


def member_versions_changed(user_ids: Iterable[int | None]) -> None:
    """New member versions for these users, now and at commit (as account_content_changed)."""
    if not settings.VERSIONED_CACHES:
        return
    ids = {user_id for user_id in user_ids if user_id is not None}
    if not ids:
        return

    def member_version_bump() -> None:
        try:
            if cache.set_many({member_version_key(user_id): uuid.uuid4().hex for user_id in ids}, timeout=None):
                # Not stored (config/cache.py: Redis unreachable): refuse, as for any error below.
                raise RuntimeError("the cache could not store the new member versions")
        except Exception:
            # Unlike a page, a user's cached memberships must not outlive a change (a removed
            # member would keep access): accounts/principal.py drops the entry it cannot trust.
            logger.exception("could not bump the member versions of users %s", sorted(ids))
            raise

    if transaction.get_connection().in_atomic_block:
        member_version_bump()
    transaction.on_commit(member_version_bump)


# model -> how to reach its account id: a field on the row ("account_id", "pk" for Account)
# or a lookup through a relation ("publication__account_id"); and, for the rows a user's
# cached memberships hold (Membership, Account), how to reach the users.
_ACCOUNT_PATHS: dict[type[models.Model], str] = {}
_USER_PATHS: dict[type[models.Model], str] = {}


def _ids_of_rows(model: type[models.Model], rows: Iterable[models.Model], path: str) -> set[int]:
    rows = list(rows)
    if "__" not in path:
        return {getattr(row, path) for row in rows}
    pks = [row.pk for row in rows if row.pk is not None]
    if not pks:
        return set()
    return {i for i in model._default_manager.filter(pk__in=pks).values_list(path, flat=True) if i is not None}


def _account_ids_of_rows(model: type[models.Model], rows: Iterable[models.Model]) -> set[int]:
    return _ids_of_rows(model, rows, _ACCOUNT_PATHS[model])


def _rows_written(model: type[models.Model], rows: list[models.Model]) -> None:
    account_content_changed(_account_ids_of_rows(model, rows))
    if model in _USER_PATHS:
        member_versions_changed(_ids_of_rows(model, rows, _USER_PATHS[model]))


class ContentVersionedQuerySet(models.QuerySet[_M]):
    """Bulk writes that bump the content version of every account whose rows they touch."""

    def _ids(self, path: str) -> set[int]:
        # Read before the write: a conditional update may no longer match its own filter after.
        return {i for i in self.order_by().values_list(path, flat=True).distinct() if i is not None}

    def _touched(self) -> tuple[set[int], set[int]]:
        if not settings.VERSIONED_CACHES:
            return set(), set()  # nothing is cached under the versions: no read before the write
        user_path = _USER_PATHS.get(self.model)
        return self._ids(_ACCOUNT_PATHS[self.model]), self._ids(user_path) if user_path else set()

    def update(self, **kwargs: Any) -> int:
        account_ids, user_ids = self._touched()
        changed = super().update(**kwargs)
        if changed:
            account_content_changed(account_ids)
            member_versions_changed(user_ids)
        return changed

    def delete(self) -> tuple[int, dict[str, int]]:
        account_ids, user_ids = self._touched()
        deleted = super().delete()
        if deleted[0]:
            account_content_changed(account_ids)
            member_versions_changed(user_ids)
        return deleted

    def bulk_create(self, objs: Iterable[_M], *args: Any, **kwargs: Any) -> list[_M]:
        created = super().bulk_create(objs, *args, **kwargs)
        _rows_written(self.model, list(created))
        return created

    def bulk_update(self, objs: Iterable[_M], *args: Any, **kwargs: Any) -> int:
        objs = list(objs)
        changed = super().bulk_update(objs, *args, **kwargs)
        if changed:
            _rows_written(self.model, list(objs))
        return changed


def _row_written(sender: type[models.Model], instance: models.Model, **kwargs: Any) -> None:
    if kwargs.get("raw"):
        return  # loading fixtures: no page was cached from rows that did not exist
    _rows_written(sender, [instance])


def _row_deleted(sender: type[models.Model], instance: models.Model, **kwargs: Any) -> None:
    if sender is not None and _USER_PATHS.get(sender) == "user_id":
        member_versions_changed([getattr(instance, "user_id", None)])
    path = _ACCOUNT_PATHS[sender]
    if "__" in path:
        # The row is gone; its relation is read from the loaded instance (one hop).
        relation, _, field = path.partition("__")
        related = getattr(instance, f"{relation}_id", None)
        related_model = sender._meta.get_field(relation).related_model
        assert isinstance(related_model, type)
        account_content_changed(related_model._default_manager.filter(pk=related).values_list(field, flat=True))
        return
    account_content_changed([getattr(instance, path)])


def track(model: type[models.Model], *, account_path: str, user_path: str | None = None) -> None:
    """Bump the account's content version on every write to ``model``'s rows (and the member
    version of the users ``user_path`` reaches, for the rows a user's cached memberships
    hold). Its manager must be a ``ContentVersionedQuerySet`` so that bulk writes bump them
    too (checked here)."""
    if not isinstance(model._default_manager.all(), ContentVersionedQuerySet):
        raise TypeError(f"{model.__name__}'s manager must use ContentVersionedQuerySet")
    _ACCOUNT_PATHS[model] = account_path
    if user_path is not None:
        _USER_PATHS[model] = user_path
    uid = f"content-version:{model._meta.label}"
    post_save.connect(_row_written, sender=model, dispatch_uid=f"{uid}:save", weak=False)
    post_delete.connect(_row_deleted, sender=model, dispatch_uid=f"{uid}:delete", weak=False)
