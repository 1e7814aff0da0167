"""HTTP: a request that could not get a database connection (or lost the database) answers
503 with the protocol's JSON error body (code ``unavailable``) instead of a 500: the API
views through :func:`unavailable_response`, every other view through the middleware."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseNotFound, JsonResponse
from django.middleware.common import CommonMiddleware
from django.utils.deprecation import MiddlewareMixin

from . import dbpool
from .inputs import text_ok


class DatabaseUnavailable(MiddlewareMixin):
    """(Sync and async capable, like Django's own: under ASGI a sync-only middleware would
    cost every request two more thread hops.)"""

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        return unavailable_response(exc)


def unavailable_response(exc: BaseException) -> HttpResponse | None:
    """503 ``unavailable`` when ``exc`` means no database connection could be had (or the
    database went away), else None. The API views' own error handling uses it too."""
    reason = dbpool.unavailable(exc)
    if reason is None:
        return None
    return JsonResponse({"error": {"code": "unavailable", "reason": reason}}, status=503,
                        headers={"Retry-After": "1"})


class ApiCommonMiddleware(CommonMiddleware):
    """Django's CommonMiddleware, without the slash-appending redirect under ``/api/``: an
    API path is exact (docs/protocol.md), and a redirected POST becomes a GET in most
    clients (a create that silently lists games). Such a path answers the JSON 404."""

    def should_redirect_with_slash(self, request: HttpRequest) -> bool:
        if request.path_info.startswith("/api/"):
            return False
        return bool(super().should_redirect_with_slash(request))


class ControlCharactersInPath(MiddlewareMixin):
    """A path with a NUL or another control character (``%00``, ``%0A``...) names nothing:
    404 before any view runs (PostgreSQL text cannot hold a NUL, so a view looking such a
    name up would fail), the protocol's JSON body under ``/api/``. (Sync and async capable.)"""

    def process_request(self, request: HttpRequest) -> HttpResponse | None:
        if text_ok(request.path_info):
            return None
        if request.path_info.startswith("/api/"):
            return JsonResponse({"error": {"code": "not_found", "reason": "no such path"}},
                                status=404)
        return HttpResponseNotFound("no such page\n", content_type="text/plain")
