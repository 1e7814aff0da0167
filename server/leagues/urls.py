from django.urls import path

from server.games.urls import IdConverter as _IdConverter  # noqa: F401 (registers "id")

from . import api, signup, views

urlpatterns = [
    path("leagues/", views.league_list),
    path("leagues/<id:league_id>/", views.league_page),
    path("leagues/<id:league_id>/standings.csv", views.standings_csv),
    path("leagues/<id:league_id>/fixtures.csv", views.fixtures_csv),
    path("players/<path:username>/", views.player_page),
    path("invite/<str:code>/", signup.invite_view),
    path("api/leagues/", api.league_list),
    path("api/leagues/<id:league_id>/", api.league_detail),
    path("api/games/<id:game_id>/correct/", api.correct),
]
