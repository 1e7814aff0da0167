"""The tree's type and style checks, as part of the suite (so ``./gamenight test`` and CI run
them): ``ruff check .`` on the whole tree and mypy, with the project's configuration in
pyproject.toml (strict, the Django plugin, the per-module exceptions listed there with their
reasons), on core/, server/, client_kivy/ and bench/. Both must report nothing. docs/checks.md
says what is checked and why each exception is there."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("core", "server", "client_kivy", "bench")


def _run(args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=240, check=False)


def test_ruff_finds_nothing_in_the_whole_tree() -> None:
    done = _run(["ruff", "check", "--no-cache", "."])
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_config_is_strict_on_every_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True
    assert sorted(config["files"]) == sorted(PACKAGES)
    assert "mypy_django_plugin.main" in config["plugins"]
    for override in config.get("overrides", []):
        # Exceptions relax checks for named modules; none turns a whole package off.
        assert override.get("ignore_errors") is not True, override


def test_mypy_finds_nothing_in_core_server_and_client() -> None:
    # (the Django plugin loads server/settings_typecheck.py: no database is started)
    done = _run(["mypy", "--cache-dir", str(ROOT / ".mypy_cache"), *PACKAGES])
    assert done.returncode == 0, done.stdout + done.stderr
