"""The club's admin: seasons (with their standings and the next round's fixtures)."""

from __future__ import annotations

from django.contrib import admin

from .models import Season


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ("name", "league", "start", "end", "scoring", "pairing")
    list_filter = ("league", "scoring")
    search_fields = ("name", "league__name")
    date_hierarchy = "start"
