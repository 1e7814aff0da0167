from django.urls import path

from . import views

urlpatterns = [
    path("", views.home),
    path("healthz", views.healthz),
    path("api/login", views.login),
    path("api/login/", views.login),
    path("api/me/", views.me),
    path("api/kinds/", views.kinds),
    path("api/games/", views.games),
    path("api/games/<int:game_id>/", views.game_detail),
    path("api/games/<int:game_id>/join/", views.join),
    path("api/games/<int:game_id>/state/", views.state),
    path("api/games/<int:game_id>/log/", views.export_log),
    path("api/games/<int:game_id>/verify/", views.verify),
    path("api/codes/<str:code>/", views.game_by_code),
    path("api/join/", views.join_by_code),
    path("api/leagues/", views.league_list),
    path("api/leagues/<int:league_id>/", views.league_detail),
]
