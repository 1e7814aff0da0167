from django.urls import path

from server.games.urls import IdConverter as _IdConverter  # noqa: F401 (registers "id")

from . import api, views

urlpatterns = [
    path("leagues/", views.league_list),
    path("leagues/<id:league_id>/", views.league_page),
    path("leagues/<id:league_id>/standings.csv", views.standings_csv),
    path("leagues/<id:league_id>/fixtures.csv", views.fixtures_csv),
    path("players/<path:username>/", views.player_page),
    path("api/leagues/", api.league_list),
    path("api/leagues/<id:league_id>/", api.league_detail),
]
