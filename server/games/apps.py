from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "server.games"
    label = "games"
    verbose_name = "Games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import runtime

        runtime.install()
