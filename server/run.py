"""``python -m server.run`` (what ``./gamenight serve`` runs): set up and serve.

Migrates, ensures the admin account (prints its login), loads the demo league once,
collects static files, then runs daphne on 0.0.0.0 and prints the address tablets should
use. Ctrl-C (SIGINT) or SIGTERM stops daphne, then the embedded PostgreSQL (when no other
client uses it); running it again keeps the data.

    python -m server.run [--port 8000] [--host 0.0.0.0] [--workers N] [--no-demo]
                         [--name "Club night"] [--no-announce]
    python -m server.run --setup-only [--no-demo]     # deployments: set up, then exit

``--workers N`` runs N daphne processes on the port (Linux: one SO_REUSEPORT socket each, so
the kernel balances connections; elsewhere one shared listening socket); they share
events through the Redis channel layer (``REDIS_URL`` is required for N > 1) and one
PostgreSQL. The server announces itself on the local network (mDNS, server/ops/announce.py)
unless ``--no-announce`` or ``GAMENIGHT_ANNOUNCE=0``. Environment: ``GAMENIGHT_PORT``,
``DATABASE_URL``, ``REDIS_URL``, ``GAMENIGHT_PGDATA``, ``GAMENIGHT_NAME`` (see docs/deploy.md).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from server import lifeline

ROOT = Path(__file__).resolve().parent.parent
ASGI_APP = "server.asgi:application"


def say(msg: str) -> None:
    print(f"[gamenight] {msg}", flush=True)


def lan_address() -> str:
    """This machine's LAN address, found without sending anything on the network.

    Connecting a UDP socket only picks the route and source address (no packet leaves);
    several private destinations are tried, then the host name, then loopback."""
    for target in ("10.255.255.255", "192.168.255.255", "172.31.255.255"):
        with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((target, 1))
            addr = str(s.getsockname()[0])
            if addr and not addr.startswith(("0.", "127.")):
                return addr
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            addr = str(info[4][0])
            if not addr.startswith("127."):
                return addr
    return "127.0.0.1"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="gamenight serve", description="Set up and run the server.")
    p.add_argument("--host", default=os.environ.get("GAMENIGHT_HOST", "0.0.0.0"),
                   help="interface to listen on (default 0.0.0.0: the whole LAN)")
    p.add_argument("--port", type=int, default=int(os.environ.get("GAMENIGHT_PORT", "8000")),
                   help="TCP port (default 8000, env GAMENIGHT_PORT)")
    p.add_argument("--workers", type=int, default=int(os.environ.get("GAMENIGHT_WORKERS", "1")),
                   help="daphne processes (more than 1 needs REDIS_URL)")
    p.add_argument("--no-demo", action="store_true", help="do not load the demo league")
    p.add_argument("--no-migrate", action="store_true", help="skip migrate (already done)")
    p.add_argument("--setup-only", action="store_true",
                   help="migrate, admin, demo (unless --no-demo), static files; then exit "
                        "(deployments run this before starting daphne processes)")
    p.add_argument("--name", default=None,
                   help="the club's name tablets see on the local network (env GAMENIGHT_NAME, "
                        "default 'gamenight on <host>')")
    p.add_argument("--no-announce", action="store_true",
                   help="do not announce the server on the local network (mDNS; env "
                        "GAMENIGHT_ANNOUNCE=0)")
    p.add_argument("--verbosity", type=int, default=1, help="daphne verbosity (0-2)")
    return p.parse_args(argv)


def setup_django(args: argparse.Namespace) -> dict[str, Any]:
    """Migrate, admin, demo data, static files. Returns what the banner needs."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
    # Set-up runs as the tables' owner (migrations); daphne as the app role (see main).
    os.environ["GAMENIGHT_DB_ROLE"] = "owner"
    t0 = time.perf_counter()
    import django

    django.setup()  # settings -> server.dbconfig: starts the embedded PostgreSQL if needed
    from django.conf import settings
    from django.core.management import call_command

    from server import dbconfig

    db = settings.DATABASES["default"]
    embedded = not os.environ.get("DATABASE_URL", "").strip()
    if embedded:
        where = f"embedded PostgreSQL in {dbconfig.pgdata_dir(Path(settings.BASE_DIR))}"
        if dbconfig.COLD_START_SECONDS is not None:
            where += f" (started in {dbconfig.COLD_START_SECONDS:.1f} s)"
        else:
            where += " (already running)"
    else:
        where = f"PostgreSQL {db.get('HOST') or 'localhost'}/{db['NAME']} (DATABASE_URL)"
    say(f"database: {where}")
    if not args.no_migrate:
        call_command("migrate", interactive=False, verbosity=0)
        say("database migrated")
    from server.games.grants import app_role

    role = app_role()
    if role:
        say(f"daphne's database role: {role} (INSERT and SELECT on the event log)")
    else:
        say("daphne's database role owns the tables (set DATABASE_OWNER_URL for a restricted "
            "role, see docs/deploy.md)")

    from server.ops.admin_account import ensure_admin, password_file

    username, password, created = ensure_admin()
    if not args.no_demo:
        try:
            call_command("load_demo", verbosity=1)
        except Exception as exc:  # demo data must never keep the server from starting
            say(f"demo data not loaded: {exc!r}")
    if getattr(settings, "STATIC_ROOT", None):
        call_command("collectstatic", interactive=False, verbosity=0)
    dbconfig.close_connections()  # daphne has its own; none of ours stays open meanwhile
    say(f"ready in {time.perf_counter() - t0:.1f} s")
    return {"username": username, "password": password, "created": created,
            "password_file": password_file(), "embedded": embedded}


def reuseport_ok() -> bool:
    """Linux balances connections over several sockets bound with SO_REUSEPORT."""
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def open_listener(host: str, port: int, reuseport: bool = False) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if reuseport:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise SystemExit(f"cannot listen on {host}:{port}: {exc.strerror} "
                         f"(another server running? try --port)") from exc
    sock.listen(1024)
    sock.set_inheritable(True)
    return sock


def _die_with_parent() -> None:
    """(child, before exec) SIGINT back to its default (a shell starting us in the background
    makes it ignored, and daphne would inherit that); on Linux also get SIGTERM when
    server.run dies, even by SIGKILL, so no daphne is left orphaned holding the port."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    lifeline.set_pdeathsig(signal.SIGTERM)


def daphne_command(fd: int, verbosity: int) -> list[str]:
    """daphne on the shared listener. The client's address (what logins and joins are
    throttled by) is the connection's; only behind a proxy (``GAMENIGHT_BEHIND_PROXY=1``)
    is it taken from ``X-Real-IP``, which nginx sets (a client that talks to daphne
    directly could write any address into a forwarding header)."""
    proxy = (["--proxy-headers", "--proxy-headers-host", "X-Real-IP"]
             if os.environ.get("GAMENIGHT_BEHIND_PROXY", "") not in ("", "0") else [])
    return [sys.executable, "-m", "daphne", "--fd", str(fd), "-v", str(verbosity), *proxy,
            "--application-close-timeout", "5", ASGI_APP]


def banner(info: dict[str, Any], args: argparse.Namespace) -> None:
    lan = lan_address() if args.host in ("0.0.0.0", "::", "") else args.host
    base = f"http://{lan}:{args.port}"
    lines = [
        "",
        f"  gamenight is running ({args.workers} daphne process"
        f"{'es' if args.workers != 1 else ''}, Ctrl-C stops it)",
        f"  Tablets: connect to      {base}",
        f"  This machine:            http://127.0.0.1:{args.port}",
        f"  Admin:                   {base}/admin/",
    ]
    if info["password"] is not None:
        state = "created" if info["created"] else "existing"
        lines.append(f"  Admin login ({state}):   {info['username']} / {info['password']}")
    else:
        lines.append(f"  Admin login:             {info['username']} (already exists; password "
                     f"changed since it was stored in {info['password_file']})")
    lines.append("")
    print("\n".join(lines), flush=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    os.chdir(ROOT)
    if args.workers < 1:
        raise SystemExit("--workers must be at least 1")
    if args.workers > 1 and not os.environ.get("REDIS_URL", "").strip():
        raise SystemExit("--workers > 1 needs REDIS_URL (the processes share events through "
                         "Redis), e.g. REDIS_URL=redis://127.0.0.1:6379/0")
    # SIGINT (Ctrl-C) and SIGTERM both stop: the first one interrupts the set-up, or, once
    # daphne is being started, asks the watch below to stop; later ones are ignored while
    # stopping. Installing the handler also undoes an inherited "ignore SIGINT" (a script
    # that starts us in the background with ``&``). Not an exception once daphne runs: one
    # raised from a handler lands wherever the main thread is, and inside ``Popen.poll``
    # just after it has taken the Popen's lock it leaves the lock taken, so the stop's wait
    # for that daphne waited for the lock for ever.
    stopping = False
    serving = False
    asked = False

    def on_signal(signum: int, frame: Any) -> None:
        nonlocal stopping, asked
        if stopping:
            return
        stopping = True
        if serving:
            asked = True
            return
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    if args.setup_only:
        code = 0
        try:
            info = setup_django(args)
            if info["password"] is not None:
                say(f"admin login: {info['username']} / {info['password']}")
            else:
                say(f"admin login: {info['username']} (already exists)")
        except KeyboardInterrupt:
            stopping = True
            say("set-up interrupted")
            code = 1
        finally:
            stopping = True
            stop_database()
        return code
    # Fail early when the port is taken. With several workers on Linux each gets its own
    # SO_REUSEPORT socket on the port (the kernel spreads connections evenly); elsewhere
    # they share one listening socket.
    reuse = args.workers > 1 and reuseport_ok()
    listeners = [open_listener(args.host, args.port, reuse)
                 for _ in range(args.workers if reuse else 1)]
    procs: list[subprocess.Popen[bytes]] = []
    code = 0
    announcer = None
    try:
        # Announced while set-up runs (mDNS probing takes about 2 s); the socket already
        # listens, so a tablet that connects early waits in the backlog.
        announcer = start_announcing(args)
        info = setup_django(args)
        env = dict(os.environ)
        env.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
        env["GAMENIGHT_DB_ROLE"] = "app"
        env["GAMENIGHT_DIE_WITH"] = str(os.getpid())  # see server.games.runtime.install
        # Children reuse this process's embedded server; make sure they find the same one.
        if info["embedded"]:
            from django.conf import settings

            from server import dbconfig

            env["GAMENIGHT_PGDATA"] = str(dbconfig.pgdata_dir(Path(settings.BASE_DIR)))
        serving = True  # (see on_signal)
        for i in range(args.workers):
            listener = listeners[i % len(listeners)]
            procs.append(subprocess.Popen(
                daphne_command(listener.fileno(), args.verbosity),
                pass_fds=(listener.fileno(),), cwd=ROOT, env=env,
                start_new_session=True,  # Ctrl-C reaches us only; we forward it once
                preexec_fn=_die_with_parent,
            ))
        banner(info, args)
        code = watch(procs, lambda: asked)
        stopping = True
        say("stopping")
    except KeyboardInterrupt:
        stopping = True
        say("stopping")
    finally:
        stopping = True  # from here on SIGINT and SIGTERM are ignored (on_signal)
        if announcer is not None:
            announcer.stop()  # goodbye packets first: tablets drop the entry at once
        stop_children(procs)
        for listener in listeners:
            listener.close()
        stop_database()
    return code


def watch(procs: list[subprocess.Popen[bytes]], asked: Callable[[], bool]) -> int:
    """Wait until a stop is ``asked`` (0) or a daphne exits (its exit code, 1 for 0)."""
    while not asked():
        for p in procs:
            rc = p.poll()
            if rc is not None:
                say(f"daphne (pid {p.pid}) exited with code {rc}; stopping")
                return rc or 1
        time.sleep(0.5)
    return 0


def start_announcing(args: argparse.Namespace) -> Any:
    """The mDNS announcement (server/ops/announce.py), or None when it is off or cannot be
    made (one line says why; the server starts all the same)."""
    from server.ops import announce

    if not announce.enabled(args.no_announce):
        return None
    return announce.start(args.port, args.host, args.name, say=say, lan_address=lan_address)


def stop_children(procs: list[subprocess.Popen[bytes]], timeout: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after ``timeout`` seconds.

    SIGTERM is daphne's graceful stop once it runs (Twisted stops the reactor as on SIGINT),
    and before that, while it is still importing, it ends the process quietly, where SIGINT
    would print a KeyboardInterrupt traceback."""
    for p in procs:
        if p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for p in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(max(0.1, deadline - time.monotonic()))
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
    if procs:
        say("daphne stopped")


def stop_database() -> None:
    """Stop the embedded PostgreSQL unless another program still has sessions on it; say
    what was done."""
    if os.environ.get("DATABASE_URL", "").strip() or "django.conf" not in sys.modules:
        return  # an external server, or set-up never got as far as the database
    from django.conf import settings

    from server import dbconfig

    dbconfig.close_connections()
    pgdata = dbconfig.pgdata_dir(Path(settings.BASE_DIR))
    info = dbconfig.running_info(pgdata)
    if info is None:
        if dbconfig.started_here(pgdata):
            say("embedded PostgreSQL was already stopped")
        return
    if os.environ.get("GAMENIGHT_PG_KEEP", "") not in ("", "0"):
        say("embedded PostgreSQL left running (GAMENIGHT_PG_KEEP is set)")
        return
    # The sessions of daphne processes that just exited may take a moment to end.
    others, deadline = 0, time.monotonic() + 3.0
    while True:
        try:
            others = dbconfig.other_clients(pgdata)
        except Exception:
            others = 0
        if not others or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    if others:
        say(f"embedded PostgreSQL left running: {others} other session(s) use it")
        return
    if dbconfig.stop_embedded(pgdata):
        say("embedded PostgreSQL stopped")
    else:
        say(f"embedded PostgreSQL (pid {info['pid']}) did not stop")


if __name__ == "__main__":
    sys.exit(main())
