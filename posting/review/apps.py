from django.apps import AppConfig


class ReviewConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "posting.review"
    # The label stays "review": its table names and migrations were made under it.
    label = "review"
    verbose_name = "Review discipline"
