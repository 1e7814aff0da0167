"""Table mode: an online game shown as the shared table (the spectator's view, large), a QR
code and a seat code for every open seat (updated live as seats fill), and per seat the
organiser's *Another phone* / *Bot*, and *On this tablet* for the people sharing it. The
logic is :class:`client_kivy.vm.table.TableModel`."""

from __future__ import annotations

import math
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.graphics.texture import Texture
from kivy.metrics import dp, sp
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from client_kivy.vm.table import TableModel, qr_matrix
from client_kivy.widgets.common import FlowGrid, GButton, GToggle


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
    """One seat at its place round the table: open, its QR code and seat code large; taken,
    who sits there instead; the organiser's buttons under it."""

    code = StringProperty("")
    line = StringProperty("")
    """The seat in a line ("Seat 3 (South): Bob"): what the card says, as the model says it."""
    place = StringProperty("")
    who = StringProperty("")
    hint = StringProperty("")
    url = StringProperty("")
    seat = ObjectProperty(-1)
    wide = BooleanProperty(True)
    """QR code beside the words (above and below the table), or above them (at its sides)."""
    tight = BooleanProperty(False)
    """A phone on its side: no hint line under the code, so the buttons stay in the window."""
    qr_side = NumericProperty(dp(160))
    code_size = NumericProperty(sp(32))


class SeatRing(Widget):
    """The table seen from above: the board in the middle and every seat's card at its
    place round it (the first seat at the bottom, the others round the table as the board
    draws them: Teka's North at the bottom, East on the right), all in view at once. On a
    phone (``compact``) one seat's card at a time, chosen with a row of seat buttons above
    it, and the board beside or under it."""

    table_area = ListProperty([0, 0, 0, 0])
    """x, y, width, height of the middle, between the seats: the board's place."""
    compact = BooleanProperty(False)
    board_box: Widget | None = None
    switcher: Widget | None = None

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.cards: list[SeatCard] = []
        self._layout = Clock.create_trigger(self.do_layout, -1)
        self.bind(pos=self._layout, size=self._layout)

    def set_content(self, board_box: Widget, cards: list[SeatCard],
                    switcher: Widget | None) -> None:
        self.clear_widgets()
        self.board_box, self.cards, self.switcher = board_box, cards, switcher
        self.add_widget(board_box)
        if switcher is not None:
            self.add_widget(switcher)
            switcher.bind(height=self._layout)
        for card in cards:
            self.add_widget(card)
            card.bind(height=self._layout)
        self.do_layout()

    def do_layout(self, *_: Any) -> None:
        if self.board_box is None:
            return
        if self.compact:
            self._layout_compact()
        else:
            self._layout_round()

    def _layout_round(self) -> None:
        pad = dp(8)
        x, y, w, h = self.x + pad, self.y + pad, self.width - 2 * pad, self.height - 2 * pad
        n = max(1, len(self.cards))
        q = max(dp(104), min(dp(200), min(w, h) * (0.25 if n <= 4 else 0.16)))
        tall_w = q + dp(40)
        spots = []
        for i, card in enumerate(self.cards):
            angle = -math.pi / 2 + 2 * math.pi * i / n  # (as the board draws them)
            c, s = math.cos(angle), math.sin(angle)
            card.wide = n <= 4 and abs(s) > 0.7
            card.qr_side = q
            card.code_size = sp(30) if q > dp(140) else sp(24)
            # (upright, the cards above and below span the width: the side ones sit lower)
            side_room = tall_w * 2 + 2 * pad if n > 2 and w > h else 0
            card.width = min(w - side_room, q + dp(340)) if card.wide else tall_w
            spots.append((card, c, s))
        left, right, bottom, top = x, x + w, y, y + h
        for card, c, s in spots:
            cx = x + w / 2 + (w - card.width) / 2 * c
            cy = y + h / 2 + (h - card.height) / 2 * s
            card.pos = (cx - card.width / 2, cy - card.height / 2)
            if c < -0.3:
                left = max(left, card.right + pad)
            if c > 0.3:
                right = min(right, card.x - pad)
            if s < -0.3:
                bottom = max(bottom, card.top + pad)
            if s > 0.3:
                top = min(top, card.y - pad)
        self._place_board(left, bottom, max(dp(60), right - left), max(dp(60), top - bottom))

    def _layout_compact(self) -> None:
        pad = dp(6)
        x, y, w, h = self.x + pad, self.y + pad, self.width - 2 * pad, self.height - 2 * pad
        side = w > h * 1.2  # a phone on its side: the board left, the seats right
        col_w = w * 0.5 if side else w
        col_x = x + w - col_w
        top = y + h
        if self.switcher is not None:
            self.switcher.width = col_w
            self.switcher.pos = (col_x, top - self.switcher.height)
            top -= self.switcher.height + pad
        card_h = 0.0
        for card in self.cards:
            card.wide = True
            card.width = col_w
            room = (top - y) if side else h * 0.45
            card.qr_side = max(dp(96), min(dp(170), col_w * 0.42, room - dp(16)))
            card.tight = side
            card.code_size = sp(20) if side else sp(24)
            card.pos = (col_x, top - card.height)
            card_h = card.height
        if side:
            self._place_board(x, y, w - col_w - pad, h)
        else:
            self._place_board(x, y, w, max(dp(60), top - card_h - pad - y))

    def _place_board(self, x: float, y: float, w: float, h: float) -> None:
        self.table_area = [x, y, w, h]
        assert self.board_box is not None
        self.board_box.pos = (x, y)
        self.board_box.size = (w, h)


class TableScreen(Screen):
    title = StringProperty("")
    status = StringProperty("")
    message = StringProperty("")
    connection = StringProperty("")
    shown_seat = NumericProperty(-1)
    """On a phone: the seat whose card is shown (the seat switcher's choice)."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._trigger = Clock.create_trigger(self._sync, -1)
        self.model: TableModel | None = None
        self.board: Any = None
        self.board_box = BoxLayout(size_hint=(None, None))
        self.cards: dict[int, SeatCard] = {}
        self.switcher: FlowGrid | None = None
        self._key: Any = None
        self._was_open: list[int] = []
        self.bind(size=self._resized)

    def set_model(self, model: TableModel) -> None:
        from client_kivy.screens.game import board_for

        self.model = model
        model.subscribe(self._trigger)
        self.title = model.title()
        self.board = board_for(model.session.game_name)
        self.board.session = model.session
        self.board_box.clear_widgets()
        self.board_box.add_widget(self.board)
        self._sync()

    def teardown(self) -> None:
        self._trigger.cancel()
        if self.board is not None:
            self.board.stop_motion()
            self.board.session = None
            self.board = None
        self.board_box.clear_widgets()
        self.ids.ring.set_content(self.board_box, [], None)
        self.ids.actions.clear_widgets()
        self.cards = {}
        if self.model is not None:
            self.model.close()
            self.model = None

    def on_leave(self, *_: Any) -> None:
        if self.board is not None:
            self.board.stop_motion()

    @staticmethod
    def is_compact(width: float, height: float) -> bool:
        """A phone (upright or on its side): too small for every seat's card round the
        board at a size a phone's camera reads."""
        return bool(width < dp(600) or height < dp(560))

    def _resized(self, *_: Any) -> None:
        if self.is_compact(*self.size) != self.ids.ring.compact:
            self._key = None
            self._trigger()

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
        self.title = m.title()
        if m.open_seats():
            n = len(m.open_seats())
            self.status = (f"Waiting for {n} player{'s' if n > 1 else ''}: scan the code at "
                           "your seat with a phone, or type it in the app")
        else:
            self.status = s.status_text()
        self.message = m.message or s.message
        self.connection = connection_label(s.connection)[0]
        self.board.refresh(s.view, [])
        seats = [int(x.get("seat", i)) for i, x in enumerate(m.seats())]
        opened = m.open_seats()
        held = m.tablet_seats()
        finished = s.outcome is not None
        compact = self.is_compact(*self.size)
        # on a phone: the seat shown moves on to the next open one when its phone sits down
        if self.shown_seat not in seats or (self.shown_seat in self._was_open
                                            and self.shown_seat not in opened):
            self.shown_seat = next((i for i in opened if i > self.shown_seat),
                                   opened[0] if opened else (seats[0] if seats else -1))
        self._was_open = list(opened)
        key = (tuple(m.seat_line(i) for i in seats), tuple(opened), tuple(sorted(held)), finished,
               m.busy, tuple(sorted(m.codes.items())), compact, self.shown_seat)
        if key == self._key:
            return
        self._key = key
        self.cards = {}
        for seat in seats:
            self.cards[seat] = self._card(m, seat, seat in opened, finished)
        ring = self.ids.ring
        ring.compact = compact
        if compact:
            self.switcher = FlowGrid(cell_width=dp(80), max_cols=4, spacing=dp(4))
            for seat in seats:
                t = GToggle(text=m.seat_tab(seat), group=f"table-seat-{id(self)}", value=str(seat),
                            state="down" if seat == self.shown_seat else "normal",
                            font_size=sp(14))
                t.bind(on_press=lambda w: self.show_seat(int(w.value)))
                self.switcher.add_widget(t)
            shown = [self.cards[self.shown_seat]] if self.shown_seat in self.cards else []
            ring.set_content(self.board_box, shown, self.switcher)
        else:
            self.switcher = None
            ring.set_content(self.board_box, [self.cards[i] for i in seats], None)
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

    def show_seat(self, seat: int) -> None:
        """The seat switcher (on a phone): show ``seat``'s card."""
        self.shown_seat = seat
        self._trigger()

    def _card(self, m: TableModel, seat: int, is_open: bool, finished: bool) -> SeatCard:
        from client_kivy.vm.session import seat_word

        word = seat_word(m.session.game_name, seat)
        card = SeatCard(seat=seat, line=m.seat_line(seat), who=m.seat_who(seat),
                        place=f"Seat {seat + 1}" if word.isdigit() else word)
        if is_open and m.seat_code(seat):  # (its code: known to the organiser's tablet only)
            card.code = m.seat_code(seat)
            card.url = m.join_url(seat)
            card.hint = "Scan with a phone, or type the code in the app"
            card.ids.qr.matrix = qr_matrix(card.url)
        elif is_open:
            card.hint = "Open: join from the lobby"
        buttons = card.ids.buttons
        info = next((x for x in m.seats() if x.get("seat") == seat), {})

        def add(text: str, cb: Any) -> None:
            b = GButton(text=text, height=dp(50), font_size=sp(16),
                        bg=(1, 1, 1, 0.14), fg=(0.96, 0.93, 0.85, 1))
            b.bind(on_release=lambda *_: cb())
            buttons.add_widget(b)

        if finished or info.get("kind") == "bot":
            return card
        if is_open:
            add("On this device", lambda: m.sit_here(seat, self.seat_name(seat)))
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
