"""The tooling (bench/) and the tests stay out of the product: no module of core/, server/ or
client_kivy/ imports them, the wheel leaves them out, the Android tree has neither them nor
anything of the server, and every bench command the README and docs/ name still runs."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("core", "server", "client_kivy")
NOT_PRODUCT = {"bench", "tests", "tools", *(p.stem for p in (ROOT / "tests").glob("*.py"))}
"""Top-level names the product must not import: the tooling, the tests and their modules."""


def imported(path: Path) -> set[str]:
    """The top-level names of every module ``path`` imports (``import x.y``, ``from x import
    y``, ``importlib.import_module("x.y")``, ``__import__("x")``); relative imports left out."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name) and node.func.id == "__import__"))):
            names.add(node.args[0].value.split(".")[0])
    return names


def modules(*dirs: Path) -> list[Path]:
    return sorted(p for d in dirs for p in d.rglob("*.py") if "__pycache__" not in p.parts)


def test_the_check_sees_an_import_of_the_tooling(tmp_path: Path) -> None:
    mod = tmp_path / "m.py"
    mod.write_text("import os\nfrom bench.tour import tour\nimport importlib\n"
                   "importlib.import_module('server.games')\nfrom . import x\n")
    assert imported(mod) == {"os", "bench", "importlib", "server"}


def test_no_product_module_imports_the_tooling_or_the_tests() -> None:
    found = {str(p.relative_to(ROOT)): sorted(imported(p) & NOT_PRODUCT)
             for p in modules(*(ROOT / d for d in PRODUCT))}
    assert {k: v for k, v in found.items() if v} == {}
    assert len(found) > 100  # (every module was read)


def test_the_app_imports_nothing_of_the_server() -> None:
    """The app (client_kivy/, and the core it runs on) talks to a server over HTTP and the
    socket only."""
    found = {str(p.relative_to(ROOT)): sorted(imported(p) & {"server", *NOT_PRODUCT})
             for p in modules(ROOT / "client_kivy", ROOT / "core")}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_tooling_is_out_of_the_product_packages() -> None:
    for name in ("core/bench.py", "core/teeko_bench.py", "core/teka_dd_bench.py",
                 "server/ops/soak.py", "server/ops/fuzz.py", "server/ops/loadbench.py",
                 "server/leagues/management/commands/bench_club.py", "client_kivy/tour.py",
                 "client_kivy/layoutcheck.py", "client_kivy/testing.py"):
        assert not (ROOT / name).exists(), name
    for name in ("core_bench", "teeko_bench", "teka_dd_bench", "soak", "fuzz", "loadbench",
                 "club", "tour", "layoutcheck", "testing"):
        assert (ROOT / "bench" / f"{name}.py").is_file(), name


@pytest.mark.timeout(300)
def test_the_wheel_has_the_product_and_nothing_else(tmp_path: Path) -> None:
    """What setuptools puts in the wheel (its ``build_py`` and ``egg_info`` steps, pure Python
    as ``GAMENIGHT_PURE=1`` builds it), from a copy of the tree with bench/, tests/ and tools/
    in it: only core/, server/ and client_kivy/, and no command of the wheel names the
    tooling."""
    src = tmp_path / "src"
    src.mkdir()
    skip = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c", "*.egg-info")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for name in (*PRODUCT, "bench", "tests", "tools"):
        shutil.copytree(ROOT / name, src / name, ignore=skip)
    lib, meta = tmp_path / "lib", tmp_path / "meta"
    meta.mkdir()
    done = subprocess.run(
        [sys.executable, "setup.py", "-q", "egg_info", "--egg-base", str(meta), "build_py",
         "--build-lib", str(lib)],
        cwd=src, env=dict(os.environ, GAMENIGHT_PURE="1"), capture_output=True, text=True,
        timeout=280, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {p.name for p in lib.iterdir()} == set(PRODUCT)
    for name in ("core/teeko.py", "server/games/append.py", "client_kivy/app.py",
                 "client_kivy/theme.kv", "server/web/templates/web/home.html"):
        assert (lib / name).is_file(), name
    assert not [p for p in lib.rglob("*.py") if p.stem in ("tour", "layoutcheck", "testing",
                                                           "soak", "fuzz", "loadbench")]
    (info,) = meta.glob("*.egg-info")
    assert set((info / "top_level.txt").read_text().split()) == set(PRODUCT)
    points = info / "entry_points.txt"
    if points.exists():
        assert not re.search(r"=\s*(bench|tests|tools)\b", points.read_text())


def test_the_android_tree_has_the_app_and_no_tooling_and_nothing_of_the_server(
        tmp_path: Path) -> None:
    from client_kivy.android_stage import stage

    out = Path(stage(str(tmp_path / "android")))
    assert {p.name for p in out.iterdir()} == {"client_kivy", "core", "main.py"}
    found = {str(p.relative_to(out)): sorted(imported(p) & {"server", *NOT_PRODUCT})
             for p in modules(out)}
    assert {k: v for k, v in found.items() if v} == {}
    assert (out / "client_kivy" / "app.py").is_file()
    assert not [p for p in out.rglob("*.py") if p.stem in ("tour", "layoutcheck", "testing")]


def doc_commands() -> list[tuple[str, str]]:
    """Every ``./gamenight bench <word>`` and ``python -m bench...`` of the README, docs/
    and the ``gamenight`` script, as (command, where)."""
    found: dict[str, str] = {}
    files = [ROOT / "README.md", ROOT / "gamenight", *sorted((ROOT / "docs").rglob("*.md"))]
    for path in files:
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"\./gamenight bench(?: ([a-z][a-z-]*))?|python -m (bench[\w.]*)",
                             text):
            cmd = f"bench {m[1] or ''}".strip() if m[0].startswith("./") else f"-m {m[2]}"
            found.setdefault(cmd, str(path.relative_to(ROOT)))
    return sorted(found.items())


def test_the_docs_name_the_bench_commands() -> None:
    cmds = dict(doc_commands())
    for cmd in ("bench", "bench soak", "bench fuzz", "bench load", "bench club", "bench layout",
                "bench web", "bench dd", "bench solved", "bench bots"):
        assert cmd in cmds, cmd
    assert not [c for c in cmds if c.startswith("-m ") and c.split()[1] in (
        "server.ops.soak", "server.ops.fuzz", "server.ops.loadbench", "core.bench")]


@pytest.mark.parametrize(("cmd", "where"), doc_commands())
def test_every_bench_command_the_docs_name_runs(cmd: str, where: str) -> None:
    """``--help`` of each command answers (through ``./gamenight`` with this interpreter)."""
    words = cmd.split()
    if words[0] == "-m":
        argv = [sys.executable, *words, "--help"]
    elif words[1:] == ["web"]:
        argv = [sys.executable, str(ROOT / "gamenight"), "bench", "web", "--collect-only", "-q"]
    else:
        argv = [sys.executable, str(ROOT / "gamenight"), *words, "--help"]
    env = dict(os.environ, GAMENIGHT_PYTHON=sys.executable)
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, f"{cmd} (named in {where}): {done.stdout[-2000:]}" \
                                 f"{done.stderr[-2000:]}"
    assert done.stdout.strip(), cmd
