"""server.dbconfig: DATABASE_URL parsing and the embedded PostgreSQL (the fresh-machine path)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import pytest

from server import dbconfig

ROOT = Path(__file__).resolve().parent.parent


def test_tcp_url() -> None:
    db = dbconfig.parse_database_url("postgresql://gn:s%40cret@db.example.org:6432/gamenight")
    assert db["ENGINE"] == "django.db.backends.postgresql"
    assert (db["NAME"], db["USER"], db["PASSWORD"]) == ("gamenight", "gn", "s@cret")
    assert (db["HOST"], db["PORT"]) == ("db.example.org", "6432")
    assert db["CONN_HEALTH_CHECKS"] is True
    assert db["CONN_MAX_AGE"] == 0  # (pooled: server/settings.py)


def test_url_without_port_password_and_postgres_scheme() -> None:
    db = dbconfig.parse_database_url("postgres://postgres@127.0.0.1/games")
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "games", "postgres", "", "127.0.0.1", "")


def test_socket_url_and_options() -> None:
    db = dbconfig.parse_database_url(
        "postgresql://postgres@/gamenight?host=/run/postgresql&sslmode=disable")
    assert db["HOST"] == "/run/postgresql"
    assert db["PORT"] == ""
    assert db["NAME"] == "gamenight"
    assert db["OPTIONS"] == {"sslmode": "disable"}


def test_percent_encoded_socket_host_and_ipv6() -> None:
    db = dbconfig.parse_database_url("postgresql://u:p@%2Fvar%2Frun%2Fpg:5433/x")
    assert (db["HOST"], db["PORT"], db["NAME"]) == ("/var/run/pg", "5433", "x")
    db6 = dbconfig.parse_database_url("postgresql://u@[::1]:5432/x")
    assert db6["HOST"] == "::1"


def test_rejects_other_schemes() -> None:
    with pytest.raises(ValueError):
        dbconfig.parse_database_url("mysql://u@h/db")


def test_database_url_wins_and_starts_nothing(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/elsewhere")
    monkeypatch.setenv("GAMENIGHT_PGDATA", str(tmp_path / "pg"))
    db = dbconfig.database_settings(tmp_path)
    assert db["NAME"] == "elsewhere" and db["HOST"] == "127.0.0.1"
    assert not (tmp_path / "pg").exists()


def test_pgdata_dir_choice(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GAMENIGHT_PGDATA", raising=False)
    assert dbconfig.pgdata_dir(tmp_path) == (tmp_path / "var" / "pgtest").resolve()
    assert os.environ["GAMENIGHT_PGDATA"] == str((tmp_path / "var" / "pgtest").resolve())
    monkeypatch.setenv("GAMENIGHT_PGDATA", str(tmp_path / "other"))
    assert dbconfig.pgdata_dir(tmp_path) == (tmp_path / "other").resolve()


CHILD = """
import json, os, sys
from pathlib import Path
sys.path.insert(0, {root!r})
from server import dbconfig
pgdata = Path(os.environ["GAMENIGHT_PGDATA"])
info = dbconfig.ensure_embedded(pgdata)
print(json.dumps({{"pid": info["pid"], "started": dbconfig.started_here(pgdata)}}))
"""


@pytest.mark.slow
def test_embedded_server_starts_is_reused_and_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    """The path of a fresh machine without DATABASE_URL: initdb, start, answer, reuse, stop."""
    base = Path(tempfile.mkdtemp(prefix="gnpg", dir="/tmp" if os.name != "nt" else None))
    pgdata = base / "pg"
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.setenv("GAMENIGHT_PGDATA", str(pgdata))
    monkeypatch.setenv("GAMENIGHT_DB_NAME", "gn_embedded_check")
    monkeypatch.setenv("GAMENIGHT_PG_KEEP", "1")  # this test stops it itself
    try:
        t0 = time.perf_counter()
        db = dbconfig.database_settings(base)
        cold = time.perf_counter() - t0
        print(f"embedded PostgreSQL cold start (initdb + start + create db): {cold:.2f} s")
        assert db["NAME"] == "gn_embedded_check"
        assert Path(db["HOST"]).is_dir()  # a socket directory, no TCP port
        assert dbconfig.started_here(pgdata)
        with psycopg.connect(host=db["HOST"], port=db["PORT"], user=db["USER"],
                             dbname=db["NAME"]) as conn:
            assert conn.execute("SELECT 20 + 22").fetchone() == (42,)
            assert conn.execute("SHOW server_version").fetchone()[0].startswith("16")
        first = dbconfig.running_info(pgdata)
        assert first is not None

        # Several processes at once: all find the same running server, none starts another.
        env = dict(os.environ)
        procs = [subprocess.Popen([sys.executable, "-c", CHILD.format(root=str(ROOT))],
                                  env=env, stdout=subprocess.PIPE, text=True)
                 for _ in range(3)]
        results = [json.loads(p.communicate(timeout=60)[0]) for p in procs]
        assert all(r["pid"] == first["pid"] and r["started"] is False for r in results)
        # ... and calling again in this process is a no-op.
        assert dbconfig.database_settings(base)["HOST"] == db["HOST"]

        assert dbconfig.stop_embedded(pgdata)
        assert dbconfig.running_info(pgdata) is None
        assert not dbconfig._pid_alive(first["pid"])

        # Data survives a restart (warm start, no initdb).
        t0 = time.perf_counter()
        info = dbconfig.ensure_embedded(pgdata)
        print(f"embedded PostgreSQL warm start: {time.perf_counter() - t0:.2f} s")
        with psycopg.connect(host=info["host"], port=str(info["port"]), user="postgres",
                             dbname="gn_embedded_check") as conn:
            assert conn.execute("SELECT current_database()").fetchone() == ("gn_embedded_check",)
        assert dbconfig.stop_embedded(pgdata)
    finally:
        dbconfig.stop_embedded(pgdata)
        shutil.rmtree(base, ignore_errors=True)
