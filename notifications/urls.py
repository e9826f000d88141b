"""The unsubscribe link: outside ``/a/<slug>/`` because the signed token, not a session, says whose it is."""

from django.urls import path

from notifications import views

app_name = "notifications"
urlpatterns = [path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe")]
