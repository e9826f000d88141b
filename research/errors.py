"""Domain errors of the research app."""

from __future__ import annotations

from research.models import ErrorKind


class FetchError(Exception):
    """A fetch that produced nothing usable, classified so a source's health can say why.

    ``detail`` never contains the URL's path or query (feed URLs can carry keys); at most
    the host name.
    """

    def __init__(
        self,
        kind: ErrorKind,
        detail: str,
        *,
        status: int | None = None,
        elapsed_s: float = 0.0,
        bytes_read: int = 0,
    ) -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail
        self.status = status
        self.elapsed_s = elapsed_s
        self.bytes_read = bytes_read


class FeedParseError(Exception):
    """Bytes that are not a feed we can read (or a feed with nothing in it)."""

    def __init__(self, kind: ErrorKind, detail: str) -> None:
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail


class InvalidSourceUrl(ValueError):
    """A feed URL a customer typed that we will not subscribe to."""


class OpmlError(ValueError):
    """An OPML upload we cannot read."""


class SourceLimitReached(ValueError):
    """The account already follows as many sources as one account may (a shared fetcher
    must not be one customer's to fill)."""
