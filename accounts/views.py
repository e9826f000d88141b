"""The team pages: the owner invites and removes members (``/a/<slug>/team/``), an invited
person accepts (``/invite/...``), and anyone resets a forgotten password.

Views parse input, call one service and respond. Everything that changes the team is the
owner's (``Role.may_change_settings``): anyone else gets 403 whatever they post.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from accounts import services
from accounts.access import AuthenticatedHttpRequest, member_required
from accounts.errors import InviteNotSent, InviteUnusable, TeamChangeRefused
from accounts.models import Account, Role
from accounts.selectors import invites_pending, member_may_change_settings, team_members, users_with_email

# The invite link's token, kept in the session between the emailed link and the accept page.
INVITE_SESSION_KEY = "landed_invite_token"


def _require_owner(request: AuthenticatedHttpRequest, account: Account) -> None:
    if not member_may_change_settings(user=request.user, account=account):
        raise PermissionDenied("Only the owner changes the team.")


def _site_url(request: HttpRequest) -> str:
    # The address the owner is using (a Host ALLOWED_HOSTS accepted), as Django's own
    # password reset email does.
    return request.build_absolute_uri("/").rstrip("/")


@require_GET
@member_required
def team(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    """Who is in the account and in which role; the owner also invites, revokes and removes."""
    is_owner = member_may_change_settings(user=request.user, account=account)
    context = {
        "account": account,
        "members": team_members(account=account),
        "invites": list(invites_pending(account=account, now=timezone.now())) if is_owner else [],
        "is_owner": is_owner,
        "roles": Role.choices,
    }
    return render(request, "accounts/team.html", context)


@require_POST
@member_required
def team_invite(request: AuthenticatedHttpRequest, account: Account) -> HttpResponse:
    _require_owner(request, account)
    try:
        sent = services.invite_create(
            account=account,
            email=request.POST.get("email", ""),
            role=request.POST.get("role", ""),
            invited_by=request.user,
            site_url=_site_url(request),
        )
    except (TeamChangeRefused, InviteNotSent) as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            f"Invitation sent to {sent.invite.email} as {Role(sent.invite.role).label.lower()}. "
            f"The link works once, for {services.INVITE_TTL.days} days.",
        )
    return redirect("team", slug=account.slug)


@require_POST
@member_required
def team_invite_revoke(request: AuthenticatedHttpRequest, account: Account, invite_id: int) -> HttpResponse:
    _require_owner(request, account)
    try:
        invite = services.invite_revoke(account=account, invite_id=invite_id)
    except TeamChangeRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Invitation to {invite.email} withdrawn: its link no longer works.")
    return redirect("team", slug=account.slug)


@require_POST
@member_required
def team_member_remove(request: AuthenticatedHttpRequest, account: Account, membership_id: int) -> HttpResponse:
    _require_owner(request, account)
    try:
        membership = services.member_remove(account=account, membership_id=membership_id)
    except TeamChangeRefused as exc:
        messages.error(request, str(exc))
        return redirect("team", slug=account.slug)
    who = membership.user.email or membership.user.username
    messages.success(request, f"{who} is no longer a member of {account.name}.")
    if membership.user_id == request.user.pk:
        return redirect("home")
    return redirect("team", slug=account.slug)


@require_POST
@member_required
def team_member_role(request: AuthenticatedHttpRequest, account: Account, membership_id: int) -> HttpResponse:
    _require_owner(request, account)
    try:
        membership = services.member_role_set(
            account=account, membership_id=membership_id, role=request.POST.get("role", "")
        )
    except TeamChangeRefused as exc:
        messages.error(request, str(exc))
    else:
        who = membership.user.email or membership.user.username
        messages.success(request, f"{who} is now {Role(membership.role).label.lower()}.")
    return redirect("team", slug=account.slug)


@require_GET
def invite_link(request: HttpRequest, token: str) -> HttpResponse:
    """The emailed link: keep its token in the session and move on to a URL without it, so
    the token never sits in the address bar, the history or a Referer of the page used."""
    request.session[INVITE_SESSION_KEY] = token
    return redirect("invite-accept")


@never_cache
def invite_accept(request: HttpRequest) -> HttpResponse:
    """Accept the invitation in the session: join (signed in as its address), sign in first
    (a login already exists for it), or choose a password (someone new)."""
    token = request.session.get(INVITE_SESSION_KEY, "")
    try:
        invite = services.invite_check(token=token)
    except InviteUnusable as exc:
        return render(request, "accounts/invite_unusable.html", {"reason": exc.reason, "message": str(exc)}, status=410)
    user = request.user
    context: dict[str, Any] = {"invite": invite, "role": Role(invite.role).label.lower(), "error": ""}
    if isinstance(user, User):
        if request.method == "POST":
            try:
                membership = services.invite_accept(token=token, user=user)
            except InviteUnusable as exc:
                return render(
                    request, "accounts/invite_unusable.html", {"reason": exc.reason, "message": str(exc)}, status=410
                )
            except TeamChangeRefused as exc:
                context["error"] = str(exc)
            else:
                request.session.pop(INVITE_SESSION_KEY, None)
                messages.success(request, f"Welcome to {membership.account.name}.")
                return redirect("drafts", slug=membership.account.slug)
        context["signed_in_as"] = user.email or user.get_username()
        return render(request, "accounts/invite_accept.html", context, status=400 if context["error"] else 200)
    if users_with_email(email=invite.email).exists():
        context["login_url"] = f"{reverse('login')}?next={reverse('invite-accept')}"
        return render(request, "accounts/invite_accept.html", context)
    if request.method == "POST":
        password, again = request.POST.get("password", ""), request.POST.get("password_again", "")
        if password != again:
            context["error"] = "The two passwords differ; type the same one twice."
        else:
            try:
                membership = services.invite_accept_new_user(token=token, password=password)
            except InviteUnusable as exc:
                return render(
                    request, "accounts/invite_unusable.html", {"reason": exc.reason, "message": str(exc)}, status=410
                )
            except TeamChangeRefused as exc:
                context["error"] = str(exc)
            else:
                request.session.pop(INVITE_SESSION_KEY, None)
                login(request, membership.user, backend="django.contrib.auth.backends.ModelBackend")
                messages.success(
                    request, f"Welcome to {membership.account.name}. Sign in next time with {membership.user.username}."
                )
                return redirect("drafts", slug=membership.account.slug)
    context["new_user"] = True
    return render(request, "accounts/invite_accept.html", context, status=400 if context["error"] else 200)


class PasswordResetView(auth_views.PasswordResetView):
    """Django's own reset, styled, with a soft per-address limit. Known or unknown address,
    the answer is the same page: the form is no oracle for who has a login."""

    template_name = "accounts/password_reset_form.html"
    email_template_name = "accounts/email/password_reset.txt"
    subject_template_name = "accounts/email/password_reset_subject.txt"

    def form_valid(self, form: Any) -> HttpResponse:
        if not services.password_reset_email_allowed(form.cleaned_data["email"]):
            return redirect(self.get_success_url())
        return super().form_valid(form)
