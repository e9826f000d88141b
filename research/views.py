"""The account's sources page: health of each subscribed feed, add a feed, import OPML.

Views parse input, call one service and redirect back with a message (POST/redirect/GET).
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from accounts.access import member_required
from accounts.models import Account
from accounts.selectors import member_may_edit
from research import selectors, services
from research.errors import InvalidSourceUrl, OpmlError, SourceLimitReached
from research.forms import IndustryForm, OpmlUploadForm, SourceAddForm

# How far back the page counts each source's articles by extraction outcome.
ARTICLE_WINDOW = timedelta(days=7)


@require_GET
@member_required
def sources(request: HttpRequest, account: Account) -> HttpResponse:
    sources = list(selectors.sources_for_account(account=account))
    counts = selectors.source_article_counts(
        source_ids=[source.pk for source in sources], since=timezone.now() - ARTICLE_WINDOW
    )
    context = {
        "account": account,
        # Each source with its articles by extraction outcome: (source, [(status, n), ...]).
        "sources": [(source, sorted(counts.get(source.pk, {}).items())) for source in sources],
        "latest_run": selectors.research_run_latest(account=account),
        "can_edit": member_may_edit(user=request.user, account=account),
        "add_form": SourceAddForm(),
        "opml_form": OpmlUploadForm(),
        "industry_form": IndustryForm(initial={"industry": account.industry}),
    }
    return render(request, "research/sources.html", context)


@require_POST
@member_required
def source_add(request: HttpRequest, account: Account) -> HttpResponse:
    _require_editor(request, account)
    form = SourceAddForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Enter a feed URL (http or https).")
        return redirect("research:sources", slug=account.slug)
    try:
        source = services.source_subscribe(
            account=account, url=form.cleaned_data["url"], title=form.cleaned_data["title"]
        )
    except InvalidSourceUrl as exc:
        messages.error(request, f"That feed URL cannot be used: {exc}.")
    except SourceLimitReached as exc:
        messages.error(request, f"Not subscribed: {exc}.")
    else:
        name = form.cleaned_data["title"] or source.url
        messages.success(request, f"Subscribed to {name}. It is fetched in the next research run.")
    return redirect("research:sources", slug=account.slug)


@require_POST
@member_required
def opml_import(request: HttpRequest, account: Account) -> HttpResponse:
    _require_editor(request, account)
    form = OpmlUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        # An ErrorList yields its messages as str (the stubs type its items as ValidationError | str).
        messages.error(request, " ".join(str(message) for message in form.errors.get("opml", ["Choose an OPML file."])))
        return redirect("research:sources", slug=account.slug)
    try:
        result = services.sources_import_opml(account=account, opml=form.cleaned_data["opml"])
    except OpmlError as exc:
        messages.error(request, f"The OPML file could not be imported: {exc}.")
    else:
        messages.success(request, f"Subscribed to {len(result.subscribed)} feeds from the OPML file.")
        if result.rejected:
            skipped = ", ".join(url for url, _reason in result.rejected[:5])
            messages.error(request, f"Skipped {len(result.rejected)} feed URLs that cannot be used: {skipped}")
    return redirect("research:sources", slug=account.slug)


@require_POST
@member_required
def industry_subscribe(request: HttpRequest, account: Account) -> HttpResponse:
    _require_editor(request, account)
    form = IndustryForm(request.POST)
    if form.is_valid():
        try:
            subscribed = services.sources_subscribe_industry(account=account, industry=form.cleaned_data["industry"])
        except SourceLimitReached as exc:
            messages.error(request, f"Not subscribed to the {form.cleaned_data['industry']} sources: {exc}.")
        else:
            messages.success(request, f"Subscribed to {len(subscribed)} {form.cleaned_data['industry']} sources.")
    else:
        messages.error(request, "Choose an industry from the list.")
    return redirect("research:sources", slug=account.slug)


@require_POST
@member_required
def source_remove(request: HttpRequest, account: Account, source_id: int) -> HttpResponse:
    _require_editor(request, account)
    # Scoped to this account's subscriptions: another account's id simply matches nothing.
    if services.source_unsubscribe(account=account, source_id=source_id):
        messages.success(request, "Unsubscribed.")
    else:
        messages.error(request, "That source is not one of yours.")
    return redirect("research:sources", slug=account.slug)


def _require_editor(request: HttpRequest, account: Account) -> None:
    if not member_may_edit(user=request.user, account=account):
        raise PermissionDenied("Viewers cannot change sources.")
