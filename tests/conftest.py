"""Shared test set-up. With GAMENIGHT_REQUIRE_COMPILED=1 (CI) the compiled core must load."""

from __future__ import annotations

import os

import core
from server.lifeline import reset_sigint

pytest_plugins = ["server_fixtures", "process_check"]


def pytest_report_header() -> list[str]:
    return [f"gamenight core: {'compiled (mypyc)' if core.COMPILED else 'pure Python'}"]


def pytest_configure(config: object) -> None:
    # A run started in the background from a script has SIGINT ignored: Ctrl-C (or kill -INT)
    # would not stop it, and every daphne and server.run it starts would inherit that.
    reset_sigint()


def pytest_sessionstart(session: object) -> None:
    if os.environ.get("GAMENIGHT_REQUIRE_COMPILED") == "1" and not core.COMPILED:
        raise RuntimeError("GAMENIGHT_REQUIRE_COMPILED=1 but the pure-Python core was loaded")
