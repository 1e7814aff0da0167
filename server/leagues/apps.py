from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    """Club play: seasons, standings, ratings, fixtures (the League model stays in games)."""

    name = "server.leagues"
    label = "leagues"
    verbose_name = "Club play"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from server.games import store

        from . import ratings

        if ratings.on_batch not in store.LISTENERS:
            store.LISTENERS.append(ratings.on_batch)
