"""Replay a game: step, scrub with the slider, autoplay; hand by hand where the game has hands."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.metrics import dp
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from client_kivy.vm import layout
from client_kivy.vm.session import ReplayModel, move_list, outcome_text, player_names
from client_kivy.widgets.common import real_widget


class ReplayScreen(Screen):
    title = StringProperty("Replay")
    caption = StringProperty("")
    analysis_text = StringProperty("")
    index = NumericProperty(0)
    length = NumericProperty(0)
    playing = BooleanProperty(False)
    mode = StringProperty(layout.TABLET)
    """``tablet``, ``phone`` or ``phone-side`` (client_kivy/vm/layout.py)."""
    board_width = NumericProperty(100)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.model: ReplayModel | None = None
        self.board: Any = None
        self._clock: Any = None
        self.back_to = "saved"
        self.moves_view: Any = None
        self.header = real_widget(self.ids.header)
        self.filler = Widget()
        self.bind(size=self._arrange)
        Clock.schedule_once(self._arrange, 0)

    def _arrange(self, *_: Any) -> None:
        """A phone on its side: the board the window's height (a square board; the Teka
        table a little over half the width) on the left, the title, Moves, captions,
        slider and transport beside it. Elsewhere the board above the panel."""
        self.mode = layout.layout_mode(self.width / dp(1), self.height / dp(1))
        frame, panel, header = self.ids.frame, self.ids.panel, self.header
        home = panel if self.mode == layout.PHONE_SIDE else frame
        if header.parent is not home:
            header.parent.remove_widget(header)
            home.add_widget(header, index=len(home.children))  # first: at the top
        if self.filler.parent is not None:
            self.filler.parent.remove_widget(self.filler)
        if self.mode == layout.PHONE_SIDE:
            panel.add_widget(self.filler)  # the rest of the height: the panel's foot
            square = bool(getattr(self.board, "square", True))
            width = self.height if square else self.width * 0.56
            self.board_width = max(dp(100), min(width, self.width - dp(300)))
            self.ids.board_box.width = self.board_width  # (also when it is the same again)

    def set_model(self, model: ReplayModel, title: str = "", back_to: str = "saved") -> None:
        from client_kivy.widgets.boards import make_board

        self.stop()
        if self.board is not None:
            self.board.stop_motion()
        if self.model is not None and self.model is not model and self.model.teka_analysis:
            self.model.teka_analysis.stop()
        self.model = model
        if model.teka_analysis is not None:
            model.teka_analysis.on_change = lambda: self._show() if self.model is model else None
        self.back_to = back_to
        self.title = title or f"Replay: {model.game_name.capitalize()}"
        self.ids.board_box.clear_widgets()
        self.board = make_board(model.game_name)
        if hasattr(self.board, "players"):  # the Teka table names its seats
            self.board.players = player_names(model.game_name, model.players)
        self.ids.board_box.add_widget(self.board)
        self._arrange()
        self.length = model.length
        self._show()

    def _show(self) -> None:
        m = self.model
        if m is None:
            return
        self.index = m.index
        self.board.refresh(m.view, [])
        out = m.outcome()
        text = f"{m.index} / {m.length}   {m.event_text()}"
        if out is not None and m.index == m.length:
            text = outcome_text(m.game_name, m.players, out)
            if m.teka_analysis is not None:  # (a match ends with its last hand's score)
                text += m.teka_analysis.note(m.index - 1)
        self.caption = text
        a = m.teka_analysis
        self.analysis_text = a.panel(m.index, self.names()) if a is not None else \
            m.analysis_note()
        if self.moves_view is not None:
            self.moves_view.current = self.current_move()

    def names(self) -> list[str]:
        m = self.model
        return player_names(m.game_name, m.players) if m else []

    def current_move(self) -> int:
        """The line of the move list the position shown follows (-1 before the first)."""
        m = self.model
        return len(move_list(m.events[:m.index], self.names())) - 1 if m else -1

    def show_moves(self) -> None:
        from client_kivy.widgets.common import MoveList

        m = self.model
        if m is None:
            return
        view = MoveList(title="Moves", pick=self.go_to_move)
        view.lines = move_list(m.events, self.names())
        if m.teka_analysis is not None:  # (a costly card: its ? or ?? mark)
            at = [k for k, ev in enumerate(m.events) if move_list([ev])]
            view.lines = [line + m.teka_analysis.mark(k)
                          for line, k in zip(view.lines, at, strict=False)]
        view.current = self.current_move()
        view.bind(on_dismiss=lambda *_: setattr(self, "moves_view", None))
        self.moves_view = view
        view.open(animation=False)

    def go_to_move(self, line: int) -> None:
        """Show the position after the move on ``line`` of the move list (a tap on it)."""
        m = self.model
        if m is None:
            return
        events = [k for k, ev in enumerate(m.events) if move_list([ev])]  # one line each
        if 0 <= line < len(events):
            self.stop()
            m.seek(events[line] + 1)
            self._show()

    def on_leave(self, *_: Any) -> None:
        self.stop()
        if self.board is not None:
            self.board.stop_motion()  # no animation outlives the screen
        if self.moves_view is not None:
            self.moves_view.dismiss(animation=False)

    def seek(self, value: float) -> None:
        if self.model is None or int(value) == self.model.index:
            return
        self.model.seek(int(value))
        self._show()

    def step(self, delta: int) -> None:
        if self.model is not None:
            self.model.step(delta)
            self._show()

    def mark(self, delta: int) -> None:
        if self.model is not None:
            self.model.next_mark(delta)
            self._show()

    def toggle_play(self) -> None:
        if self.playing:
            self.stop()
            return
        if self.model is not None and self.model.index >= self.model.length:
            self.model.seek(0)
        self.playing = True
        self._clock = Clock.schedule_interval(self._tick, 0.6)

    def _tick(self, _dt: float) -> bool:
        if self.model is None or not self.model.step(1):
            self.stop()
            return False
        self._show()
        return True

    def stop(self) -> None:
        self.playing = False
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None

    def leave(self) -> None:
        self.stop()
        App.get_running_app().show(self.back_to)
