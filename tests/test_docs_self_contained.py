"""The docs and the code stand on their own: no path of a machine the project was written on,
no reference to a tracker the repository does not have, and rules pages that cite nothing
outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEXT = (".md", ".py", ".html", ".js", ".css", ".kv", ".toml", ".spec", ".cfg", ".txt")


def files() -> list[Path]:
    out = [ROOT / "README.md", ROOT / "gamenight", ROOT / "pyproject.toml", ROOT / "setup.py"]
    for top in ("docs", "core", "server", "client_kivy", "bench", "deploy", "tools"):
        out += [p for p in (ROOT / top).rglob("*") if p.suffix in TEXT and p.is_file()
                and "__pycache__" not in p.parts]
    return out


HOST_PATH = re.compile(r"/work/|/root/|(?<![\w.])shared/(?:seeds|RULES)")
TRACKER = re.compile(r"\bissues? #?\d+|\bthe issue's\b|\bhelpers? (?:ran|running|notes)\b",
                     re.IGNORECASE)


def test_the_checks_see_what_they_look_for() -> None:
    assert HOST_PATH.search("see /work/shared/RULES.md") and HOST_PATH.search("shared/seeds/x")
    assert TRACKER.search("(issue 16)") and TRACKER.search("Issue #3") and TRACKER.search(
        "the issue's goal")
    assert not HOST_PATH.search("docs/rules/teeko.md") and not TRACKER.search("an issue of")


def test_no_host_paths_and_no_tracker_references() -> None:
    found = []
    for path in files():
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace")
                                 .splitlines(), 1):
            if HOST_PATH.search(line) or TRACKER.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:120]}")
    assert found == []


def test_the_rules_pages_link_only_inside_the_repository() -> None:
    rules = sorted((ROOT / "docs" / "rules").rglob("*.md"))
    assert len(rules) >= 8
    for page in rules:
        for target in re.findall(r"\]\(([^)#\s]+)", page.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://")):
                continue
            assert (page.parent / target).resolve().exists(), (page.name, target)
