"""Connect to a gamenight server: address (remembered), guest name or login."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.screenmanager import Screen


class ConnectScreen(Screen):
    message = StringProperty("")
    is_error = BooleanProperty(False)
    busy = BooleanProperty(False)

    def on_pre_enter(self, *_: Any) -> None:
        app = App.get_running_app()
        s = app.settings
        if not self.ids.address.text:
            self.ids.address.text = str(s.get("server", "") or "").replace("http://", "")
        if not self.ids.name.text:
            self.ids.name.text = str(s.get("name", "") or "")
        if not self.ids.username.text:
            self.ids.username.text = str(s.get("username", "") or "")
        self.message = ""

    def connect(self, login: bool) -> None:
        app = App.get_running_app()
        lobby = app.lobby
        name = self.ids.name.text.strip()
        username = self.ids.username.text.strip() if login else ""
        password = self.ids.password.text if login else ""
        if login and not (username and password):
            self.is_error, self.message = True, "Type your username and password"
            return
        if not login and not name:
            self.is_error, self.message = True, "Type the name the others will see"
            return
        self.busy = True
        self.is_error, self.message = False, "Connecting..."

        def on_change() -> None:
            if not lobby.busy:
                self.busy = False
                if lobby.error:
                    self.is_error, self.message = True, lobby.error

        lobby.subscribe(on_change)
        lobby.connect(self.ids.address.text, name=name, username=username, password=password,
                      done=lambda: app.on_connected())
