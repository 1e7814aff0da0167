"""Helpers for the server tests: playing games through the core, socket clients."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from random import Random
from typing import Any

from leaks import strings_in as strings_in  # re-exported for the server tests

import core
from core.api import META_COMMANDS

HTTP_TIMEOUT = 60.0
"""How long a test's HTTP request to a daphne under test may take (only a hang)."""


# -- HTTP to a real daphne (the ``daphne_server`` fixture's ``.http``) ---------------------

def http(server: Any, method: str, path: str, data: Any = None,
         **headers: str) -> tuple[int, Any]:
    """``method path`` with ``data`` as JSON; (status, the JSON body, or the raw bytes of a
    body that is not JSON). An error status is answered, not raised."""
    req = urllib.request.Request(
        server.http + path, method=method,
        data=json.dumps(data).encode() if data is not None else None,
        headers={"Content-Type": "application/json", **headers},
    )
    try:
        with urllib.request.urlopen(req, timeout=HTTP_TIMEOUT) as r:
            raw, ctype, status = r.read(), r.headers.get("Content-Type", ""), r.status
    except urllib.error.HTTPError as err:
        raw, ctype, status = err.read(), err.headers.get("Content-Type", ""), err.code
    return status, json.loads(raw) if "json" in ctype else raw


def get_json(server: Any, path: str, **headers: str) -> Any:
    """The JSON of ``GET path`` (an error status fails the test, saying it)."""
    status, body = http(server, "GET", path, **headers)
    assert status == 200, (path, status, body)
    return body


def post_json(server: Any, path: str, data: Any, **headers: str) -> Any:
    """The JSON of ``POST path`` with ``data`` (an error status fails the test)."""
    status, body = http(server, "POST", path, data, **headers)
    assert status in (200, 201), (path, status, body)
    return body


def client_post(client: Any, url: str, data: Any = None, raw: Any = None, **headers: str) -> Any:
    """Django's test ``client`` posts ``data`` as JSON (or ``raw`` as it is) to ``url``."""
    body = raw if raw is not None else json.dumps(data if data is not None else {})
    return client.post(url, data=body, content_type="application/json", headers=headers)


SEND_TIMEOUT = 60.0
"""How long a test waits for a frame it expects: only a hang takes this long (a loaded machine
took over 10 s for a bot's move and over 1 s for channels' default connect timeout)."""


def seat_code(game: dict[str, Any], seat: int) -> str:
    """The code of seat ``seat`` (0-based) of ``game``, a game's JSON as the server gives it
    to the table's creator, its organiser or a seat holder (each seat has its own random
    code: docs/protocol.md, "Private tables"); fails when the answer carries none."""
    code = game["seats"][seat]["code"]
    assert isinstance(code, str) and code, f"no code for seat {seat} in this answer: {game}"
    return code


def core_ready(kind: str) -> str | None:
    """None when the kind's rules core is implemented, else why a test must skip."""
    game = core.GAMES[kind]
    try:
        opts = game.options({})
        state = game.initial()
        for ev in game.start(opts, Random(0)):
            state = game.evolve(state, ev)
        game.to_act(state)
    except NotImplementedError:
        return f"core/{kind}.py is still a placeholder"
    return None


def pick_move(legal: list[dict[str, Any]], rng: Random) -> dict[str, Any]:
    """A random legal command, never a meta command (resign, draw...) unless it is all."""
    moves = [c for c in legal if c["type"] not in META_COMMANDS]
    return rng.choice(moves or legal)


def finish(game_id: int, seed: int = 1) -> None:
    """Play game ``game_id`` to its end through the store, random legal moves by whoever is
    to act (sync: call it where the ORM may be used)."""
    from server.games import append, cache

    rng = Random(seed)
    while True:
        e = cache.entry(game_id)
        if e.game.outcome(e.state) is not None:
            return
        seat = rng.choice(e.game.to_act(e.state))
        append.submit(game_id, seat, pick_move(e.game.legal_commands(e.state, seat), rng), e.seq)


class Client:
    """A game-socket client over any transport with async ``send(str)`` / ``recv() -> str``.

    Keeps every frame received, the seq reached (checking order: no gaps, no duplicates) and
    the latest view / legal commands / outcome."""

    def __init__(self, send: Any, recv: Any, name: str = "") -> None:
        self._send = send
        self._recv = recv
        self.name = name
        self.frames: list[dict[str, Any]] = []
        self.seq = 0
        self.view: Any = None
        self.legal: list[dict[str, Any]] = []
        self.to_act: list[int] = []
        self.outcome: Any = None
        self.finished: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.backlog: list[dict[str, Any]] = []

    async def send(self, msg: Any) -> None:
        await self._send(msg if isinstance(msg, str) else json.dumps(msg))

    async def recv(self, timeout: float = SEND_TIMEOUT) -> dict[str, Any]:
        if self.backlog:
            return self.backlog.pop(0)
        text = await asyncio.wait_for(self._recv(), timeout)
        frame = json.loads(text)
        self._absorb(frame)
        return frame

    def _absorb(self, frame: dict[str, Any]) -> None:
        self.frames.append(frame)
        t = frame.get("type")
        if t == "events":
            evs = frame["events"]
            if evs:
                assert frame["from"] == self.seq + 1, (
                    f"{self.name}: gap/dup {frame['from']} after {self.seq}"
                )
                for i, rec in enumerate(evs):
                    assert rec["seq"] == frame["from"] + i
                self.events.extend(evs)
                self.seq = frame["to"]
            if "view" in frame:
                self.view = frame["view"]
                self.legal = frame["legal"]
                self.to_act = frame["to_act"]
                self.outcome = frame["outcome"]
        elif t == "finished":
            self.finished = frame
        elif t == "error":
            self.errors.append(frame)

    async def until(self, pred: Any, timeout: float = SEND_TIMEOUT) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            frame = await self.recv(max(0.01, end - loop.time()))
            if pred(frame):
                return frame

    async def hello(
        self, seat: int | None = None, last_seq: int = 0, **cred: Any
    ) -> dict[str, Any]:
        msg: dict[str, Any] = {"type": "hello", "last_seq": last_seq, **cred}
        if seat is not None:
            msg["seat"] = seat
        self.seq = last_seq
        await self.send(msg)
        welcome = await self.until(lambda f: f["type"] in ("welcome", "error"))
        if welcome["type"] == "welcome":
            await self.until(lambda f: f["type"] == "events" and "view" in f)
        return welcome

    async def sync_to(self, seq: int, timeout: float = SEND_TIMEOUT) -> None:
        """Read frames until this client has seen event ``seq`` (with its view)."""
        if self.seq >= seq and self.view is not None:
            return
        await self.until(
            lambda f: f["type"] == "events" and self.seq >= seq and "view" in f, timeout
        )

    async def command(
        self, command: Any, expected_seq: int | None = None, ref: Any = None
    ) -> dict[str, Any]:
        """Send a command with a ref; return the ``ok`` or ``error`` answer to it."""
        ref = ref if ref is not None else f"r{len(self.frames)}-{id(command) % 9999}"
        await self.send(
            {
                "type": "command",
                "command": command,
                "expected_seq": self.seq if expected_seq is None else expected_seq,
                "ref": ref,
            }
        )
        return await self.until(lambda f: f["type"] in ("ok", "error") and f.get("ref") == ref)

    async def drain(self, quiet: float = 0.2) -> None:
        """Read whatever arrives until nothing comes for ``quiet`` seconds."""
        while True:
            try:
                await self.recv(quiet)
            except TimeoutError:
                return


class Closed(Exception):
    """The server closed the socket."""

    def __init__(self, code: Any) -> None:
        super().__init__(f"closed with code {code}")
        self.code = code


async def communicator(game_id: int, name: str = "", origin: bytes = b"http://localhost") -> Client:
    """A :class:`Client` on a channels WebsocketCommunicator against server.asgi.application.
    (Reads the output queue directly: the communicator's own receive timeout would cancel
    the application.)"""
    from channels.testing import WebsocketCommunicator

    from server.asgi import application

    comm = WebsocketCommunicator(
        application, f"/ws/games/{game_id}/", headers=[(b"origin", origin), (b"host", b"localhost")]
    )
    connected, _ = await comm.connect(SEND_TIMEOUT)
    assert connected

    async def recv() -> str:
        msg = await comm.output_queue.get()
        if msg["type"] == "websocket.close":
            raise Closed(msg.get("code"))
        return str(msg.get("text"))

    client = Client(comm.send_to, recv, name)
    client.comm = comm  # type: ignore[attr-defined]
    return client


async def close_all(clients: list[Client]) -> None:
    for c in clients:
        comm = getattr(c, "comm", None)
        if comm is not None:
            try:
                await comm.disconnect(timeout=SEND_TIMEOUT)
            except Exception:
                pass
        ws = getattr(c, "ws", None)
        if ws is not None:
            await ws.close()


async def sync_all(clients: list[Client], timeout: float = SEND_TIMEOUT) -> int:
    head = max(c.seq for c in clients)
    for c in clients:
        await c.sync_to(head, timeout)
    return head


async def play_out(
    players: dict[int, Client],
    watchers: list[Client],
    rng: Random,
    *,
    max_commands: int = 20000,
    timeout: float = SEND_TIMEOUT,
    after_each: Any = None,
) -> dict[str, Any]:
    """Play random legal moves for the seats in ``players`` until the game ends (other seats
    are bots on the server). Every client stays in step; returns the outcome."""
    everyone = [*players.values(), *watchers]
    sent = 0
    while True:
        await sync_all(everyone, timeout)
        if after_each is not None:
            await after_each()
        ref = next(iter(players.values()))
        if ref.outcome is not None:
            for c in everyone:
                if c.finished is None:
                    await c.until(lambda f: f["type"] == "finished", timeout)
            return ref.outcome
        # each client's own to_act: who is waited for can be a secret (Teka's throw-in
        # question shows only to the seat asked), so one seat's list is not everyone's
        mine = sorted({s for s, c in players.items() if s in c.to_act})
        if not mine:  # a bot's turn: wait for it
            before = ref.seq
            await ref.until(lambda f, r=ref, b=before: f["type"] == "events" and r.seq > b, timeout)
            continue
        seat = rng.choice(mine)
        c = players[seat]
        answer = await c.command(pick_move(c.legal, rng))
        sent += 1
        assert sent <= max_commands, "game does not end"
        if answer["type"] == "error":
            assert answer["code"] == "stale", answer


# --------------------------------------------------------------------------- envelopes


def check_record(game: Any, log: list[Any], rec: dict[str, Any], viewer: int) -> None:
    """A record ``{"seq", "seat", "event"}`` as ``viewer`` got it, against the log's
    ``(seq, seat, event)``: exactly these keys; the event as the core redacts it for the
    viewer; the envelope's seat that of the log unless the redacted event hides which seat it
    names (then ``None``: Teka's ``keep``)."""
    assert set(rec) == {"seq", "seat", "event"}, rec
    seq, seat, event = log[rec["seq"] - 1]
    assert rec["seq"] == seq
    body = game.redact(event, viewer)
    assert rec["event"] == json.loads(json.dumps(body)), (viewer, rec, body)
    hidden = "seat" in event and body.get("seat") != event["seat"]
    expected = None if hidden else seat
    assert rec["seat"] == expected, (
        f"viewer {viewer}: record {seq} ({event['type']}) has seat {rec['seat']}; "
        f"the event it carries shows {expected}"
    )


def check_frames(
    game: Any, log: list[Any], states: list[Any], viewer: int, marks: list[Any]
) -> int:
    """Every frame one connection of ``viewer`` received, with the seq it had reached when
    the frame came (``marks``: [(seq, frame)]); ``states[q]`` is the state after event q.
    Records: see :func:`check_record`; ``to_act`` as the core shows it to the viewer; a
    ``bot`` frame only for a seat the viewer may know is deciding (at the frame's ``seq``);
    a ``presence`` frame's ``to_act`` what a spectator may see at some state the server had
    reached. Returns the number of frames checked."""
    from core.api import SPECTATOR

    n = 0
    for seq, frame in marks:
        t = frame.get("type")
        if t == "events":
            for rec in frame["events"]:
                check_record(game, log, rec, viewer)
            if "view" in frame:
                shown = game.visible_to_act(states[frame["to"]], viewer)
                assert frame["to_act"] == shown, (viewer, frame["to"], frame["to_act"], shown)
                if isinstance(frame["view"], dict) and "to_act" in frame["view"]:
                    assert frame["view"]["to_act"] == shown
        elif t == "bot":
            at = frame.get("seq", seq)
            assert frame["seat"] in game.visible_to_act(states[at], viewer), (
                f"viewer {viewer} was told seat {frame['seat']} is deciding at seq {at}, "
                "which it may not know"
            )
        elif t == "presence":
            assert any(
                frame["to_act"] == game.visible_to_act(states[q], SPECTATOR)
                for q in range(min(seq, len(states) - 1), len(states))
            ), (viewer, seq, frame["to_act"])
        elif t not in ("welcome", "ok", "error", "pong", "finished"):
            raise AssertionError(f"unexpected frame type {t!r}")
        n += 1
    return n
