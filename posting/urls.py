from django.urls import path

from posting import views

urlpatterns = [
    path("", views.home, name="home"),
]
