"""Online lobby state: the server connection, the lists of games, create / join / watch /
replay. Network calls run in worker threads; results come back through ``post``."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from client_kivy.vm.net import Api, ApiError, RemoteSession, seat_player
from client_kivy.vm.session import Post, ReplayModel, outcome_text, player_names
from core import upcast

Obj = dict[str, Any]


class Lobby:
    def __init__(self, settings: Any, post: Post | None = None, background: bool = True) -> None:
        self.settings = settings
        self.post: Post = post or (lambda fn: fn())
        self.background = background
        self.api: Api | None = None
        self.username = ""
        self.name = str(settings.get("name", "") or "")
        self.kinds: list[Obj] = []
        self.games: dict[str, list[Obj]] = {"open": [], "live": [], "finished": []}
        self.error = ""
        self.busy = False
        self._listeners: list[Callable[[], None]] = []

    # -- plumbing ---------------------------------------------------------------------------
    def subscribe(self, cb: Callable[[], None]) -> None:
        self._listeners.append(cb)

    def notify(self) -> None:
        for cb in list(self._listeners):
            cb()

    def _run(self, work: Callable[[], Any], done: Callable[[Any], None],
             failed: Callable[[ApiError], None] | None = None) -> None:
        self.busy = True
        self.error = ""
        self.notify()

        def finish(ok: bool, value: Any) -> None:
            self.busy = False
            if ok:
                done(value)
            else:
                self.error = value.reason
                if failed is not None:
                    failed(value)
            self.notify()

        def job() -> None:
            try:
                value = work()
                self.post(lambda: finish(True, value))
            except ApiError as e:
                api_err = e
                self.post(lambda: finish(False, api_err))
            except Exception as e:
                err = ApiError("error", f"{type(e).__name__}: {e}")
                self.post(lambda: finish(False, err))

        if self.background:
            threading.Thread(target=job, daemon=True).start()
        else:
            job()

    @property
    def connected(self) -> bool:
        return self.api is not None

    @property
    def who(self) -> str:
        return self.username or self.name or "Guest"

    # -- connect / log in ------------------------------------------------------------------
    def connect(self, address: str, name: str = "", username: str = "", password: str = "",
                done: Callable[[], None] | None = None) -> None:
        """Reach the server (log in if a username is given, else play as a guest)."""
        try:
            api = Api(address, token="")
        except ApiError as e:
            self.error = e.reason
            self.notify()
            return
        token = str(self.settings.get("token", "") or "")
        same_user = username and username == self.settings.get("username")

        def work() -> tuple[Api, list[Obj], str]:
            user = ""
            if username and password:
                user = api.login(username, password)["username"]
                if token and token != api.token:  # (the login it replaces: revoked)
                    Api(api.base, token=token, timeout=3).logout()
            elif same_user and token:
                api.token = token
                try:
                    user = api.me()["username"]
                except ApiError:
                    api.token = ""
            kinds = api.kinds()
            return api, kinds, user

        def ok(value: tuple[Api, list[Obj], str]) -> None:
            self.api, self.kinds, self.username = value
            self.name = name or self.username or self.name
            self.settings.set("server", self.api.base)
            self.settings.set("name", self.name)
            self.settings.set("username", self.username)
            self.settings.set("token", self.api.token)
            if done is not None:
                done()
            self.refresh()

        self._run(work, ok)

    def logout(self) -> None:
        """Log out: the token is forgotten at once and revoked at the server in the
        background (offline, it runs out by itself)."""
        api = self.api
        self.api = None
        self.username = ""
        self.settings.set("token", "")
        if api is not None and api.token:
            revoke = Api(api.base, token=api.token, timeout=3)
            if self.background:
                threading.Thread(target=revoke.logout, name="gamenight-logout",
                                 daemon=True).start()
            else:
                revoke.logout()

    # -- lists --------------------------------------------------------------------------------
    def refresh(self, done: Callable[[], None] | None = None) -> None:
        api = self.api
        if api is None:
            return

        def work() -> dict[str, list[Obj]]:
            lists = {s: api.games(status=s, limit=30) for s in ("open", "live", "finished")}
            # (a private table is on nobody's list: the tables this device holds a seat at
            # are added, asked for with the seat's credentials)
            listed = {g.get("id") for games in lists.values() for g in games}
            for game_id, held in self.held_seats().items():
                if game_id in listed:
                    continue
                try:
                    g = api.game(game_id, held["seat"], held.get("secret", ""))
                except ApiError:
                    continue  # (gone, or the seat was handed away)
                lists.setdefault(str(g.get("status")), []).insert(0, g)
            return lists

        def ok(value: dict[str, list[Obj]]) -> None:
            self.games = value
            if done is not None:
                done()

        self._run(work, ok)

    def kind_info(self, kind: str) -> Obj:
        for k in self.kinds:
            if k.get("kind") == kind:
                return k
        return {"kind": kind, "bot_levels": ["random"], "min_seats": 2, "max_seats": 2}

    # -- seats we hold (secrets are kept so a guest can come back) ----------------------------
    def remember_seat(self, game_id: int, seat: int, secret: str | None) -> None:
        seats = dict(self.settings.get("seats", {}) or {})
        seats[f"{self.api.base if self.api else ''}#{game_id}"] = {"seat": seat,
                                                                   "secret": secret or ""}
        self.settings.set("seats", seats)

    def held_seats(self) -> dict[int, Obj]:
        """The seats this device holds on this server, by game id (most recent first)."""
        prefix = f"{self.api.base if self.api else ''}#"
        seats = self.settings.get("seats", {}) or {}
        out = {int(k[len(prefix):]): dict(v) for k, v in seats.items()
               if k.startswith(prefix) and k[len(prefix):].isdigit()}
        return dict(sorted(out.items(), reverse=True)[:30])

    def held_seat(self, game_id: int) -> Obj | None:
        seats = self.settings.get("seats", {}) or {}
        found = seats.get(f"{self.api.base if self.api else ''}#{game_id}")
        return dict(found) if found else None

    # -- actions ------------------------------------------------------------------------------
    def create(self, kind: str, options: Obj, seats: list[Obj], my_seat: int | None,
               done: Callable[[Obj, int | None, str], None], table: Obj | None = None) -> None:
        """``table``: the time rules (``Api.create``), or None."""
        api = self.api
        assert api is not None
        join = {"seat": my_seat, "name": self.who} if my_seat is not None else None

        def work() -> Obj:
            return api.create(kind, options, seats, join, table=table)

        def ok(game: Obj) -> None:
            joined = game.get("joined") or {}
            seat = joined.get("seat") if joined else None
            secret = joined.get("secret") or ""
            if seat is not None:
                self.remember_seat(int(game["id"]), int(seat), secret)
            done(game, seat, secret)

        self._run(work, ok)

    def take_seat(self, game: Obj, seat: int | None,
                  done: Callable[[Obj, int | None, str], None]) -> None:
        api = self.api
        assert api is not None
        held = self.held_seat(int(game["id"]))
        if held is not None:
            done(game, int(held["seat"]), str(held.get("secret", "")))
            return

        def work() -> Obj:
            return api.join(int(game["id"]), seat, self.who)

        def ok(answer: Obj) -> None:
            self.remember_seat(int(answer["game"]["id"]), int(answer["seat"]), answer.get("secret"))
            done(answer["game"], int(answer["seat"]), answer.get("secret") or "")

        self._run(work, ok)

    def join_code(self, code: str, done: Callable[[Obj, int | None, str], None]) -> None:
        api = self.api
        assert api is not None

        def work() -> Obj:
            game = api.by_code(code)
            held = self.held_seat(int(game["id"]))
            if held is not None:
                return {"game": game, "seat": held["seat"], "secret": held.get("secret", "")}
            seat = game.get("seat")  # (the seat the code names)
            info = next((s for s in game.get("seats") or [] if s.get("seat") == seat), None)
            seat_free = info is not None and info.get("kind") != "bot" and not info.get("taken")
            if game.get("status") != "open" and not seat_free:
                return {"game": game, "seat": None, "secret": ""}
            return api.join_code(code, self.who)

        def ok(answer: Obj) -> None:
            seat = answer.get("seat")
            if seat is not None:
                self.remember_seat(int(answer["game"]["id"]), int(seat), answer.get("secret"))
            done(answer["game"], seat, answer.get("secret") or "")

        self._run(work, ok)

    def session(self, game: Obj, seat: int | None, secret: str, post: Post | None = None,
                socket_factory: Any = None) -> RemoteSession:
        assert self.api is not None
        kw: Obj = {}
        if socket_factory is not None:
            kw["socket_factory"] = socket_factory
        return RemoteSession(self.api, game, seat, secret, post=post or self.post, **kw)

    def create_kiosk(self, kind: str, options: Obj, players: list[Obj],
                     done: Callable[[Obj, dict[int, str]], None]) -> None:
        """A pass-and-play game kept on the server: every person a guest seat (this tablet
        keeps all their secrets), every bot a server bot."""
        api = self.api
        assert api is not None
        seats = [{"kind": "bot", "level": p.get("level") or "random"} if p.get("kind") == "bot"
                 else {"kind": "guest", "name": p.get("name") or f"Player {i + 1}"}
                 for i, p in enumerate(players)]

        def work() -> Obj:
            return api.create(kind, options, seats)

        def ok(game: Obj) -> None:
            secrets = {int(k): str(v) for k, v in (game.get("guest_secrets") or {}).items()}
            done(game, secrets)

        self._run(work, ok)

    def replay(self, game: Obj, done: Callable[[ReplayModel], None]) -> None:
        api = self.api
        assert api is not None

        def work() -> ReplayModel:
            # the exported log (a finished game's is unredacted); the state with events=1
            # carries the same records if the export is unavailable
            try:
                header, records = api.log(int(game["id"]))
            except ApiError:
                answer = api.state(int(game["id"]), events=True)
                records = answer.get("events") or []
                header = {"kind": answer.get("kind", game.get("kind")),
                          "version": answer.get("version", upcast.FIRST)}
            players = seat_players(game)
            # each event in today's version: a record says its own ("v"), else the answer's
            kind = str(header["kind"])
            default: Any = header.get("version", upcast.FIRST)
            events = upcast.upcast_log(kind, [(r.get("v", default), r["event"]) for r in records])
            model = ReplayModel(kind, events, players)
            if model.game_name == "teka" and header.get("status") == "finished":
                from client_kivy.vm.teka_analysis import TekaReplayAnalysis

                # (computed by the server in the background: asked for until it is ready)
                model.teka_analysis = TekaReplayAnalysis(model.events)
                model.teka_analysis.fetch(
                    lambda: api.analysis(int(game["id"]), watch=True), self.post)
            return model

        self._run(work, done)


def seat_players(game: Obj) -> list[Obj]:
    """The players of a game of the lobby's lists, by seat, as its sessions have them
    (``seat_player``): what :func:`client_kivy.vm.session.player_names` names."""
    return [seat_player(s) for s in game.get("seats", [])]


def game_line(game: Obj) -> str:
    """One line describing a game in the lobby lists: "Teka: Ann v Bot East v (open) v
    Bot West", the players as the game names them (``player_names``)."""
    kind = str(game.get("kind", "?"))
    names = player_names(kind, seat_players(game))
    names = ["(open)" if s.get("kind") == "open" and not s.get("taken") else names[i]
             for i, s in enumerate(game.get("seats", []))]
    return f"{kind.capitalize()}: {' v '.join(names)}"


def result_line(game: Obj) -> str:
    """How a finished game of the lobby's lists ended ("Bot North & Bot South win 104-52"),
    in the app's one result line (``outcome_text``); "finished" when the list does not say."""
    kind = str(game.get("kind", "?"))
    return outcome_text(kind, seat_players(game), game.get("outcome")) or "finished"
