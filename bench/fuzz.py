"""Fuzz run of the game server: frames and HTTP requests generated from docs/protocol.md by
hypothesis, valid play mixed with junk, against a real daphne (prints figures; a benchmark
command, not a test; ``tests/test_e2e_input.py`` runs a small one).

    python -m bench.fuzz [--frames 100000] [--requests 10000] [--games 12] [--seed 1]
                              [--url http://host:port]

Without ``--url`` it starts its own daphne (as :mod:`bench.loadbench` does) against a
separate database ``gamenight_fuzz`` on the embedded PostgreSQL (or ``DATABASE_URL``).

**Sockets.** ``--games`` tables of all four kinds, every seat a guest held by this program
(no bots: only these commands can append events), each with one connection per seat, a
spectator and a connection that never says a good hello. A table's driver makes one legal
move (the right seat, the right ``expected_seq``, a ``ref``), waits until every connection
has its events, then sends junk frames on its connections, one at a time, each answered
before the next. Junk (hypothesis strategies, :func:`frame_plans`): text that is not JSON,
binary frames, JSON that is no object, unknown and non-string types, deep nesting, NUL and
lone surrogates, NaN / Infinity / 1e999 / 5,000-digit numbers, unknown fields, hellos that
cannot succeed, and commands that must be refused: a stale or non-integer
``expected_seq`` (legal commands, mutated ones, random JSON), another seat's command (a
``seat`` field that is not the connection's), commands from the spectator and from the
connection that is not joined; every 1,000th junk frame is over 64 KiB (up to 2 MiB). Each
junk frame must get exactly one answer (``error``; ``pong`` for a ping, with its ref);
an oversize one ``too_large`` and then the close 1009 (the connection is opened again).

**HTTP.** Requests on every endpoint (and paths that are none) with junk ids, codes, query
strings, headers and bodies (create-game shaped bodies with junk kinds, options, seats,
joins and leagues, random JSON, raw bytes); no answer may be 5xx, and every answer under
``/api/`` must be JSON (the error body for 4xx).

**The logs.** At the end each table's event count (``/verify/``, which also checks the hash
chain) must be exactly its start events plus what its valid commands appended: the
number of events appended by junk must be 0. The server must still answer ``/healthz`` and
a new socket.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

KINDS = ("teeko", "tiku", "tedoku", "teka")
KIND_OPTIONS: dict[str, dict[str, Any]] = {
    "teeko": {"move_cap": 80},
    "tiku": {},
    "tedoku": {"seats": 3},
    "teka": {"target": 5},
}
KNOWN_TYPES = ("hello", "command", "ping", "presence")
BROADCAST = ("events", "presence", "bot", "finished")
"""Frames that come on their own (another connection's move, a seat change): not answers."""
ERROR_CODES = {
    "malformed",
    "illegal",
    "not_your_turn",
    "wrong_seat",
    "game_over",
    "stale",
    "forbidden",
    "not_joined",
    "already_joined",
    "not_found",
    "too_large",
    "server_error",
    "unavailable",
}
OVERSIZE_EVERY = 1000
ROUTE_VALUES = (
    "real", "0", "1", "9" * 18, "9" * 19, "-1", "%00", "a%00b", "%01", "a%2Fb", "a/b",
    "%C3%A9", "%ED%A0%80", "A" * 300, "..", "%25", "x%20y", "1.5",
)
"""What each parameter of a route is replaced with in the route sweep (``real``: a game id
of the run; the others percent-encoded as they stand): ids out of range, NUL and control
characters, a lone surrogate's UTF-8, slashes, very long and empty-ish values."""
ROUTE_METHODS = ("GET", "POST", "HEAD")
"""The methods of the route sweep (the suite's small run leaves HEAD out: Django answers it
with the GET view)."""
PROGRESS_EVERY = 10_000
ANSWER_TIMEOUT = 15.0


# --------------------------------------------------------------------------- strategies


def strategies() -> dict[str, Any]:
    """The hypothesis strategies (imported here: hypothesis is a dev dependency)."""
    from hypothesis import strategies as st

    weird_chars = st.sampled_from(["\x00", "\ud800", "\udfff", "\x07", "\u2028", "\ufeff", "é"])
    text = st.one_of(
        st.text(max_size=30),
        st.lists(st.one_of(weird_chars, st.characters()), max_size=12).map("".join),
        st.sampled_from(["", "a" * 300, "c3", "A1", "place", "resign", "null", "0"]),
    )
    ints = st.one_of(
        st.integers(-3, 30),
        st.integers(-(2**70), 2**70),
        st.sampled_from([2**31, 2**63, -(2**63) - 1, 10**40]),
    )
    scalars = st.one_of(
        st.none(), st.booleans(), ints, st.floats(allow_nan=False, allow_infinity=False), text
    )
    json_value = st.recursive(
        scalars,
        lambda kids: st.one_of(st.lists(kids, max_size=3), st.dictionaries(text, kids, max_size=3)),
        max_leaves=6,
    )
    extra = st.dictionaries(text.filter(lambda k: k != "type"), scalars, max_size=2)
    bad_number = st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999", "-1e400", "9" * 5000])
    command_plan = st.fixed_dictionaries(
        {
            "source": st.sampled_from(["legal", "mutated", "random", "typed", "missing"]),
            "pick": st.integers(0, 10**6),
            "value": json_value,
            "field": text,
            "seq": st.sampled_from(["stale_low", "stale_high", "wrong_type", "missing", "current"]),
            "offset": st.integers(1, 10**6),
            "bad_seq": scalars,
            "seat": st.sampled_from(["none", "none", "other", "other_type"]),
            "other_seat": scalars,
            "ref": scalars,
            "extra": extra,
        }
    )
    hello_plan = st.fixed_dictionaries(
        {
            "seat": st.one_of(st.integers(-2, 6), scalars.filter(lambda v: v is not None)),
            "secret": scalars,
            "token": scalars,
            "last_seq": st.one_of(st.just(0), scalars),
            "bad_last_seq": st.booleans(),
            "extra": extra,
        }
    )
    frame = st.one_of(
        st.tuples(st.just("raw"), text),
        st.tuples(st.just("binary"), st.binary(max_size=64)),
        st.tuples(st.just("json"), json_value),
        st.tuples(st.just("deep"), st.integers(33, 30000), st.booleans()),
        st.tuples(st.just("number"), bad_number, st.sampled_from(["ref", "expected_seq", "seat"])),
        st.tuples(st.just("type"), scalars.filter(lambda t: t not in KNOWN_TYPES), extra),
        st.tuples(st.just("hello"), hello_plan),
        st.tuples(st.just("command"), command_plan),
        st.tuples(st.just("command"), command_plan),
        st.tuples(st.just("command"), command_plan),
        st.tuples(st.just("ping"), json_value),
        st.tuples(
            st.just("role"), st.sampled_from(["seat", "spectator", "stranger"]), command_plan
        ),
    )
    seat_spec = st.one_of(
        st.fixed_dictionaries(
            {
                "kind": st.one_of(st.sampled_from(["open", "guest", "user", "bot"]), json_value),
                "name": json_value,
                "level": st.one_of(
                    st.integers(-2, 6), st.sampled_from(["random", "easy"]), json_value
                ),
                "username": json_value,
            }
        ),
        json_value,
    )
    create_body = st.fixed_dictionaries(
        {
            "kind": st.one_of(st.sampled_from(KINDS), json_value),
            "options": st.one_of(st.just({}), json_value),
            "seats": st.one_of(st.none(), st.lists(seat_spec, max_size=5), json_value),
            "join": st.one_of(
                st.none(),
                st.dictionaries(st.sampled_from(["seat", "name", "x"]), json_value, max_size=3),
                json_value,
            ),
            "league": st.one_of(st.none(), json_value),
        }
    )
    query_key = st.one_of(
        st.sampled_from(["seq", "seat", "secret", "events", "status", "kind", "league", "limit"]),
        text,
    )
    query_value = st.one_of(
        text, ints.map(str), st.sampled_from(["", "-1", "1", "99", "open", "teeko", "%00", "x"])
    )
    request = st.fixed_dictionaries(
        {
            "method": st.sampled_from(
                ["GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
            ),
            "path": st.sampled_from(
                [
                    "login",
                    "login/",
                    "me",
                    "kinds",
                    "games",
                    "game",
                    "join",
                    "state",
                    "log",
                    "verify",
                    "code",
                    "join_code",
                    "leagues",
                    "league",
                    "junk",
                    "healthz",
                    "home",
                ]
            ),
            "id": st.one_of(st.sampled_from(["real", "real", "real"]), ints.map(str), text),
            "query": st.lists(st.tuples(query_key, query_value), max_size=4),
            "auth": st.one_of(st.none(), text, st.sampled_from(["Token ", "Token x" * 40])),
            "secret": st.one_of(st.none(), text),
            "body": st.one_of(
                st.none(),
                create_body,
                json_value,
                st.binary(max_size=200),
                st.tuples(st.just("deep"), st.integers(33, 30000)),
                st.tuples(st.just("number"), bad_number),
            ),
        }
    )
    return {"frame": frame, "request": request}


def draw_plans(what: str, n: int, seed: int) -> list[Any]:
    """``n`` plans of ``what`` (``frame`` or ``request``); run in worker processes."""
    return draw(strategies()[what], n, seed)


def draw(strategy: Any, n: int, seed: int) -> list[Any]:
    """``n`` examples of ``strategy`` (hypothesis' generation phase only, in batches)."""
    import warnings

    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    out: list[Any] = []
    batch = 0
    while len(out) < n:
        want = min(2000, n - len(out))

        @hseed(seed * 100_003 + batch)
        @settings(
            max_examples=want,
            database=None,
            deadline=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(strategy)
        def collect(x: Any) -> None:
            out.append(x)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            collect()
        batch += 1
    return out[:n]


# --------------------------------------------------------------------------- rendering


def dumps(value: Any) -> str:
    """JSON as a client might write it: NaN allowed, non-ASCII escaped (lone surrogates as
    ``\\udXXX`` escapes: a socket text frame must be valid UTF-8)."""
    return json.dumps(value, ensure_ascii=True, allow_nan=True)


def deep(n: int, objects: bool) -> str:
    if objects:
        return '{"type": "command", "command": ' + '{"a": ' * n + "1" + "}" * n + "}"
    return "[" * n + "]" * n


@dataclass
class Conn:
    ws: Any
    role: str  # seat, spectator, stranger
    seat: int | None = None
    seq: int = 0
    legal: list[Any] = field(default_factory=list)
    to_act: list[int] = field(default_factory=list)
    outcome: Any = None
    queue: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)
    reader: asyncio.Task[None] | None = None
    closed: Any = None


@dataclass
class Table:
    gid: int
    kind: str
    secrets: dict[int, str]
    start_seq: int
    seats: int
    conns: list[Conn] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)  # its seats' codes (the creator's answer)
    valid_appended: int = 0
    seq: int = 0


@dataclass
class Report:
    frames: int = 0
    junk: int = 0
    valid: int = 0
    valid_refused: Counter[str] = field(default_factory=Counter)
    answered: int = 0
    unanswered: int = 0
    wrong_answers: Counter[str] = field(default_factory=Counter)
    junk_accepted: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    plans: Counter[str] = field(default_factory=Counter)
    oversize: int = 0
    oversize_ok: int = 0
    reconnects: int = 0
    tables: list[Table] = field(default_factory=list)
    requests: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    http_5xx: int = 0
    http_not_json: int = 0
    http_failures: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        if len(self.examples) < 20:
            self.examples.append(text[:300])


def render(plan: Any, table: Table, conn: Conn, rng: random.Random) -> tuple[str | bytes, str]:
    """A junk frame for ``conn`` and what answer it must get: ``error`` or ``pong:<ref>``."""
    kind = plan[0]
    if kind == "raw":
        text = plan[1]
        with contextlib.suppress(ValueError):
            v = json.loads(text)
            if isinstance(v, dict) and v.get("type") in KNOWN_TYPES:
                text = "x" + text  # (never a real message by chance)
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace"), "error"
    if kind == "binary":
        return bytes(plan[1]) or b"\x00", "error"
    if kind == "json":
        v = plan[1]
        if isinstance(v, dict) and v.get("type") in KNOWN_TYPES:
            v = {**v, "type": ["not", "a", "type"]}
        return dumps(v), "error"
    if kind == "deep":
        return deep(plan[1] if not plan[2] else min(plan[1], 9000), plan[2]), "error"  # < 64 KiB
    if kind == "number":
        return (
            f'{{"type": "command", "command": {{"type": "place"}}, "{plan[2]}": {plan[1]}}}',
            "error",
        )
    if kind == "type":
        return dumps({**plan[2], "type": plan[1]}), "error"
    if kind == "hello":
        return dumps(hello(plan[1], table, conn)), "error"
    if kind == "ping":
        return dumps({"type": "ping", "ref": plan[1]}), "pong"
    if kind in ("command", "role"):
        return dumps(command(plan[-1], table, conn, rng)), "error"
    raise ValueError(kind)


def hello(p: dict[str, Any], table: Table, conn: Conn) -> dict[str, Any]:
    """A hello that must be refused on this connection."""
    msg: dict[str, Any] = {**p["extra"], "type": "hello"}
    if conn.role != "stranger":
        msg.update(seat=p["seat"], last_seq=p["last_seq"])  # already_joined, whatever it says
        return msg
    seat = p["seat"]
    if seat is None or (type(seat) is int and not p["bad_last_seq"]):
        # a real seat with credentials that cannot be its own (forbidden) ...
        seat = seat if type(seat) is int else 0
        msg.update(seat=seat, secret=f"not-the-secret-{p['secret']!r}"[:60])
        if isinstance(p["token"], str):
            msg["token"] = "bogus" + p["token"]
    else:
        msg["seat"] = seat  # ... or a seat that is none (wrong_seat) ...
    if p["bad_last_seq"]:  # ... or a last_seq that is no count (malformed)
        msg["last_seq"] = p["last_seq"] if not _is_count(p["last_seq"]) else -1
    return msg


def _is_count(v: Any) -> bool:
    return type(v) is int and v >= 0


def command(p: dict[str, Any], table: Table, conn: Conn, rng: random.Random) -> dict[str, Any]:
    """A command message that must be refused on this connection (see the module doc)."""
    legal = conn.legal or next((c.legal for c in table.conns if c.legal), [])
    src = p["source"]
    msg: dict[str, Any] = {**p["extra"], "type": "command", "ref": p["ref"]}
    if src == "legal" and legal:
        msg["command"] = legal[p["pick"] % len(legal)]
    elif src == "mutated" and legal:
        cmd = dict(legal[p["pick"] % len(legal)])
        key = rng.choice([*cmd, p["field"]]) if cmd else p["field"]
        cmd[key] = p["value"]
        msg["command"] = cmd
    elif src == "typed":
        cmd = p["value"] if isinstance(p["value"], dict) else {}
        msg["command"] = {
            **cmd,
            "type": rng.choice(
                ["place", "move", "skip", "bid", "play", "cut", "keep", "trump", "resign"]
            ),
        }
    elif src != "missing":
        msg["command"] = p["value"]
    seq_mode, seat_mode = p["seq"], p["seat"]
    if conn.role == "seat" and seat_mode == "none" and seq_mode == "current":
        seq_mode = "stale_low"  # a seat's own command with the right seq could be legal
    if seq_mode == "current":
        msg["expected_seq"] = table.seq
    elif seq_mode == "stale_low":
        msg["expected_seq"] = table.seq - p["offset"]
    elif seq_mode == "stale_high":
        msg["expected_seq"] = table.seq + p["offset"]
    elif seq_mode == "wrong_type":
        bad = p["bad_seq"]
        msg["expected_seq"] = bad if type(bad) is not int else str(bad)
    if seat_mode == "other":
        others = [s for s in range(table.seats) if s != conn.seat]
        msg["seat"] = others[p["pick"] % len(others)]
    elif seat_mode == "other_type":
        v = p["other_seat"]
        msg["seat"] = v if not (type(v) is int and v == conn.seat) else -7
    if (
        conn.role == "seat"
        and "seat" in msg
        and type(msg["seat"]) is int
        and msg["seat"] == conn.seat
    ):
        msg["seat"] = -7
    if conn.role == "seat" and msg.get("expected_seq") == table.seq and "seat" not in msg:
        msg["expected_seq"] = table.seq - 1  # (never acceptable)
    return msg


# --------------------------------------------------------------------------- the run


def _http(
    base: str,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30,
) -> tuple[int, str, bytes]:
    req = urllib.request.Request(
        base.rstrip("/") + path,
        data=body,
        method=method,
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers.get("Content-Type", ""), err.read()


def _json(base: str, method: str, path: str, body: Any = None) -> Any:
    status, _ctype, raw = _http(
        base, method, path, json.dumps(body).encode() if body is not None else None
    )
    if status >= 400:
        raise RuntimeError(f"{method} {path}: {status} {raw[:200]!r}")
    return json.loads(raw)


class Fuzzer:
    def __init__(self, base: str, report: Report, seed: int, log: Any = None) -> None:
        self.log = log
        self.next_progress = PROGRESS_EVERY
        self.started = time.perf_counter()
        self.base = base.rstrip("/")
        self.ws_base = "ws://" + self.base.removeprefix("http://")
        self.report = report
        self.rng = random.Random(seed)

    async def connect(self, table: Table, role: str, seat: int | None) -> Conn:
        from websockets.asyncio.client import connect

        ws = await connect(
            f"{self.ws_base}/ws/games/{table.gid}/",
            max_size=None,
            ping_interval=None,
            open_timeout=60,
            close_timeout=5,
            compression=None,
        )
        conn = Conn(ws, role, seat)
        conn.reader = asyncio.ensure_future(self.read(conn))
        if role in ("seat", "spectator"):
            hello: dict[str, Any] = {"type": "hello", "last_seq": 0}
            if seat is not None:
                hello.update(seat=seat, secret=table.secrets[seat])
            await ws.send(json.dumps(hello))
            answer = await self.answer(conn)
            if answer is None or answer.get("type") != "welcome":
                raise RuntimeError(f"hello refused: {answer}")
        return conn

    async def read(self, conn: Conn) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for text in conn.ws:
                frame = json.loads(text)
                if frame.get("type") == "events" and frame.get("events"):
                    conn.seq = frame["to"]
                if frame.get("type") == "events" and "view" in frame:
                    conn.legal, conn.to_act = frame["legal"], frame["to_act"]
                    conn.outcome = frame["outcome"]
                if frame.get("type") not in BROADCAST:
                    conn.queue.put_nowait(frame)
        except ConnectionClosed as exc:
            conn.closed = exc.rcvd.code if exc.rcvd is not None else "no close frame"
        except Exception as exc:  # a frame that is not JSON: record and go on reading
            conn.closed = f"read failed: {exc!r}"
        conn.queue.put_nowait(None)

    async def answer(self, conn: Conn) -> dict[str, Any] | None:
        try:
            return await asyncio.wait_for(conn.queue.get(), ANSWER_TIMEOUT)
        except TimeoutError:
            return None

    async def new_table(self, i: int) -> Table:
        kind = KINDS[i % len(KINDS)]
        g = await asyncio.to_thread(
            _json,
            self.base,
            "POST",
            "/api/games/",
            {
                "kind": kind,
                "options": KIND_OPTIONS[kind],
                "seats": [{"kind": "guest", "name": f"fuzz {n}"} for n in range(4)][
                    : {"teeko": 2, "tiku": 2, "tedoku": 3, "teka": 4}[kind]
                ],
            },
        )
        n = len(g["seats"])
        table = Table(
            g["id"],
            kind,
            {int(k): v for k, v in g["guest_secrets"].items()},
            g["seq"],
            n,
            seq=g["seq"],
            codes=[str(s["code"]) for s in g["seats"] if s.get("code")],
        )
        for s in range(n):
            table.conns.append(await self.connect(table, "seat", s))
        table.conns.append(await self.connect(table, "spectator", None))
        table.conns.append(await self.connect(table, "stranger", None))
        self.report.tables.append(table)
        return table

    async def close_table(self, table: Table) -> None:
        for c in table.conns:
            with contextlib.suppress(Exception):
                await c.ws.close()
            if c.reader is not None:
                c.reader.cancel()

    async def synced(self, table: Table, seq: int) -> None:
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while any(c.seq < seq for c in table.conns if c.role != "stranger"):
            if time.monotonic() > deadline:
                self.report.wrong_answers["events not delivered"] += 1
                return
            await asyncio.sleep(0.002)

    async def valid_move(self, table: Table) -> bool:
        """One legal command by a seat that may act; False when the game is over."""
        seats = [c for c in table.conns if c.role == "seat" and c.seat in c.to_act and c.legal]
        if table.conns[0].outcome is not None or not seats:
            return False
        conn = self.rng.choice(seats)
        moves = [
            m
            for m in conn.legal
            if m.get("type") not in ("resign", "offer_draw", "accept_draw", "decline_draw")
        ] or conn.legal
        ref = f"valid-{self.report.valid}"
        await conn.ws.send(
            json.dumps(
                {
                    "type": "command",
                    "command": self.rng.choice(moves),
                    "expected_seq": table.seq,
                    "ref": ref,
                }
            )
        )
        self.report.frames += 1
        self.report.valid += 1
        answer = await self.answer(conn)
        if answer is None:
            self.report.unanswered += 1
            return False
        self.report.answered += 1
        if answer.get("type") == "ok" and answer.get("ref") == ref:
            table.valid_appended += answer["seq"] - table.seq
            table.seq = answer["seq"]
            await self.synced(table, table.seq)
            return True
        self.report.valid_refused[str(answer.get("code"))] += 1
        self.report.note(f"valid command refused: {answer}")
        return False

    async def junk(self, table: Table, plan: Any) -> None:
        r = self.report
        if plan[0] == "role":
            role = plan[1]
            conn = self.rng.choice([c for c in table.conns if c.role == role])
        else:
            conn = self.rng.choice(table.conns)
        text, want = render(plan, table, conn, self.rng)
        r.plans[plan[0]] += 1
        try:
            await conn.ws.send(text)
        except Exception as exc:  # (closed: it must not be; open it again)
            r.wrong_answers["connection closed"] += 1
            r.note(f"send on {conn.role} failed: {exc!r} (closed {conn.closed})")
            await self.reopen(table, conn)
            return
        r.frames += 1
        r.junk += 1
        answer = await self.answer(conn)
        if answer is None:
            r.unanswered += 1
            r.note(f"unanswered on {conn.role}: {str(text)[:200]}")
            return
        r.answered += 1
        t = answer.get("type")
        if want == "pong":
            ok = t == "pong" and answer.get("ref") == json.loads(text).get("ref")
            if not ok:
                if t == "error" and answer.get("code") == "malformed":
                    r.codes["malformed"] += 1  # (a ref the input rules refuse)
                    return
                r.wrong_answers[f"ping answered {t}"] += 1
                r.note(f"ping {str(text)[:100]} -> {answer}")
            return
        if t == "ok":
            r.junk_accepted += 1
            r.note(f"junk accepted on {conn.role}: {str(text)[:200]}")
            return
        if t != "error" or answer.get("code") not in ERROR_CODES:
            r.wrong_answers[f"answered {t}"] += 1
            r.note(f"{str(text)[:200]} -> {answer}")
            return
        r.codes[answer["code"]] += 1
        if answer["code"] == "server_error":
            r.note(f"server_error for {str(text)[:200]}")

    async def oversize(self, table: Table, size: int) -> None:
        r = self.report
        conn = self.rng.choice(table.conns)
        await conn.ws.send('{"type": "ping", "ref": "' + "z" * max(0, size - 27) + '"}')
        r.frames += 1
        r.junk += 1
        r.oversize += 1
        answer = await self.answer(conn)
        if answer is None:
            r.unanswered += 1
        else:
            r.answered += 1
            r.codes[str(answer.get("code"))] += 1
        end = await self.answer(conn)  # the reader's end of stream
        if (
            answer is not None
            and answer.get("code") == "too_large"
            and end is None
            and conn.closed == 1009
        ):
            r.oversize_ok += 1
        else:
            r.note(f"oversize {size}: {answer} then {end}, closed {conn.closed}")
        await self.reopen(table, conn)

    def progress(self) -> None:
        r = self.report
        if self.log is None or r.frames < self.next_progress:
            return
        self.next_progress += PROGRESS_EVERY
        took = time.perf_counter() - self.started
        self.log(f"  {r.frames} frames in {took:.0f} s ({r.frames / took:.0f}/s): "
                 f"{r.unanswered} unanswered, {r.junk_accepted} junk accepted, "
                 f"{r.codes['server_error']} server_error, {len(r.tables)} tables")

    async def reopen(self, table: Table, conn: Conn) -> None:
        i = table.conns.index(conn)
        with contextlib.suppress(Exception):
            await conn.ws.close()
        if conn.reader is not None:
            conn.reader.cancel()
        table.conns[i] = await self.connect(table, conn.role, conn.seat)
        self.report.reconnects += 1

    async def run_sockets(
        self, n_frames: int, n_games: int, batches: list[Any], junk_per_move: int
    ) -> None:
        """Play ``n_games`` tables until ``n_frames`` frames are sent; the junk plans come
        from ``batches`` (futures of lists, generated meanwhile by worker processes)."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        counter = {"junk": 0}
        done = asyncio.Event()

        async def feed() -> None:
            for fut in batches:
                for plan in await asyncio.wrap_future(fut):
                    await queue.put(plan)
            done.set()

        async def next_plan() -> Any:
            if queue.empty() and done.is_set():
                return None
            getter = asyncio.ensure_future(queue.get())
            waiter = asyncio.ensure_future(done.wait())
            await asyncio.wait({getter, waiter}, return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
            if getter.done():
                return getter.result()
            getter.cancel()
            return queue.get_nowait() if not queue.empty() else None

        feeder = asyncio.ensure_future(feed())

        async def drive(i: int) -> None:
            table = await self.new_table(i)
            while self.report.frames < n_frames:
                if not await self.valid_move(table):
                    await self.close_table(table)
                    table = await self.new_table(i)
                    continue
                for _ in range(junk_per_move):
                    plan = await next_plan()
                    if plan is None or self.report.frames >= n_frames:
                        break
                    counter["junk"] += 1
                    if counter["junk"] % OVERSIZE_EVERY == 0:
                        await self.oversize(table, self.rng.randrange(65537, 2 << 20))
                    else:
                        await self.junk(table, plan)
                    self.progress()
                else:
                    continue
                break
            await self.close_table(table)

        try:
            await asyncio.gather(*(drive(i) for i in range(n_games)))
        finally:
            feeder.cancel()

    # ------------------------------------------------------------------ HTTP

    def request(self, plan: dict[str, Any], ids: list[int], codes: list[str]) -> None:
        r = self.report

        def ident() -> str:
            if plan["id"] == "real":
                return str(self.rng.choice(ids))
            return urllib.parse.quote(str(plan["id"]).encode("utf-8", "surrogatepass"), safe="")

        code = self.rng.choice(codes) if plan["id"] == "real" else ident()
        paths = {
            "login": "/api/login",
            "login/": "/api/login/",
            "me": "/api/me/",
            "kinds": "/api/kinds/",
            "games": "/api/games/",
            "game": f"/api/games/{ident()}/",
            "join": f"/api/games/{ident()}/join/",
            "state": f"/api/games/{ident()}/state/",
            "log": f"/api/games/{ident()}/log/",
            "verify": f"/api/games/{ident()}/verify/",
            "code": f"/api/codes/{code}/",
            "join_code": "/api/join/",
            "leagues": "/api/leagues/",
            "league": f"/api/leagues/{ident()}/",
            "junk": "/api/" + urllib.parse.quote(str(plan["id"]).encode("utf-8", "surrogatepass")),
            "healthz": "/healthz",
            "home": "/",
        }
        path = paths[plan["path"]]
        if plan["query"]:
            path += "?" + urllib.parse.urlencode(
                [
                    (k.encode("utf-8", "surrogatepass"), v.encode("utf-8", "surrogatepass"))
                    for k, v in plan["query"]
                ]
            )
        headers: dict[str, str] = {}
        if plan["auth"] is not None:
            headers["Authorization"] = _latin1(plan["auth"])
        if plan["secret"] is not None:
            headers["X-Seat-Secret"] = _latin1(plan["secret"])
        b = plan["body"]
        if b is None:
            body = None
        elif isinstance(b, bytes):
            body = b
        elif isinstance(b, tuple) and b[0] == "deep":
            body = deep(b[1], False).encode()
        elif isinstance(b, tuple) and b[0] == "number":
            body = f'{{"kind": "teeko", "league": {b[1]}}}'.encode()
        else:
            if isinstance(b, dict) and plan["path"] == "join_code" and plan["id"] == "real":
                b = {**b, "code": code}
            body = dumps(b).encode()
        method = plan["method"]
        if (
            method in ("GET", "HEAD", "OPTIONS", "DELETE")
            and body is not None
            and self.rng.random() < 0.7
        ):
            body = None
        try:
            status, ctype, raw = _http(self.base, method, path, body, headers, timeout=60)
        except Exception as exc:
            r.http_failures.append(f"{method} {path[:100]}: {exc!r}"[:300])
            return
        r.requests += 1
        r.statuses[status] += 1
        if status >= 500:
            r.http_5xx += 1
            r.note(f"HTTP {status} for {method} {path[:120]} {(body or b'')[:120]!r}")
        if path.startswith("/api/") and method != "HEAD":
            try:
                data = json.loads(raw)
                good = ctype.startswith("application/json") and (
                    status < 400 or set(data.get("error", {})) == {"code", "reason"}
                )
            except ValueError:
                good = "ndjson" in ctype and status == 200
            if not good:
                r.http_not_json += 1
                r.note(f"not the JSON body: {status} {ctype} {method} {path[:100]} {raw[:100]!r}")

    def sweep_routes(
        self,
        ids: list[int],
        codes: list[str],
        values: tuple[str, ...] = ROUTE_VALUES,
        cookies: tuple[str | None, ...] = (None,),
        threads: int = 4,
        methods: tuple[str, ...] = ROUTE_METHODS,
    ) -> dict[str, Any]:
        """Every route of every urls.py (:func:`routes`), each parameter replaced by each of
        :data:`ROUTE_VALUES`, by each of ``methods`` (POST with a junk JSON body): no answer
        may be 5xx, and under ``/api/`` every answer is JSON (counted with the other
        requests)."""
        templates = routes()
        jobs = [
            (method, path, cookie)
            for t in templates
            for path in route_paths(t, ids, codes, values)
            for method in methods
            for cookie in cookies
        ]
        statuses: Counter[int] = Counter()
        fives = 0

        def one(job: tuple[str, str, str | None]) -> int | None:
            method, path, cookie = job
            body = b'{"kind": "teeko", "seats": 2, "x": "\\u0000"}' if method == "POST" else None
            headers = {"Cookie": cookie} if cookie else {}
            try:
                status, _c, _raw = _http(self.base, method, path, body, headers, timeout=60)
            except Exception as exc:
                self.report.http_failures.append(f"{method} {path[:100]}: {exc!r}"[:300])
                return None
            if status >= 500:
                self.report.note(f"HTTP {status} for {method} {path[:120]} (route sweep)")
            return status

        with ThreadPoolExecutor(threads) as pool:
            for status in pool.map(one, jobs):
                if status is not None:
                    statuses[status] += 1
                    fives += status >= 500
        return {
            "routes": len(templates),
            "as_admin": any(cookies),
            "requests": sum(statuses.values()),
            "5xx": fives,
            "statuses": dict(sorted(statuses.items())),
        }

    def run_http(
        self, plans: list[dict[str, Any]], ids: list[int], codes: list[str], threads: int = 4
    ) -> None:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(lambda p: self.request(p, ids, codes), plans))

    # ------------------------------------------------------------------ checks

    def check_logs(self) -> dict[str, int]:
        """Each table's events: start + what its valid commands appended (and a good chain)."""
        junk_events = bad_chains = 0
        for t in self.report.tables:
            v = _json(self.base, "GET", f"/api/games/{t.gid}/verify/")
            expected = t.start_seq + t.valid_appended
            junk_events += abs(int(v["events"]) - expected)
            if int(v["events"]) != expected:
                self.report.note(f"game {t.gid}: {v['events']} events, expected {expected}")
            bad_chains += not v["ok"]
        return {"junk_events": junk_events, "bad_chains": bad_chains}

    async def alive(self) -> bool:
        status, _c, raw = await asyncio.to_thread(_http, self.base, "GET", "/healthz")
        if status != 200:
            self.report.note(f"healthz {status} {raw[:200]!r}")
            return False
        table = await self.new_table(0)
        self.report.tables.remove(table)
        ok = await self.valid_move(table)
        await self.close_table(table)
        return ok


def _latin1(s: str) -> str:
    """A header value http.client and daphne take as one (printable Latin-1): malformed
    HTTP itself is refused by twisted before the application sees it."""
    return "".join(c if c.isprintable() and ord(c) < 256 else "?" for c in s)


def routes() -> list[str]:
    """Every route of every ``urls.py``: the root URLconf resolved recursively (the admin's,
    the leagues', the games', the pages'), each a template like ``api/games/<id:game_id>/``
    (regex routes made into one: a named group with alternatives takes the first)."""
    import re

    import django
    from django.conf import settings

    if not settings.configured:
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
        django.setup()
    from django.urls import URLPattern, URLResolver, get_resolver
    from django.urls.resolvers import RegexPattern

    def text(pattern: Any) -> str:
        raw = str(pattern)
        if not isinstance(pattern, RegexPattern):
            return raw
        raw = raw.lstrip("^").rstrip("$").replace("\\Z", "").replace("\\.", ".")
        return re.sub(
            r"\(\?P<(\w+)>([^)]*)\)",
            lambda m: m.group(2).split("|")[0] if "|" in m.group(2) else f"<str:{m.group(1)}>",
            raw,
        )

    out: list[str] = []

    def walk(patterns: Any, prefix: str) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, prefix + text(p.pattern))
            elif isinstance(p, URLPattern):
                out.append(prefix + text(p.pattern))

    walk(get_resolver().url_patterns, "")
    return list(dict.fromkeys(out))


def admin_session() -> str:
    """A session cookie of a superuser made for the run (``fuzz-admin``), written straight
    into the server's database: the sweep then reaches the admin's pages too (they need
    the server's secret key, which every process of an install reads from ``var/``)."""
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore

    User = get_user_model()
    user = User.objects.filter(username="fuzz-admin").first()
    if user is None:
        user = User.objects.create_superuser("fuzz-admin", password=None)
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return f"sessionid={session.session_key}"


def route_paths(
    template: str, ids: list[int], codes: list[str], values: tuple[str, ...] = ROUTE_VALUES
) -> list[str]:
    """The paths of the sweep for one route: each parameter replaced by each of
    :data:`ROUTE_VALUES` (a route without parameters: itself)."""
    import re

    params = re.findall(r"<(?:(\w+):)?(\w+)>", template)
    if not params:
        return ["/" + template]
    out = []
    for i, v in enumerate(values):
        if v == "real":
            v = str(ids[i % len(ids)])

        def value(m: re.Match[str], v: str = v) -> str:  # (the text as it is: no escapes)
            return v

        out.append("/" + re.sub(r"<(?:\w+:)?(\w+)>", value, template))
        if "code" in template and codes:
            out.append("/" + re.sub(r"<(?:\w+:)?(\w+)>", codes[0], template))
    return list(dict.fromkeys(out))


def fuzz(
    base: str,
    frames: int,
    requests: int,
    games: int,
    seed: int,
    junk_per_move: int = 20,
    workers: int = 2,
    log: Any = print,
    route_values: tuple[str, ...] = ROUTE_VALUES,
    admin_cookie: str | None = None,
    route_methods: tuple[str, ...] = ROUTE_METHODS,
) -> dict[str, Any]:
    """Run the fuzz against ``base``; returns the figures (see the module doc)."""
    report = Report()
    n_junk = frames - frames // (junk_per_move + 1) + 1
    batch = 500
    pool: Any = ProcessPoolExecutor(workers) if workers else ThreadPoolExecutor(1)
    with pool:
        frame_batches = [
            pool.submit(draw_plans, "frame", min(batch, n_junk - i), seed * 7919 + i)
            for i in range(0, n_junk, batch)
        ]
        request_batches = [
            pool.submit(draw_plans, "request", min(batch, requests - i), seed * 104729 + i)
            for i in range(0, requests, batch)
        ]
        fz = Fuzzer(base, report, seed, log)
        t1 = time.perf_counter()
        asyncio.run(fz.run_sockets(frames, games, frame_batches, junk_per_move))
        t_ws = time.perf_counter() - t1
        log(
            f"sockets: {report.frames} frames ({report.junk} junk, {report.valid} valid "
            f"commands) in {t_ws:.1f} s, {report.frames / max(t_ws, 1e-9):.0f} frames/s "
            f"(junk generated by hypothesis meanwhile, {workers or 'no'} worker processes)"
        )
        for f in frame_batches:
            f.cancel()
        request_plans = [p for f in request_batches for p in f.result()]
    t2 = time.perf_counter()
    ids = [t.gid for t in report.tables] or [1]
    codes = [c for t in report.tables for c in t.codes][:40]  # (private: only from creating)
    fz.run_http(request_plans, ids, codes or ["AAAAAA"])
    t_http = time.perf_counter() - t2
    if requests:
        log(
            f"http: {report.requests} requests in {t_http:.1f} s, "
            f"{report.requests / max(t_http, 1e-9):.0f} requests/s"
        )
    t3 = time.perf_counter()
    cookies = (None, admin_cookie) if admin_cookie else (None,)
    who = ", anonymous and as an admin" if admin_cookie else ""
    swept = fz.sweep_routes(ids, codes or ["AAAAAA"], route_values, cookies,
                            methods=route_methods)
    t_routes = time.perf_counter() - t3
    log(
        f"routes: {swept['routes']} routes of every urls.py, {swept['requests']} requests "
        f"({', '.join(route_methods)} with junk parameters{who}) "
        f"in {t_routes:.1f} s, {swept['5xx']} x 5xx"
    )
    logs = fz.check_logs()
    alive = asyncio.run(fz.alive())
    out = {
        "frames": report.frames,
        "junk_frames": report.junk,
        "valid_commands": report.valid,
        "answered": report.answered,
        "unanswered": report.unanswered,
        "junk_accepted": report.junk_accepted,
        "junk_events": logs["junk_events"],
        "bad_chains": logs["bad_chains"],
        "valid_refused": dict(report.valid_refused),
        "wrong_answers": dict(report.wrong_answers),
        "server_error": report.codes["server_error"],
        "error_codes": dict(report.codes.most_common()),
        "plans": dict(report.plans),
        "oversize": report.oversize,
        "oversize_ok": report.oversize_ok,
        "tables": len(report.tables),
        "requests": report.requests,
        "http_statuses": dict(sorted(report.statuses.items())),
        "http_5xx": report.http_5xx,
        "http_not_json": report.http_not_json,
        "http_failures": len(report.http_failures),
        "routes": swept["routes"],
        "route_requests": swept["requests"],
        "route_5xx": swept["5xx"],
        "route_statuses": swept["statuses"],
        "alive": alive,
        "seconds": {"sockets": round(t_ws, 1), "http": round(t_http, 1),
                    "routes": round(t_routes, 1)},
        "examples": report.examples + report.http_failures[:5],
    }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.fuzz", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--frames", type=int, default=100_000, help="socket frames (100000)")
    p.add_argument("--requests", type=int, default=10_000, help="HTTP requests (10000)")
    p.add_argument("--games", type=int, default=12, help="tables played at once (12)")
    p.add_argument("--junk-per-move", type=int, default=20, help="junk frames per valid move")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--workers",
        type=int,
        default=2,
        help="processes generating the junk with hypothesis while it is sent (2)",
    )
    p.add_argument("--url", help="fuzz a running server (http://host:port); default: start one")
    args = p.parse_args(argv)

    import core

    print(
        f"gamenight fuzz — core {'compiled' if core.COMPILED else 'pure Python'}, "
        f"{os.cpu_count()} CPUs, python {sys.version.split()[0]}",
        flush=True,
    )
    from bench.loadbench import LocalServer

    os.environ.setdefault("GAMENIGHT_BOT_TIME_LIMIT", "0.5")  # (bot seats made by junk HTTP)
    server = contextlib.nullcontext(args.url) if args.url else LocalServer("gamenight_fuzz")
    with server as bases:
        base = bases[0] if isinstance(bases, list) else bases  # (LocalServer: one per process)
        pid = getattr(server, "pid", None) or next(iter(getattr(server, "pids", [])), None)
        print(f"server {base}" + (f" (daphne pid {pid}, started here)" if pid else ""), flush=True)
        out = fuzz(
            base,
            args.frames,
            args.requests,
            args.games,
            args.seed,
            args.junk_per_move,
            args.workers,
            log=lambda m: print(m, flush=True),
            admin_cookie=None if args.url else admin_session(),
        )
        proc = getattr(server, "proc", None)
        out["daphne_running"] = proc is None or proc.poll() is None
    print(json.dumps(out, indent=1, default=str))
    failed = (
        out["unanswered"]
        or out["junk_accepted"]
        or out["junk_events"]
        or out["http_5xx"]
        or out["route_5xx"]
        or out["http_not_json"]
        or out["server_error"]
        or out["bad_chains"]
        or not out["alive"]
        or out["oversize_ok"] != out["oversize"]
        or not out["daphne_running"]
    )
    print(
        "RESULT: "
        + (
            "FAILED"
            if failed
            else "ok: 0 events appended by junk, 0 unanswered, 0 5xx, server alive"
        ),
        flush=True,
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
