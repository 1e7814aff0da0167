"""The suite's layers (tests/conftest.py): every test carries its layer's marker, and the
core's tests run where only the core is installed (Django, Kivy and the test plugins of the
other layers hidden from a child pytest)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import CORE, layer

ROOT = Path(__file__).resolve().parent.parent

HIDE = """
import importlib.abc, sys
HIDDEN = {"django", "channels", "daphne", "kivy", "psutil", "psycopg", "playwright",
          "pytest_django", "pytest_asyncio", "pytest_timeout"}
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r} (hidden)", name=name)
        return None
sys.meta_path.insert(0, Hide())
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


def test_every_core_module_exists_and_the_layers_are_named() -> None:
    modules = {p.stem for p in (ROOT / "tests").glob("test_*.py")}
    assert CORE <= modules, CORE - modules  # (a renamed core module would become "server")
    assert {layer(m) for m in modules} == {"core", "server", "web", "app"}
    assert layer("test_web_browser") == "web" and layer("test_client_gui") == "app"
    assert layer("test_server_ws") == "server" and layer("test_teeko") == "core"


def test_the_core_tests_run_with_only_the_core_installed() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "DJANGO_"))}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # (pytest-django and the others: absent)
    done = subprocess.run(
        [sys.executable, "-c", HIDE, "-q", "-p", "no:cacheprovider", "--co", "tests"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    collected = {line.split("::")[0] for line in done.stdout.splitlines() if "::" in line}
    assert collected == {f"tests/{m}.py" for m in CORE}, collected  # (nothing else)
    run = subprocess.run(
        [sys.executable, "-c", HIDE, "-q", "-p", "no:cacheprovider", "tests/test_words.py",
         "tests/test_teeko.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    out = run.stdout + run.stderr
    assert run.returncode == 0 and " passed" in out and "failed" not in out, out[-3000:]
