"""The rules of a game (docs/rules/<game>.md), scrolling; reached from the set-up screen and
from the game screen, Back returns there."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

from client_kivy.vm.rules import rules_markup
from client_kivy.widgets.common import WrapLabel


class RulesScreen(Screen):
    title = StringProperty("Rules")
    game = StringProperty("")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.back_to = "home"

    def show_game(self, game: str, back_to: str) -> None:
        self.back_to = back_to
        if game != self.game or not self.ids.text.children:
            self.game = game
            self.title = f"Rules of {game.capitalize()}"
            box = self.ids.text
            box.clear_widgets()
            for para in rules_markup(game):
                box.add_widget(WrapLabel(text=para, markup=True, halign="left",
                                         font_name="DejaVuSans"))
        self.ids.scroll.scroll_y = 1

    def back(self) -> None:
        App.get_running_app().show(self.back_to)
