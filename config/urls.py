from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("accounts.urls")),
    path("cron/", include("cron.urls")),
    path("notifications/", include("notifications.urls")),
    path("", include("cron.ops_urls")),
    path("connect/", include("publish.urls")),
    path("a/<slug:slug>/sources/", include("research.urls")),
    path("a/<slug:slug>/channels/", include("publish.account_urls")),
    path("a/<slug:slug>/voice/", include("posting.voice.urls")),
    path("", include("posting.review.urls")),
    path("", include("posting.urls")),
]
