from django.urls import path, register_converter

from . import views


class IdConverter:
    """A database id: 1 to 18 digits (a bigint; longer numbers are no game: 404)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "id")

urlpatterns = [
    path("healthz", views.healthz),
    path("api/login", views.login),
    path("api/login/", views.login),
    path("api/me/", views.me),
    path("api/logout/", views.logout),
    path("api/guest/", views.guest),
    path("api/sessions/", views.sessions),
    path("api/sessions/<id:session_id>/revoke/", views.session_revoke),
    path("api/sessions/revoke_others/", views.sessions_revoke_others),
    path("api/kinds/", views.kinds),
    path("api/games/", views.games),
    path("api/games/<id:game_id>/", views.game_detail),
    path("api/games/<id:game_id>/join/", views.join),
    path("api/games/<id:game_id>/public/", views.game_public),
    path("api/games/<id:game_id>/state/", views.state),
    path("api/games/<id:game_id>/log/", views.export_log),
    path("api/games/<id:game_id>/verify/", views.verify),
    path("api/games/<id:game_id>/analysis/", views.analysis),
    path("api/games/<id:game_id>/hint/", views.hint),
    path("api/codes/<str:code>/", views.game_by_code),
    path("api/join/", views.join_by_code),
    path("api/games/<id:game_id>/seats/<int:seat>/qr.svg", views.seat_qr),
    path("api/games/<id:game_id>/seats/<int:seat>/release/", views.seat_release),
    path("api/games/<id:game_id>/seats/<int:seat>/bot/", views.seat_bot),
    path("api/games/<id:game_id>/rematch/", views.rematch),
]
