"""The two small routes that record what a person opened while reviewing a draft."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from accounts.access import member_required
from accounts.models import Account
from accounts.selectors import member_may_edit
from posting.models import Draft
from posting.review.services import Opened, review_opened


@require_POST
@member_required
def draft_opened(request: HttpRequest, account: Account, draft_id: int) -> HttpResponse:
    """The drafts page reports an opened evidence panel here (a beacon, with the CSRF token)."""
    draft = get_object_or_404(Draft, pk=draft_id, account=account)
    if not member_may_edit(user=request.user, account=account):
        # Review discipline measures those who decide; a viewer's reading is not their review.
        raise PermissionDenied("Viewers do not review drafts.")
    what = request.POST.get("what", "")
    if what not in Opened.ALL:
        return HttpResponseBadRequest("what must be 'evidence' or 'source'")
    review_opened(draft=draft, what=what)
    return HttpResponse(status=204)


@require_GET
@never_cache
@member_required
def draft_source(request: HttpRequest, account: Account, draft_id: int) -> HttpResponse:
    """A tracked link to the draft's source article: record the opening, then go there."""
    draft = get_object_or_404(Draft.objects.select_related("article"), pk=draft_id, account=account)
    url = draft.article.canonical_url
    if urlsplit(url).scheme not in ("http", "https"):
        raise Http404("This draft's article has no web address.")
    review_opened(draft=draft, what=Opened.SOURCE)
    return redirect(url)
