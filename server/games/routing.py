from typing import Any, cast

from django.urls import re_path

from .consumers import GameConsumer

websocket_urlpatterns = [
    # Any digits: an id no game can have (over 18 digits) answers not_found to its hello.
    # (An ASGI application, routed by channels' URLRouter: Django's stubs know views only.)
    re_path(r"^ws/games/(?P<game_id>[0-9]+)/$", cast(Any, GameConsumer.as_asgi())),
]
