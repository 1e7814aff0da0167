"""Where the database is: ``DATABASE_URL`` when set, else an embedded PostgreSQL under ``var/``.

``settings.py`` does ``DATABASES = {"default": database_settings(BASE_DIR)}``.

* ``DATABASE_URL=postgresql://user:pw@host:port/dbname`` (also ``postgres://``, and the socket
  form ``postgresql://user@/dbname?host=/run/postgresql``): used as is, nothing is started.
* Otherwise an embedded PostgreSQL (the ``pgserver`` package: PostgreSQL binaries in a wheel)
  is started on a Unix socket with its data in ``var/pg`` (``var/pgtest`` under pytest;
  ``GAMENIGHT_PGDATA`` overrides both). Starting is idempotent and safe when several
  processes ask at once (daphne workers, pytest, e2e subprocesses): a file lock serialises
  them and a server already running on that data directory is reused. The process that
  actually started it stops it at exit unless other sessions still use it (``server.run``
  stops it explicitly after daphne);
  processes that found it running leave it alone. ``GAMENIGHT_PG_KEEP=1`` never stops it
  (set for the children of a pytest run, which share its server).

The database name is ``gamenight`` (``GAMENIGHT_DB_NAME`` overrides); it is created on the
embedded server when missing.

Two database roles (docs/deploy.md, "Database roles"): the *owner* owns the tables and runs
the migrations; the *app* role, which daphne uses, may only INSERT and SELECT the event log
(:mod:`server.games.grants` gives its rights after every ``migrate``). ``GAMENIGHT_DB_ROLE``
says which one a process uses: ``owner`` for ``server.run``'s set-up and under pytest (which
creates and migrates the test database), else ``app``. On the embedded server they are the
roles ``gamenight_owner`` and ``gamenight_app`` (created at the first start; a data directory
from before is handed over to ``gamenight_owner`` then). With ``DATABASE_URL``, the owner uses
``DATABASE_OWNER_URL`` when it is set (then the user of ``DATABASE_URL`` is the app role),
else ``DATABASE_URL`` for both. Under pytest the test database is ``test_gamenight_<pid>`` so
that several test runs can share the embedded server (leftovers of dead runs are dropped).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import time
import warnings
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

if TYPE_CHECKING:
    from psycopg_pool import AsyncConnectionPool, ConnectionPool

DEFAULT_DB_NAME = "gamenight"
OWNER_ROLE = "gamenight_owner"
"""Embedded server: owns the database and its tables, runs the migrations (not a superuser)."""
APP_ROLE = "gamenight_app"
"""Embedded server: the role daphne uses (INSERT and SELECT on the event log, see grants)."""
ROLES_VERSION = "2"
CONN_MAX_AGE = 0
"""0: connections come from a pool (server/settings.py, server/games/dbpool.py)."""

_STARTED_HERE: dict[Path, int] = {}
"""pgdata -> pid of this process, for each embedded server this process started."""

COLD_START_SECONDS: float | None = None
"""How long the last start in this process took (None when it was already running)."""


# --------------------------------------------------------------------------- pools


def reconnect_options(seconds: float, *, asynchronous: bool = False) -> dict[str, Any]:
    """psycopg_pool options (its public ``reconnect_timeout`` and ``reconnect_failed``) that
    keep a pool trying to connect while PostgreSQL is away, never more than ``seconds``
    between two attempts, so that it has a connection again soon after the database is back
    (``GAMENIGHT_DB_RECONNECT_MAX_DELAY``; docs/deploy.md, "Connections").

    Left to its defaults, a pool backs off 1, 2, 4, 8 ... s for up to 5 minutes: after an
    outage of a minute it stayed empty for up to another minute, refusing every request.
    Here an attempt gives up after ``seconds`` (its waits are capped by that too), and the
    pool starts a new one at once (``check()``: the pool grows again when it lacks
    connections). ``asynchronous``: for an ``AsyncConnectionPool``."""
    return {"reconnect_timeout": float(seconds),
            "reconnect_failed": _connect_again_async if asynchronous else _connect_again}


def _connect_again(pool: ConnectionPool[Any]) -> None:
    pool.check()


async def _connect_again_async(pool: AsyncConnectionPool[Any]) -> None:
    await pool.check()


# --------------------------------------------------------------------------- URLs


def parse_database_url(url: str) -> dict[str, Any]:
    """Django's DATABASES["default"] for a ``postgresql://`` URL (psycopg 3 backend)."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres", "pgsql", "postgresql+psycopg"):
        raise ValueError(f"DATABASE_URL must be a postgresql:// URL, not {parts.scheme!r}")
    query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
    host = unquote(parts.hostname or "") if parts.hostname else ""
    # urlsplit lower-cases hostname; keep the original spelling of the netloc's host part.
    netloc_host = parts.netloc.rpartition("@")[2]
    if netloc_host.startswith("["):
        host = netloc_host[1 : netloc_host.index("]")]
    elif netloc_host:
        host = unquote(netloc_host.rsplit(":", 1)[0] if ":" in netloc_host else netloc_host)
    host = query.pop("host", host) or ""
    port = query.pop("port", str(parts.port) if parts.port else "") or ""
    name = unquote(parts.path.lstrip("/")) or query.pop("dbname", "") or DEFAULT_DB_NAME
    user = unquote(parts.username) if parts.username else query.pop("user", "")
    password = unquote(parts.password) if parts.password else query.pop("password", "")
    options: dict[str, Any] = {}
    for key, value in query.items():
        options[key] = value
    return _settings(name=name, user=user, password=password, host=host, port=port,
                     options=options)


def _settings(*, name: str, user: str, password: str, host: str, port: str,
              options: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": user,
        "PASSWORD": password,
        "HOST": host,
        "PORT": port,
        "CONN_MAX_AGE": CONN_MAX_AGE,
        "CONN_HEALTH_CHECKS": True,
        "OPTIONS": dict(options or {}),
        "TEST": {"NAME": f"test_{name}"},
    }


def db_role() -> str:
    """``owner`` or ``app``: ``GAMENIGHT_DB_ROLE``, else ``owner`` under pytest, else ``app``."""
    role = os.environ.get("GAMENIGHT_DB_ROLE", "").strip().lower()
    if role in ("owner", "app"):
        return role
    if role:
        raise ValueError(f"GAMENIGHT_DB_ROLE must be owner or app, not {role!r}")
    return "owner" if _under_pytest() else "app"


def app_credentials() -> tuple[str, str] | None:
    """(user, password) of the restricted role the server runs as, None when there is no
    separate one (``DATABASE_URL`` without ``DATABASE_OWNER_URL``)."""
    url = os.environ.get("DATABASE_URL", "").strip()
    if not url:
        return APP_ROLE, ""
    owner_url = os.environ.get("DATABASE_OWNER_URL", "").strip()
    if not owner_url:
        return None
    app, owner = parse_database_url(url), parse_database_url(owner_url)
    if not app["USER"] or app["USER"] == owner["USER"]:
        return None
    return app["USER"], app["PASSWORD"]


def database_settings(base_dir: Path) -> dict[str, Any]:
    """DATABASES["default"]: from ``DATABASE_URL`` (``DATABASE_OWNER_URL`` for the owner),
    else the embedded server (started if needed), as the role :func:`db_role` says."""
    role = db_role()
    url = os.environ.get("DATABASE_URL", "").strip()
    if url:
        owner_url = os.environ.get("DATABASE_OWNER_URL", "").strip()
        return parse_database_url(owner_url if role == "owner" and owner_url else url)
    pgdata = pgdata_dir(base_dir)
    info = ensure_embedded(pgdata)
    name = os.environ.get("GAMENIGHT_DB_NAME", "") or DEFAULT_DB_NAME
    test_name = f"test_{name}"
    if _under_pytest():
        # Processes the tests start (daphne, server.run) share this server: they must
        # never stop it (server.run stops the embedded server unless GAMENIGHT_PG_KEEP=1).
        os.environ["GAMENIGHT_PG_KEEP"] = "1"
        # Several test runs may share the embedded server at once (people working in the
        # same tree): each run gets its own test database, and leftovers of runs that
        # died are dropped.
        test_name = f"test_{name}_{os.getpid()}"
        with contextlib.suppress(Exception):
            drop_stale_test_databases(info["host"], info["port"], name)
    marker = pgdata / f".gamenight-db-{name}-roles{ROLES_VERSION}"
    if not marker.exists():
        with _file_lock(pgdata.parent / f".{pgdata.name}.lock"):
            ensure_database(info["host"], info["port"], name)
            marker.write_text(str(info["pid"]))
    db = _settings(name=name, user=OWNER_ROLE if role == "owner" else APP_ROLE, password="",
                   host=info["host"], port=str(info["port"]))
    db["TEST"] = {"NAME": test_name}
    return db


def drop_stale_test_databases(host: str, port: int | str, name: str) -> list[str]:
    """Drop ``test_<name>_<pid>`` databases whose test process is gone."""
    import re

    import psycopg
    from psycopg import sql

    pattern = re.compile(rf"^test_{re.escape(name)}_(\d+)$")
    dropped: list[str] = []
    with psycopg.connect(host=host, port=str(port), user="postgres", dbname="postgres",
                         autocommit=True, connect_timeout=5) as conn:
        names = [r[0] for r in conn.execute("SELECT datname FROM pg_database").fetchall()]
        for db in names:
            m = pattern.match(db)
            if m and int(m.group(1)) != os.getpid() and not _pid_alive(int(m.group(1))):
                conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
                    sql.Identifier(db)))
                dropped.append(db)
    return dropped


# --------------------------------------------------------------------------- embedded server


def pgdata_dir(base_dir: Path) -> Path:
    """``GAMENIGHT_PGDATA``, else ``var/pgtest`` under pytest, else ``var/pg``.

    Under pytest the chosen directory is exported in ``GAMENIGHT_PGDATA`` so daphne
    subprocesses started by tests use the same server."""
    env = os.environ.get("GAMENIGHT_PGDATA", "").strip()
    if env:
        return Path(env).expanduser().resolve()
    under_pytest = _under_pytest()
    path = (Path(base_dir) / "var" / ("pgtest" if under_pytest else "pg")).resolve()
    if under_pytest:
        os.environ["GAMENIGHT_PGDATA"] = str(path)
    return path


def _under_pytest() -> bool:
    return "pytest" in sys.modules or "PYTEST_CURRENT_TEST" in os.environ


@contextlib.contextmanager
def _file_lock(path: Path):  # type: ignore[no-untyped-def]
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        if sys.platform == "win32":  # pragma: no cover - Windows
            import msvcrt

            msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)
            try:
                yield
            finally:
                msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def running_info(pgdata: Path) -> dict[str, Any] | None:
    """Host (socket dir or address) and port of a ready server on ``pgdata``, else None."""
    pidfile = pgdata / "postmaster.pid"
    try:
        lines = pidfile.read_text().splitlines()
    except (FileNotFoundError, PermissionError):
        return None
    if len(lines) < 8:
        return None
    try:
        pid = int(lines[0])
        port = int(lines[3])
    except ValueError:
        return None
    if not _pid_alive(pid) or lines[7].strip() != "ready":
        return None
    socket_dir = lines[4].strip()
    if socket_dir:
        if not (Path(socket_dir) / f".s.PGSQL.{port}").exists():
            return None
        return {"pid": pid, "host": socket_dir, "port": port}
    return {"pid": pid, "host": lines[5].strip() or "127.0.0.1", "port": port}


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child still "exists"; look at its state where /proc is available.
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _import_pgserver() -> ModuleType:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
        import pgserver

    return pgserver


def ensure_embedded(pgdata: Path) -> dict[str, Any]:
    """Start the embedded PostgreSQL on ``pgdata`` unless it is running; its host and port.

    Safe to call from many processes at once. Only the process that really started the
    server registers an at-exit stop (skipped with ``GAMENIGHT_PG_KEEP=1``)."""
    global COLD_START_SECONDS
    pgdata = Path(pgdata).resolve()
    info = running_info(pgdata)
    if info is not None:
        return info
    with _file_lock(pgdata.parent / f".{pgdata.name}.lock"):
        info = running_info(pgdata)
        if info is not None:
            return info
        t0 = time.perf_counter()
        pgserver = _import_pgserver()
        pgdata.parent.mkdir(parents=True, exist_ok=True)
        # cleanup_mode=None: pgserver never stops it by itself; we decide (see stop_embedded).
        # get_server makes a handle that starts the server, or gives the one this process
        # made earlier as it is: if its server was stopped since, start it again.
        server = pgserver.get_server(pgdata, cleanup_mode=None)
        if running_info(pgdata) is None:
            server.ensure_pgdata_inited()
            server.ensure_postgres_running()
        pm = server.get_postmaster_info()
        COLD_START_SECONDS = time.perf_counter() - t0
        _STARTED_HERE[pgdata] = os.getpid()
        if os.environ.get("GAMENIGHT_PG_KEEP", "") in ("", "0"):
            atexit.register(_stop_at_exit, pgdata)
        host = str(pm.socket_dir) if pm.socket_dir is not None else (pm.hostname or "127.0.0.1")
        return {"pid": pm.pid, "host": host, "port": pm.port or 5432}


def started_here(pgdata: Path) -> bool:
    """True when this very process started the embedded server on ``pgdata``."""
    return _STARTED_HERE.get(Path(pgdata).resolve()) == os.getpid()


def close_connections() -> None:
    """Close this process's database connections for real, pools included (with Django's
    pool option, ``connections.close_all()`` only gives connections back to the pool, which
    keeps its sessions open on the server)."""
    if "django.db" not in sys.modules:
        return
    from django.db import connections

    for conn in connections.all(initialized_only=True):
        with contextlib.suppress(Exception):
            conn.close()
        close_pool = getattr(conn, "close_pool", None)
        if close_pool is not None:
            with contextlib.suppress(Exception):
                close_pool()


def _stop_at_exit(pgdata: Path) -> None:
    if not started_here(pgdata):
        return  # a forked child inherited the atexit hook: not ours to stop
    close_connections()
    with contextlib.suppress(Exception):
        if other_clients(pgdata) == 0:
            stop_embedded(pgdata)


def other_clients(pgdata: Path) -> int:
    """Client sessions on the embedded server other than the one asking."""
    import psycopg

    info = running_info(Path(pgdata).resolve())
    if info is None:
        return 0
    with psycopg.connect(host=info["host"], port=str(info["port"]), user="postgres",
                         dbname="postgres", autocommit=True, connect_timeout=5) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
            " AND pid <> pg_backend_pid()"
        ).fetchone()
    return int(row[0]) if row else 0


def stop_embedded(pgdata: Path, timeout: float = 30.0) -> bool:
    """Stop the embedded server on ``pgdata`` (fast shutdown: sessions are disconnected,
    committed data is kept). True when it was running and is now stopped."""
    pgdata = Path(pgdata).resolve()
    info = running_info(pgdata)
    if info is None:
        return False
    pgserver = _import_pgserver()

    user = None
    if os.name != "nt" and os.geteuid() == 0:
        user = "pgserver"
    try:
        pgserver.pg_ctl(["-w", "-m", "fast", "-t", str(int(timeout)), "stop"],
                        pgdata=pgdata, user=user)
    except Exception:
        with contextlib.suppress(ProcessLookupError):
            os.kill(info["pid"], 15)
    deadline = time.monotonic() + timeout
    while _pid_alive(info["pid"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    _STARTED_HERE.pop(pgdata, None)
    del pgserver
    return not _pid_alive(info["pid"])


def ensure_database(host: str, port: int | str, name: str) -> None:
    """Create the roles and database ``name`` on the embedded server when missing; the
    database and everything in it belong to :data:`OWNER_ROLE` (a database made before the
    roles existed is handed over)."""
    import psycopg
    from psycopg import sql

    def connect(dbname: str) -> psycopg.Connection[tuple[Any, ...]]:
        return psycopg.connect(host=host, port=str(port), user="postgres", dbname=dbname,
                               connect_timeout=10, autocommit=True)

    for attempt in range(50):
        try:
            with connect("postgres") as conn:
                ensure_roles(conn)
                row = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                                   (name,)).fetchone()
                if row is None:
                    with contextlib.suppress(psycopg.errors.DuplicateDatabase,
                                             psycopg.errors.UniqueViolation):
                        conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(
                            sql.Identifier(name), sql.Identifier(OWNER_ROLE)))
            break
        except psycopg.OperationalError:
            if attempt == 49:
                raise
            time.sleep(0.1)
    with connect(name) as conn:
        hand_over(conn, name)


def ensure_roles(conn: Any) -> None:
    """(as the superuser) :data:`OWNER_ROLE` (may create databases: pytest makes its test
    databases) and :data:`APP_ROLE`, both able to log in, neither a superuser; the owner is a
    member of the app role (so it may end the server's sessions)."""
    from psycopg import sql

    for role, extra in ((OWNER_ROLE, "CREATEDB"), (APP_ROLE, "NOCREATEDB")):
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone() is None:
            with contextlib.suppress(Exception):
                conn.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEROLE " + extra)
                             .format(sql.Identifier(role)))
    # The owner may stop the app role's sessions (pg_terminate_backend), nothing more.
    with contextlib.suppress(Exception):
        conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(APP_ROLE),
                                                       sql.Identifier(OWNER_ROLE)))


def hand_over(conn: Any, name: str) -> None:
    """(as the superuser, connected to database ``name``) make :data:`OWNER_ROLE` the owner of
    the database and of every table, view, sequence and function of its ``public`` schema
    (tables made by an earlier version belong to ``postgres``). Sequences of a table follow it."""
    from psycopg import sql

    owner = sql.Identifier(OWNER_ROLE)
    conn.execute(sql.SQL("ALTER DATABASE {} OWNER TO {}").format(sql.Identifier(name), owner))
    rels = conn.execute(
        "SELECT c.relname, c.relkind FROM pg_class c"
        " WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r','p','v','m','S')"
        " AND c.relowner <> %s::regrole"
        " AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid"
        "                 AND d.classid = 'pg_class'::regclass AND d.deptype IN ('a','i'))",
        (OWNER_ROLE,)).fetchall()
    kinds = {"r": "TABLE", "p": "TABLE", "v": "VIEW", "m": "MATERIALIZED VIEW", "S": "SEQUENCE"}
    for relname, relkind in rels:
        conn.execute(sql.SQL("ALTER {} public.{} OWNER TO {}").format(
            sql.SQL(kinds[relkind]), sql.Identifier(relname), owner))
    for (signature,) in conn.execute(
        "SELECT p.oid::regprocedure::text FROM pg_proc p"
        " WHERE p.pronamespace = 'public'::regnamespace AND p.proowner <> %s::regrole",
        (OWNER_ROLE,)).fetchall():
        conn.execute(sql.SQL("ALTER FUNCTION {} OWNER TO {}").format(sql.SQL(signature), owner))
