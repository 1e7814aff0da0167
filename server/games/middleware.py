"""HTTP: a request that could not get a database connection (or lost the database) answers
503 with the protocol's JSON error body (code ``unavailable``) instead of a 500: the API
views through :func:`unavailable_response`, every other view through the middleware."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, JsonResponse

from . import dbpool


class DatabaseUnavailable:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

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
