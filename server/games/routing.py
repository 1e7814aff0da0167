from django.urls import re_path

from .consumers import GameConsumer

websocket_urlpatterns = [
    # Any digits: an id no game can have (over 18 digits) answers not_found to its hello.
    re_path(r"^ws/games/(?P<game_id>[0-9]+)/$", GameConsumer.as_asgi()),
]
