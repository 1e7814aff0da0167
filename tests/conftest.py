"""Shared test set-up. With GAMENIGHT_REQUIRE_COMPILED=1 (CI) the compiled core must load."""

from __future__ import annotations

import os

import core
from server.lifeline import reset_sigint

pytest_plugins = ["server_fixtures", "process_check"]

TEST_JOIN_RATE = "1000000/minute"


def pytest_report_header() -> list[str]:
    return [f"gamenight core: {'compiled (mypyc)' if core.COMPILED else 'pure Python'}"]


def pytest_configure(config: object) -> None:
    # A run started in the background from a script has SIGINT ignored: Ctrl-C (or kill -INT)
    # would not stop it, and every daphne and server.run it starts would inherit that.
    reset_sigint()
    # Every test comes from 127.0.0.1: the joins and code lookups of the whole run share one
    # address, so the suite's servers allow many; the tests of the limit itself start their
    # server with the documented default (tests/test_server_private_tables.py).
    os.environ.setdefault("GAMENIGHT_JOIN_RATE", TEST_JOIN_RATE)
    from django.conf import settings

    if settings.configured:
        settings.GAMENIGHT["JOIN_RATE"] = os.environ["GAMENIGHT_JOIN_RATE"]


def pytest_sessionstart(session: object) -> None:
    if os.environ.get("GAMENIGHT_REQUIRE_COMPILED") == "1" and not core.COMPILED:
        raise RuntimeError("GAMENIGHT_REQUIRE_COMPILED=1 but the pure-Python core was loaded")
