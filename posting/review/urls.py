from django.urls import path

from posting.review import views

urlpatterns = [
    path("a/<slug:slug>/drafts/<int:draft_id>/opened/", views.draft_opened, name="draft-opened"),
    path("a/<slug:slug>/drafts/<int:draft_id>/source/", views.draft_source, name="draft-source"),
]
