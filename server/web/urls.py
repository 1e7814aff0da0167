from django.urls import re_path

from . import front, views

# (a database id is 1 to 18 digits, as server.games.urls' "id" converter: longer is no game)
ID = r"(?P<game_id>[0-9]{1,18})"

urlpatterns = [
    re_path(r"^$", front.home, name="web-home"),
    re_path(rf"^games/{ID}/$", views.game_page, name="web-game"),
    re_path(r"^tv/$", views.tv_page, name="web-tv"),
    re_path(r"^api/tv/$", views.tv_list, name="web-tv-list"),
    re_path(r"^favicon\.ico$", views.favicon, name="web-favicon"),
    re_path(rf"^api/games/{ID}/views/$", views.views_range, name="web-views"),
    re_path(rf"^api/games/{ID}/words/$", views.words_range, name="web-words"),
    re_path(rf"^games/{ID}/table/$", views.table_page, name="web-table"),
    re_path(r"^join/(?P<code>[A-Za-z0-9]{1,16})/$", views.seat_page, name="web-seat"),
    re_path(r"^join/$", views.join_form, name="web-join"),
    re_path(r"^manifest\.webmanifest$", views.manifest, name="web-manifest"),
    re_path(r"^join/(?P<code>[A-Za-z0-9]{1,16})/manifest\.webmanifest$", views.manifest,
            name="web-seat-manifest"),
    re_path(r"^sw\.js$", views.service_worker, name="web-sw"),
]
