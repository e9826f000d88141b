from django.urls import path

from posting import views

urlpatterns = [
    path("", views.home, name="home"),
    path("a/<slug:slug>/drafts/", views.drafts, name="drafts"),
    path("a/<slug:slug>/drafts/<int:draft_id>/", views.draft_detail, name="draft"),
    path("a/<slug:slug>/drafts/<int:draft_id>/approve/", views.draft_approve, name="draft-approve"),
    path("a/<slug:slug>/drafts/<int:draft_id>/reject/", views.draft_reject, name="draft-reject"),
    path("a/<slug:slug>/drafts/<int:draft_id>/edit/", views.draft_edit, name="draft-edit"),
    path("a/<slug:slug>/history/", views.history, name="history"),
]
