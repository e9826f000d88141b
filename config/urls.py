from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers and crawlers that ignore the pages' <link rel="icon"> still ask for /favicon.ico:
    a 404 for it was a warning in the operator's log on every visit."""
    return HttpResponsePermanentRedirect(static("landed/icon.svg"))


urlpatterns = [
    path("favicon.ico", favicon),
    path("admin/", admin.site.urls),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    # The customer's pages first: each "" include before them is tried pattern by pattern on
    # every request (Django collects what it tried), so the most visited pages go first. No
    # path resolves differently for it (their routes do not overlap the others').
    path("", include("posting.urls")),
    path("", include("accounts.urls")),
    path("cron/", include("cron.urls")),
    path("notifications/", include("notifications.urls")),
    path("", include("cron.ops_urls")),
    path("connect/", include("publish.urls")),
    path("a/<slug:slug>/sources/", include("research.urls")),
    path("a/<slug:slug>/channels/", include("publish.account_urls")),
    path("a/<slug:slug>/voice/", include("posting.voice.urls")),
    path("", include("posting.review.urls")),
]
