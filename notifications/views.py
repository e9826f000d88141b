"""The unsubscribe link of every customer email (RFC 8058 one-click), no login needed.

GET shows a confirm page with a button and changes nothing: mail scanners and link
previews fetch links. POST unsubscribes at once: the mail provider's one-click POST
(``List-Unsubscribe-Post: List-Unsubscribe=One-Click``) and the page's button both land here.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from notifications.errors import UnsubscribeLinkInvalid
from notifications.models import Kind
from notifications.services import notification_unsubscribe, unsubscribe_link_read


# CSRF protects cookie-authenticated requests; this one is authorised by the signed token
# in its URL alone, and RFC 8058 requires the mail provider's POST (which carries no CSRF
# token, and no cookie) to work. The only thing it can do is turn one kind of email off.
@csrf_exempt
@never_cache
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    try:
        if request.method == "POST":
            membership, kind = notification_unsubscribe(token=token)
        else:
            membership, kind = unsubscribe_link_read(token=token)
    except UnsubscribeLinkInvalid as exc:
        return render(request, "notifications/unsubscribe_invalid.html", {"reason": str(exc)}, status=400)
    context = {
        "done": request.method == "POST",
        "kind_name": Kind(kind).label.lower(),
        "business": membership.account.name,
        "email": membership.user.email,
    }
    return render(request, "notifications/unsubscribe.html", context)
