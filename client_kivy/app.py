"""The gamenight Kivy app: a ScreenManager over the screens in ``screens/``.

Data (settings, games kept on the device) lives in ``GAMENIGHT_CLIENT_DIR`` if set, else in
Kivy's ``user_data_dir``.
"""

from __future__ import annotations

import os
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.lang import Builder
from kivy.properties import BooleanProperty
from kivy.uix.screenmanager import FadeTransition, ScreenManager

from client_kivy.vm.session import (
    LocalSession,
    ReplayModel,
    Session,
    player_names,
    saved_events,
)
from client_kivy.vm.settings import Settings
from client_kivy.vm.store import LocalStore

HERE = os.path.dirname(os.path.abspath(__file__))
KV_FILES = ["theme.kv", "screens/home.kv", "screens/setup.kv", "screens/game.kv",
            "screens/replay.kv", "screens/saved.kv", "screens/connect.kv", "screens/lobby.kv",
            "screens/settings.kv", "screens/rules.kv", "screens/table.kv"]
_loaded = False


def load_kv() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    # Widget classes must be registered before their rules are applied.
    from client_kivy.screens import game, home, replay, rules, saved, settings, setup  # noqa: F401
    from client_kivy.widgets import common  # noqa: F401

    try:
        from client_kivy.screens import connect, lobby, table  # noqa: F401
    except ImportError:
        pass
    for name in KV_FILES:
        path = os.path.join(HERE, name)
        if os.path.exists(path):
            Builder.load_file(path)


def kiv_post(fn: Any) -> None:
    Clock.schedule_once(lambda _dt: fn(), 0)


class GamenightApp(App):
    title = "gamenight"
    online_ready = BooleanProperty(False)

    def __init__(self, data_dir: str | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self._data_dir = data_dir
        self.session: Session | None = None
        self.kiosk = False

    # -- set-up -------------------------------------------------------------------------------
    @property
    def data_dir(self) -> str:
        return self._data_dir or os.environ.get("GAMENIGHT_CLIENT_DIR") or self.user_data_dir

    def build(self) -> ScreenManager:
        load_kv()
        self.settings = Settings(self.data_dir)
        self.store = LocalStore(self.data_dir)
        from client_kivy.sound import Sounds
        from client_kivy.vm.lobby import Lobby

        self.lobby = Lobby(self.settings, post=kiv_post)
        self.sounds = Sounds(lambda: self.settings.flag("sound"))
        from kivy.core.window import Window
        from kivy.metrics import Metrics

        self._base_fontscale = float(Metrics.fontscale)  # the device's own text size
        Metrics.fontscale = self._base_fontscale * self.settings.text_scale()
        Window.bind(on_keyboard=self._on_keyboard)
        sm = ScreenManager(transition=FadeTransition(duration=0.12))
        self._add_screens(sm)
        return sm

    def _add_screens(self, sm: ScreenManager) -> None:
        from client_kivy.screens.home import HomeScreen
        from client_kivy.screens.replay import ReplayScreen
        from client_kivy.screens.rules import RulesScreen
        from client_kivy.screens.saved import SavedScreen
        from client_kivy.screens.settings import SettingsScreen
        from client_kivy.screens.setup import SetupScreen

        sm.add_widget(HomeScreen(name="home"))
        sm.add_widget(SetupScreen(name="setup"))
        # The game screen is made per game (open_session) and destroyed when it is left
        sm.add_widget(ReplayScreen(name="replay"))
        sm.add_widget(SavedScreen(name="saved"))
        sm.add_widget(SettingsScreen(name="settings"))
        sm.add_widget(RulesScreen(name="rules"))
        try:
            from client_kivy.screens.connect import ConnectScreen
            from client_kivy.screens.lobby import LobbyScreen

            sm.add_widget(ConnectScreen(name="connect"))
            sm.add_widget(LobbyScreen(name="lobby"))
        except ImportError:
            pass

    def apply_text_scale(self) -> None:
        """The Larger text setting, at once: the device's text size times the setting, and
        every screen made anew with it (sizes in sp are taken when a widget is made). A game
        screen, if one is open, keeps its size until the next game."""
        from kivy.metrics import Metrics

        scale = self._base_fontscale * self.settings.text_scale()
        if abs(float(Metrics.fontscale) - scale) < 1e-6:
            return
        Metrics.fontscale = scale
        sm = self.root
        current = sm.current
        for name in list(sm.screen_names):
            if name != "game":
                sm.remove_widget(sm.get_screen(name))
        self._add_screens(sm)
        if sm.has_screen(current):
            sm.current = current

    def open_rules(self, game: str, back_to: str) -> None:
        self.root.get_screen("rules").show_game(game, back_to)
        self.show("rules")

    def show(self, name: str) -> None:
        if name == "connect" and self.lobby.connected:
            name = "lobby"
        if self.root.has_screen(name):
            self.root.current = name

    # -- online -----------------------------------------------------------------------------------
    def on_connected(self) -> None:
        self.online_ready = True
        self.show("lobby")

    def online_play(self, game: dict[str, Any], seat: int | None, secret: str) -> None:
        """Sit at (``seat``) or watch (``None``) an online game."""
        session = self.lobby.session(game, seat, secret, post=kiv_post)
        who = "watching" if seat is None else ""
        from client_kivy.vm.lobby import game_line

        title = game_line(game) + (f" ({who})" if who else "")
        self.open_session(session, title=title)

    def open_kiosk(self, game: dict[str, Any], secrets: dict[int, str], kiosk: bool) -> None:
        """Pass-and-play on this tablet for a game kept on the server."""
        from client_kivy.vm.lobby import game_line
        from client_kivy.vm.net import KioskRemoteSession

        assert self.lobby.api is not None
        session = KioskRemoteSession(self.lobby.api, game, secrets, post=kiv_post)
        self.set_kiosk(kiosk)
        self.open_session(session, title=game_line(game))

    # -- table mode (client_kivy/vm/table.py) ---------------------------------------------
    def open_table(self, game: dict[str, Any]) -> None:
        """Show ``game`` as the shared table: the public view, large, and a QR code and
        seat code for each open seat."""
        from client_kivy.screens.table import TableScreen
        from client_kivy.vm.table import TableModel

        assert self.lobby.api is not None
        self._drop_table_screen()
        model = TableModel(self.lobby.api, game, self.settings, post=kiv_post)
        screen = TableScreen(name="table")
        self.root.add_widget(screen)
        screen.set_model(model)
        self.show("table")
        model.start()

    def leave_table(self) -> None:
        self.show("lobby")
        self._drop_table_screen()

    def _drop_table_screen(self) -> None:
        if self.root.has_screen("table"):
            screen = self.root.get_screen("table")
            screen.teardown()
            self.root.remove_widget(screen)

    def table_rematch(self, model: Any) -> None:
        """The table's Rematch: the same people in the same seats; the table follows."""
        self._rematch_online(model.game_id, model.tablet_seats(), table=model)

    def follow_table_rematch(self, model: Any) -> None:
        """The server made a rematch of the game on the table: show the new one."""
        self._rematch_online(model.game_id, model.tablet_seats(), table=model)

    def _rematch_online(self, game_id: int, held: dict[int, str], table: Any = None,
                        session: Any = None) -> None:
        from client_kivy.vm.table import rematch

        owner = table if table is not None else session
        if getattr(owner, "following", False):
            return
        owner.following = True
        api = self.lobby.api
        assert api is not None

        def done(value: tuple[dict[str, Any], dict[int, str]]) -> None:
            game, secrets = value
            if table is not None:
                from client_kivy.vm.table import keep_tablet_seat

                for seat, secret in secrets.items():
                    keep_tablet_seat(self.settings, api.base, int(game["id"]), seat, secret)
                if self.root.current == "table":
                    self.open_table(game)
                return
            if len(secrets) > 1 or getattr(session, "kind", "") == "kiosk":
                self.open_kiosk(game, secrets, self.kiosk)
            elif secrets:
                seat, secret = next(iter(secrets.items()))
                self.lobby.remember_seat(int(game["id"]), seat, secret)
                self.online_play(game, seat, secret)
            else:
                self.online_play(game, None, "")

        def failed(_e: Any) -> None:
            owner.following = False

        new_id = getattr(owner, "rematch_game", None)
        self.lobby._run(lambda: rematch(api, game_id, held, new_id), done, failed)

    def _follow_session(self, session: Session) -> None:
        """An online game of this tablet got a rematch (the server's ``rematch`` frame):
        follow it to the new game, in the same seats."""
        if getattr(session, "rematch_game", None) is None or session is not self.session:
            return
        from client_kivy.vm.table import held_credentials

        held = held_credentials(session)
        if held:
            kiv_post(lambda: self._rematch_online(int(getattr(session, "game_id", 0)), held,
                                                  session=session))

    def online_replay(self, game: dict[str, Any]) -> None:
        from client_kivy.vm.lobby import game_line

        self.lobby.replay(game, lambda model: self.open_replay(
            model, "Replay: " + game_line(game), "lobby"))

    # -- local games ----------------------------------------------------------------------------
    def start_local_game(self, game: str, players: list[dict[str, Any]], options: dict[str, Any],
                         kiosk: bool = False, seed: int | None = None) -> LocalSession:
        session = LocalSession(game, players, options, store=self.store, post=kiv_post, seed=seed)
        self.apply_settings(session)
        self.settings.set("last_game", game)
        self.set_kiosk(kiosk)
        self.open_session(session, title=table_title(game, players))
        return session

    def apply_settings(self, session: LocalSession) -> None:
        """The settings screen's bot speed and think time, for a game on this device."""
        session.pace = float(self.settings.get("bot_pace", 1.0))
        think = self.settings.get("bot_think")
        if think:
            session.bot_time_limit = float(think)

    def open_session(self, session: Session, title: str = "") -> None:
        """Show ``session`` on a new game screen. The previous game's screen, its widgets and
        its session are torn down first: nothing of an old game stays on screen or can send
        a command to it."""
        from client_kivy.screens.game import GameScreen

        if self.session is not None and self.session is not session:
            self.session.close()
        self._drop_game_screen()
        self.session = session
        if session.kind in ("remote", "kiosk"):
            session.subscribe(lambda: self._follow_session(session))
        screen = GameScreen(name="game")
        self.root.add_widget(screen)
        screen.set_session(session, title)
        self.show("game")
        start = getattr(session, "start", None)
        if start is not None:
            start()

    def open_saved(self, game_id: str) -> None:
        record = self.store.load(game_id)
        if record.get("finished"):
            model = ReplayModel(record["game"], saved_events(record), record.get("players"))
            self.open_replay(model, table_title(record["game"], record["players"]), "saved")
            return
        session = LocalSession(record["game"], record["players"], record=record,
                               store=self.store, post=kiv_post)
        self.apply_settings(session)
        self.open_session(session, title=table_title(record["game"], record["players"]))

    def leave_game(self) -> None:
        session = self.session
        self.session = None
        if session is not None:
            session.close()
        self.set_kiosk(False)
        if session is not None and session.kind != "local" and self.root.has_screen("lobby"):
            self.show("lobby")
        else:
            self.show("home")
        self._drop_game_screen()

    def _drop_game_screen(self) -> None:
        if self.root.has_screen("game"):
            screen = self.root.get_screen("game")
            screen.teardown()
            self.root.remove_widget(screen)

    def rematch(self, session: Session | None) -> None:
        if session is None:
            return
        if isinstance(session, LocalSession):
            self.start_local_game(session.game_name, session.players,
                                  session.rematch_options(), kiosk=self.kiosk)
        elif getattr(session, "outcome", None) is not None and self._held(session):
            # online: the same people in the same seats (the server makes it once)
            from client_kivy.vm.table import held_credentials

            self._rematch_online(int(getattr(session, "game_id", 0)), held_credentials(session),
                                 session=session)
        else:  # watching: the new-table form for the same game
            game = session.game_name
            self.leave_game()
            setup = self.root.get_screen("setup")
            setup.online = True
            self.show("setup")
            setup.choose_game(game)

    @staticmethod
    def _held(session: Session) -> bool:
        from client_kivy.vm.table import held_credentials

        return bool(held_credentials(session))

    # -- replay -----------------------------------------------------------------------------------
    def replay_session(self, session: Session | None) -> None:
        if session is None:
            return
        model = ReplayModel(session.game_name, session.events, session.players)
        back = "game"
        self.open_replay(model, "Replay: " + table_title(session.game_name, session.players), back)

    def open_replay(self, model: ReplayModel, title: str, back_to: str) -> None:
        screen = self.root.get_screen("replay")
        screen.set_model(model, title, back_to)
        self.show("replay")

    # -- kiosk ------------------------------------------------------------------------------
    def set_kiosk(self, on: bool) -> None:
        self.kiosk = on
        if os.environ.get("SDL_VIDEODRIVER") == "offscreen":
            return
        from kivy.core.window import Window

        try:
            Window.fullscreen = "auto" if on else False
        except Exception:
            pass

    # -- Back (Escape on a keyboard, the Back key on Android) -----------------------------
    def _on_keyboard(self, _window: Any, key: int, *_: Any) -> bool:
        if key != 27:
            return False
        self.back()
        return True  # taken: Kivy would otherwise quit the app

    def back(self) -> None:
        """One step back: closes an open dialog; mid-game asks before leaving the game; on
        the home screen asks before quitting; elsewhere goes to the screen before."""
        from kivy.core.window import Window
        from kivy.uix.modalview import ModalView

        from client_kivy.widgets.common import ask

        modals = [w for w in Window.children if isinstance(w, ModalView)]
        if modals:
            modals[0].dismiss(animation=False)
            return
        current = self.root.current
        if current == "game":
            s = self.session
            if s is not None and s.outcome is None and s.viewer >= 0:
                detail = ("It stays on this device: Continue it from the home screen."
                          if s.kind == "local" else "Your seat is kept: come back from the lobby.")
                ask("Leave this game?", self.leave_game, "Leave", "Stay", detail)
            else:
                self.leave_game()
        elif current == "home":
            ask("Quit gamenight?", self.stop, "Quit", "Stay")
        elif current == "setup":
            self.root.get_screen("setup").back()
        elif current == "replay":
            self.root.get_screen("replay").leave()
        elif current == "rules":
            self.root.get_screen("rules").back()
        elif current == "table":
            self.leave_table()
        else:
            self.show("home")

    def on_stop(self) -> None:
        if self.session is not None:
            self.session.close()


def table_title(game: str, players: list[dict[str, Any]]) -> str:
    """ "Teeko: You v Computer": the game and its players as the game names them."""
    return f"{game.capitalize()}: {' v '.join(player_names(game, players))}"


def main() -> None:
    GamenightApp().run()
