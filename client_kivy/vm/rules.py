"""The rules of each game for the in-app rules screen: ``docs/rules/players/<game>.md``, the
rules written for players (seat names, suit symbols, the table rules as the set-up screen
names them), as paragraphs of Kivy markup (no Kivy here).

``docs/rules/<game>.md`` is the specification the code follows (seats by number, cards and
options in notation); it is shown only when a game has no page for players, up to its
technical part, without the lines that point at source files.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Any

import core
from core.api import SPECTATOR, apply, fold

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES_DIRS = [os.path.join(os.path.dirname(HERE), "docs", "rules"),  # the repository
              os.path.join(HERE, "rules")]  # staged into the Android build
STOP = ("notation", "for bots", "playing in the terminal", "resampling", "hidden information")
BRASS = "e8b04a"
CODE = "f0d9a0"


def rules_path(game: str) -> str | None:
    for name in (os.path.join("players", f"{game}.md"), f"{game}.md"):
        for folder in RULES_DIRS:
            path = os.path.join(folder, name)
            if os.path.exists(path):
                return path
    return None


def escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("[", "&bl;").replace("]", "&br;")


def inline(text: str) -> str:
    """Markdown inline marks to Kivy markup: **bold**, *italic*, `code`, [links](...)."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    text = escape(text)
    text = re.sub(r"\*\*(.+?)\*\*", r"[b]\1[/b]", text)
    text = re.sub(r"(?<![\w*])\*(?!\s)(.+?)\*(?!\w)", r"[i]\1[/i]", text)
    text = re.sub(r"`([^`]+)`", rf"[color={CODE}]\1[/color]", text)
    return text


def technical(text: str) -> bool:
    """A line for developers: it names source files or repository paths."""
    return bool(re.search(r"`?(core|server|client_kivy)/\w|\./gamenight", text))


def paragraphs(markdown: str) -> list[str]:
    """The rules as paragraphs of Kivy markup: headings in brass, list items with a bullet,
    table rows as lines."""
    out: list[str] = []
    block: list[str] = []

    def flush() -> None:
        if block:
            text = " ".join(s.strip() for s in block)
            if not technical(text):
                out.append(inline(text))
            block.clear()

    for raw in markdown.splitlines():
        line = raw.rstrip()
        heading = re.match(r"^(#+)\s+(.*)", line)
        if heading:
            flush()
            title = heading.group(2).strip()
            if any(title.lower().startswith(s) for s in STOP):
                break
            size = {1: 26, 2: 21}.get(len(heading.group(1)), 18)
            out.append(f"[size={size}sp][b][color={BRASS}]{inline(title)}[/color][/b][/size]")
            continue
        if not line.strip():
            flush()
            continue
        if line.lstrip().startswith("|"):
            flush()
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if all(re.fullmatch(r":?-+:?", c) for c in cells if c):
                continue
            out.append(inline(" · ".join(c for c in cells if c)))
            continue
        item = re.match(r"^(\s*)([-*]|\d+\.)\s+(.*)", line)
        if item:
            flush()
            bullet = "•" if item.group(2) in "-*" else item.group(2)
            block.append(f"{'    ' if item.group(1) else ''}{bullet} {item.group(3)}")
            continue
        block.append(line)
    flush()
    return out


def rules_markup(game: str) -> list[str]:
    path = rules_path(game)
    if path is None:
        return [f"The rules of {game.capitalize()} are not on this device."]
    with open(path, encoding="utf-8") as f:
        return paragraphs(f.read())


@dataclass(frozen=True)
class RulePicture:
    """A picture in the rules: the game's own board drawing ``view`` (as ``viewer`` sees
    it), under the heading that contains ``heading``, with ``caption`` under it."""

    heading: str
    caption: str
    view: dict[str, Any]
    viewer: int
    tall: bool = False
    """A table with a hand under it: a picture higher than wide on a phone."""


def rules_pictures(game: str) -> list[RulePicture]:
    """The pictures of ``game``'s rules: positions reached by the rules core itself (a Teeko
    line of four, a Tiku board in play, a Tedoku sheet with a shape drawn in, a Teka trick
    with the hand it came from), so each shows what the game screen would show."""
    make = _PICTURES.get(game)
    if make is None or game not in core.GAMES:
        return []
    return make(core.GAMES[game])


def _play(g: Any, options: dict[str, Any], moves: list[Any], seed: int = 1) -> Any:
    """The state after ``moves``: each a command, or a function choosing one from the
    legal commands of the seat to act (and the state)."""
    rng = Random(seed)
    state = fold(g, list(g.start(g.options(options), rng)))
    for move in moves:
        seat = next(iter(g.to_act(state)))
        cmd = move(g.legal_commands(state, seat), state) if callable(move) else move
        state, _ = apply(g, state, seat, cmd, rng)
    return state


def _teeko(g: Any) -> list[RulePicture]:
    moves = [{"type": "place", "to": c} for c in ("a1", "e5", "b2", "e4", "c3", "e2", "d4")]
    state = _play(g, {}, moves)
    return [RulePicture("Winning", "White has four in a line, a1 b2 c3 d4 (ringed in gold): "
                        "a line across the board wins, and so do four corners of a square.",
                        g.view(state, SPECTATOR), SPECTATOR)]


def _tiku(g: Any) -> list[RulePicture]:
    state = _play(g, {}, [lambda legal, _s: legal[0]] * 4)
    return [RulePicture("The board and the pieces", "A Tiku board after two moves each: the "
                        "pieces stand on top, and each slid piece laid its discs along the way.",
                        g.view(state, SPECTATOR), SPECTATOR)]


def _tedoku(g: Any) -> list[RulePicture]:
    state = _play(g, {"seats": 1}, [lambda legal, _s: legal[len(legal) // 2]])
    return [RulePicture("A turn", "A sheet with the first rolled shape drawn in; lit, the "
                        "sector the next card names, where the next shape must touch.",
                        g.view(state, 0), 0)]


def _teka_choice(legal: list[Any], view: dict[str, Any]) -> Any:
    """At a table for the picture: keep, the first caller bids the lowest and the others
    pass, the first trump suit, the first card that may be played (no signal)."""
    types = {c["type"] for c in legal}
    for t in ("keep", "cut", "refuse_raise"):
        if t in types:
            return next(c for c in legal if c["type"] == t)
    bids = [c for c in legal if c["type"] == "bid"]
    if bids:
        passes = [c for c in bids if c["call"] == "pass"]
        if view.get("bids") and passes:
            return passes[0]
        numbers = [c for c in bids if isinstance(c["call"], int)]
        return min(numbers, key=lambda c: c["call"]) if numbers else bids[0]
    plays = [c for c in legal if c["type"] == "play" and not c.get("signal")]
    return (plays or legal)[0]


def _teka(g: Any) -> list[RulePicture]:
    rng = Random(3)
    state = fold(g, list(g.start(g.options({}), rng)))
    for _ in range(200):  # (the deal, the bids, trumps, then the first trick)
        view = g.view(state, 0)
        if view.get("tricks"):  # (the first trick taken: it stays on the table)
            break
        seat = next(iter(g.to_act(state)))
        state, _ = apply(g, state, seat, _teka_choice(g.legal_commands(state, seat), view),
                         rng)
    return [RulePicture("A hand", "A trick: one card from each player round the table; the "
                        "contract and the tricks so far above it, North's hand below.",
                        g.view(state, 0), 0, tall=True)]


_PICTURES: dict[str, Callable[[Any], list[RulePicture]]] = {
    "teeko": _teeko, "tiku": _tiku, "tedoku": _tedoku, "teka": _teka}
