"""The test database is the one every test uses, whatever ran before it in its worker.

A test without the database that asked for the server's pool statistics (Django's pool is
made by ``connection.pool``, which pytest-django's guard does not see) made the pool while
the settings still named the development database; the worker's test database was created
after it, and every later test of that worker spoke to the development database through the
old pool while the daphnes it started used the (empty) test database: 45 failures in a run of
three workers where such a test came first in one of them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.timeout(600)


def test_a_pool_made_before_the_test_database_is_not_the_one_tests_use() -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_CURRENT_TEST")}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "tests/cases/pool_before_the_test_database.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=540)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "1 passed" in out.stdout, out.stdout[-2000:]
