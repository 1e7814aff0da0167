"""Table set-up: per-game seat counts, option choices and default players (no Kivy)."""

from __future__ import annotations

from typing import Any

import core

Obj = dict[str, Any]


def blurb(game: str) -> str:
    """What the game is, in a sentence or two (``Game.blurb`` of the rules core)."""
    g = core.GAMES.get(game)
    return g.blurb() if g is not None else ""


def seat_range(game: str) -> tuple[int, int]:
    g = core.GAMES[game]
    return g.min_seats, g.max_seats


def bot_levels(game: str, options: Obj | None = None) -> list[str]:
    """Bot levels offered for ``game`` on this device, weakest first ("random" only when
    nothing else): a level too slow for the pure-Python core is left out when the device
    runs it (``core.ai.bots.device_levels``), and so is a level that plays from a solved
    table not on this device for these ``options`` (``core.ai.bots.missing_levels``: Teeko's
    Perfect, which would think like Max without it; :func:`levels_note` says why)."""
    try:
        from core.ai.bots import device_levels, missing_levels

        missing = missing_levels(game, options)
        levels = [lv for lv in device_levels(game) if lv not in missing]
    except ImportError:
        levels = ["random"]
    real = [lv for lv in levels if lv != "random"]
    return real or levels


def levels_note(game: str, options: Obj | None = None) -> str:
    """Why a level of ``game`` is not offered on this device for these ``options`` and how to
    get it, in a line for the set-up screen; "" when every level is offered."""
    try:
        from core.ai.bots import missing_levels
    except ImportError:
        return ""
    missing = missing_levels(game, options)
    if not missing:
        return ""
    squares = str((options or {}).get("squares", "axis"))
    names = " and ".join(lv.capitalize() for lv in missing)
    return (f"{names}: not offered, it plays from the solved {core.GAMES[game].title()} "
            f"table of these squares, which is not on this device. A computer builds it "
            f"with ./gamenight solve teeko --squares {squares} (about 2 minutes, 97 MB).")


def default_level(game: str) -> str:
    levels = bot_levels(game)
    return levels[min(1, len(levels) - 1)]


def default_players(game: str, count: int | None = None, name: str = "") -> list[Obj]:
    lo, _hi = seat_range(game)
    n = count or lo
    level = default_level(game)
    players: list[Obj] = [{"name": name or "You", "kind": "human", "level": level}]
    for i in range(1, n):
        players.append({"name": f"Bot {i}" if n > 2 else "Computer", "kind": "bot",
                        "level": level})
    return players


def option_choices(game: str) -> list[tuple[str, str, list[tuple[Any, str]]]]:
    """The game's options a person chooses (``Game.option_fields``): (option key, label,
    [(value, label), ...]), the first choice the default."""
    g = core.GAMES.get(game)
    if g is None:
        return []
    return [(f["name"], f["label"], [(c["value"], c["label"]) for c in f["choices"]])
            for f in g.option_fields() if f.get("kind") == "choice"]


def validated_options(game: str, raw: Obj, seats: int) -> Obj:
    g = core.GAMES[game]
    raw = dict(raw)
    for field in g.option_fields():  # a choice standing for several options
        for choice in field.get("choices", []):
            if "options" in choice and raw.get(field["name"]) == choice["value"]:
                raw.update(choice["options"])
    if g.min_seats != g.max_seats:
        raw["seats"] = seats
    return g.options(raw)


def offer_phones(game: str, players: list[Obj], online: bool = False) -> bool:
    """Whether to offer the table with phones before a game on this device starts: Teka for
    four people passing one device hands it over before nearly every card (a hand is
    secret), where with a phone each and this device as the table nobody is handed
    anything."""
    return (not online and game == "teka" and len(players) == 4
            and all(p.get("kind") == "human" for p in players))
