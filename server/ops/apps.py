from django.apps import AppConfig


class OpsConfig(AppConfig):
    """Operations: admin account, demo data, load benchmark (management commands only)."""

    name = "server.ops"
    label = "ops"
    verbose_name = "gamenight operations"
    default_auto_field = "django.db.models.BigAutoField"
