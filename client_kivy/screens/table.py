"""Table mode: an online game shown as the shared table (the spectator's view, large), a QR
code and a seat code for every open seat (updated live as seats fill), and per seat the
organiser's *Another phone* / *Bot*, and *On this tablet* for the people sharing it. The
logic is :class:`client_kivy.vm.table.TableModel`."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.graphics.texture import Texture
from kivy.metrics import dp
from kivy.properties import ListProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from client_kivy.vm.table import TableModel, qr_matrix
from client_kivy.widgets.common import GButton


class QRCode(Widget):
    """A QR code drawn from segno's module matrix: one texel a module, scaled without
    smoothing, dark on white (the quiet zone is part of the matrix)."""

    matrix = ListProperty([])
    texture = ObjectProperty(None, allownone=True)

    def on_matrix(self, *_: Any) -> None:
        rows = self.matrix
        n = len(rows)
        if not n:
            self.texture = None
            return
        buf = bytearray()
        for row in reversed(rows):  # a texture's first row is the bottom one
            buf.extend(0 if dark else 255 for dark in row)
        tex = Texture.create(size=(n, n), colorfmt="luminance")
        tex.mag_filter = "nearest"
        tex.min_filter = "nearest"
        tex.blit_buffer(bytes(buf), colorfmt="luminance", bufferfmt="ubyte")
        self.texture = tex


class SeatCard(BoxLayout):
    """One seat: open, its QR code and seat code large; taken, who sits there and the
    organiser's buttons."""

    code = StringProperty("")
    line = StringProperty("")
    url = StringProperty("")
    seat = ObjectProperty(-1)


class TableScreen(Screen):
    title = StringProperty("")
    status = StringProperty("")
    message = StringProperty("")
    connection = StringProperty("")

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._trigger = Clock.create_trigger(self._sync, -1)
        self.model: TableModel | None = None
        self.board: Any = None
        self.cards: dict[int, SeatCard] = {}
        self._key: Any = None

    def set_model(self, model: TableModel) -> None:
        from client_kivy.screens.game import board_for
        from client_kivy.vm.lobby import game_line

        self.model = model
        model.subscribe(self._trigger)
        self.title = "The table: " + game_line(model.game)
        self.board = board_for(model.session.game_name)
        self.board.session = model.session
        self.ids.board_box.clear_widgets()
        self.ids.board_box.add_widget(self.board)
        self._sync()

    def teardown(self) -> None:
        self._trigger.cancel()
        if self.board is not None:
            self.board.stop_motion()
            self.board.session = None
            self.board = None
        self.ids.board_box.clear_widgets()
        self.ids.seats.clear_widgets()
        self.ids.actions.clear_widgets()
        self.cards = {}
        if self.model is not None:
            self.model.close()
            self.model = None

    def on_leave(self, *_: Any) -> None:
        if self.board is not None:
            self.board.stop_motion()

    def _sync(self, *_: Any) -> None:
        from client_kivy.screens.game import connection_label

        m = self.model
        if m is None or self.board is None:
            return
        s = m.session
        app = App.get_running_app()
        if m.rematch_game is not None:
            app.follow_table_rematch(m)
            return
        if m.open_seats():
            n = len(m.open_seats())
            self.status = (f"Waiting for {n} player{'s' if n > 1 else ''}: scan a seat's "
                           "code with a phone, or type it in the app")
        else:
            self.status = s.status_text()
        self.message = m.message or s.message
        self.connection = connection_label(s.connection)[0]
        self.board.refresh(s.view, [])
        seats = [int(x.get("seat", i)) for i, x in enumerate(m.seats())]
        opened = m.open_seats()
        held = m.tablet_seats()
        finished = s.outcome is not None
        key = (tuple(m.seat_line(i) for i in seats), tuple(opened), tuple(sorted(held)), finished,
               m.busy, tuple(sorted(m.codes.items())))
        if key == self._key:
            return
        self._key = key
        box = self.ids.seats
        box.clear_widgets()
        self.cards = {}
        for seat in seats:
            card = self._card(m, seat, seat in opened, finished)
            self.cards[seat] = card
            box.add_widget(card)
        grid = self.ids.actions
        grid.clear_widgets()
        if held and not finished:
            b = GButton(text="Play here (" + ", ".join(str(i + 1) for i in sorted(held)) + ")")
            b.bind(on_release=lambda *_: app.open_kiosk(m.game, m.tablet_seats(), False))
            grid.add_widget(b)
        if finished and held:
            b = GButton(text="Rematch")
            b.bind(on_release=lambda *_: app.table_rematch(m))
            grid.add_widget(b)

    def _card(self, m: TableModel, seat: int, is_open: bool, finished: bool) -> SeatCard:
        card = SeatCard(seat=seat, line=m.seat_line(seat))
        if is_open and m.seat_code(seat):  # (its code: known to the organiser's tablet only)
            card.code = m.seat_code(seat)
            card.url = m.join_url(seat)
            card.ids.qr.matrix = qr_matrix(card.url)
        buttons = card.ids.buttons
        info = next((x for x in m.seats() if x.get("seat") == seat), {})

        def add(text: str, cb: Any) -> None:
            b = GButton(text=text, size_hint_x=None, width=dp(128), height=dp(50),
                        bg=(1, 1, 1, 0.14), fg=(0.96, 0.93, 0.85, 1))
            b.bind(on_release=lambda *_: cb())
            buttons.add_widget(b)

        if finished or info.get("kind") == "bot":
            return card
        if is_open:
            add("On this tablet", lambda: m.sit_here(seat, self.seat_name(seat)))
        else:
            add("Another phone", lambda: m.release(seat))
        app = App.get_running_app()
        add("Bot", lambda: m.to_bot(seat, m.bot_level(app.lobby.kinds)))
        return card

    def seat_name(self, seat: int) -> str:
        typed = self.ids.name.text.strip()
        return typed or f"Player {seat + 1}"

    def leave(self) -> None:
        App.get_running_app().leave_table()
