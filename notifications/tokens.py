"""The signed token in every email's unsubscribe link (RFC 8058 one-click).

It names one membership and one kind of email, signed with SECRET_KEY (django.core.signing)
under its own salt, so it needs no login and cannot be altered to unsubscribe someone else
or from another kind. It does not expire: an old email's link must still work.
"""

from __future__ import annotations

from django.core import signing

from notifications.errors import UnsubscribeLinkInvalid
from notifications.models import Kind

_SALT = "landed.notifications.unsubscribe"


def unsubscribe_token(*, membership_id: int, kind: str) -> str:
    return signing.dumps({"m": membership_id, "k": Kind(kind).value}, salt=_SALT, compress=False)


def unsubscribe_token_read(token: str) -> tuple[int, str]:
    """(membership id, kind) from a token; UnsubscribeLinkInvalid if it was not ours, unaltered."""
    try:
        value = signing.loads(token, salt=_SALT)
        membership_id, kind = int(value["m"]), Kind(value["k"]).value
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        raise UnsubscribeLinkInvalid(
            "This unsubscribe link is not valid: it may have been cut short or changed."
        ) from None
    return membership_id, kind
