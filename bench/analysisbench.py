"""The Teka analysis as a budgeted service under strangers' requests: prints figures.

    python -m bench.analysisbench [--matches 50] [--target 400] [--replay-target 104]
    ./gamenight bench analysis

Starts its own daphne (one process, ``server.asgi``) on a free port against a database of its
own, ``gamenight_bench_analysis`` (embedded PostgreSQL, or ``DATABASE_URL``), with the
server's default limits unless the environment sets them (``GAMENIGHT_ANALYSIS_QUEUE``,
``GAMENIGHT_ANALYSIS_PER_CLIENT``, ``GAMENIGHT_ANALYSIS_CPU_SECONDS``,
``GAMENIGHT_TEKA_ANALYSES``, ...) and an empty analysis cache.

The strangers' matches: ``--matches`` distinct finished Teka matches of random play to
``--target`` points (four ``random`` bots, as in the report: made here through the store, not
played over sockets; some 17 hands and 150-200 CPU s of analysis each at 400 points). The
watched replay: one more match, random play to ``--replay-target`` (a match as people
play it: 104 points).

Three scenarios, each on a fresh server and cache:

1. **one address**: a stranger without an account asks for the analysis of every match
   from one address;
2. **many addresses**: the same requests, each from an address of its own (127.0.x.y:
   all of 127/8 reaches the loopback interface);
3. **many addresses that claim to watch**: as 2, each request with ``watch=1``, and every
   match admitted asked again with ``watch=1`` every 2 s for as long as the scenario runs
   (a script posing as open replays).

Then a replay is opened on the watched match by someone without an account (scenario 3:
and by a logged-in member on a third match): its requests say ``watch=1`` (as the replay
page and the app do), polled every 0.25 s to time it closely. Printed: the strangers'
answers (status counts, time to answer, daphne's CPU per request), the watched match's
first answer (its place), the time until its analysis started and until it was ready, the
solver processes at work when it started, and the answer an unwatched request for another
match gets at that moment (what the replay would have waited behind).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path
from random import Random
from typing import Any

from bench.loadbench import ROOT, cpu_seconds, free_port, prepare_database, spawn_daphne, wait_http

DB_NAME = "gamenight_bench_analysis"


def random_match(target: int, seed: int) -> list[dict[str, Any]]:
    """The events of a Teka match of random legal play (no resign or draw) to ``target``."""
    import core
    from core.api import META_COMMANDS

    g = core.GAMES["teka"]
    rng = Random(seed)
    events: list[dict[str, Any]] = list(g.start(g.options({"target": target}), rng))
    state = g.initial()
    for ev in events:
        state = g.evolve(state, ev)
    while g.outcome(state) is None:
        seat = g.to_act(state)[0]
        legal = [c for c in g.legal_commands(state, seat) if c["type"] not in META_COMMANDS]
        for ev in g.decide(state, seat, rng.choice(legal), rng):
            state = g.evolve(state, ev)
            events.append(ev)
    return events


def store_matches(n: int, target: int, replay_target: int) -> tuple[list[int], list[int]]:
    """``n`` strangers' matches and three more (the watched one, the unwatched reference,
    the member's), stored finished with four random bots; their ids."""
    from server.games import creating

    bots = [{"kind": "bot", "level": "random"}] * 4

    def one(t: int, seed: int) -> int:
        return int(creating.import_game("teka", None, bots, random_match(t, seed)).pk)

    strangers = [one(target, 1000 + i) for i in range(n)]
    return strangers, [one(replay_target, seed) for seed in (7, 8, 9)]


MEMBER = ("bench-member", "a bench member's password")


def member() -> None:
    from django.contrib.auth.models import User

    user, _ = User.objects.get_or_create(username=MEMBER[0])
    user.set_password(MEMBER[1])
    user.save()


def login(port: int) -> str:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request("POST", "/api/login", json.dumps(
            {"username": MEMBER[0], "password": MEMBER[1]}), {"Content-Type": "application/json"})
        return str(json.loads(conn.getresponse().read())["token"])
    finally:
        conn.close()


def ask(port: int, game_id: int, address: str, watch: bool = False, token: str = ""
        ) -> tuple[int, dict[str, Any], float]:
    """``GET /api/games/<id>/analysis/`` from ``address``: status, body, seconds taken."""
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60,
                                      source_address=(address, 0))
    try:
        conn.request("GET", f"/api/games/{game_id}/analysis/" + ("?watch=1" if watch else ""),
                     headers={"Authorization": f"Token {token}"} if token else {})
        r = conn.getresponse()
        body = json.loads(r.read())
    finally:
        conn.close()
    return r.status, body, time.perf_counter() - t0


def solvers() -> int:
    """Solver child processes at work on this machine (``server.games.dd_worker``)."""
    n = 0
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            with contextlib.suppress(OSError):
                if b"server.games.dd_worker" in (p / "cmdline").read_bytes():
                    n += 1
    return n


def watch_replay(port: int, game_id: int, address: str, deadline: float, token: str = "",
                 other: int | None = None) -> dict[str, Any]:
    """Open a replay on ``game_id``: ask with ``watch=1`` every 0.25 s until it is ready;
    when it starts, count the solvers and ask for ``other`` unwatched."""
    out: dict[str, Any] = {}
    t0 = time.monotonic()
    status, body, _ = ask(port, game_id, address, True, token)
    out["first"] = {k: body.get(k) for k in ("state", "position", "ahead", "watched")}
    if status != 202:
        out["first"] = {"status": status, **body.get("error", {})}
    started = done = None
    while time.monotonic() < deadline:
        if started is None and (status == 200 or body.get("state") == "computing"):
            started = time.monotonic() - t0
            out["solver_processes"] = solvers()
            if other is not None:
                s2, ref, _ = ask(port, other, "127.0.3.2")
                out["unwatched_reference"] = (
                    {k: ref.get(k) for k in ("state", "position", "ahead")} if s2 == 202
                    else {"status": s2, **ref.get("error", {})})
        if status == 200:
            done = time.monotonic() - t0
            out["result"] = {"partial": body.get("partial"), "hands": len(body.get("hands", [])),
                             **{k: body["budget"].get(k) for k in
                                ("cpu_used", "solves", "cut_short", "seconds", "waited")}}
            break
        if status not in (200, 202):
            out["error"] = {"status": status, **body.get("error", {})}
            break
        time.sleep(0.25)
        status, body, _ = ask(port, game_id, address, True, token)
    out.update(started_s=started, ready_s=done)
    return out


def scenario(name: str, env: dict[str, str], strangers: list[int], extra: list[int],
             spread: bool, claim: bool, deadline: float) -> dict[str, Any]:
    cache = Path(tempfile.mkdtemp(prefix="gamenight-analysis-bench-"))
    port = free_port()
    log_path = ROOT / "var" / "analysisbench-daphne.log"
    out: dict[str, Any] = {"scenario": name}
    with open(log_path, "ab") as log:
        proc = spawn_daphne(port, {**env, "GAMENIGHT_ANALYSIS_DIR": str(cache)}, log)
        try:
            wait_http(f"http://127.0.0.1:{port}", proc,
                      what=f"daphne (see {log_path.relative_to(ROOT)})")
            cpu0 = cpu_seconds(proc.pid)
            answers = []
            addresses = [f"127.0.{1 + i // 200}.{10 + i % 200}" if spread else "127.0.0.10"
                         for i in range(len(strangers))]
            for gid, address in zip(strangers, addresses, strict=True):
                answers.append(ask(port, gid, address, claim))
            cpu = cpu_seconds(proc.pid) - cpu0
            stop = threading.Event()
            if claim:  # (the script keeps its matches "watched")
                admitted = [(gid, address) for (gid, address), (status, _, _) in
                            zip(zip(strangers, addresses, strict=True), answers, strict=True)
                            if status == 202]

                def keep_watching() -> None:
                    while not stop.wait(2.0):
                        for gid, address in admitted:
                            with contextlib.suppress(OSError, ValueError):
                                ask(port, gid, address, True)

                threading.Thread(target=keep_watching, daemon=True).start()
            counts: dict[str, int] = {}
            for status, body, _ in answers:
                key = str(status) + (f" {body['error']['code']}" if "error" in body else "")
                counts[key] = counts.get(key, 0) + 1
            times = [t for _, _, t in answers]
            out.update(answers=counts, answer_p50_ms=statistics.median(times) * 1000,
                       answer_max_ms=max(times) * 1000,
                       daphne_cpu_ms_per_request=cpu / len(answers) * 1000)
            # the replay is opened (scenario 3: by a member too, at the same time)
            watched, other, members = extra
            result: dict[str, Any] = {}
            threads = []
            if claim:
                token = login(port)
                threads.append(threading.Thread(target=lambda: result.update(
                    member=watch_replay(port, members, "127.0.3.3", deadline, token))))
                threads[-1].start()
            out["anonymous"] = watch_replay(port, watched, "127.0.3.1", deadline, other=other)
            for t in threads:
                t.join()
            out.update(result)
            stop.set()
        finally:
            proc.send_signal(2)
            try:
                proc.wait(15)
            except Exception:
                proc.kill()
                proc.wait()
            shutil.rmtree(cache, ignore_errors=True)
    return out


def report(r: dict[str, Any]) -> None:
    print(f"\n== {r['scenario']}")
    print(f"  strangers' requests: {r['answers']}; answered in {r['answer_p50_ms']:.1f} ms "
          f"(median), {r['answer_max_ms']:.1f} ms (slowest); daphne "
          f"{r['daphne_cpu_ms_per_request']:.1f} ms CPU a request", flush=True)
    for who in ("anonymous", "member"):
        w = r.get(who)
        if w is None:
            continue
        started, ready = w.get("started_s"), w.get("ready_s")
        print(f"  replay watched by {'a logged-in member' if who == 'member' else 'a visitor'}"
              f": first answer {w['first']}; analysis started after "
              f"{'-' if started is None else f'{started:.2f} s'}, ready after "
              f"{'-' if ready is None else f'{ready:.2f} s'}: {w.get('result')}"
              + (f"; error {w['error']}" if "error" in w else ""))
        if "solver_processes" in w:
            print(f"    when it started: {w['solver_processes']} solver processes at work"
                  + (f"; an unwatched request for another match: {w['unwatched_reference']}"
                     if "unwatched_reference" in w else ""), flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=50, help="strangers' matches (50)")
    ap.add_argument("--target", type=int, default=400, help="their target (400 points)")
    ap.add_argument("--replay-target", type=int, default=104,
                    help="the watched match's target (104 points)")
    ap.add_argument("--timeout", type=float, default=600,
                    help="seconds each scenario waits for the watched analysis (600)")
    args = ap.parse_args(argv)
    env = prepare_database(DB_NAME)
    import core

    t0 = time.perf_counter()
    strangers, extra = store_matches(args.matches, args.target, args.replay_target)
    member()
    from django.db import connections

    connections.close_all()
    print(f"{len(strangers)} strangers' matches (random play to {args.target}) and three to "
          f"watch or ask for (to {args.replay_target}) stored in {time.perf_counter() - t0:.1f} s; "
          f"core {'compiled' if core.COMPILED else 'pure Python'}; "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}")
    knobs = {k: v for k, v in env.items()
             if k.startswith(("GAMENIGHT_ANALYSIS_", "GAMENIGHT_TEKA_"))}
    print(f"limits: {knobs or 'the defaults'}")
    for name, spread, claim in (
            ("1. one address asks for every match", False, False),
            ("2. each match asked for from an address of its own", True, False),
            ("3. as 2, every request claiming to watch (watch=1, kept up every 2 s)", True, True)):
        report(scenario(name, env, strangers, extra, spread, claim,
                        time.monotonic() + args.timeout))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
