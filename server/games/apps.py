from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "server.games"
    label = "games"
    verbose_name = "Games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from . import accounts, grants, runtime

        runtime.install()
        accounts.connect_signals()  # (every browser login is a session row)
        post_migrate.connect(grants.on_post_migrate, sender=self,
                             dispatch_uid="games.grant_app_role")
