"""gamenight rules core: Teeko, Tiku, Tedoku and Teka behind one API (see ``core.api``).

``GAMES`` maps each game's name to its :class:`core.api.Game`; :func:`register` adds a game
defined elsewhere (a plug-in), and the modules named in ``GAMENIGHT_GAMES`` are registered
on import (docs/games.md). ``COMPILED`` tells whether
the mypyc-compiled modules were loaded. Set ``GAMENIGHT_PURE=1`` in the environment to load
the pure-Python sources even when compiled modules are installed beside them.

This ``__init__`` is never compiled: it must be able to choose between the two forms.
"""

from __future__ import annotations

import importlib.machinery
import os
import re
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

BUILTIN: frozenset[str] = frozenset(GAMES)
"""The games of the core itself (never unregistered)."""


def register(game: Game) -> Game:
    """Add ``game`` (an instance of a :class:`core.api.Game` subclass defined anywhere) to
    :data:`GAMES` under its ``name``; the server, the leagues, the pages and the app then
    offer it like the core's own games (docs/games.md). Registering the same name again
    replaces a plug-in, never a game of the core. Returns ``game``."""
    if not isinstance(game, Game):
        raise TypeError(f"a game is an instance of a core.api.Game subclass, not {game!r}")
    name = game.name
    if not re.fullmatch(r"[a-z][a-z0-9_]{0,19}", name or ""):
        raise ValueError("a game's name is a lower-case word of at most 20 letters, digits "
                         f"and _, not {name!r}")
    if name in BUILTIN and GAMES[name] is not game:
        raise ValueError(f"{name!r} is a game of the core")
    GAMES[name] = game
    return game


def unregister(name: str) -> None:
    """Remove the plug-in game ``name`` from :data:`GAMES` (tests)."""
    if name in BUILTIN:
        raise ValueError(f"{name!r} is a game of the core")
    GAMES.pop(name, None)


def load_plugins(spec: str | None = None) -> list[str]:
    """Register the ``GAME`` of each module named in ``spec`` (comma separated module
    paths; default: the ``GAMENIGHT_GAMES`` environment variable). Returns their names.
    Called when ``core`` is imported, so every process (the server, its workers, the app)
    that has the variable knows the same games."""
    names = []
    raw = os.environ.get("GAMENIGHT_GAMES", "") if spec is None else spec
    for module_name in (m.strip() for m in raw.split(",")):
        if module_name:
            names.append(register(importlib.import_module(module_name).GAME).name)
    return names


COMPILED: bool = all(
    not (m.__file__ or "").endswith(".py")
    for m in (importlib.import_module("core.api"), *_MODULES.values())
)
"""True when the rules modules are the mypyc-compiled extension modules."""

load_plugins()

__all__ = [
    "ALL",
    "BUILTIN",
    "COMPILED",
    "GAMES",
    "SPECTATOR",
    "Game",
    "IllegalMoveError",
    "OptionsError",
    "Outcome",
    "load_plugins",
    "register",
    "unregister",
]
