"""Build hook: compile the rules core with mypyc unless GAMENIGHT_PURE=1.

Every module under core/ is compiled except those listed in PURE_ONLY, each with its reason.
"""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).parent

PURE_ONLY = {
    # Chooses between the compiled and the pure modules at import time; must stay Python.
    "core/__init__.py",
    # Exception types the server subclasses: interpreted classes cannot inherit from
    # compiled ones.
    "core/errors.py",
    # Package markers only.
    "core/ai/__init__.py",
    # Tournament driver (argparse, printing; run with `python -m`): the bots it calls are
    # compiled.
    "core/ai/tournaments.py",
    # Terminal game run with `python -m core.cli`: -m cannot run a compiled module.
    "core/cli.py",
    # Teeko solver: whole-array numpy code (numpy is an optional dependency, and mypyc gains
    # nothing on it), run with `python -m core.teeko_solve`. Its table reader,
    # core/teeko_table.py, is compiled.
    "core/teeko_solve.py",
}


def compiled_modules() -> list[str]:
    return sorted(
        p.relative_to(HERE).as_posix()
        for p in (HERE / "core").rglob("*.py")
        if p.relative_to(HERE).as_posix() not in PURE_ONLY
    )


ext_modules = []
if os.environ.get("GAMENIGHT_PURE", "") in ("", "0"):
    from mypyc.build import mypycify

    # --config-file= (empty): read no config file. pyproject.toml's [tool.mypy] is the tree's
    # type check (server/ and the app too, with the Django plugin, which the build
    # environment does not have); the core compiles with --strict alone.
    ext_modules = mypycify(["--config-file=", "--strict", *compiled_modules()], opt_level="3",
                           group_name="gamenight_core")

setup(ext_modules=ext_modules)
