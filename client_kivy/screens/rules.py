"""The rules of a game (docs/rules/<game>.md), scrolling, with pictures of the game drawn by
its own board widget (not played: no moves); reached from the set-up screen and from the
game screen, Back returns there."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from client_kivy.vm.rules import RulePicture, rules_markup, rules_pictures
from client_kivy.widgets.common import MUTED, WrapLabel


class RulePictureBox(BoxLayout):
    """A picture's place in the rules: as wide as the text, as high as the board drawing
    needs (a square board at most 380 dp; Teka's table a little wider than high)."""

    board = ObjectProperty(None)
    text = StringProperty("")
    """The picture in words (its caption): what a reader says for it."""
    tall = BooleanProperty(False)
    """A table with a hand under it (Teka): higher than wide on a phone, and up to 480 dp."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(size_hint_y=None, padding=(dp(8), dp(4)), **kw)
        self.bind(width=self._fit, tall=self._fit)

    def _fit(self, *_: Any) -> None:
        ratio, most = (1.2, dp(480)) if self.tall else (0.8, dp(380))
        self.height = min(most, max(dp(200), (self.width - dp(16)) * ratio))


class RulesScreen(Screen):
    title = StringProperty("Rules")
    game = StringProperty("")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.back_to = "home"
        self.pictures: list[Any] = []
        """The board widgets drawing the rules' pictures (in view order)."""

    def show_game(self, game: str, back_to: str) -> None:
        self.back_to = back_to
        if game != self.game or not self.ids.text.children:
            self.game = game
            self.title = f"Rules of {game.capitalize()}"
            box = self.ids.text
            box.clear_widgets()
            self.pictures = []
            pictures = rules_pictures(game)
            for para in rules_markup(game):
                box.add_widget(WrapLabel(text=para, markup=True, halign="left",
                                         font_name="DejaVuSans"))
                if para.startswith("[size="):  # a heading: its pictures under it
                    for pic in [p for p in pictures if p.heading in para]:
                        pictures.remove(pic)
                        self._add_picture(box, game, pic)
        self.ids.scroll.scroll_y = 1

    def _add_picture(self, box: Any, game: str, pic: RulePicture) -> None:
        """The game's own board widget showing ``pic``'s position, not played (no session,
        no legal moves, touches ignored), its caption under it."""
        from client_kivy.widgets.boards import make_board

        board = make_board(game)
        board.disabled = True
        holder = RulePictureBox(board=board, tall=pic.tall, text=pic.caption)
        holder.add_widget(board)
        board.refresh(pic.view, [])
        box.add_widget(holder)
        box.add_widget(WrapLabel(text=pic.caption, font_size=sp(14), color=MUTED,
                                 italic=True, font_name="DejaVuSans"))
        self.pictures.append(board)

    def back(self) -> None:
        App.get_running_app().show(self.back_to)
