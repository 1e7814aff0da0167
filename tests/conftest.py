"""Shared test set-up. With GAMENIGHT_REQUIRE_COMPILED=1 (CI) the compiled core must load.

Every test carries the marker of its layer (``-m core``, ``-m "not app"``...), by module:

* ``core``: the rules cores, the bots and the solvers (:data:`CORE`). They need only the
  core: ``pip install -e .`` without extras, plus pytest and hypothesis.
* ``web``: the web pages (``test_web_*``), most in a real browser.
* ``app``: the Kivy app (``test_client_*``, the Android build).
* ``server``: everything else (the server, its API and sockets, the database, the tooling,
  the checks of the code).

Without Django (a venv with the core alone) only the core's modules are collected, and the
server's fixtures and the process check are not loaded; without Kivy the app's modules are
left out too.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
from pathlib import Path
from typing import Any

import pytest

import core
from server.lifeline import reset_sigint

CORE = frozenset({
    "test_ai_tedoku", "test_ai_teeko", "test_ai_teka", "test_ai_tiku", "test_conformance",
    "test_corpus", "test_tedoku", "test_teeko", "test_teeko_perfect", "test_teeko_solver",
    "test_teka", "test_teka_analysis", "test_teka_dd", "test_tiku", "test_words",
    "test_words_table",
})
"""The core's test modules: the rules, the bots, the solvers and the analyses."""

try:  # (imported, not only looked for: a test hides it to check a core-only run)
    import django  # noqa: F401

    HAVE_SERVER = True
except ImportError:
    HAVE_SERVER = False
try:  # (looked for, not imported: Kivy configures itself on import; see bench/testing.py)
    HAVE_APP = importlib.util.find_spec("kivy") is not None
except ImportError:
    HAVE_APP = False


def layer(module: str) -> str:
    """The layer of a test module (its file name without ``.py``)."""
    if module in CORE:
        return "core"
    if module.startswith("test_web_"):
        return "web"
    if module.startswith(("test_client_", "test_android")):
        return "app"
    return "server"


pytest_plugins = ["server_fixtures", "process_check"] if HAVE_SERVER else []

collect_ignore_glob = [
    p.name for p in Path(__file__).parent.glob("test_*.py")
    if (not HAVE_SERVER and layer(p.stem) != "core")
    or (not HAVE_APP and layer(p.stem) == "app")
]
"""Modules whose packages are not installed: not collected (the run says nothing of them)."""


def pytest_report_header() -> list[str]:
    missing = [what for what, have in (("server", HAVE_SERVER), ("client", HAVE_APP))
               if not have]
    lines = [f"gamenight core: {'compiled (mypyc)' if core.COMPILED else 'pure Python'}"]
    if missing:
        lines.append(f"gamenight: no {' and no '.join(missing)} extra installed: only the "
                     f"tests of {'the core' if not HAVE_SERVER else 'the core and the server'}")
    return lines


def pytest_configure(config: object) -> None:
    # A run started in the background from a script has SIGINT ignored: Ctrl-C (or kill -INT)
    # would not stop it, and every daphne and server.run it starts would inherit that.
    reset_sigint()


def pytest_collection_modifyitems(config: Any, items: list[pytest.Item]) -> None:
    for item in items:
        item.add_marker(layer(Path(str(item.fspath)).stem))
        # an async test on the server's runtime closes the loop's database pool in its own
        # loop (tests/server_fixtures.py, loop_pool_closed)
        names = getattr(item, "fixturenames", None)
        if (names is not None and "server_runtime" in names
                and inspect.iscoroutinefunction(getattr(item, "obj", None))):
            names.append("loop_pool_closed")


def pytest_sessionstart(session: object) -> None:
    if os.environ.get("GAMENIGHT_REQUIRE_COMPILED") == "1" and not core.COMPILED:
        raise RuntimeError("GAMENIGHT_REQUIRE_COMPILED=1 but the pure-Python core was loaded")
