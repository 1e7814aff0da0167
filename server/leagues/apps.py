from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    """Club play: seasons, standings, ratings, fixtures (the League model stays in games)."""

    name = "server.leagues"
    label = "leagues"
    verbose_name = "Club play"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import m2m_changed

        from server.games import hooks, listeners

        from . import life, ratings
        from .hooks import ClubLeagues
        from .models import League

        hooks.use_leagues(ClubLeagues())  # (the games app asks; it imports nothing of this app)
        if ratings.on_batch not in listeners.LISTENERS:
            listeners.LISTENERS.append(ratings.on_batch)
        m2m_changed.connect(life.on_members_changed, sender=League.members.through,
                            dispatch_uid="gamenight-league-members")
