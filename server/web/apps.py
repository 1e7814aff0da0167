from django.apps import AppConfig


class WebConfig(AppConfig):
    """Watch and replay in the browser: a page per game, TV mode (docs/web.md)."""

    name = "server.web"
    label = "web"
    verbose_name = "gamenight in the browser"
    default_auto_field = "django.db.models.BigAutoField"
