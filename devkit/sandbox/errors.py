"""Graph API errors as the sandbox answers them (docs/meta-graph-api.md section 4).

Every error leaves the sandbox in the documented envelope,
``{"error": {"message", "type", "code", "error_subcode", "is_transient", "fbtrace_id", ...}}``,
so client code classifies sandbox errors exactly as it classifies real ones: by code and
subcode, never by HTTP status.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any


@dataclass
class GraphError(Exception):
    """An error response in the Graph envelope; raised by endpoint code, rendered by the server."""

    code: int
    message: str
    subcode: int | None = None
    status: int = 400
    type: str = "OAuthException"
    is_transient: bool = False
    user_title: str = ""
    user_msg: str = ""
    headers: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return f"({self.code}/{self.subcode}) {self.message}"

    def envelope(self) -> dict[str, Any]:
        error: dict[str, Any] = {
            "message": self.message,
            "type": self.type,
            "code": self.code,
            "error_subcode": self.subcode,
            "is_transient": self.is_transient,
            "fbtrace_id": "Sbx" + secrets.token_urlsafe(12),
        }
        if self.user_title:
            error["error_user_title"] = self.user_title
        if self.user_msg:
            error["error_user_msg"] = self.user_msg
        return {"error": error}


def object_missing(object_id: str, method: str = "get") -> GraphError:
    # 100/33 is what the real API answers for an id that does not exist, is not visible to
    # this token, or (the May 2026 incident) is fresh and not yet readable.
    return GraphError(
        code=100,
        subcode=33,
        type="GraphMethodException",
        message=(
            f"Unsupported {method} request. Object with ID '{object_id}' does not exist, cannot be loaded due to "
            "missing permissions, or does not support this operation. Please read the Graph API documentation "
            "at https://developers.facebook.com/docs/graph-api"
        ),
    )


def unknown_path(path: str) -> GraphError:
    return GraphError(code=100, message=f"Unknown path components: {path}")


def nonexisting_field(field_name: str, node_type: str) -> GraphError:
    return GraphError(
        code=100, message=f"(#100) Tried accessing nonexisting field ({field_name}) on node type ({node_type})"
    )


def missing_param(name: str) -> GraphError:
    return GraphError(code=100, message=f"(#100) The parameter {name} is required")


def token_required() -> GraphError:
    return GraphError(code=104, message="An access token is required to request this resource.")


def token_unparseable() -> GraphError:
    return GraphError(code=190, message="Invalid OAuth access token - Cannot parse access token")


_TOKEN_SUBCODE_MESSAGES = {
    458: "Error validating access token: The user has not authorized application.",
    459: "Error validating access token: You cannot access the app till you log in to www.facebook.com and follow "
    "the instructions given.",
    460: "Error validating access token: The session has been invalidated because the user changed their password "
    "or Facebook has changed the session for security reasons.",
    463: "Error validating access token: Session has expired.",
    464: "Error validating access token: Sessions for the user are not allowed because the user is not a confirmed "
    "user.",
    467: "Error validating access token: The user has logged out.",
    492: "Error validating access token: The user must be an administrator, editor, or moderator of the page.",
}


def token_dead(subcode: int) -> GraphError:
    message = _TOKEN_SUBCODE_MESSAGES.get(subcode, "Error validating access token: The session is invalid.")
    return GraphError(code=190, subcode=subcode, message=message)


def permission_missing(permission: str, code: int = 200) -> GraphError:
    return GraphError(
        code=code,
        message=f"(#{code}) This action requires the '{permission}' permission, which was not granted to this token.",
    )


def service_unavailable() -> GraphError:
    # Code 2 is the "500 but maybe created" answer of incident koala#699.
    return GraphError(
        code=2,
        status=500,
        is_transient=True,
        message="An unexpected error has occurred. Please retry your request later.",
    )


# Throttle codes and their messages (docs/meta-graph-api.md section 4, rate limiting).
THROTTLE_MESSAGES = {
    4: "(#4) Application request limit reached",
    17: "(#17) User request limit reached",
    32: "(#32) Page request limit reached",
    613: "(#613) Calls to this api have exceeded the rate limit.",
    80001: "(#80001) There have been too many calls to this Page account. Wait a bit and try again.",
    80002: "(#80002) There have been too many calls to this Instagram account. Wait a bit and try again.",
}

# Instagram container failures: subcode -> (code, message), docs/meta-graph-api.md section 4.
IG_SUBCODES = {
    2207001: (-1, "An unknown error occurred while processing the media."),
    2207003: (-2, "It took too long to download the media. The media download timed out."),
    2207008: (24, "The media builder does not exist or has expired. Please try again."),
    2207020: (-2, "The media you are trying to access has expired. Please try uploading it again."),
    2207032: (-1, "Failed to create the media. Please try again."),
    2207052: (9004, "The media could not be fetched from this URI."),
    2207053: (-1, "An unknown error occurred while uploading the media."),
    2207004: (36000, "The image is too large to download. It should be less than 8 MiB."),
    2207005: (36001, "The image format is not supported. Only JPEG is supported."),
    2207009: (36003, "The submitted image's aspect ratio is outside the allowed range."),
    2207026: (352, "The video format is not supported."),
    2207050: (25, "The Instagram account is restricted."),
    2207051: (4, "We restrict certain activity to protect our community."),
}


def ig_error(subcode: int) -> GraphError:
    code, message = IG_SUBCODES.get(subcode, (-1, "The media could not be processed."))
    return GraphError(code=code, subcode=subcode, message=message, user_title="Media error", user_msg=message)
