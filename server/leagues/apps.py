from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    """Club play: seasons, standings, ratings, fixtures (the League model stays in games)."""

    name = "server.leagues"
    label = "leagues"
    verbose_name = "Club play"
    default_auto_field = "django.db.models.BigAutoField"
