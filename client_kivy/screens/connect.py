"""Connect to a gamenight server: the servers heard on the network (tap one) or a typed
address (remembered), then a guest name or a login."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.screenmanager import Screen

from client_kivy.discovery import Discovery, Found, warm_up
from client_kivy.widgets.common import GButton


class FoundServer(GButton):
    """One server heard on the network: its name and address; a tap fills the address in."""

    found = ObjectProperty(None)


class ConnectScreen(Screen):
    message = StringProperty("")
    is_error = BooleanProperty(False)
    busy = BooleanProperty(False)
    found_title = StringProperty("")
    discovery: Discovery | None = None

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        warm_up()

    def on_pre_enter(self, *_: Any) -> None:
        self.start_discovery()
        app = App.get_running_app()
        s = app.settings
        if not self.ids.address.text:
            self.ids.address.text = str(s.get("server", "") or "").replace("http://", "")
        if not self.ids.name.text:
            self.ids.name.text = str(s.get("name", "") or "")
        if not self.ids.username.text:
            self.ids.username.text = str(s.get("username", "") or "")
        self.message = ""

    def on_leave(self, *_: Any) -> None:
        self.stop_discovery()

    def on_parent(self, _widget: Any, parent: Any) -> None:
        """A screen taken out of the app (a new text size makes every screen anew) stops
        listening: it may have been entered on the way, and it gets no on_leave."""
        if parent is None:
            self.stop_discovery()

    # -- servers on the network (client_kivy/discovery.py) -------------------------------------
    def start_discovery(self) -> None:
        if self.discovery is None:
            self.discovery = Discovery(
                on_change=self.show_found,
                post=lambda fn: Clock.schedule_once(lambda _dt: fn(), 0))
            App.get_running_app().bind(on_stop=lambda *_: self.stop_discovery())
        self.discovery.start()
        self.show_found()

    def stop_discovery(self) -> None:
        if self.discovery is not None:
            self.discovery.stop()

    def show_found(self) -> None:
        d = self.discovery
        servers = d.servers if d is not None and d.running else []
        box = self.ids.found
        box.clear_widgets()
        for f in servers:
            text = f"{f.name}\n{f.address}"
            if not f.usable:
                text += f"\nprotocol {f.proto}: update the app"
            btn = FoundServer(text=text, found=f, enabled=f.usable)
            btn.bind(on_release=lambda b: self.pick(b.found))
            box.add_widget(btn)
        if servers:
            self.found_title = "Servers on this network: tap one"
        elif d is not None and d.running:
            self.found_title = "Looking for servers on this network..."
        else:
            self.found_title = ""

    def pick(self, found: Found) -> None:
        self.ids.address.text = found.address
        self.is_error = False
        self.message = f"{found.name}: join as a guest or log in"

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
