"""HTTP: a request that could not get a database connection (or lost the database) answers
503 with the protocol's JSON error body (code ``unavailable``) instead of a 500: the API
views through :func:`unavailable_response`, every other view through the middleware."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin

from . import dbpool


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
