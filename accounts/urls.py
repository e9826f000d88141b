"""The team pages (under ``/a/<slug>/team/``), the invitation link and password reset."""

from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views

urlpatterns = [
    path("a/<slug:slug>/team/", views.team, name="team"),
    path("a/<slug:slug>/team/invite/", views.team_invite, name="team-invite"),
    path("a/<slug:slug>/team/invites/<int:invite_id>/revoke/", views.team_invite_revoke, name="team-invite-revoke"),
    path("a/<slug:slug>/team/members/<int:membership_id>/remove/", views.team_member_remove, name="team-member-remove"),
    path("a/<slug:slug>/team/members/<int:membership_id>/role/", views.team_member_role, name="team-member-role"),
    path("invite/accept/", views.invite_accept, name="invite-accept"),
    path("invite/<str:token>/", views.invite_link, name="invite-link"),
    path("password-reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path(
        "password-reset/sent/",
        auth_views.PasswordResetDoneView.as_view(template_name="accounts/password_reset_done.html"),
        name="password_reset_done",
    ),
    path(
        "password-reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(template_name="accounts/password_reset_confirm.html"),
        name="password_reset_confirm",
    ),
    path(
        "password-reset/done/",
        auth_views.PasswordResetCompleteView.as_view(template_name="accounts/password_reset_complete.html"),
        name="password_reset_complete",
    ),
]
