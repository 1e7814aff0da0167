"""gamenight rules core: Teeko, Tiku, Tedoku and Teka behind one API (see ``core.api``).

``GAMES`` maps each game's name to its :class:`core.api.Game`. ``COMPILED`` tells whether
the mypyc-compiled modules were loaded. Set ``GAMENIGHT_PURE=1`` in the environment to load
the pure-Python sources even when compiled modules are installed beside them.

This ``__init__`` is never compiled: it must be able to choose between the two forms.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys

PURE_REQUESTED = os.environ.get("GAMENIGHT_PURE", "") not in ("", "0")

if PURE_REQUESTED:
    # Make imports of core.* (and core.ai.*) see only .py sources: a FileFinder without
    # the extension-module loader, cached for our package directories.
    _here = __path__[0]
    for _d in (_here, os.path.join(_here, "ai")):
        sys.path_importer_cache[_d] = importlib.machinery.FileFinder(
            _d, (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)
        )

import importlib  # noqa: E402
from types import ModuleType  # noqa: E402

from core.api import ALL, SPECTATOR, Game, IllegalMoveError, OptionsError, Outcome  # noqa: E402

# Loaded by name: mypyc type-checks this file with the games in one import cycle, where
# inferred module attributes cannot be resolved.
_MODULES: dict[str, ModuleType] = {
    name: importlib.import_module(f"core.{name}") for name in ("teeko", "tiku", "tedoku", "teka")
}

GAMES: dict[str, Game] = {name: module.GAME for name, module in _MODULES.items()}
"""The variant registry: game name -> its :class:`core.api.Game`."""

COMPILED: bool = all(
    not (m.__file__ or "").endswith(".py")
    for m in (importlib.import_module("core.api"), *_MODULES.values())
)
"""True when the rules modules are the mypyc-compiled extension modules."""

__all__ = [
    "ALL",
    "COMPILED",
    "GAMES",
    "SPECTATOR",
    "Game",
    "IllegalMoveError",
    "OptionsError",
    "Outcome",
]
