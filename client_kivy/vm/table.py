"""Table mode (no Kivy): a tablet shows an online game as the shared table, the public view
a spectator gets, plus a QR code and a seat code for every open seat, and the organiser's
"hand to another phone / to a bot" per seat. The tablet may also hold some of the seats
itself (the people sharing it; a mixed table): their secrets are kept here, per game.

Seat codes (docs/protocol.md, "Private tables"): each seat has its own random 8-symbol
code, which the server gives only to the table's organiser and its seat holders (the tablet
that made the table, or holds a seat of it) and which changes when the seat is released. The
QR code of a seat encodes ``<server>/join/<seat code>/``, the seat's page for phones; the
app's *Join* takes a seat's code.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from client_kivy.vm.net import Api, ApiError, RemoteSession
from client_kivy.vm.session import Post

Obj = dict[str, Any]


def seat_codes(game: Obj) -> dict[int, str]:
    """{seat: code} of the seats whose codes ``game`` (the server's JSON) carries: all of
    them for the organiser and the seat holders, else none (or the asker's own)."""
    out: dict[int, str] = {}
    for i, s in enumerate(game.get("seats") or []):
        code = s.get("code")
        if isinstance(code, str) and code:
            out[int(s.get("seat", i))] = code
    return out


def join_url(base: str, code: str) -> str:
    """The absolute address a seat's QR code encodes: the seat page for phones."""
    return f"{base.rstrip('/')}/join/{code}/"


def qr_matrix(text: str, border: int = 4) -> list[list[bool]]:
    """The QR code of ``text`` as rows of dark (True) / light modules, with a quiet zone of
    ``border`` modules (segno: a complete QR encoder in pure Python, which the server uses
    for its QR images too)."""
    import segno

    qr = segno.make_qr(text, error="m")
    return [[bool(m) for m in row] for row in qr.matrix_iter(border=border)]


def open_seats(seats: list[Obj]) -> list[int]:
    """The seats a phone may still join: not a bot and not taken (as the server says)."""
    return [int(s.get("seat", i)) for i, s in enumerate(seats)
            if s.get("kind") != "bot" and not s.get("taken")]


def keep_tablet_seat(settings: Any, base: str, game_id: int, seat: int,
                     secret: str | None) -> None:
    """Remember (or, with ``secret`` None, forget) a seat held on this tablet."""
    key = f"{base}#{game_id}"
    every = dict(settings.get("table_seats", {}) or {})
    mine = dict(every.get(key, {}))
    if secret is None:
        mine.pop(str(seat), None)
    else:
        mine[str(seat)] = secret
    every[key] = mine
    settings.set("table_seats", every)


class TableModel:
    """One online game shown as the table: a spectator :class:`RemoteSession` (public
    information only) and what the organiser may do with its seats."""

    def __init__(self, api: Api, game: Obj, settings: Any, post: Post | None = None,
                 socket_factory: Any = None, background: bool = True) -> None:
        self.api = api
        self.game = dict(game)
        self.settings = settings
        self.post: Post = post or (lambda fn: fn())
        self.background = background
        kw: Obj = {"socket_factory": socket_factory} if socket_factory is not None else {}
        self.session = RemoteSession(api, game, None, "", post=self.post, **kw)
        self.codes = seat_codes(self.game)
        self.message = ""
        self.busy = False
        self.rematch_game: int | None = None
        self._listeners: list[Callable[[], None]] = []
        self.session.subscribe(self._changed)

    # -- plumbing ---------------------------------------------------------------------------
    @property
    def game_id(self) -> int:
        return int(self.game["id"])

    def subscribe(self, cb: Callable[[], None]) -> None:
        self._listeners.append(cb)

    def notify(self) -> None:
        for cb in list(self._listeners):
            cb()

    def _changed(self) -> None:
        if self.session.rematch_game is not None:
            self.rematch_game = self.session.rematch_game
        self.notify()

    def start(self) -> None:
        self.session.start()

    def close(self) -> None:
        self.session.close()
        self._listeners.clear()

    def _run(self, work: Callable[[], Any], done: Callable[[Any], None] | None = None) -> None:
        import threading

        self.busy = True
        self.message = ""
        self.notify()

        def finish(ok: bool, value: Any) -> None:
            self.busy = False
            if ok:
                if done is not None:
                    done(value)
            else:
                self.message = value
            self.notify()

        def job() -> None:
            try:
                value = work()
                self.post(lambda: finish(True, value))
            except ApiError as e:
                reason = e.reason
                self.post(lambda: finish(False, reason))

        if self.background:
            threading.Thread(target=job, daemon=True).start()
        else:
            job()

    # -- what the table shows ---------------------------------------------------------------
    def seats(self) -> list[Obj]:
        """The seats as the server last told (welcome / presence frames)."""
        return list(self.session.seat_info or self.game.get("seats") or [])

    def open_seats(self) -> list[int]:
        if self.session.outcome is not None or self.session.status == "finished":
            return []
        return open_seats(self.seats())

    def seat_code(self, seat: int) -> str:
        """The seat's code as the server last gave it to this tablet ("" if it did not)."""
        return self.codes.get(seat, "")

    def join_url(self, seat: int) -> str:
        return join_url(self.api.base, self.seat_code(seat))

    def title(self) -> str:
        """ "The table · Teka: Ann v Bob v (open) v Bot West": who sits now (the seats as
        the server last told, so it follows every phone that sits down)."""
        from client_kivy.vm.lobby import game_line

        return "The table · " + game_line(dict(self.game, seats=self.seats()))

    def seat_tab(self, seat: int) -> str:
        """A seat in a few words, for the seat switcher on a phone: "North: open",
        "East: Ann", "2: Bot"."""
        from client_kivy.vm.session import seat_word

        info = next((s for s in self.seats() if s.get("seat") == seat), {})
        if info.get("kind") == "bot":
            who = "bot"
        elif info.get("taken"):
            who = str(info.get("name") or "taken")
        else:
            who = "open"
        word = seat_word(self.session.game_name, seat)
        return f"{'Seat ' + word if word.isdigit() else word}: {who}"

    def seat_line(self, seat: int) -> str:
        """ "Seat 3 (South): Ann", "Seat 2: open"..."""
        from client_kivy.vm.session import seat_word

        where = f"Seat {seat + 1}"
        word = seat_word(self.session.game_name, seat)
        if word != str(seat + 1):
            where += f" ({word})"
        return f"{where}: {self.seat_who(seat)}"

    def seat_who(self, seat: int) -> str:
        """Who sits at ``seat``: "Ann (this tablet)", "Bob (away)", "Bot (bot)", "open"."""
        info = next((s for s in self.seats() if s.get("seat") == seat), {})
        if info.get("kind") == "bot":
            who = f"{info.get('name') or 'Bot'} (bot)"
        elif info.get("taken"):
            who = str(info.get("name") or "taken")
            if seat in self.tablet_seats():
                who += " (this tablet)"
            elif info.get("connected") is False:
                who += " (away)"
        else:
            who = f"open{': ' + str(info['name']) if info.get('name') else ''}"
        return who

    # -- seats this tablet holds (a mixed table) ----------------------------------------------
    def _key(self) -> str:
        return f"{self.api.base}#{self.game_id}"

    def tablet_seats(self) -> dict[int, str]:
        """{seat: secret} of the seats held on this tablet (the people sharing it)."""
        held = (self.settings.get("table_seats", {}) or {}).get(self._key(), {})
        return {int(k): str(v) for k, v in held.items()}

    def _keep(self, seat: int, secret: str | None) -> None:
        keep_tablet_seat(self.settings, self.api.base, self.game_id, seat, secret)

    def sit_here(self, seat: int, name: str) -> None:
        """Take open seat ``seat`` for someone sharing this tablet."""
        api = self.api

        def work() -> Obj:
            code = self.seat_code(seat)  # (a private table: its seats are joined by code)
            return api.join_code(code, name) if code else api.join(self.game_id, seat, name)

        def ok(answer: Obj) -> None:
            self._keep(int(answer["seat"]), str(answer.get("secret") or ""))
            self.game = dict(answer.get("game") or self.game)
            self.codes = seat_codes(self.game) or self.codes
            self.session.seat_info = list(self.game.get("seats") or self.session.seat_info)

        self._run(work, ok)

    # -- the organiser's buttons ------------------------------------------------------------
    def _credential(self) -> Obj:
        """A seat this tablet holds, to show it is the organiser's (the app's login token,
        if any, goes with every request)."""
        held = self.tablet_seats()
        if held:
            seat = min(held)
            return {"seat": seat, "secret": held[seat]}
        return {}

    def _game_now(self) -> Obj:
        """The game as the server gives it to this tablet now (with its codes: the app's
        login, or a seat held here)."""
        cred = self._credential()
        return self.api.game(self.game_id, cred.get("seat"), str(cred.get("secret") or ""))

    def release(self, seat: int) -> None:
        """Hand ``seat`` to another phone: its old secret is revoked and the seat is open
        again under a new code (no event: who holds a seat is not part of the game)."""
        api = self.api
        self.codes.pop(seat, None)  # (the old code opens nothing: never shown while it opens)

        def work() -> Obj:
            out = api.release_seat(self.game_id, seat, self._credential())
            return {"game": self._game_now(), "code": out.get("code")}  # its seats now

        def ok(answer: Obj) -> None:
            self._keep(seat, None)
            self._seats_from(answer)
            if answer.get("code"):
                self.codes[seat] = str(answer["code"])
            self.message = f"{self.seat_code(seat)} is open again: scan it with another phone"

        self._run(work, ok)

    def to_bot(self, seat: int, level: str) -> None:
        """Hand ``seat`` to a server bot at ``level`` (a new event in the log)."""
        api = self.api

        def work() -> Obj:
            api.seat_to_bot(self.game_id, seat, level, self._credential())
            return {"game": self._game_now()}

        def ok(answer: Obj) -> None:
            self._keep(seat, None)
            self._seats_from(answer)
            self.message = f"Seat {seat + 1} is played by a bot now"

        self._run(work, ok)

    def _seats_from(self, answer: Obj) -> None:
        """The seats as an organiser's call answered them (a hand-over appends no event: the
        table may hear of it only from this answer)."""
        game = answer.get("game")
        if isinstance(game, dict) and game.get("seats"):
            self.game = dict(game)
            self.codes = seat_codes(game) or self.codes
            self.session.seat_info = list(game["seats"])

    def bot_level(self, kinds: list[Obj]) -> str:
        """The level the table hands a seat to: the middle level of this kind's bots."""
        for k in kinds:
            if k.get("kind") == self.session.game_name:
                levels = [str(x) for x in k.get("bot_levels") or []]
                if levels:
                    return levels[min(len(levels) - 1, len(levels) // 2)]
        return "random"


# -- rematch (protocol.md, "Rematch") ------------------------------------------------------
def held_credentials(session: Any) -> dict[int, str]:
    """{seat: secret} of the seats a session holds: one (a seat online), several (the
    people sharing a tablet: a kiosk), none (a spectator)."""
    seats = getattr(session, "seats", None)
    if isinstance(seats, dict):
        return {int(k): str(s.secret) for k, s in seats.items()}
    seat = getattr(session, "seat", None)
    if isinstance(seat, int) and seat >= 0:
        return {seat: str(getattr(session, "secret", "") or "")}
    return {}


def rematch(api: Api, game_id: int, held: dict[int, str],
            new_id: int | None = None) -> tuple[Obj, dict[int, str]]:
    """Make (or find: it is made once) the rematch of finished game ``game_id`` and take
    the same seats in it: the new game and {seat: new secret} for each seat in ``held``.
    Holding no seat (the table), the rematch the server announced (``new_id``)."""
    if not held and new_id is not None:
        return dict(api.game(new_id)), {}
    game: Obj | None = None
    secrets: dict[int, str] = {}
    for seat, secret in sorted(held.items()):
        answer = api.rematch(game_id, seat, secret)
        game = _game_of(api, answer) or game
        if answer.get("secret"):
            secrets[int(answer.get("seat", seat))] = str(answer["secret"])
    if game is None:
        game = _game_of(api, api.rematch(game_id)) or {}
    return game, secrets


def _game_of(api: Api, answer: Obj) -> Obj | None:
    """The new game of a rematch answer: the game itself, or its id (then looked up)."""
    table = answer.get("table")
    if isinstance(table, dict):
        return dict(table)
    g = answer.get("game")
    if isinstance(g, dict):
        return dict(g)
    if isinstance(g, int):
        return dict(api.game(g))
    return None
