"""Set up a game on this tablet: game, players (people or bots), table rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kivy.app import App
from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import Screen

import core
from client_kivy.vm import clocks
from client_kivy.vm import options as opts
from client_kivy.widgets.common import MUTED, FlowGrid, GToggle, WrapLabel

GAMES = list(core.GAMES)
"""The games offered, the core's own first, then the registered plug-ins (docs/games.md)."""


class SeatRow(BoxLayout):
    label = StringProperty("")
    name = StringProperty("")
    kind = StringProperty("human")
    level = StringProperty("")
    group = StringProperty("")

    def build(self, levels: list[str], online: bool = False) -> None:
        box = self.ids.kinds
        box.clear_widgets()
        first = [("me", "", "Me"), ("open", "", "Open")] if online else [("human", "", "Person")]
        choices = first + [("bot", lv, lv.capitalize()) for lv in levels]
        for kind, level, text in choices:
            down = self.kind == kind and (kind != "bot" or self.level == level)
            t = GToggle(text=text, group=self.group, state="down" if down else "normal",
                        value=level)
            t.bind(on_press=lambda _w, k=kind, lv=level: self.choose(k, lv))
            box.add_widget(t)

    def choose(self, kind: str, level: str) -> None:
        before = self.kind
        self.kind = kind
        if level:
            self.level = level
        names = self.default_names
        if kind != before and names and (not self.name.strip() or self.name in names.values()):
            # a name the set-up gave follows the seat's kind; a name typed by hand stays
            self.name = names.get(kind, self.name)
            self.ids.name.text = self.name

    default_names: dict[str, str] = {}
    """The name the set-up gives this seat for each kind ("Computer" for a bot, "Black" for
    a person...), and the names it gave before (every value counts as not typed)."""


class SetupScreen(Screen):
    heading = StringProperty("New game on this device")
    blurb = StringProperty("")
    error = StringProperty("")
    game = StringProperty("teeko")
    rules_title = StringProperty("Rules of Teeko")
    """The rules button's text, set with the game (:meth:`choose_game`)."""
    levels_note = StringProperty("")
    """Why a bot level is not offered here (Teeko's Perfect without its solved table)."""
    can_change_seats = BooleanProperty(False)
    has_options = BooleanProperty(False)
    online = BooleanProperty(False)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.option_values: dict[str, Any] = {}
        self.time_values: dict[str, str] = {"time": "", "abandon": ""}
        self.rows: list[SeatRow] = []
        self._built = False

    def on_online(self, *_: Any) -> None:
        self.heading = "New table on the server" if self.online else "New game on this tablet"
        self.ids.start.text = "Create table" if self.online else "Start game"
        if self._built:
            self.choose_game(self.game)

    def on_leave(self, *_: Any) -> None:
        self.ids.start.enabled = True
        if self.online:
            self.online = False

    def back(self) -> None:
        App.get_running_app().show("lobby" if self.online else "home")

    def levels(self) -> list[str]:
        if self.online:
            info = App.get_running_app().lobby.kind_info(self.game)
            levels = [lv for lv in info.get("bot_levels", ["random"]) if lv != "random"]
            return levels or ["random"]
        return opts.bot_levels(self.game, self.option_values)

    def on_pre_enter(self, *_: Any) -> None:
        if not self._built:
            self._built = True
            grid = self.ids.games
            for g in GAMES:
                t = GToggle(text=core.GAMES[g].title(), group="setup-game", value=g,
                            state="down" if g == self.game else "normal")
                t.bind(on_press=lambda w: self.choose_game(w.value))
                grid.add_widget(t)
            self.choose_game(self.game)

    def choose_game(self, game: str) -> None:
        self.game = game
        self.rules_title = f"Rules of {core.GAMES[game].title()}"
        self.error = ""
        for t in self.ids.games.children:
            t.state = "down" if t.value == game else "normal"
        self.blurb = opts.blurb(game)
        lo, hi = opts.seat_range(game)
        self.can_change_seats = lo != hi
        app = App.get_running_app()
        name = app.settings.get("name", "") if app else ""
        players = opts.default_players(game, None, name)
        choices = opts.option_choices(game)
        self.option_values = {key: values[0][0] for key, _label, values in choices}
        if self.online:
            levels = self.levels()
            for i, p in enumerate(players):
                p["kind"] = "me" if i == 0 else ("open" if i == 1 or len(players) == 2 else "bot")
                p["level"] = levels[min(1, len(levels) - 1)]
        self.set_players(players)
        box = self.ids.options
        box.clear_widgets()
        self.has_options = bool(choices)
        for key, label, values in choices:
            box.add_widget(WrapLabel(text=label, color=MUTED, halign="left"))
            row = FlowGrid(cell_width=dp(100), max_cols=4, spacing=dp(6))
            for i, (value, vlabel) in enumerate(values):
                t = GToggle(text=vlabel, group=f"opt-{game}-{key}",
                            state="down" if i == 0 else "normal")
                t.bind(on_press=lambda _w, k=key, v=value: self.set_option(k, v))
                row.add_widget(t)
            box.add_widget(row)
        self.time_values = {"time": "", "abandon": ""}
        if self.online:  # time rules: the server's (docs/protocol.md, "Time rules")
            self.has_options = True
            self._add_time_rules(box, game)

    def set_option(self, key: str, value: Any) -> None:
        """A table rule chosen; the bot levels follow it (Teeko's Perfect needs the solved
        table of the squares chosen), each seat keeping its kind and, if still offered, its
        level."""
        before = self.levels()
        self.option_values[key] = value
        if self.levels() != before:
            self.set_players(self.players())
        elif not self.online:
            self.levels_note = opts.levels_note(self.game, self.option_values)

    def _add_time_rules(self, box: Any, game: str) -> None:
        rows = [("time", "Time", clocks.time_choices(game)),
                ("abandon", "Hand abandoned seats to a bot after", clocks.ABANDON_CHOICES)]
        for key, label, values in rows:
            box.add_widget(WrapLabel(text=label, color=MUTED, halign="left"))
            grid = FlowGrid(cell_width=dp(100), max_cols=3, spacing=dp(6))
            for value, vlabel in values:
                t = GToggle(text=vlabel, group=f"time-{game}-{key}", value=value,
                            state="down" if value == self.time_values[key] else "normal")
                t.bind(on_press=lambda _w, k=key, v=value: self.time_values.__setitem__(k, v))
                grid.add_widget(t)
            box.add_widget(grid)

    def table_rules(self) -> dict[str, Any] | None:
        """The time rules chosen for an online table (None: none)."""
        if not self.online:
            return None
        return clocks.table_rules(self.time_values["time"], self.time_values["abandon"])

    def set_players(self, players: list[dict[str, Any]]) -> None:
        box = self.ids.seats
        box.clear_widgets()
        self.rows = []
        levels = self.levels()
        self.levels_note = "" if self.online else opts.levels_note(self.game,
                                                                    self.option_values)
        for i, p in enumerate(players):
            if p.get("kind") == "bot" and p.get("level") not in levels:
                p = {**p, "level": levels[min(1, len(levels) - 1)]}
            row = SeatRow(label=seat_title(self.game, i), name=p["name"], kind=p["kind"],
                          level=str(p.get("level", "")), group=f"seat-{self.game}-{i}")
            row.default_names = default_names(self.game, i, len(players), p["name"],
                                              p["kind"])
            row.build(levels, self.online)
            row.ids.name.disabled = self.online
            row.ids.name.opacity = 0 if self.online else 1
            if self.online:  # names come from the people who sit down: keep the seat label
                row.ids.name_row.height = dp(30)
            self.rows.append(row)
            box.add_widget(row)

    def players(self) -> list[dict[str, Any]]:
        out = []
        for i, r in enumerate(self.rows):
            name = r.name.strip() or (seat_title(self.game, i) if r.kind == "human"
                                      else f"Bot {i + 1}")
            out.append({"name": name, "kind": r.kind,
                        "level": r.level if r.kind == "bot" else ""})
        return out

    def change_seats(self, delta: int) -> None:
        lo, hi = opts.seat_range(self.game)
        players = self.players()
        n = max(lo, min(hi, len(players) + delta))
        while len(players) < n:
            players.append({"name": f"Player {len(players) + 1}",
                            "kind": "open" if self.online else "human",
                            "level": opts.default_level(self.game)})
        self.set_players(players[:n])

    def start_game(self) -> None:
        app = App.get_running_app()
        players = self.players()
        try:
            options = opts.validated_options(self.game, self.option_values, len(players))
        except Exception as e:
            self.error = str(e)
            return
        self.error = ""
        if not getattr(self, "_watching_lobby", False):
            self._watching_lobby = True
            app.lobby.subscribe(self._lobby_changed)
        if self.online:
            seats = []
            mine = None
            for i, p in enumerate(players):
                if p["kind"] == "me" and mine is None:
                    mine = i
                    seats.append({"kind": "open"})
                elif p["kind"] == "bot":
                    seats.append({"kind": "bot", "level": p["level"]})
                else:
                    seats.append({"kind": "open"})
            app.lobby.create(self.game, options, seats, mine, app.online_play,
                             table=self.table_rules())
            return
        if self.ids.on_server.state == "down" and app.lobby.connected:
            kiosk = self.ids.kiosk.state == "down"
            app.lobby.create_kiosk(self.game, options, players,
                                   lambda game, secrets: app.open_kiosk(game, secrets, kiosk))
            return
        if opts.offer_phones(self.game, players) and not self._offer_taken:
            self.offer = PhonesOffer(lambda: self.play_with_phones(options),
                                     lambda: self._pass_device())
            self.offer.open(animation=False)
            return
        self._offer_taken = False
        app.start_local_game(self.game, players, options,
                             kiosk=self.ids.kiosk.state == "down")

    _offer_taken = False
    """The phones offer answered "Pass this device": the next start starts here."""
    _phones_pending: tuple[str, dict[str, Any]] | None = None
    """The game to make a table of once connected (the offer answered "phones")."""
    offer: ModalView | None = None

    def _pass_device(self) -> None:
        self._offer_taken = True
        self.start_game()

    def play_with_phones(self, options: dict[str, Any]) -> None:
        """The offer's first answer: the game as a table on the server, every seat open for
        a phone, this device the shared table (table mode); not connected yet, the connect
        screen first, then the table."""
        app = App.get_running_app()
        self._phones_pending = (self.game, options)
        if not getattr(self, "_watching_lobby", False):
            self._watching_lobby = True
            app.lobby.subscribe(self._lobby_changed)
        if app.lobby.connected:
            self._phones_table()
        else:
            app.show("connect")

    def _phones_table(self) -> None:
        pending = self._phones_pending
        if pending is None:
            return
        self._phones_pending = None
        app = App.get_running_app()
        game, options = pending
        app.lobby.create(game, options, [{"kind": "open"}] * 4, None,
                         lambda table, *_: app.open_table(table))


    def _lobby_changed(self) -> None:
        lobby = App.get_running_app().lobby
        if lobby.connected and self._phones_pending is not None:
            self._phones_table()
        if self.manager is not None and self.manager.current == self.name and self.online:
            self.error = lobby.error
            self.ids.start.enabled = not lobby.busy


class PhonesOffer(ModalView):
    """Before four people start Teka on one device: play with a phone each, this device
    the table (the first answer, the one leading), or pass this device round. A tap outside
    or Back answers neither (the set-up stays)."""

    def __init__(self, phones: Callable[[], None], here: Callable[[], None],
                 **kw: Any) -> None:
        super().__init__(**kw)
        self._phones, self._here = phones, here

    def answer(self, phones: bool) -> None:
        self.dismiss(animation=False)
        (self._phones if phones else self._here)()


def seat_title(game: str, seat: int) -> str:
    """The seat's place at the table (``Game.seat_labels``: White, Light, North...); a seat
    the game gives only a number is "Player N"."""
    g = core.GAMES.get(game)
    labels = g.seat_labels(g.max_seats) if g is not None else []
    default = f"Seat {seat + 1}"
    label = labels[seat] if 0 <= seat < len(labels) else default
    return f"Player {seat + 1}" if label == default else label


def default_names(game: str, seat: int, seats: int, name: str, kind: str) -> dict[str, str]:
    """The names the set-up gives a seat by kind; the seat's present name under its kind
    when the set-up gave it ("You" on the first seat, "Computer"...)."""
    # bots as opts.default_players names them: "Computer" against one person, else "Bot 1"...
    out = {"bot": "Computer" if seats == 2 else (f"Bot {seat}" if seat else "Bot"),
           "human": seat_title(game, seat)}
    if name in ("You", "Computer", "Bot", f"Bot {seat}", f"Player {seat + 1}",
                seat_title(game, seat)):
        out["given"] = name
    return out
