"""The login throttle measured (docs/deploy.md, "Logins"): ``.venv/bin/python -m
bench.logins``.

One daphne on its own database (``gamenight_loginbench`` on the embedded PostgreSQL, as
``bench load``), a user with a password hashed as the server hashes it (Django's PBKDF2),
then, over HTTP from loopback addresses of their own (127.0.9.x):

* **hashed attempts**: wrong passwords, each from a fresh address, until the user name is
  locked: wall time and daphne's CPU per attempt (what every attempt cost before the
  throttle);
* **refused attempts**: the right password during the lock-out, one client in a loop, then
  ``--clients`` at once: attempts a second and daphne's CPU per attempt (no hasher runs);
* the guesses the settings allow.

Figures are daphne's CPU time (``psutil``), not wall time, where CPU is said: the machine
may be shared.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import secrets
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from bench.loadbench import LocalServer

DB_NAME = "gamenight_loginbench"


def attempt(port: int, source: str, username: str, password: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60,
                                      source_address=(source, 0))
    try:
        conn.request("POST", "/api/login", json.dumps({"username": username,
                                                        "password": password}),
                     {"Content-Type": "application/json"})
        r = conn.getresponse()
        r.read()
        return int(r.status)
    finally:
        conn.close()


def cpu(pid: int) -> float:
    import psutil

    t = psutil.Process(pid).cpu_times()
    return float(t.user + t.system)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--refused", type=int, default=400, help="refused attempts of one client")
    ap.add_argument("--clients", type=int, default=8, help="clients at once, after that")
    args = ap.parse_args(argv)
    os.environ.setdefault("GAMENIGHT_LOG", "WARNING")
    server = LocalServer(db_name=DB_NAME)
    with server as bases:
        from axes.models import AccessAttempt
        from django.conf import settings
        from django.contrib.auth import get_user_model

        from server.games.models import Token

        port = int(bases[0].rsplit(":", 1)[1])
        pid = server.pids[0]
        name = f"bench-{secrets.token_hex(4)}"
        password = secrets.token_urlsafe(12)
        User = get_user_model()
        User.objects.create_user(name, password=password)
        limit = int(settings.AXES_FAILURE_LIMIT)
        try:
            # (warm: the first request of a process imports and connects)
            attempt(port, "127.0.9.250", name, password)
            hashed: list[tuple[float, float]] = []
            status = 0
            for i in range(limit):
                c0, t0 = cpu(pid), time.perf_counter()
                status = attempt(port, f"127.0.9.{i + 1}", name, f"wrong-{i}")
                hashed.append((time.perf_counter() - t0, cpu(pid) - c0))
            assert status == 429, f"not locked after {limit} failures: {status}"
            c0, t0 = cpu(pid), time.perf_counter()
            statuses = [attempt(port, "127.0.9.100", name, password)
                        for _ in range(args.refused)]
            one_wall, one_cpu = time.perf_counter() - t0, cpu(pid) - c0
            assert set(statuses) == {429}, set(statuses)
            n = args.refused * 2
            c0, t0 = cpu(pid), time.perf_counter()
            with ThreadPoolExecutor(args.clients) as pool:
                many = list(pool.map(lambda i: attempt(port, f"127.0.9.{101 + i % 100}", name,
                                                       password), range(n)))
            many_wall, many_cpu = time.perf_counter() - t0, cpu(pid) - c0
            assert set(many) == {429}, set(many)
        finally:
            Token.objects.filter(user__username=name).delete()
            User.objects.filter(username=name).delete()
            AccessAttempt.objects.filter(username=name).delete()
            AccessAttempt.objects.filter(ip_address__startswith="127.0.9.").delete()
    walls = sorted(w for w, _ in hashed[:-1])
    cpus = sorted(c for _, c in hashed[:-1])
    cool = settings.AXES_COOLOFF_TIME.total_seconds()
    out: dict[str, Any] = {
        "hasher": settings.PASSWORD_HASHERS[0].rsplit(".", 1)[-1],
        "failure_limit": limit,
        "lockout_s": cool,
        "hashed_attempt_wall_ms_median": round(1000 * walls[len(walls) // 2], 1),
        "hashed_attempt_cpu_ms_median": round(1000 * cpus[len(cpus) // 2], 1),
        "refused_one_client_per_s": round(args.refused / one_wall, 1),
        "refused_cpu_ms_per_attempt": round(1000 * one_cpu / args.refused, 2),
        f"refused_{args.clients}_clients_per_s": round(n / many_wall, 1),
        f"refused_{args.clients}_clients_cpu_ms_per_attempt": round(1000 * many_cpu / n, 2),
        "guesses_per_name_per_hour": round(limit * 3600 / cool, 1),
        "guesses_per_address_per_hour": round(limit * 3600 / cool, 1),
    }
    for k, v in out.items():
        print(f"{k:44s} {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
