"""One configuration, read once (issue 31): Django's settings (``server/settings.py``) are
the one place of the server that reads the environment; every other module of ``server/``
reads ``django.conf.settings`` when it runs, never the environment and never a setting at
import time. Every variable read is in the one table of docs/deploy.md ("Options and
environment"). And the server uses no private name of a third-party package outside its
one adapter (``server/transport.py``, docs/transport.md)."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

ENV_READERS = {
    # the one place: every setting read once, when Django loads the settings
    "server/settings.py",
    # mypy's settings: sets two defaults, then reads server/settings.py
    "server/settings_typecheck.py",
    # runs before Django is configured: chooses the database for the settings (and the
    # embedded PostgreSQL's own variables)
    "server/dbconfig.py",
    # the launcher (./gamenight serve): before django.setup(), and the environment of the
    # daphne processes it starts
    "server/run.py",
    # the launcher's mDNS announcement, started before Django is configured
    "server/ops/announce.py",
    # the ASGI entry point: DJANGO_SETTINGS_MODULE, before Django loads
    "server/asgi.py",
}
"""The modules of ``server/`` that may read the environment, and why."""

def _server_modules() -> list[Path]:
    files = sorted((ROOT / "server").rglob("*.py"))
    assert len(files) > 50
    return files


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def environment_reads(source: str) -> list[tuple[int, str]]:
    """(line, what) of each place ``source`` reads the environment: ``os.environ`` (or
    ``environb``) in any form, ``os.getenv``, and those names imported from ``os``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Attribute) and node.attr in ("environ", "environb", "getenv")
                and isinstance(node.value, ast.Name) and node.value.id == "os"):
            found.append((node.lineno, f"os.{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [(node.lineno, f"from os import {a.name}") for a in node.names
                      if a.name in ("environ", "environb", "getenv")]
    return sorted(found)


def test_the_check_sees_environment_reads() -> None:
    source = ("import os\nfrom os import getenv\na = os.environ.get('X')\n"
              "b = os.environ['Y']\nc = os.getenv('Z')\nd = 'W' in os.environ\n")
    assert [line for line, _ in environment_reads(source)] == [2, 3, 4, 5, 6]
    assert environment_reads("import os\nx = os.path.join('a', 'b')\n") == []


def test_only_the_settings_and_what_runs_before_them_read_the_environment() -> None:
    for name in ENV_READERS:  # (a stale entry would hide nothing, but mislead)
        assert (ROOT / name).exists(), name
    found = [f"{_rel(p)}:{line} {what}" for p in _server_modules()
             if _rel(p) not in ENV_READERS
             for line, what in environment_reads(p.read_text())]
    assert found == [], (
        "read these from django.conf.settings at call time (server/settings.py reads the "
        "environment once; docs/deploy.md, 'Options and environment', lists every variable)")
    assert environment_reads((ROOT / "server" / "settings.py").read_text())


def import_time_settings_reads(source: str) -> list[tuple[int, str]]:
    """(line, what) of each ``knob(...)`` call or ``settings.GAMENIGHT`` read that runs when
    the module is imported (outside every function body)."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return
        if isinstance(node, ast.Call):
            f = node.func
            name = (f.id if isinstance(f, ast.Name)
                    else f.attr if isinstance(f, ast.Attribute) else "")
            if name == "knob":
                found.append((node.lineno, ast.unparse(node)))
        if (isinstance(node, ast.Attribute) and node.attr == "GAMENIGHT"
                and isinstance(node.value, ast.Name) and node.value.id == "settings"):
            found.append((node.lineno, ast.unparse(node)))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(source))
    return found


def test_no_module_reads_the_server_knobs_at_import_time() -> None:
    """A knob read at import time is fixed before a test (or an operator's override of
    the settings) can change it: ``DB_SHARDS``, the event loop's pool size and the presence
    bound were read so before."""
    assert [line for line, _ in import_time_settings_reads(
        "X = knob('A', 1)\ndef f():\n    return knob('B', 2)\nY = settings.GAMENIGHT\n"
    )] == [1, 4]
    found = [f"{_rel(p)}:{line} {what}" for p in _server_modules()
             if _rel(p) not in {"server/settings.py"}
             for line, what in import_time_settings_reads(p.read_text())]
    assert found == []


def _table_of_variables() -> str:
    text = (ROOT / "docs" / "deploy.md").read_text()
    start = text.index("### Options and environment")
    return text[start:text.index("\n#", start + 10)]


def variables_read(source: str) -> set[str]:
    """The environment variables ``source`` reads by name (``os.environ.get("X")``,
    ``os.environ["X"]``, ``os.getenv("X")``, and settings.py's ``_flag``/``_number``)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        arg: ast.AST | None = None
        if isinstance(node, ast.Call) and node.args:
            f = node.func
            if (isinstance(f, ast.Attribute) and f.attr in ("get", "getenv")
                    and ast.unparse(f.value) in ("os.environ", "os")) or (
                    isinstance(f, ast.Name) and f.id in ("_flag", "_number")):
                arg = node.args[0]
        elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
              and ast.unparse(node.value) == "os.environ"):
            arg = node.slice
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            names.add(arg.value)
    return names


def test_every_variable_read_is_in_the_one_table() -> None:
    table = _table_of_variables()
    documented = set(re.findall(r"`([A-Z][A-Z0-9_]+)(?:=[^`]*)?`", table))
    read = set().union(*(variables_read((ROOT / name).read_text())
                         for name in ENV_READERS if (ROOT / name).exists()))
    assert {"GAMENIGHT_CACHE_GAMES", "REDIS_URL", "GAMENIGHT_DB_JSON"} <= read  # (it sees)
    read.discard("DJANGO_SETTINGS_MODULE")  # (Django's own, set by the entry points)
    assert sorted(read - documented) == [], "add them to docs/deploy.md, 'Options and environment'"


CHILD = """
import json
from django.conf import settings  # (the settings only: no app is started)
print(json.dumps({k: settings.GAMENIGHT[k] for k in (
    "CACHE_GAMES", "CACHE_MB", "AWAY_GAMES", "GC_FREEZE", "GC_GEN0", "TEEKO_BUILD",
    "ANALYSIS_QUEUE", "ANALYSIS_CPU_SECONDS", "TEKA_SOLVE_SECONDS", "DIE_WITH",
    "SWITCH_INTERVAL", "DB_RECONNECT_MAX_DELAY", "APP_ROLE")}
    | {"redis": settings.REDIS_URL,
       "reconnect": settings.DATABASES["default"]["OPTIONS"]["pool"]["reconnect_timeout"]}))
"""


def test_a_process_reads_its_settings_from_its_environment() -> None:
    """A daphne's environment (as the tests and server.run set it for their children) is
    what its settings hold; numbers that cannot be used fall back to their defaults where
    they did before."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GAMENIGHT_")
           and k != "REDIS_URL"}
    env.update({
        "DJANGO_SETTINGS_MODULE": "server.settings",
        "DATABASE_URL": os.environ.get("DATABASE_URL") or "postgresql://x@127.0.0.1:9/x",
        "GAMENIGHT_CACHE_GAMES": "7", "GAMENIGHT_CACHE_MB": "1.5", "GAMENIGHT_AWAY_GAMES": "5",
        "GAMENIGHT_GC_FREEZE": "0", "GAMENIGHT_GC_GEN0": "900",
        "GAMENIGHT_TEEKO_BUILD": " axis, tilted ,", "GAMENIGHT_ANALYSIS_QUEUE": "zero",
        "GAMENIGHT_ANALYSIS_CPU_SECONDS": "0", "GAMENIGHT_TEKA_SOLVE_SECONDS": "-1",
        "GAMENIGHT_DIE_WITH": str(os.getpid()), "GAMENIGHT_SWITCH_INTERVAL": "0.01",
        "GAMENIGHT_DB_RECONNECT_MAX_DELAY": "0.5", "GAMENIGHT_APP_ROLE": " role_x ",
        "REDIS_URL": " redis://127.0.0.1:9/0 ",
    })
    out = subprocess.run([sys.executable, "-c", CHILD], env=env, cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {
        "CACHE_GAMES": 7, "CACHE_MB": 1.5, "AWAY_GAMES": 5, "GC_FREEZE": False, "GC_GEN0": 900,
        "TEEKO_BUILD": ["axis", "tilted"], "ANALYSIS_QUEUE": 20, "ANALYSIS_CPU_SECONDS": 120,
        "TEKA_SOLVE_SECONDS": 30, "DIE_WITH": os.getpid(), "SWITCH_INTERVAL": 0.01,
        "DB_RECONNECT_MAX_DELAY": 0.5, "APP_ROLE": "role_x",
        "redis": "redis://127.0.0.1:9/0", "reconnect": 0.5,
    }


# --------------------------------------------------------------------------- private names

ADAPTERS = {"server/transport.py"}
"""The modules that may use private names of third-party packages (written for pinned
versions, with a test that fails on others): docs/transport.md."""

OWN = {"core", "server", "client_kivy"}


def third_party_private_names(source: str) -> list[tuple[int, str]]:
    """(line, what) of each private name (``_x``, not ``__x__``) reached through a
    third-party import: ``from pkg import _x``, ``import pkg._mod``, ``pkg.a._b`` where
    ``pkg`` names an imported third-party module or something imported from one. (What is
    reached through an object held in a variable, ``pool._closed``, it cannot see: the
    adapter rule still holds for it.)"""
    tree = ast.parse(source)
    imported: dict[str, str] = {}  # local name -> top-level package
    found: list[tuple[int, str]] = []

    def third_party(top: str) -> bool:
        return top not in OWN and top not in sys.stdlib_module_names and top != "__future__"

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".")[0]
                imported[a.asname or top] = top
                if third_party(top) and any(p.startswith("_") for p in a.name.split(".")[1:]):
                    found.append((node.lineno, f"import {a.name}"))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            top = node.module.split(".")[0]
            for a in node.names:
                imported[a.asname or a.name] = top
            if not third_party(top):
                continue
            private = [p for p in node.module.split(".")[1:] if p.startswith("_")]
            private += [a.name for a in node.names if a.name.startswith("_")]
            if private:
                found.append((node.lineno, f"from {node.module} import "
                              + ", ".join(a.name for a in node.names)))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            base = node.value
            while isinstance(base, ast.Attribute):
                base = base.value
            if isinstance(base, ast.Name) and third_party(imported.get(base.id, "__future__")):
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_check_sees_private_names() -> None:
    source = ("from django.contrib import admin\nimport pgserver\nimport os\n"
              "from pgserver import _commands\nfrom server.games import store\n"
              "a = admin.site._registry\nb = pgserver.PostgresServer._instances\n"
              "c = os._exit\nd = store._cache\ne = admin.site.is_registered\n")
    assert [line for line, _ in third_party_private_names(source)] == [4, 6, 7]


@pytest.mark.parametrize("package", sorted(OWN))
def test_no_private_name_of_a_third_party_package_outside_its_adapter(package: str) -> None:
    found = [f"{_rel(p)}:{line} {what}" for p in sorted((ROOT / package).rglob("*.py"))
             if _rel(p) not in ADAPTERS
             for line, what in third_party_private_names(p.read_text())]
    assert found == [], "use the package's public API, or move this into its adapter"
