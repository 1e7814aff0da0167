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
