"""The ``gamenight`` script's progress lines while it installs and compiles (its first run
was silent for minutes): what it picks out of pip's and setup.py's output, and how often it
speaks."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def script() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("gamenight_script", str(ROOT / "gamenight"))
    spec = importlib.util.spec_from_loader("gamenight_script", loader)
    assert spec is not None
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


PIP_OUTPUT = """\
Obtaining file:///home/ann/gamenight
  Installing build dependencies: started
Collecting django<6,>=5.2 (from gamenight==0.1.0)
  Downloading django-5.2.19-py3-none-any.whl.metadata (4.1 kB)
Collecting channels<5,>=4.3 (from gamenight==0.1.0)
  Downloading https://files.example/kivy-2.3.1-cp311-cp311-manylinux_2_17_x86_64.whl (23.4 MB)
     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 23.4/23.4 MB 9.1 MB/s eta 0:00:00
Requirement already satisfied: asgiref>=3.8 in ./.venv/lib/python3.11/site-packages
Building wheels for collected packages: gamenight
  Building editable for gamenight (pyproject.toml): started
  Building editable for gamenight (pyproject.toml): still running...
Installing collected packages: django, channels, kivy, gamenight
Successfully installed channels-4.3.1 django-5.2.19 gamenight-0.1.0 kivy-2.3.1
"""


def test_pip_steps() -> None:
    gn = script()
    steps = [s for s in map(gn.pip_step, PIP_OUTPUT.splitlines()) if s is not None]
    assert steps == [
        ("collecting django<6,>=5.2", False),
        ("downloading django-5.2.19-py3-none-any.whl.metadata (4.1 kB)", False),
        ("collecting channels<5,>=4.3", False),
        ("downloading kivy-2.3.1-cp311-cp311-manylinux_2_17_x86_64.whl (23.4 MB)", False),
        ("building editable for gamenight (pyproject.toml): started", True),
        ("building editable for gamenight (pyproject.toml): still running...", True),
        ("installing 4 packages", True),
        ("installed 4 packages", True),
    ]


def test_build_steps() -> None:
    gn = script()
    out = ["running build_ext", "building 'gamenight_core__mypyc' extension",
           "gcc -pthread -c build/__native_gamenight_core.c -o build/x.o",
           "building 'core.teeko' extension"]
    big = "compiling gamenight_core__mypyc (all of the core's code, the longest step)"
    assert [gn.build_step(ln) for ln in out] == [
        None, (big, True), None, ("compiling core.teeko", True)]


def test_run_showing_speaks_at_each_phase_and_not_at_every_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    gn = script()
    noisy = ("import time\n"
             "for i in range(200): print(f'Collecting pkg{i}', flush=True)\n"
             "print('Installing collected packages: a, b', flush=True)\n"
             "time.sleep(0.2)\n"
             "print('Successfully installed a-1 b-2', flush=True)\n")
    gn.run_showing("pip", [sys.executable, "-c", noisy], gn.pip_step, every=60)
    said = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("[gamenight]")]
    assert len(said) <= 5, said  # not 200 lines
    assert any("installing 2 packages" in ln for ln in said), said
    assert any("installed 2 packages" in ln for ln in said), said
    assert said[-1].startswith("[gamenight]   pip: done in"), said


def test_run_showing_shows_the_output_when_it_fails(capsys: pytest.CaptureFixture[str]) -> None:
    gn = script()
    with pytest.raises(subprocess.CalledProcessError):
        gn.run_showing("mypyc", [sys.executable, "-c", "print('error: core/x.py:1: bad');"
                                 "raise SystemExit(3)"], gn.build_step)
    assert "error: core/x.py:1: bad" in capsys.readouterr().err


def test_bench_progress_lines_have_count_and_time_left_and_are_throttled() -> None:
    """``./gamenight bench bots`` printed nothing for over 10 minutes: now a line per game on
    stderr, at most one every 2 s (the last always), with the time left at the pace so far."""
    import io

    from core.ai.tournaments import Progress

    now = [100.0]
    out = io.StringIO()
    prog = Progress("Tiku games", 10, lambda: now[0], out)
    for i in range(10):
        now[0] += 1.5 if i < 9 else 0.1  # 1.5 s a game, the last one quick
        prog.step(f"game {i + 1}")
    lines = out.getvalue().splitlines()
    assert lines[0] == "Tiku games: 2/10 (20%)  0:03 so far, about 0:12 left  game 2"
    assert lines[-1].startswith("Tiku games: 10/10 (100%)  0:14 so far, about 0:00 left")
    assert len(lines) == 5  # games 2, 4, 6, 8 and the last one


def test_bench_bots_says_what_it_runs_at_once_and_shows_progress() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "bench.core_bench", "bots", "--only", "tiku", "--tiku", "2",
         "--tiku-levels", "easy"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1] == ("running: Tiku 1 pairings x 2 games "
                                          "(progress on stderr)"), out.stdout
    assert "Tiku games: 2/2 (100%)" in out.stderr, out.stderr
    assert "| easy vs random | 2 |" in out.stdout, out.stdout


def test_sigint_stops_this_test_run() -> None:
    """(Also run by the next test in a pytest started with SIGINT ignored.)"""
    import signal

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_test_run_started_with_sigint_ignored_takes_it_back() -> None:
    import signal

    def ignore() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_ops_script.py::test_sigint_stops_this_test_run"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, preexec_fn=ignore)
    assert out.returncode == 0, out.stdout + out.stderr


def test_bytecode_probe() -> None:
    """Run by the next test through ``./gamenight test``; skipped on its own."""
    import os

    if os.environ.get("GAMENIGHT_BYTECODE_PROBE") != "1":
        pytest.skip("run by test_the_suite_writes_bytecode_whatever_the_callers_setting")
    assert not sys.dont_write_bytecode
    assert "PYTHONDONTWRITEBYTECODE" not in os.environ  # so daphne servers it starts write too


def test_the_suite_writes_bytecode_whatever_the_callers_setting() -> None:
    """``./gamenight test`` on a machine with ``PYTHONDONTWRITEBYTECODE=1``: the suite's
    processes still write ``__pycache__`` (each of the suite's daphne starts would compile
    ``server/`` again)."""
    import os

    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "GAMENIGHT_BYTECODE_PROBE": "1",
           "GAMENIGHT_PYTHON": sys.executable}
    out = subprocess.run(
        [sys.executable, str(ROOT / "gamenight"), "test", "-q", "-n", "0", "-p",
         "no:cacheprovider", "tests/test_ops_script.py::test_bytecode_probe"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed" in out.stdout, out.stdout
