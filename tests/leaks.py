"""Leak checks shared by the core, server and client tests."""

from __future__ import annotations

from typing import Any


def strings_in(value: Any) -> set[str]:
    """Every string (keys included) anywhere inside a JSON value."""
    out: set[str] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            out.add(v)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out
