"""Online lobby: open and live tables (take a seat, watch), finished ones (replay), join by
code, new table. Refreshes itself every few seconds while shown."""

from __future__ import annotations

import json
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.metrics import dp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from client_kivy.vm.lobby import game_line, result_line
from client_kivy.widgets.common import MUTED, GButton


class LobbyRow(BoxLayout):
    text = StringProperty("")


class LobbyScreen(Screen):
    who = StringProperty("")
    tab = StringProperty("live")
    message = StringProperty("")
    is_error = BooleanProperty(False)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._poll: Any = None
        self._trigger = Clock.create_trigger(self._sync, -1)
        self._subscribed = False
        self._key: Any = None
        self.bind(tab=lambda *_: self._sync())

    def on_pre_enter(self, *_: Any) -> None:
        lobby = App.get_running_app().lobby
        if not self._subscribed:
            lobby.subscribe(self._trigger)
            self._subscribed = True
        base = lobby.api.base if lobby.api else ""
        self.who = f"{lobby.who} @ {base.replace('http://', '')}"
        lobby.refresh()
        self._poll = Clock.schedule_interval(lambda _dt: lobby.refresh(), 5.0)
        self._sync()

    def on_leave(self, *_: Any) -> None:
        if self._poll is not None:
            self._poll.cancel()
            self._poll = None

    def _sync(self, *_: Any) -> None:
        lobby = App.get_running_app().lobby
        self.is_error = bool(lobby.error)
        self.message = lobby.error
        box = self.ids.rows
        if self.tab == "live":
            games = lobby.games.get("open", []) + lobby.games.get("live", [])
        else:
            games = lobby.games.get("finished", [])
        key = json.dumps([self.tab, games, lobby.settings.get("seats", {})], sort_keys=True,
                         default=str)
        if key == self._key:
            return
        self._key = key
        box.clear_widgets()
        if not games:
            box.add_widget(Label(text="No tables here yet: start a new one.", color=MUTED,
                                 size_hint_y=None, height=dp(60)))
        for g in games:
            box.add_widget(self._row(lobby, g))

    def _row(self, lobby: Any, g: dict[str, Any]) -> LobbyRow:
        status = g.get("status", "")
        held = lobby.held_seat(int(g["id"]))
        sub = {"open": "waiting for players", "live": "playing",
               "finished": result_line(g)}.get(status, status)
        where = "public" if g.get("public") else "private"
        row = LobbyRow(text=f"[b]{game_line(g)}[/b]\n[size=13sp][color=b8c7b8]#{g.get('id')} · "
                            f"{where} · {sub}[/color][/size]")
        buttons = row.ids.buttons
        app = App.get_running_app()

        def add(text: str, cb: Any, primary: bool = True) -> None:
            b = GButton(text=text, size_hint_x=None, width=dp(100), height=dp(50),
                        pos_hint={"center_y": 0.5})
            if not primary:
                b.bg, b.fg = (1, 1, 1, 0.14), (0.96, 0.93, 0.85, 1)
            b.bind(on_release=lambda *_: cb())
            buttons.add_widget(b)

        if status == "finished":
            add("Replay", lambda: app.online_replay(g))
        else:
            if held is not None:
                add("Resume", lambda: app.online_play(g, held["seat"], held.get("secret", "")))
            elif status == "open":
                add("Sit", lambda: lobby.take_seat(g, None, app.online_play))
            add("Watch", lambda: app.online_play(g, None, ""), primary=False)
            add("Table", lambda: app.open_table(g), primary=False)  # the shared table
        return row

    def join_code(self) -> None:
        code = self.ids.code.text.strip()
        if not code:
            self.is_error, self.message = True, "Type the table's code"
            return
        app = App.get_running_app()
        app.lobby.join_code(code, app.online_play)

    def new_table(self) -> None:
        app = App.get_running_app()
        setup = app.root.get_screen("setup")
        setup.online = True
        app.show("setup")
