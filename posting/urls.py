from django.urls import path

from posting import views

urlpatterns = [
    path("", views.home, name="home"),
    path("a/<slug:slug>/drafts/", views.drafts, name="drafts"),
    path("a/<slug:slug>/drafts/bulk/", views.drafts_bulk, name="drafts-bulk"),
    path("a/<slug:slug>/drafts/undo/", views.drafts_undo, name="drafts-undo"),
    path("a/<slug:slug>/drafts/skipped/<int:article_id>/draft/", views.skipped_draft, name="skipped-draft"),
    path("a/<slug:slug>/drafts/<int:draft_id>/", views.draft_detail, name="draft"),
    path("a/<slug:slug>/drafts/<int:draft_id>/approve/", views.draft_approve, name="draft-approve"),
    path("a/<slug:slug>/drafts/<int:draft_id>/reject/", views.draft_reject, name="draft-reject"),
    path("a/<slug:slug>/drafts/<int:draft_id>/edit/", views.draft_edit, name="draft-edit"),
    path("a/<slug:slug>/queue/", views.queue, name="queue"),
    path("a/<slug:slug>/queue/times/", views.queue_times, name="queue-times"),
    path("a/<slug:slug>/queue/<int:publication_id>/move/", views.queue_move, name="queue-move"),
    path("a/<slug:slug>/queue/<int:publication_id>/post-now/", views.queue_post_now, name="queue-post-now"),
    path(
        "a/<slug:slug>/queue/<int:publication_id>/back-to-drafts/",
        views.queue_back_to_drafts,
        name="queue-back-to-drafts",
    ),
    path("a/<slug:slug>/history/", views.history, name="history"),
    path("a/<slug:slug>/history/<int:publication_id>/retry/", views.history_retry, name="history-retry"),
    path("a/<slug:slug>/settings/", views.account_settings, name="settings"),
    # Under channels/ with the Channels page (publish), but posting's: it returns queued drafts.
    path(
        "a/<slug:slug>/channels/<int:channel_id>/disconnect/",
        views.channel_disconnect,
        name="channel-disconnect",
    ),
    path("a/<slug:slug>/settings/notifications/", views.notification_settings, name="settings-notifications"),
]
