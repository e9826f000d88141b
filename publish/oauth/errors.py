"""What can go wrong while connecting a channel, as types the views turn into clear pages.

Every message here is shown to the customer: it never carries a token, a code, a state
or any text the platform sent back verbatim.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from accounts.models import Account

if TYPE_CHECKING:
    from publish.models import OAuthClaim


class ConnectError(Exception):
    """A connect attempt that cannot go on; ``reason`` is the funnel's failure reason."""

    reason = "failed"
    http_status = 400
    message = "Connecting failed. Start again from the Channels page."

    def __init__(self, message: str | None = None, *, account: Account | None = None) -> None:
        super().__init__(message or self.message)
        self.message = message or self.message
        # The account the attempt belonged to, when we know it (for an "ask again" link).
        self.account = account


class ClaimError(ConnectError):
    """The callback's state does not name a claim this browser may consume now."""


class ClaimUnknown(ClaimError):
    reason = "unknown_state"
    message = "This connect link is not one we issued. Start connecting again from the Channels page."


class ClaimReplayed(ClaimError):
    reason = "replayed"
    message = "This connect link was already used. Start connecting again from the Channels page."
    # The claim that was already consumed, for connect_callback to follow (never shown).
    claim: OAuthClaim | None = None


class ConnectInterrupted(ClaimError):
    """The request that spent this claim's code stopped before finishing (its worker died)."""

    reason = "interrupted"
    message = (
        "Connecting was interrupted after Facebook accepted your sign-in, and that sign-in cannot be used "
        "twice. Nothing was connected: start again from the Channels page."
    )


class ConnectInProgress(ClaimError):
    """A repeat of a callback whose first request is still talking to the platform."""

    reason = "in_progress"
    http_status = 409
    message = "We are still finishing the connection with Facebook. Reload this page in a few seconds."


class ConnectAlreadyDone(ClaimError):
    """A repeat of a callback whose connect already bound its channels."""

    reason = "already_bound"
    message = "This connection is already done."

    def __init__(self, message: str | None = None, *, account: Account) -> None:
        # Always the account whose channels it bound: the view sends the browser to its page.
        super().__init__(message, account=account)
        self.account: Account = account


class ClaimExpired(ClaimError):
    reason = "expired"
    message = "This connect link expired (they last 10 minutes). Start connecting again from the Channels page."


class ClaimWrongSession(ClaimError):
    reason = "cross_session"
    message = (
        "This connect link was started by another user or in another browser session. "
        "Sign in and start connecting again from the Channels page."
    )


class ConnectDenied(ConnectError):
    reason = "denied"
    message = "You cancelled the Facebook dialog, so nothing was connected."


class PermissionsDeclined(ConnectError):
    reason = "declined_permissions"
    message = "Facebook did not grant every permission Landed needs to publish for you."

    def __init__(self, declined: list[str], *, account: Account | None = None) -> None:
        super().__init__(account=account)
        self.declined = declined


class ExchangeFailed(ConnectError):
    reason = "exchange_failed"
    http_status = 502
    message = "Facebook did not complete the sign-in. Nothing was connected; please try again in a minute."


class PlatformUnavailable(ConnectError):
    reason = "graph_error"
    http_status = 502
    message = "Facebook did not answer while we listed your Pages. Nothing was connected; please try again."


class NoPages(ConnectError):
    reason = "no_pages"
    message = (
        "Your Facebook account does not manage any Page we were allowed to see. Create a Page, or "
        "choose your Pages in the Facebook dialog, then connect again."
    )


class GrantUnavailable(ConnectError):
    reason = "grant_unavailable"
    message = "This Page choice is no longer open (it expired or was already used). Start connecting again."


class NoPageChosen(ConnectError):
    reason = "no_page_chosen"
    message = "Choose at least one Page to connect."
