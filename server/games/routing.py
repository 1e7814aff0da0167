from django.urls import path

from . import urls as _urls  # noqa: F401  (registers the <id:...> converter)
from .consumers import GameConsumer

websocket_urlpatterns = [
    path("ws/games/<id:game_id>/", GameConsumer.as_asgi()),
]
