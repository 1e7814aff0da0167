"""The game screen: board, players, whose turn, bot progress, refusals, hand-off."""

from __future__ import annotations

from typing import Any

from kivy.clock import Clock
from kivy.metrics import dp
from kivy.properties import (
    BooleanProperty,
    ColorProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.modalview import ModalView
from kivy.uix.screenmanager import Screen

from client_kivy.vm import clocks, feedback, layout
from client_kivy.vm.confirm import command_text
from client_kivy.vm.session import Session, move_list, partnership_of
from client_kivy.widgets.common import FlowGrid, GButton, real_widget
from client_kivy.widgets.seat_clock import SeatClocks

SWATCHES = {
    "teeko": [(0.93, 0.90, 0.82, 1), (0.16, 0.13, 0.12, 1)],
    "tiku": [(0.93, 0.90, 0.82, 1), (0.55, 0.16, 0.14, 1)],
}
SEAT_SWATCHES = [(0.91, 0.69, 0.29, 1), (0.45, 0.65, 0.95, 1), (0.95, 0.5, 0.45, 1),
                 (0.6, 0.85, 0.55, 1), (0.8, 0.6, 0.9, 1), (0.9, 0.9, 0.5, 1)]
META_LABELS = {"resign": "Resign", "offer_draw": "Offer draw", "accept_draw": "Accept draw",
               "decline_draw": "Decline draw"}


class PlayerChip(BoxLayout):
    name = StringProperty("")
    extra = StringProperty("")
    active = BooleanProperty(False)
    swatch = ColorProperty((1, 1, 1, 1))
    compact = BooleanProperty(False)
    """In a phone's player bar: smaller type and swatch."""


class PlayerBar(FlowGrid):
    """A phone's row of player chips (above the board: the others; below it: this
    device's seat)."""


class MoreSheet(ModalView):
    """A phone's bottom sheet: the game's less-used actions, what the board keeps for it
    (Teka's score sheet, Tedoku's other sheets) and the last moves. Part of the game
    screen: it goes with it."""

    title = StringProperty("More")
    moves = StringProperty("")

    MOVES_SHOWN = 40
    """Last lines of the move list shown in the sheet (the whole list: *Moves*)."""

    def set_moves(self, lines: list[str]) -> None:
        self.moves = "\n".join(lines[-self.MOVES_SHOWN:])


class HandoffOverlay(FloatLayout):
    """Pass the tablet: over the public table (no hand shown), which stays visible dimmed;
    nothing under it can be tapped."""

    name = StringProperty("")
    screen = ObjectProperty(None)

    def on_touch_down(self, touch: Any) -> bool:
        super().on_touch_down(touch)
        return True

    def on_touch_up(self, touch: Any) -> bool:
        super().on_touch_up(touch)
        return True


def board_for(game: str) -> Any:
    from client_kivy.widgets import boards

    return boards.make_board(game)


class EndBanner(FloatLayout):
    """The game is over: the result, Rematch (online: New table), Replay, and a way to look
    at the final position. Part of the game screen: it goes with it."""

    result = StringProperty("")
    again = StringProperty("Rematch")
    screen = ObjectProperty(None)
    dock = ListProperty([])
    """On a phone: (x, top, width) of the card, over the panel's scrolling part."""

    def on_touch_down(self, touch: Any) -> bool:
        """The card takes its taps; the rest of the screen (Menu, the panel's other
        actions, the final position) stays usable under the banner."""
        if self.ids.card.collide_point(*touch.pos):
            super().on_touch_down(touch)
            return True
        return False


class GameScreen(Screen):
    title = StringProperty("")
    status = StringProperty("")
    message = StringProperty("")
    connection = StringProperty("")
    connection_color = ColorProperty((0.6, 0.8, 0.6, 1))
    progress = NumericProperty(0.0)
    thinking = BooleanProperty(False)
    my_turn = BooleanProperty(False)
    handoff_name = StringProperty("")
    session = ObjectProperty(None, allownone=True)
    mode = StringProperty(layout.TABLET)
    """``tablet``, ``phone`` or ``phone-side`` (client_kivy/vm/layout.py)."""
    short_title = StringProperty("")
    """The game's name (and what follows the players: "(watching)", the code): the title on
    a phone on its side, whose player bars name the players."""
    stage_width = NumericProperty(100)
    stage_height = NumericProperty(100)

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._trigger = Clock.create_trigger(self._sync, -1)
        self.header = real_widget(self.ids.header)
        self.top_bar = PlayerBar()
        self.bottom_bar = PlayerBar(max_cols=1, cell_width=dp(200))
        self.more_box = BoxLayout(orientation="vertical", size_hint_y=None, spacing=dp(6))
        """On a phone the board's secondary widgets (Teka's score, Tedoku's other sheets)
        go here, shown in the *More* sheet."""
        self.more_box.bind(minimum_height=self.more_box.setter("height"))
        self.more_entries: list[tuple[str, Any]] = []
        """On a phone the actions of the *More* sheet: (text, callback(button))."""
        self.more_view: MoreSheet | None = None
        self._bar_key: Any = None
        self.chips: list[PlayerChip] = []
        self.board: Any = None
        self.ids.main.bind(orientation=self._arrange)
        self.bind(size=self._arrange)
        for w in (self.header, self.top_bar, self.bottom_bar, self.ids.inner):
            w.bind(height=self._size_stage)
        self.ids.scroll.bind(pos=self._place_banner, size=self._place_banner)
        Clock.schedule_once(self._arrange, 0)
        self.overlay: HandoffOverlay | None = None
        self._actions_key: Any = None
        self.clocks: SeatClocks | None = None
        self.banner: EndBanner | None = None
        self._banner_shown = False
        self._snap: feedback.Snapshot | None = None
        self.moves_view: Any = None  # the move list, when open
        self._title_tail: str | None = None

    def _arrange(self, *_: Any) -> None:
        """Put the header, the player chips and the bars where the window's layout wants
        them (client_kivy/vm/layout.py). A tablet: the header on top, the chips in the
        panel. A phone upright: the others' bar above the board, this device's below it,
        the status and actions under them. A phone on its side: the board the full height
        on the left; the header, the bars and the actions beside it."""
        mode = layout.layout_mode(self.width / dp(1), self.height / dp(1))
        if mode != self.mode:
            self.mode = mode
            self._actions_key = None  # the buttons split between the bar and the sheet
            if self.more_view is not None:
                self.more_view.dismiss(animation=False)
        frame, side, stage = self.ids.frame, self.ids.side, self.ids.stage
        header, top, bottom = self.header, self.top_bar, self.bottom_bar
        home = side if mode == layout.PHONE_SIDE else frame
        if header.parent is not home:
            header.parent.remove_widget(header)
            home.add_widget(header, index=len(home.children))  # first: at the top
        more = self.ids.more
        more.disabled = mode == layout.TABLET
        more.opacity = 0 if mode == layout.TABLET else 1
        more.width = 0 if mode == layout.TABLET else dp(84)
        for bar in (top, bottom):
            if bar.parent is not None:
                bar.parent.remove_widget(bar)
        if mode == layout.PHONE:
            stage.add_widget(top, index=len(stage.children))
            stage.add_widget(bottom)
        elif mode == layout.PHONE_SIDE:
            side.add_widget(top, index=len(side.children) - 1)  # under the header
            side.add_widget(bottom)
        self._bar_key = None
        self._place_chips()
        inner, players = self.ids.inner, self.ids.players
        # a tablet upright: the panel under the board starts with whose turn it is and the
        # game's buttons, the players last, so the buttons are in view without scrolling
        upright = self.ids.main.orientation == "vertical" or self.height < dp(480)
        at_end = bool(inner.children) and inner.children[0] == players  # ids: a proxy
        if upright and not at_end:
            inner.remove_widget(players)
            inner.add_widget(players)  # last in the box: at the bottom
        elif not upright and at_end:
            inner.remove_widget(players)
            inner.add_widget(players, index=len(inner.children))
        self._size_stage()
        if self.session is not None:
            self._trigger()
        Clock.schedule_once(self._place_banner, 0)  # (once the panel is laid out)

    def _place_chips(self) -> None:
        """The chips in the panel (a tablet) or in the bars (a phone: the others above,
        this device's seat below)."""
        s = self.session
        phone = self.mode != layout.TABLET
        if s is not None and phone:
            top, bottom = layout.bar_seats(s.game_name, s.kind, s.viewer, s.players)
        else:
            top, bottom = list(range(len(self.chips))), []
        key = (self.mode, tuple(top), tuple(bottom), len(self.chips))
        if key == self._bar_key:
            return
        self._bar_key = key
        for chip in self.chips:
            if chip.parent is not None:
                chip.parent.remove_widget(chip)
            chip.compact = phone
        players = self.ids.players
        for seats, box in ((top, self.top_bar if phone else players), (bottom, self.bottom_bar)):
            for seat in seats:
                if 0 <= seat < len(self.chips):
                    box.add_widget(self.chips[seat])

    def _size_stage(self, *_: Any) -> None:
        """The board's room on a phone: upright, as wide as the window (a square board) with
        the bars above and below it, the panel under them taking the rest; on its side, the
        window's height (a square board) and the panel beside it."""
        pad = dp(4)
        square = bool(getattr(self.board, "square", True))
        if self.mode == layout.PHONE:
            bars = self.top_bar.height + self.bottom_bar.height + dp(8)
            room = self.height - self.header.height - 3 * pad  # (the panel's spacing too)
            if square:
                board = min(self.width - 2 * pad, room - bars - dp(150))
            else:  # the Teka table: the panel as high as it needs, up to 36 %
                panel = min(self.ids.inner.height + dp(12), room * 0.36)
                board = room - bars - max(panel, dp(120))
            self.stage_height = max(dp(100), bars + board)
            self.ids.stage.height = self.stage_height  # (also when it is the same again)
        elif self.mode == layout.PHONE_SIDE:
            room = self.height - 2 * pad
            width = room if square else self.width * 0.56
            self.stage_width = max(dp(100), min(width, self.width - dp(300)))
            self.ids.stage.width = self.stage_width

    def on_touch_down(self, touch: Any) -> bool:
        """Each tap starts with a clear message line: what it shows is about the last tap
        (a refusal from an earlier one does not stay); the tap may say something anew."""
        s = self.session
        if s is not None and s.message and self.collide_point(*touch.pos):
            s.message = ""
            self._trigger()
        return bool(super().on_touch_down(touch))

    # -- session wiring -------------------------------------------------------------------
    def set_session(self, session: Session, title: str = "") -> None:
        if self.session is not None:
            self.session.unsubscribe(self._trigger)
        self.session = session
        session.subscribe(self._trigger)
        self.title = title or session.game_name.capitalize()
        # online the names follow the table (a seat taken, handed to a bot): the title is
        # made again from the session's players, keeping what follows them ("(watching)",
        # the code)
        self._title_tail = None
        if session.kind != "local":
            cuts = [i for i in (self.title.find(" (watching)"), self.title.find(" · code"))
                    if i >= 0]
            self._title_tail = self.title[min(cuts):] if cuts else ""
        self.short_title = session.game_name.capitalize() + (self._title_tail or "")
        box = self.ids.board_box
        box.clear_widgets()
        self.board = board_for(session.game_name)
        self.board.session = session
        box.add_widget(self.board)
        self._drop_banner()
        for chip in self.chips:
            if chip.parent is not None:
                chip.parent.remove_widget(chip)
        self.chips = []
        for seat in range(len(session.players) or 2):
            chip = PlayerChip()
            sw = SWATCHES.get(session.game_name, SEAT_SWATCHES)
            chip.swatch = sw[seat % len(sw)]
            self.chips.append(chip)
        self._bar_key = None
        self._place_chips()
        self._size_stage()
        self.more_box.clear_widgets()
        self._actions_key = None
        self._snap = None
        self._banner_shown = session.outcome is not None  # opened finished: no banner
        self._set_clocks(session)
        self._sync()

    def teardown(self) -> None:
        """Unbind from the session and drop every widget the game put here (the screen is
        discarded after this; a stale reference to one of its buttons sends nothing)."""
        self._trigger.cancel()
        self._set_clocks(None)
        if self.session is not None:
            self.session.unsubscribe(self._trigger)
        for attr in ("summary", "peek"):  # a Teka hand summary or last trick open
            modal = getattr(self.board, attr, None) if self.board is not None else None
            if modal is not None:
                modal.dismiss(animation=False)
        if self.moves_view is not None:
            self.moves_view.dismiss(animation=False)
            self.moves_view = None
        if self.more_view is not None:
            self.more_view.dismiss(animation=False)
        self.more_box.clear_widgets()
        self.more_entries = []
        self._drop_banner()
        if self.board is not None:
            self.board.stop_motion()  # no animation outlives the screen
            self.board.session = None
            self.board = None
        for box in (self.ids.board_box, self.ids.extra, self.ids.actions, self.ids.players,
                    self.top_bar, self.bottom_bar):
            box.clear_widgets()
        if self.overlay is not None:
            self.remove_widget(self.overlay)
            self.overlay = None
        self.chips = []
        self.session = None

    def _sync(self, *_: Any) -> None:
        s = self.session
        if s is None or self.board is None:
            return
        self.status = s.status_text()
        if self._title_tail is not None and s.players:
            self.title = live_title(s) + self._title_tail
        self.message = s.message or s.notice()
        self.thinking = bool(s.thinking)
        self.progress = float(s.progress)
        self.my_turn = s.my_turn
        self.connection, self.connection_color = connection_label(s.connection)
        for seat, chip in enumerate(self.chips):
            chip.name = clocks.chip_name(s, seat)
            chip.active = s.outcome is None and seat in s.to_act
            chip.extra = player_extra(s, seat)
        self._place_chips()  # (pass-and-play: the table turns to the person to act)
        self.board.refresh(s.view, s.legal)
        extra = getattr(self.board, "side_widgets", None)
        if extra is not None:  # on a phone what the board keeps for the sheet goes there
            extra(self.ids.extra, self.more_box if self.mode != layout.TABLET else None)
        self._set_actions(s)
        self._set_overlay(s)
        if self.clocks is not None:
            self.clocks.refresh()
        snap = feedback.snapshot(s)
        cue = feedback.cue(self._snap, snap)
        self._snap = snap
        if cue is not None:
            from kivy.app import App

            sounds = getattr(App.get_running_app(), "sounds", None)
            if sounds is not None:
                sounds.play(cue)
        if s.outcome is not None and not self._banner_shown and s.handoff is None:
            self._banner_shown = True
            self.show_banner()
        elif s.outcome is None and self._banner_shown:  # the end taken back: play goes on
            self._banner_shown = False
            self._drop_banner()
        if self.moves_view is not None or self.more_view is not None:
            lines = move_list(s.events, [s.player_name(i) for i in range(len(s.players))])
            if self.moves_view is not None:
                self.moves_view.lines = lines
            if self.more_view is not None:
                self.more_view.set_moves(lines)

    def _set_clocks(self, session: Session | None) -> None:
        """Seat clocks and "Hand to a bot" (client_kivy/widgets/seat_clock.py), online only."""
        if self.clocks is not None:
            self.clocks.detach()
            self.clocks = None
        if session is not None and session.kind == "remote":
            self.clocks = SeatClocks(self, session)

    def on_enter(self, *_: Any) -> None:
        if self.clocks is not None:
            self.clocks.start()

    def on_leave(self, *_: Any) -> None:
        if self.clocks is not None:
            self.clocks.stop()  # no tick outlives its screen
        if self.board is not None:
            self.board.stop_motion()

    def _set_actions(self, s: Session) -> None:
        metas = [c for c in s.legal if c.get("type") in META_LABELS]
        finished = s.outcome is not None
        can_undo = bool(getattr(s, "can_undo", False))
        can_hint = bool(getattr(s, "can_hint", False))
        held = self.board.pending() if self.board is not None else None
        banner = self.banner is not None  # (Replay and Rematch: on the banner while it is up)
        key = (tuple(c["type"] for c in metas), finished, s.kind, can_undo, can_hint,
               repr(held), banner, self.mode)
        if key == self._actions_key:
            return
        self._actions_key = key
        grid = self.ids.actions
        grid.clear_widgets()
        self.more_entries = []
        quiet = {"bg": (1, 1, 1, 0.14), "fg": (0.96, 0.93, 0.85, 1)}
        entries: list[tuple[str, Any, dict[str, Any]]] = []
        if held is not None:  # confirm-before-move: the held move waits for this
            entries.append((f"Confirm {command_text(held)}", lambda _b: self.confirm_move(), {}))
            entries.append(("Cancel", lambda _b: self.cancel_move(), quiet))
        if can_undo:
            entries.append(("Take back", lambda _b: self.take_back(), quiet))
        if can_hint:  # Teeko against the computer with the solved table on this device
            entries.append(("Hint", lambda _b: self.ask_hint(), quiet))
        for c in metas:
            entries.append((META_LABELS[c["type"]],
                            lambda b_, cmd=c: self._send_meta(cmd, b_), quiet))
        if finished and not banner:
            entries.append(("Replay", lambda _b: self.open_replay(), {}))
            entries.append(("Rematch" if s.kind == "local" or s.viewer >= 0 else "New table",
                            lambda _b: self.new_game(), {}))
        actions = [("Moves", self.show_moves), ("Rules", self.show_rules)]
        if s.share_url() is not None and not banner:  # its page in any browser (on the
            actions.append(("Share", self.share))  # banner while it is up: shown once)
        for text, action in actions:
            entries.append((text, lambda _b, act=action: act(), quiet))
        phone = self.mode != layout.TABLET
        for text, call, look in entries:
            if phone and not layout.in_short_bar(text):  # on a phone: in the More sheet
                self.more_entries.append((text, call))
                continue
            b = GButton(text=text, **look)
            b.bind(on_release=call)
            grid.add_widget(b)
        if self.more_view is not None:
            self.more_view.dismiss(animation=False)  # (its buttons are the old ones)

    def _send_meta(self, cmd: dict[str, Any], button: Any = None) -> None:
        if cmd.get("type") == "resign" and button is not None and not button.text.startswith(
                "Sure"):
            button.text = "Sure? Tap again"  # a second tap resigns
            return
        if self.session is not None:
            self.session.send(cmd)

    def _set_overlay(self, s: Session) -> None:
        name = s.player_name(s.handoff) if s.handoff is not None else ""
        self.handoff_name = name
        if name and self.overlay is None:
            self.overlay = HandoffOverlay(name=name, screen=self)
            self.add_widget(self.overlay)
        elif name and self.overlay is not None:
            self.overlay.name = name
        elif not name and self.overlay is not None:
            self.remove_widget(self.overlay)
            self.overlay = None

    # -- end of game ----------------------------------------------------------------------
    def show_banner(self) -> None:
        s = self.session
        if s is None or s.outcome is None:
            return
        self._drop_banner()
        self.banner = EndBanner(result=s.status_text(), screen=self,
                                again="Rematch" if s.kind == "local" or s.viewer >= 0
                                else "New table")
        if s.share_url() is not None:  # the banner sits over the panel's Share: its own
            share = GButton(text="Share", bg=(1, 1, 1, 0.14), fg=(0.96, 0.93, 0.85, 1))
            share.bind(on_release=lambda *_: self.share())
            self.banner.ids.buttons.add_widget(share, index=1)
        self.add_widget(self.banner)
        self._place_banner()
        self._set_actions(s)

    def _place_banner(self, *_: Any) -> None:
        """On a phone the banner's card lies over the status and actions (the panel's
        scrolling part), never over the board or the player bars."""
        if self.banner is None:
            return
        if self.mode == layout.TABLET:
            self.banner.dock = []
            return
        scroll = self.ids.scroll
        x, y = self.to_widget(*scroll.to_window(scroll.x, scroll.y))
        self.banner.dock = [x, y + scroll.height, scroll.width]

    def _drop_banner(self) -> None:
        """The end banner goes; its Replay and Rematch come back to the panel: shown once,
        in one place."""
        if self.banner is not None:
            self.remove_widget(self.banner)
            self.banner = None
            if self.session is not None and self.board is not None:
                self._set_actions(self.session)

    def close_banner(self) -> None:
        """See the final position: the banner goes; Replay and Rematch come to the panel."""
        self._drop_banner()

    # -- the phone's More sheet -------------------------------------------------------------
    def show_more(self) -> None:
        """A phone: the sheet with the less-used actions, the board's secondary widgets
        (Teka's score and score sheet, Tedoku's other sheets) and the last moves."""
        s = self.session
        if s is None:
            return
        if self.more_view is not None:
            self.more_view.dismiss(animation=False)
        sheet = MoreSheet(title=s.game_name.capitalize())
        for text, call in self.more_entries:
            b = GButton(text=text, bg=(1, 1, 1, 0.14), fg=(0.96, 0.93, 0.85, 1))
            b.bind(on_release=lambda b_, c=call: self._from_sheet(c, b_))
            sheet.ids.actions.add_widget(b)
        if self.more_box.parent is not None:
            self.more_box.parent.remove_widget(self.more_box)
        sheet.ids.board_more.add_widget(self.more_box)
        sheet.set_moves(move_list(s.events, [s.player_name(i) for i in range(len(s.players))]))
        sheet.bind(on_dismiss=self._sheet_gone)
        self.more_view = sheet
        sheet.open(animation=False)

    def _from_sheet(self, call: Any, button: Any) -> None:
        """A button of the sheet: the sheet goes first (but for the first tap of Resign,
        which asks for a second)."""
        sheet = self.more_view
        call(button)
        if sheet is not None and not button.text.startswith("Sure?"):
            sheet.dismiss(animation=False)

    def _sheet_gone(self, sheet: Any) -> None:
        if self.more_box.parent is not None:
            self.more_box.parent.remove_widget(self.more_box)
        if self.more_view is sheet:
            self.more_view = None

    # -- move list and rules ----------------------------------------------------------------
    def show_moves(self) -> None:
        from client_kivy.widgets.common import MoveList

        s = self.session
        if s is None:
            return
        if self.moves_view is not None:
            self.moves_view.dismiss(animation=False)
        view = MoveList(title="Moves: " + s.game_name.capitalize())
        view.lines = move_list(s.events, [s.player_name(i) for i in range(len(s.players))])
        view.bind(on_dismiss=lambda *_: setattr(self, "moves_view", None))
        self.moves_view = view
        view.open(animation=False)

    def show_rules(self) -> None:
        from kivy.app import App

        if self.session is not None:
            App.get_running_app().open_rules(self.session.game_name, "game")

    # -- buttons ----------------------------------------------------------------------------
    def confirm_move(self) -> None:
        if self.board is not None:
            self.board.confirm_pending()

    def cancel_move(self) -> None:
        if self.board is not None:
            self.board.cancel_pending()

    def take_back(self) -> None:
        undo = getattr(self.session, "undo", None)
        if undo is not None:
            undo()

    def share(self) -> None:
        """The game page's address on the clipboard and in the message line."""
        if self.session is None:
            return
        url = self.session.share()
        if url is not None:
            try:
                from kivy.core.clipboard import Clipboard

                Clipboard.copy(url)
            except Exception:  # no clipboard on this platform: the address is shown
                pass

    def ask_hint(self) -> None:
        hint = getattr(self.session, "hint", None)
        if hint is not None:
            hint()

    def confirm_handoff(self) -> None:
        if self.session is not None:
            self.session.confirm_handoff()

    def leave(self) -> None:
        from kivy.app import App

        App.get_running_app().leave_game()

    def open_replay(self) -> None:
        from kivy.app import App

        App.get_running_app().replay_session(self.session)

    def new_game(self) -> None:
        from kivy.app import App

        App.get_running_app().rematch(self.session)


def live_title(s: Session) -> str:
    """ "Teeko: Ann v Bob": the game and who sits at each seat now ("(open)" for a seat
    nobody has taken; bots by the name their chip shows)."""
    names = [s.player_name(i) if p.get("kind") == "bot" or p.get("taken", True)
             else "(open)" for i, p in enumerate(s.players)]
    return f"{s.game_name.capitalize()}: {' v '.join(names)}"


def connection_label(state: str) -> tuple[str, tuple[float, float, float, float]]:
    return {
        "local": ("On this device", (0.72, 0.78, 0.72, 1)),
        "online": ("* Online", (0.45, 0.9, 0.5, 1)),
        "connecting": ("* Connecting...", (0.95, 0.8, 0.35, 1)),
        "offline": ("* Reconnecting...", (1.0, 0.5, 0.45, 1)),
        "spectating": ("* Watching live", (0.45, 0.8, 0.95, 1)),
        "released": ("Seat handed over", (1.0, 0.5, 0.45, 1)),
    }.get(state, (state, (0.72, 0.78, 0.72, 1)))


def player_extra(s: Session, seat: int) -> str:
    text = " · ".join(t for t in (game_extra(s, seat), s.bot_level(seat)) if t)
    if 0 <= seat < len(s.players) and s.players[seat].get("connected") is False:
        text = (text + " · away").lstrip(" ·")
    return text


def game_extra(s: Session, seat: int) -> str:
    v = s.view or {}
    if s.game_name == "teeko":
        hand = v.get("in_hand") or [0, 0]
        if seat < len(hand) and hand[seat]:
            return f"{hand[seat]} to place"
        return ""
    if s.game_name == "tiku":
        hands = v.get("hands") or []
        return f"{hands[seat]} discs" if seat < len(hands) else ""
    side = partnership_of(s.game_name, len(s.players), seat)
    if side:  # (partners: the side's initials, "N-S")
        return "-".join(word[:1] for word in side.split("-"))
    if s.game_name == "tedoku":
        for p in v.get("players") or []:
            if p.get("seat") == seat:
                mark = " · drawn" if p.get("placed") and s.outcome is None else ""
                return f"{(p.get('score') or {}).get('total', 0)} pts{mark}"
    return ""
