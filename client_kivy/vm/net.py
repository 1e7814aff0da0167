"""Network client for a gamenight server, following docs/protocol.md (no Kivy).

* :class:`Api` — the HTTP API (login, kinds, games, create, join, state, log).
* :class:`GameSocket` — one game's WebSocket in a background thread: says ``hello`` with the
  last ``seq`` it has, hands every frame to ``on_frame`` (through ``post``), reconnects by
  itself with back-off and catches up from the last sequence number.
* :class:`RemoteSession` — a :class:`~client_kivy.vm.session.Session` over a socket: the
  game screen draws it exactly like a local game.
"""

from __future__ import annotations

import json
import os
import platform
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

from client_kivy.vm.session import Post, Session

Obj = dict[str, Any]


def user_agent() -> str:
    """What the app calls itself to the server (``gamenight-app/<version> (<system>)``): the
    server lists the login as "gamenight app ... on <system>" among the user's sessions."""
    system = "Android" if "ANDROID_ARGUMENT" in os.environ else (platform.system() or "unknown")
    return f"gamenight-app/0.1 ({system})"


USER_AGENT = user_agent()


def unreachable_text(base: str, reason: Any) -> str:
    """Why a server cannot be reached, in words a player can act on (not "[Errno 111]")."""
    import errno
    import socket

    where = base.replace("http://", "").replace("https://", "").rstrip("/")
    code = getattr(reason, "errno", None)
    if isinstance(reason, socket.gaierror):
        return f"No computer is called {where.split(':')[0]}: check the address"
    if isinstance(reason, (TimeoutError, socket.timeout)) or code == errno.ETIMEDOUT:
        return f"No answer from {where}: is this tablet on the same Wi-Fi as the server?"
    if code == errno.ECONNREFUSED:
        return f"Nothing answers at {where}: is the server running, on that port?"
    if code in (errno.ENETUNREACH, errno.EHOSTUNREACH):
        return f"Cannot reach {where}: is this tablet on the same network as the server?"
    text = str(getattr(reason, "strerror", None) or reason)
    return f"Cannot reach {where}: {text}"


class ApiError(Exception):
    def __init__(self, code: str, reason: str, status: int = 0) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.status = status


def normalise_address(address: str) -> str:
    """``192.168.1.5:8000`` -> ``http://192.168.1.5:8000`` (no trailing slash)."""
    a = address.strip().rstrip("/")
    if not a:
        raise ApiError("bad_address", "type the server's address, e.g. 192.168.1.20:8000")
    if "://" not in a:
        a = "http://" + a
    return a


class Api:
    def __init__(self, base: str, token: str = "", timeout: float = 8.0) -> None:
        self.base = normalise_address(base)
        self.token = token
        self.timeout = timeout

    @property
    def ws_base(self) -> str:
        if self.base.startswith("https://"):
            return "wss://" + self.base[len("https://"):]
        return "ws://" + self.base[len("http://"):]

    def request(self, method: str, path: str, body: Any = None,
                params: dict[str, Any] | None = None, raw: bool = False) -> Any:
        url = self.base + path
        if params:
            q = {k: v for k, v in params.items() if v is not None}
            if q:
                url += "?" + urllib.parse.urlencode(q)
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method)
        req.add_header("Accept", "application/json")
        req.add_header("User-Agent", USER_AGENT)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", f"Token {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                text = resp.read().decode("utf-8")
        except urllib.error.HTTPError as e:
            try:
                err = json.loads(e.read().decode("utf-8"))["error"]
                code, reason = err.get("code", "error"), err.get("reason", str(e))
                raise ApiError(code, reason, e.code) from None
            except (ValueError, KeyError, TypeError):
                raise ApiError("http", f"server answered {e.code}", e.code) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise ApiError("unreachable", unreachable_text(self.base, reason)) from None
        if raw:
            return text
        return json.loads(text) if text else None

    # -- endpoints ---------------------------------------------------------------------------
    def login(self, username: str, password: str) -> Obj:
        out: Obj = self.request("POST", "/api/login", {"username": username,
                                                      "password": password})
        self.token = out["token"]
        return out

    def logout(self) -> None:
        """Revoke this app's token at the server (best effort: offline, it simply runs out)
        and forget it."""
        if not self.token:
            return
        try:
            self.request("POST", "/api/logout/", {})
        except Exception:  # (best effort: unreachable, refused, or no JSON: it runs out)
            pass
        finally:
            self.token = ""

    def me(self) -> Obj:
        return dict(self.request("GET", "/api/me/"))

    def kinds(self) -> list[Obj]:
        return list(self.request("GET", "/api/kinds/")["kinds"])

    def games(self, status: str | None = None, kind: str | None = None,
              limit: int = 50) -> list[Obj]:
        return list(self.request("GET", "/api/games/",
                                 params={"status": status, "kind": kind, "limit": limit})["games"])

    def game(self, game_id: int, seat: int | None = None, secret: str = "") -> Obj:
        """The game; its seat codes too for the organiser (the login) or, with ``seat`` and
        its guest ``secret``, a seat holder (docs/protocol.md, "Private tables")."""
        params: Obj = {"seat": seat, "secret": secret or None} if seat is not None else {}
        return dict(self.request("GET", f"/api/games/{game_id}/", params=params))

    def by_code(self, code: str) -> Obj:
        return dict(self.request("GET", f"/api/codes/{code.strip().upper()}/"))

    def create(self, kind: str, options: Obj, seats: list[Obj],
               join: Obj | None = None, table: Obj | None = None, public: bool = False) -> Obj:
        """``table``: time rules, e.g. ``{"move_limit": 30, "abandon": 120}`` (protocol.md);
        ``public``: listed to everyone (else private: joined with its seats' codes)."""
        body: Obj = {"kind": kind, "options": options, "seats": seats}
        if public:
            body["public"] = True
        if join is not None:
            body["join"] = join
        if table is not None:
            body["table"] = table
        return dict(self.request("POST", "/api/games/", body))

    def join(self, game_id: int, seat: int | None = None, name: str = "") -> Obj:
        body: Obj = {"name": name} if name else {}
        if seat is not None:
            body["seat"] = seat
        return dict(self.request("POST", f"/api/games/{game_id}/join/", body))

    def join_code(self, code: str, name: str = "", seat: int | None = None) -> Obj:
        body: Obj = {"code": code.strip()}
        if name:
            body["name"] = name
        if seat is not None:
            body["seat"] = seat
        return dict(self.request("POST", "/api/join/", body))

    def state(self, game_id: int, seq: int | None = None, seat: int | None = None,
              secret: str = "", events: bool = False) -> Obj:
        params: Obj = {"seq": seq, "seat": seat, "secret": secret or None,
                       "events": 1 if events else None}
        return dict(self.request("GET", f"/api/games/{game_id}/state/", params=params))

    def log(self, game_id: int, seat: int | None = None, secret: str = "") -> tuple[Obj, list[Obj]]:
        """The header and the event records of a game's log."""
        text = self.request("GET", f"/api/games/{game_id}/log/", raw=True,
                            params={"seat": seat, "secret": secret or None})
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
        return lines[0], lines[1:]

    def analysis(self, game_id: int, watch: bool = False) -> Obj:
        """A finished game's analysis; for Teka, while the server computes it, ``{"state":
        "computing", "progress": "hand 3 of 9", ...}`` or ``{"state": "queued", "position":
        2, ...}`` (docs/protocol.md). ``watch``: the replay is open on this screen (the
        server analyses watched matches first)."""
        return dict(self.request("GET", f"/api/games/{game_id}/analysis/",
                                 params={"watch": 1 if watch else None}))

    # -- seats on phones, the organiser, rematch (protocol.md, "Seats on phones") ----------
    def release_seat(self, game_id: int, seat: int, credential: Obj | None = None) -> Obj:
        """Hand seat index ``seat`` to another phone (the organiser)."""
        return dict(self.request("POST", f"/api/games/{game_id}/seats/{seat}/release/",
                                 dict(credential or {})) or {})

    def seat_to_bot(self, game_id: int, seat: int, level: str,
                    credential: Obj | None = None) -> Obj:
        """Hand seat index ``seat`` to a server bot at ``level`` (the organiser)."""
        return dict(self.request("POST", f"/api/games/{game_id}/seats/{seat}/bot/",
                                 {"level": level, **(credential or {})}) or {})

    def rematch(self, game_id: int, seat: int | None = None, secret: str = "") -> Obj:
        """The rematch of a finished game (made once, the same for every caller); with a
        seat's credential, that seat's new secret comes back too."""
        body: Obj = {}
        if seat is not None:
            body["seat"] = seat
        if secret:
            body["secret"] = secret
        return dict(self.request("POST", f"/api/games/{game_id}/rematch/", body))


class GameSocket:
    """One game's socket in a thread; reconnects and resumes from ``last_seq``."""

    def __init__(self, api: Api, game_id: int, seat: int | None, secret: str,
                 on_frame: Callable[[Obj], None], on_state: Callable[[str], None],
                 last_seq: Callable[[], int]) -> None:
        self.api = api
        self.game_id = game_id
        self.seat = seat
        self.secret = secret
        self.on_frame = on_frame
        self.on_state = on_state
        self.last_seq = last_seq
        self._ws: Any = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=f"ws-game-{game_id}")
        self.connected = False
        self.retry_delay = 0.5

    def start(self) -> None:
        self._thread.start()

    def hello(self) -> Obj:
        msg: Obj = {"type": "hello", "last_seq": self.last_seq()}
        if self.seat is not None and self.seat >= 0:
            msg["seat"] = self.seat
            if self.secret:
                msg["secret"] = self.secret
            elif self.api.token:
                msg["token"] = self.api.token
        return msg

    def _run(self) -> None:
        from websockets.sync.client import connect

        delay = self.retry_delay
        while not self._stop.is_set():
            self.on_state("connecting")
            try:
                ws = connect(f"{self.api.ws_base}/ws/games/{self.game_id}/", open_timeout=5,
                             close_timeout=1)
            except Exception:
                self.on_state("offline")
                if self._stop.wait(delay):
                    break
                delay = min(delay * 2, 5.0)
                continue
            try:
                with ws:
                    with self._lock:
                        self._ws = ws
                    ws.send(json.dumps(self.hello()))
                    self.connected = True
                    delay = self.retry_delay
                    for text in ws:
                        try:
                            frame = json.loads(text)
                        except ValueError:
                            continue
                        if isinstance(frame, dict):
                            self.on_frame(frame)
            except Exception:
                pass
            finally:
                self.connected = False
                with self._lock:
                    self._ws = None
            if not self._stop.is_set():
                self.on_state("offline")
                if self._stop.wait(delay):
                    break
                delay = min(delay * 2, 5.0)

    def send(self, message: Obj) -> bool:
        with self._lock:
            ws = self._ws
        if ws is None:
            return False
        try:
            ws.send(json.dumps(message))
            return True
        except Exception:
            return False

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            ws = self._ws
        if ws is not None:
            try:
                ws.close()
            except Exception:
                pass


class RemoteSession(Session):
    """A game on the server, as a seat holder or a spectator."""

    kind = "remote"

    def __init__(self, api: Api, game: Obj, seat: int | None = None, secret: str = "",
                 post: Post | None = None, socket_factory: Any = GameSocket) -> None:
        super().__init__(str(game["kind"]))
        self.api = api
        self.game_id = int(game["id"])
        self.code = str(game.get("code", ""))
        self.seat = seat
        self.secret = secret
        self.post = post or (lambda fn: fn())
        self.seq = 0
        self.records: list[Obj] = []
        self.viewer = seat if seat is not None else -1
        self.players = [seat_player(s) for s in game.get("seats", [])]
        self.spectators = 0
        self.status = str(game.get("status", ""))
        self._ref = 0
        self._pending: dict[int, Obj] = {}
        self._resend: Obj | None = None
        # the table's time rules and clocks as of the last frame (protocol.md, "Time rules")
        self.clock: Obj | None = None
        self.clock_at = 0.0
        self.presence_at = 0.0  # when the last presence frame came (its "away" counts on)
        self.seat_info: list[Obj] = list(game.get("seats") or [])
        """The seats as the server last sent them (kind open/guest/user/bot, taken...)."""
        self.rematch_game: int | None = None
        """The new game's id once the server says a rematch of this one was made."""
        self.connection = "connecting"
        self.socket = socket_factory(api, self.game_id, seat, secret,
                                     on_frame=lambda f: self.post(lambda: self.handle(f)),
                                     on_state=lambda s: self.post(lambda: self._conn(s)),
                                     last_seq=lambda: self.seq)

    def share_url(self) -> str | None:
        return f"{self.api.base}/games/{self.game_id}/"

    def start(self) -> None:
        self.socket.start()
        self.notify()

    def close(self) -> None:
        super().close()
        self.socket.close()

    # -- frames -------------------------------------------------------------------------------
    def _conn(self, state: str) -> None:
        if self.connection == "released":
            return
        # "Connecting..." is only the first attempt: a retry after a drop stays
        # "Reconnecting..." (offline) until the server's welcome says we are back
        if state == "connecting" and self.connection in ("online", "spectating", "offline"):
            return
        self.connection = state
        if state == "offline":
            self.thinking = False
        self.notify()

    def handle(self, frame: Obj) -> None:
        t = frame.get("type")
        if t == "welcome":
            self.connection = "online" if self.seat is not None and self.seat >= 0 else "spectating"
            self.viewer = int(frame.get("viewer", self.viewer))
            self.players = [seat_player(s) for s in frame.get("seats", [])] or self.players
            self.seat_info = list(frame.get("seats") or self.seat_info)
            self.code = str(frame.get("code", self.code))
            self.status = str(frame.get("status", self.status))
            self.message = ""
        elif t == "events":
            evs = frame.get("events", [])
            for rec in evs:
                if int(rec["seq"]) == self.seq + 1:
                    self.records.append(rec)
                    self.events.append(rec["event"])
                    self.seq = int(rec["seq"])
            if frame.get("to") is not None:
                self.seq = max(self.seq, int(frame["to"]))
            if "view" in frame:
                self.view = frame["view"] or {}
                self.to_act = list(frame.get("to_act") or [])
                self.legal = list(frame.get("legal") or [])
                self.outcome = frame.get("outcome")
                self.clock = frame.get("clock")
                self.clock_at = time.monotonic()
                if evs or self.thinking_seat not in self.to_act:
                    self.thinking = False
                self._maybe_resend()
        elif t == "finished":
            self.outcome = frame.get("outcome")
            if frame.get("view"):
                self.view = frame["view"]
            self.legal = []
            self.to_act = []
            self.thinking = False
            self.status = "finished"
        elif t == "bot":
            seat = int(frame.get("seat", -1))
            if seat in self.to_act and self.outcome is None:  # a late frame is ignored
                self.thinking = True
                self.thinking_seat = seat
                self.progress = float(frame.get("progress", 0.0))
        elif t == "presence":
            seats = frame.get("seats") or []
            if seats:
                self.players = [seat_player(s) for s in seats]
                self.seat_info = list(seats)
                self.presence_at = time.monotonic()
            self.spectators = int(frame.get("spectators", 0))
        elif t == "seat_released":
            # the organiser handed this seat to another phone (or a bot): its secret is
            # revoked, the server closes the socket; reconnecting would be refused
            self.socket.close()
            self.connection = "released"
            self.legal = []
            self.to_act = []
            self.message = "This seat was handed over: " + str(
                frame.get("reason") or "another phone or a bot plays it now")
        elif t == "rematch" and isinstance(frame.get("game"), int):
            self.rematch_game = int(frame["game"])
        elif t == "ok":
            self._pending.pop(frame.get("ref", -1), None)
        elif t == "error":
            code = frame.get("code", "")
            ref = frame.get("ref")
            cmd = self._pending.pop(ref, None) if ref is not None else None
            if code == "stale" and cmd is not None:
                # the game moved on (Tedoku: someone else placed): try again once caught up;
                # the frames that catch up may already be here
                self._resend = cmd
                if self.seq >= int(frame.get("seq") or 0):
                    self._maybe_resend()
            else:
                self.message = refusal_text(code, frame.get("reason", ""))
        self.notify()

    def seconds_left(self, seat: int) -> float | None:
        """Seconds ``seat`` has left to act (its deadline, counted down from the last frame),
        or None: no time rule, or the seat is not waited for (as this viewer may know)."""
        if self.clock is None or self.outcome is not None:
            return None
        for d in self.clock.get("deadlines") or []:
            if d.get("seat") == seat:
                return max(0.0, float(d.get("ms", 0)) / 1000 - (time.monotonic() - self.clock_at))
        return None

    def replace_with_bot(self, seat: int) -> bool:
        """Ask the server to hand ``seat`` (its player gone longer than the table's
        ``abandon`` time) to a bot; a refusal comes back as ``message``."""
        return self.send({"type": "replace_with_bot", "seat": seat})

    def _maybe_resend(self) -> None:
        cmd, self._resend = self._resend, None
        if cmd is not None and cmd in self.legal:
            self.send(cmd)

    # -- commands ---------------------------------------------------------------------------
    def send(self, command: Obj) -> bool:
        if self.closed:
            return False
        if self.seat is None or self.seat < 0:
            self.message = "Spectators cannot play"
            self.notify()
            return False
        self._ref += 1
        self._pending[self._ref] = command
        ok = self.socket.send({"type": "command", "command": command,
                               "expected_seq": self.seq, "ref": self._ref})
        if not ok:
            self._pending.pop(self._ref, None)
            self.message = "Not connected: the move was not sent"
            self.notify()
            return False
        self.message = ""
        return True

    def status_text(self) -> str:
        if self.connection == "offline" and self.outcome is None:
            return "Connection lost: reconnecting..."
        if self.viewer < 0 and self.outcome is None and self.to_act and not self.thinking:
            return "Watching: " + ", ".join(self.player_name(s) for s in self.to_act) + " to play"
        return super().status_text()


def seat_player(s: Obj) -> Obj:
    kind = s.get("kind")
    name = s.get("name") or ("open seat" if kind == "open" else "")
    player: Obj = {"name": name, "kind": "bot" if kind == "bot" else "remote",
                   "level": s.get("bot_level") or "", "taken": s.get("taken", False),
                   "connected": s.get("connected"), "replaced": bool(s.get("replaced")),
                   "away": s.get("away")}
    if kind == "bot":
        player["name"] = name.split(" (")[0] if name else "Bot"
    return player


def refusal_text(code: str, reason: str) -> str:
    head = {"illegal": "Not allowed", "not_your_turn": "Not your turn",
            "game_over": "The game is over", "forbidden": "Not your seat",
            "stale": "The game moved on", "malformed": "Refused",
            "too_early": "Too early"}.get(code, "Refused")
    return f"{head}: {reason}" if reason else head


class KioskRemoteSession(Session):
    """Pass-and-play on one tablet for a game kept on the server: one socket per local
    person (each seat's guest secret), bots played by the server. The tablet shows the seat
    whose turn it is, with the same hand-off screen as a local game for hidden hands."""

    kind = "kiosk"

    def __init__(self, api: Api, game: Obj, secrets: dict[int, str], post: Post | None = None,
                 socket_factory: Any = GameSocket) -> None:
        super().__init__(str(game["kind"]))
        self.api = api
        self.game_id = int(game["id"])
        self.code = str(game.get("code", ""))
        self.post = post or (lambda fn: fn())
        self.seats: dict[int, RemoteSession] = {
            seat: RemoteSession(api, game, seat, secret, post=self.post,
                                socket_factory=socket_factory)
            for seat, secret in sorted(secrets.items())}
        self.humans = sorted(self.seats)
        self.primary = self.seats[self.humans[0]]
        self._last_viewer: int | None = None
        self.rematch_game: int | None = None
        self.players = list(self.primary.players)
        for s in self.seats.values():
            s.subscribe(self._changed)

    def human_seats(self) -> list[int]:
        return list(self.humans)

    def share_url(self) -> str | None:
        return self.primary.share_url()

    def player_name(self, seat: int) -> str:
        return self.primary.player_name(seat)

    def start(self) -> None:
        for s in self.seats.values():
            s.start()
        self.notify()

    def close(self) -> None:
        super().close()
        for s in self.seats.values():
            s.close()

    def _changed(self) -> None:
        from client_kivy.vm.session import HIDDEN_INFO_GAMES

        p = self.primary
        self.players = list(p.players)
        self.outcome = p.outcome
        self.events = p.events
        self.rematch_game = p.rematch_game
        states = [s.connection for s in self.seats.values()]
        self.connection = next((c for c in ("offline", "connecting") if c in states), "online")
        # each seat has its own socket: one may have heard of a move the other has not yet.
        # Only seats caught up with the newest event count, else a stale "your turn"
        # would hand the tablet over to someone who is no longer to act. Nobody counts
        # either until the primary, whose events and outcome the tablet shows, has heard it
        # too: else the tablet asks to be handed over for a move it does not show yet (East's
        # socket hears the hand's last card first: East to cut the next hand, the card unseen).
        newest = max(s.seq for s in self.seats.values())
        acting = [seat for seat, s in self.seats.items()
                  if seat in s.to_act and s.seq == newest and p.seq == newest]
        self.to_act = sorted(set(p.to_act) | set(acting))
        thinking = [s for s in self.seats.values() if s.thinking]
        self.thinking = bool(thinking)
        if thinking:
            self.thinking_seat, self.progress = thinking[0].thinking_seat, thinking[0].progress
        self.message = next((s.message for s in self.seats.values() if s.message), "")
        if acting:
            viewer = acting[0]
        elif self._last_viewer is not None:
            viewer = self._last_viewer
        else:
            viewer = self.humans[0]
        hidden = self.game_name in HIDDEN_INFO_GAMES and len(self.humans) > 1
        if self.outcome is not None:
            self.handoff = None
        elif hidden and acting and viewer != self._last_viewer:
            self.handoff = viewer
        # Before anyone is to act (the seats' sockets not yet caught up with each other) the
        # first person is only a guess: not remembered, so the first to act is handed the
        # tablet (before, under load, the guess was the first to act and no hand-off came),
        # and no hidden hand is shown meanwhile.
        guess = not acting and self._last_viewer is None
        self._last_viewer = None if guess else viewer
        self.viewer = viewer
        s = self.seats[viewer]
        covered = self.handoff is not None or (guess and hidden)
        self.view = {} if covered else s.view
        self.legal = [] if covered else s.legal
        self.notify()

    def confirm_handoff(self) -> None:
        self.handoff = None
        self._changed()

    def send(self, command: Obj) -> bool:
        if self.closed or self.handoff is not None:
            return False
        return self.seats[self.viewer].send(command)
