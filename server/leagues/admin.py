"""The club's admin: seasons (with their standings and the next round's fixtures)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.utils.html import format_html, format_html_join

from . import standings
from .models import Season


def standings_html(rows: list[standings.Row]) -> str:
    """A standings table for the admin (names escaped)."""
    head = format_html(
        "<tr><th>#</th><th>player</th><th>P</th><th>W</th><th>D</th><th>L</th>"
        "<th>adj.</th><th>pts</th><th>h2h</th><th>SB</th></tr>"
    )
    body = format_html_join(
        "",
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>",
        ((r.rank, r.username, r.played, r.won, r.drawn, r.lost, r.adjudicated or "",
          r.points, f"{r.h2h:g}", f"{r.sb:g}") for r in rows),
    )
    return format_html("<table>{}{}</table>", head, body)


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("name", "league", "start", "end", "scoring", "pairing")
    list_filter = ("league", "scoring")
    search_fields = ("name", "league__name")
    date_hierarchy = "start"
    readonly_fields = ("standings_table",)

    @admin.display(description="standings")
    def standings_table(self, obj: Season) -> Any:
        if obj.pk is None:
            return "-"
        return standings_html(standings.season_table(obj))
