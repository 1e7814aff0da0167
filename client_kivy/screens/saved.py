"""Games kept on this tablet: resume unfinished ones, replay finished ones."""

from __future__ import annotations

import time
from typing import Any

from kivy.app import App
from kivy.metrics import dp
from kivy.properties import StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.label import Label
from kivy.uix.screenmanager import Screen

from client_kivy.vm.session import outcome_text, player_names
from client_kivy.widgets.common import MUTED


class SavedRow(BoxLayout):
    text = StringProperty("")
    action = StringProperty("")
    game_id = StringProperty("")

    def on_open(self) -> None:
        App.get_running_app().open_saved(self.game_id)

    def on_delete(self) -> None:
        from client_kivy.widgets.common import ask

        def delete() -> None:
            app = App.get_running_app()
            app.store.delete(self.game_id)
            app.root.get_screen("saved").reload()

        ask("Delete this game?", delete, "Delete", "Keep",
            "It goes from this tablet for good, with its replay.")


class SavedScreen(Screen):
    def on_pre_enter(self, *_: Any) -> None:
        self.reload()

    def reload(self) -> None:
        app = App.get_running_app()
        box = self.ids.rows
        box.clear_widgets()
        records = app.store.list()
        if not records:
            box.add_widget(Label(text="No games yet.", color=MUTED, size_hint_y=None,
                                 height=dp(60)))
        for rec in records:
            game, players = str(rec.get("game", "?")), list(rec.get("players") or [])
            names = " v ".join(player_names(game, players))
            when = time.strftime("%d %b %H:%M", time.localtime(rec.get("updated", 0)))
            state = "in play"
            if rec.get("finished"):  # its result, as the end of the game said it
                state = outcome_text(game, players, rec.get("outcome")) or "finished"
            text = (f"[b]{game.capitalize()}[/b]  {names}\n"
                    f"[size=13sp][color=b8c7b8]{when} · {state}[/color][/size]")
            box.add_widget(SavedRow(text=text, game_id=rec["id"],
                                    action="Replay" if rec.get("finished") else "Resume"))
