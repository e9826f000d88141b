"""The channels page and the connect flow's pages: thin, every decision is in publish.oauth."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.access import AuthenticatedHttpRequest, member_required
from accounts.models import Account, Platform, Role
from accounts.selectors import membership_role
from publish.oauth import graph_auth, selectors, services
from publish.oauth.errors import ConnectAlreadyDone, ConnectError, PermissionsDeclined


@require_GET
@member_required
def channels_page(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    return render(
        request,
        "publish/channels.html",
        {
            "account": account,
            "channels": selectors.channels_for_account(account=account),
            "can_connect": selectors.member_can_connect(user=request.user, account=account),
            # Disconnecting is the owner's alone (it revokes access and empties the queue).
            "can_disconnect": membership_role(user=request.user, account=account) == Role.OWNER,
        },
    )


@require_POST
@member_required
def connect_start(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    """Mint a claim and send the browser to the Facebook Login dialog."""
    if not selectors.member_can_connect(user=request.user, account=account):
        return HttpResponseForbidden("Only the owner connects channels.")
    if not request.session.session_key:
        request.session.save()
    claim = services.oauth_claim_mint(
        account=account,
        user=request.user,
        session_key=request.session.session_key or "",
        platform=Platform.FACEBOOK_PAGE,
    )
    return redirect(
        graph_auth.dialog_url(
            state=claim.state,
            redirect_uri=_callback_uri(request),
            rerequest=request.POST.get("rerequest") == "1",
        )
    )


@require_GET
def connect_callback(request: HttpRequest) -> HttpResponse:
    """Facebook sends the browser back here. Not login_required on purpose: a signed-out
    browser gets the claim's own clear error (and the code never reaches a login URL)."""
    try:
        grant = services.connect_callback(
            state=request.GET.get("state", ""),
            code=request.GET.get("code", ""),
            error=request.GET.get("error", ""),
            user=request.user,
            session_key=request.session.session_key or "",
            redirect_uri=_callback_uri(request),
        )
    except ConnectAlreadyDone as exc:
        # A reload after the page choice: the channels it bound are the answer.
        messages.info(request, exc.message)
        return redirect("channels:page", slug=exc.account.slug)
    except ConnectError as exc:
        return _connect_error_page(request, exc)
    # Post/Redirect/Get: reloading the picker must not replay the callback.
    return redirect("publish:pick", grant_id=grant.pk)


@login_required
@require_http_methods(["GET", "POST"])
def connect_pick(request: AuthenticatedHttpRequest, grant_id: int) -> HttpResponse:
    session_key = request.session.session_key or ""
    grant = selectors.connect_grant_for_session(grant_id=grant_id, user=request.user, session_key=session_key)
    if grant is None:
        raise Http404("No such page choice")
    account = grant.claim.account
    if request.method == "POST":
        try:
            channels = services.connect_pages_bind(
                grant_id=grant.pk, user=request.user, session_key=session_key, page_ids=request.POST.getlist("page")
            )
        except ConnectError as exc:
            messages.error(request, exc.message)
            if exc.reason == "no_page_chosen":
                return redirect("publish:pick", grant_id=grant.pk)
            return redirect("channels:page", slug=account.slug)
        messages.success(request, f"Connected {', '.join(str(channel) for channel in channels)}.")
        return redirect("channels:page", slug=account.slug)
    return render(request, "publish/pick_pages.html", {"account": account, "grant": grant})


def _connect_error_page(request: HttpRequest, error: ConnectError) -> HttpResponse:
    account = error.account
    # Only offer a way back into an account this browser's user belongs to.
    if account is not None and not (
        request.user.is_authenticated and selectors.member_can_connect(user=request.user, account=account)
    ):
        account = None
    return render(
        request,
        "publish/connect_error.html",
        {
            "error": error,
            "declined": error.declined if isinstance(error, PermissionsDeclined) else [],
            "retry_account": account,
        },
        status=error.http_status,
    )


def _callback_uri(request: HttpRequest) -> str:
    # Built the same way for the dialog and the code exchange: Meta requires them identical.
    return request.build_absolute_uri(reverse("publish:callback"))
