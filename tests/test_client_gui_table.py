"""Table mode in the real app, by touch in an offscreen window against a real daphne and
PostgreSQL: a tablet opens an online game as the shared table (the public view, a QR code
and a seat code for each open seat, updated live as phones join), the people sharing the
tablet sit at it, the others on phones; hand-offs only between the tablet's seats; the
organiser hands a seat to another phone or to a bot; one-tap rematch online."""

from __future__ import annotations

import json
import threading
from itertools import pairwise
from random import Random
from typing import Any

import pytest
from server_helpers import seat_code
from test_client_gui import app, by_text, find  # noqa: F401  (the module-scoped app fixture)
from test_client_gui_clocks import connect_lobby

from bench import testing

testing.headless(960, 640)

pytestmark = [pytest.mark.gui, pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def leave_as_found(app):  # noqa: F811
    yield
    if app.session is not None:
        app.leave_game()
    if app.root.has_screen("table"):
        app.leave_table()
    app.lobby.logout()
    app.show("home")
    from kivy.core.window import Window
    from kivy.uix.modalview import ModalView

    for w in [w for w in Window.children if isinstance(w, ModalView)]:
        w.dismiss(animation=False)  # (a Teka hand summary left open takes every touch)
    testing.pump(2)


def table_screen(app):  # noqa: F811
    return app.root.get_screen("table")


def module_colours(path, qr):
    """The drawn QR code read back from the pixels its widget draws (rendered off the window
    into ``path``: the window's own framebuffer keeps an earlier size after a resize in the
    offscreen driver): dark (True) or light at the centre of each module."""
    from kivy.core.image import Image as CoreImage

    qr.export_to_png(path)
    img = CoreImage(path, keep_data=True)
    n = len(qr.matrix)
    step = qr.width / n
    sx = img.texture.size[0] / qr.width
    sy = img.texture.size[1] / qr.height
    rows = []
    for r in range(n):
        row = []
        for c in range(n):
            px = int((c + 0.5) * step * sx)
            py = int((qr.height - (r + 0.5) * step) * sy)
            rgb = img.read_pixel(px, img.texture.size[1] - 1 - py)[:3]
            row.append(sum(rgb) / 3 < 0.5)
        rows.append(row)
    return rows


def organiser_app(the_app: Any, server: Any) -> Any:
    """The app logged in as the organiser "org" (made once) and its Api: the tables it makes
    are its own, so the server gives it their seat codes (docs/protocol.md, "Private
    tables")."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher
    from django.contrib.auth.models import User

    hasher = PBKDF2PasswordHasher()  # (the server's hasher: the test process knows MD5)
    User.objects.create(username="org", password=hasher.encode("pw", hasher.salt(),
                                                               iterations=1000))
    the_app.lobby.connect(server.http, username="org", password="pw")
    lobby = the_app.lobby
    assert testing.wait_until(lambda: lobby.connected and lobby.username == "org"), lobby.error
    return the_app.lobby.api


def test_table_mode_shows_open_seats_with_qr_codes_live(app, daphne_server, server_runtime,  # noqa: F811
                                                       tmp_path):
    from client_kivy.vm.net import Api
    from client_kivy.vm.table import qr_matrix

    testing.set_size(1280, 800)  # (a tablet on its side, whatever size earlier tests left)
    # (the tablet is the organiser's: a private table's codes are for it and its players)
    api = organiser_app(app, daphne_server)
    game = api.create("teka", {}, [{"kind": "open"}] * 4)
    app.show("lobby")
    lobby = app.root.get_screen("lobby")
    # (the server may list tables of earlier tests: this game's own row, by its number)
    def row() -> object | None:
        rows = [r for r in find(lobby, "LobbyRow") if f"#{game['id']} · private" in r.text]
        return rows[0] if rows else None

    assert testing.wait_until(lambda: row() is not None and any(
        b.text == "Table" for b in find(row(), "GButton")))
    testing.pump(3)
    lobby_row = row()
    assert lobby_row is not None
    scroll = [w for w in find(lobby, "ScrollView") if lobby_row in list(w.walk())]
    if scroll:
        scroll[0].scroll_to(lobby_row, animate=False)
        testing.pump(3)
    testing.tap(by_text(lobby_row, "Table"))
    assert testing.wait_until(lambda: app.root.current == "table")
    screen = table_screen(app)
    assert testing.wait_until(lambda: screen.model.session.connection == "spectating")
    testing.pump(3)
    assert sorted(screen.cards) == [0, 1, 2, 3]
    for seat, card in screen.cards.items():
        assert card.code == seat_code(game, seat)
        assert card.url == f"{daphne_server.http}/join/{seat_code(game, seat)}/"
        assert card.ids.qr.matrix == qr_matrix(card.url)
    # the QR code really drawn is segno's matrix of the seat's address
    card = screen.cards[0]  # (at its seat, in view: no scrolling)
    testing.pump(3)
    # (the frame after a scroll or a resize may still be drawing: read until it is there)
    expected, read = qr_matrix(card.url), None
    for attempt in range(20):
        read = module_colours(str(tmp_path / f"table{attempt}.png"), card.ids.qr)
        if read == expected:
            break
        testing.pump(5)
    assert read == expected
    # a phone joins seat 3 by its seat code: the table shows Bob there, its QR code gone
    Api(daphne_server.http).join_code(seat_code(game, 2), "Bob")
    assert testing.wait_until(lambda: screen.cards.get(2) is not None and
                              screen.cards[2].code == "" and "Bob" in screen.cards[2].line)
    assert sorted(s for s, c in screen.cards.items() if c.code) == [0, 1, 3]
    # no hand is shown on the table: the public view only
    view = screen.model.session.view
    assert json.dumps(view).count('"hand"') == 0 or all(
        not p.get("hand") for p in view.get("players", []))


ACTIONS = {"keep", "throw_in", "bid", "trumps", "play", "raise", "accept_raise",
           "refuse_raise", "cut"}


def teka_choice(legal, view, rng):
    """What a player at this table does: keep, the first caller bids the lowest number and
    the others pass, the first trump suit, a random card (no signal), refuse a raise."""
    types = {c["type"] for c in legal}
    for t in ("keep", "cut", "refuse_raise"):
        if t in types:
            return next(c for c in legal if c["type"] == t)
    bids = [c for c in legal if c["type"] == "bid"]
    if bids:
        calls = {c["call"]: c for c in bids}
        if view.get("bids") and "pass" in calls:
            return calls["pass"]
        numbers = [c for c in bids if isinstance(c["call"], int)]
        return min(numbers, key=lambda c: c["call"]) if numbers else bids[0]
    if "trumps" in types:
        return next(c for c in legal if c["type"] == "trumps")
    plays = [c for c in legal if c["type"] == "play" and not c.get("signal")]
    return rng.choice(plays)


class Phone:
    """A player on a phone: the app's RemoteSession over a real socket, answering in the
    socket's thread whenever it is this seat's turn."""

    def __init__(self, api, game, seat, secret, seed):
        from client_kivy.vm.net import RemoteSession

        self.session = RemoteSession(api, game, seat, secret)
        self.rng = Random(seed)
        self.sent_at = -1
        self.lock = threading.Lock()
        self.session.subscribe(self.act)

    def act(self):
        s = self.session
        with self.lock:
            if s.my_turn and s.legal and s.outcome is None and s.seq > self.sent_at and \
                    not any(ev.get("type") == "score" for ev in s.events):
                self.sent_at = s.seq
                s.send(teka_choice(s.legal, s.view, self.rng))

    def start(self):
        self.session.start()

    def close(self):
        self.session.close()


def tap_until(root, text, cond, tries=5):
    """Tap the button reading ``text`` until ``cond`` holds. The panel is rebuilt when a
    presence frame changes a seat's line, so ``root`` may be a function giving the widget
    (a seat's card as it is now): the card and its button are looked up again each time."""
    for _ in range(tries):
        testing.pump(3)
        if cond():
            return True
        hits = [b for b in find(root() if callable(root) else root, "GButton")
                if b.text == text and b.get_root_window() is not None]
        if hits:
            testing.tap(hits[0])
            if testing.wait_until(cond, 3):
                return True
    return bool(cond())


def tablet_turn(screen, s, rng):
    """The person the tablet was handed to acts by touch (a button, or a card tapped
    twice)."""
    from client_kivy.vm.teka import call_text
    from client_kivy.widgets.teka_table import SUIT_NAME

    cmd = teka_choice(s.legal, s.view, rng)
    board = screen.board
    if cmd["type"] == "play":
        testing.tap(board, *board.card_point(cmd["card"]))
        testing.tap(board, *board.card_point(cmd["card"]))
        return cmd
    text = {"keep": "Keep", "cut": "Cut the deck", "refuse_raise": "Refuse raise"}.get(cmd["type"])
    if cmd["type"] == "bid":
        text = call_text(cmd["call"])
    hits = [b for b in find(screen.ids.extra, "GButton")
            if b.text == text or (cmd["type"] == "trumps" and b.text.endswith(
                SUIT_NAME[cmd["suit"]]))]
    assert hits, (cmd, [b.text for b in find(screen.ids.extra, "GButton")])
    testing.tap(hits[0])
    return cmd


def test_mixed_table_hands_off_only_between_the_tablets_seats(app, daphne_server,  # noqa: F811
                                                               server_runtime):
    """A Teka hand with North and East sharing the tablet, South and West on phones: the
    tablet asks to be handed over only when its turn passes from one of its people to the
    other, never for a phone's turn. North's socket (whose events the tablet shows) is kept
    a little behind East's, as on a loaded machine: the hand-off for the next hand's cut
    (East's) must not come before the tablet shows this hand's end."""
    from client_kivy.vm.net import Api

    connect_lobby(app, daphne_server)
    api = Api(daphne_server.http)
    game = api.create("teka", {}, [{"kind": "open"}] * 4)
    app.open_table(game)
    screen = table_screen(app)
    for seat, name in ((0, "Ann"), (1, "Bob")):
        assert testing.wait_until(lambda: screen.cards.get(seat) is not None and  # noqa: B023
                                  screen.cards[seat].code != "")  # noqa: B023
        screen.ids.name.text = name
        assert tap_until(lambda: screen.cards[seat], "On this device",  # noqa: B023
                         lambda: seat in screen.model.tablet_seats()), screen.message  # noqa: B023
    phones = []
    for seat, name in ((2, "Cleo"), (3, "Dan")):
        joined = api.join_code(seat_code(game, seat), name)
        phones.append(Phone(api, joined["game"], seat, joined["secret"], seed=seat))
    for p in phones:
        p.start()
    try:
        assert testing.wait_until(lambda: screen.cards and all(
            not c.code for c in screen.cards.values()))
        assert tap_until(screen, "Play here (1, 2)", lambda: app.root.current == "game")
        s = app.session
        assert s.kind == "kiosk" and sorted(s.seats) == [0, 1]
        import time

        north = s.primary.socket
        heard = north.on_frame

        def late(frame):  # (in North's socket thread: East's hears each frame first)
            time.sleep(0.03)
            heard(frame)

        north.on_frame = late
        game_screen = app.root.get_screen("game")
        handoffs = []
        last = None

        def watch():
            nonlocal last
            if s.handoff is not None and s.handoff != last and not any(
                    ev.get("type") == "score" for ev in s.events):  # (this hand only)
                handoffs.append(s.handoff)
            last = s.handoff

        s.subscribe(watch)
        watch()  # (the first hand-off may already be up)
        rng = Random(5)
        deadline = time.monotonic() + 240
        while not any(ev.get("type") == "score" for ev in s.events):
            assert time.monotonic() < deadline, (s.status_text(), len(s.events))
            testing.pump(1)
            if s.handoff is not None:
                assert game_screen.overlay is not None
                testing.tap(game_screen.overlay.ids.show)
                continue
            if s.my_turn and s.legal and not s.primary.thinking:
                n = len(s.events)
                tablet_turn(game_screen, s, rng)
                assert testing.wait_until(lambda: len(s.events) > n), s.message  # noqa: B023
        # a keep names its seat to that seat only: East's are in East's events
        assert testing.wait_until(lambda: s.seats[1].seq >= s.primary.seq)
        east = {r["seq"]: r["event"].get("seat") for r in s.seats[1].records}
        records = s.primary.records
        records = records[:next(i for i, r in enumerate(records)
                                if r["event"]["type"] == "score")]
        events = [r["event"] for r in records]
        actors = [r["event"].get("seat", east.get(r["seq"])) for r in records
                  if r["event"].get("type") in ACTIONS]
        on_tablet = [a for a in actors if a in (0, 1)]
        changes = 1 + sum(1 for a, b in pairwise(on_tablet) if a != b)
        print(f"\nTeka hand, 2 seats on the tablet + 2 on phones: {len(actors)} actions, "
              f"{len(on_tablet)} on the tablet, {len(handoffs)} hand-offs")
        assert set(handoffs) <= {0, 1}
        assert all(a != b for a, b in pairwise(handoffs))  # never twice to the same person
        # Exactly one hand-off per change of the tablet's actor. Only a redeal may add some:
        # a throw-in question goes to every poor hand at once, and the tablet rightly hands
        # over to a seat asked if it hears the question before a phone's throw-in redeals
        # (a hand-off there and one back per redeal, as the timing falls).
        redeals = sum(1 for ev in events if ev.get("type") == "throw_in")
        assert changes <= len(handoffs) <= changes + 2 * redeals, (
            f"tablet actors {on_tablet}, hand-offs {handoffs}, all actions "
            f"{[(ev.get('type'), ev.get('seat')) for ev in events if ev.get('type') in ACTIONS]}")
        assert 2 in actors and 3 in actors  # the phones played their turns
    finally:
        for p in phones:
            p.close()


def test_join_a_seat_by_its_code_in_the_app(app, daphne_server, server_runtime):  # noqa: F811
    """Typing a seat's code in the lobby (any case) sits there (that seat, not the first
    open one)."""
    from client_kivy.vm.net import Api

    connect_lobby(app, daphne_server, name="Cleo")
    api = Api(daphne_server.http)
    game = api.create("teka", {}, [{"kind": "open"}] * 4)
    app.show("lobby")
    lobby = app.root.get_screen("lobby")
    testing.pump(3)
    lobby.ids.code.text = seat_code(game, 2).lower()
    testing.tap(lobby.ids.join_code)
    assert testing.wait_until(lambda: app.root.current == "game"), app.lobby.error
    s = app.session
    assert s.seat == 2 and s.game_id == game["id"]
    assert testing.wait_until(lambda: s.connection == "online")
    seats = api.game(int(game["id"]))["seats"]
    assert seats[2]["taken"] and seats[2]["name"] == "Cleo"
    assert not any(x["taken"] for i, x in enumerate(seats) if i != 2)
    assert testing.wait_until(lambda: len(s.view.get("hand") or []) == 13)  # its own hand


def test_organiser_hands_seats_to_another_phone_and_to_a_bot(app, daphne_server,  # noqa: F811
                                                              server_runtime):
    """The tablet made the table and sits at seat 1; Bob's phone is gone: *Another phone*
    opens his seat again under a new code (his old secret no longer plays), and Dan's
    seat goes to a bot with *Bot*. Both are new events in the log."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher
    from django.contrib.auth.models import User

    from client_kivy.vm.net import Api, ApiError

    hasher = PBKDF2PasswordHasher()  # (the server's hasher: the test process knows MD5)
    User.objects.create(username="org", password=hasher.encode("pw", hasher.salt(),
                                                               iterations=1000))
    app.lobby.connect(daphne_server.http, username="org", password="pw")
    assert testing.wait_until(lambda: app.lobby.connected and app.lobby.username == "org"), \
        app.lobby.error
    api = app.lobby.api
    game = api.create("teka", {}, [{"kind": "open"}] * 4)  # made by the organiser
    app.open_table(game)
    screen = table_screen(app)
    screen.ids.name.text = "Ann"
    assert testing.wait_until(lambda: 0 in screen.cards and screen.cards[0].code)
    assert tap_until(lambda: screen.cards[0], "On this device",
                     lambda: 0 in screen.model.tablet_seats())
    phone = Api(daphne_server.http)
    bob = phone.join_code(seat_code(game, 1), "Bob")
    phone.join_code(seat_code(game, 2), "Cleo")
    phone.join_code(seat_code(game, 3), "Dan")
    assert testing.wait_until(lambda: all(not c.code for c in screen.cards.values()))
    before = api.game(int(game["id"]))["seq"]
    assert tap_until(lambda: screen.cards[1], "Another phone",
                     lambda: screen.cards.get(1) is not None and screen.cards[1].code, tries=3), \
        (screen.message, screen.model.seats()[1], screen.cards[1].line, screen.model.open_seats())
    new_code = screen.cards[1].code  # (a new code: the old one, Bob's, opens nothing)
    assert new_code != seat_code(game, 1)
    assert api.game(int(game["id"]))["seats"][1]["code"] == new_code
    with pytest.raises(ApiError):
        phone.state(int(game["id"]), seat=1, secret=bob["secret"])
    assert tap_until(lambda: screen.cards[3], "Bot", lambda: "(bot)" in screen.cards[3].line,
                     tries=3), screen.message
    assert api.game(int(game["id"]))["seq"] == before + 1  # the seat_to_bot event, appended
    assert api.game(int(game["id"]))["seats"][1]["taken"] is False  # (the release: none)
    # another phone takes seat 2 by its new code, and not by the old one
    with pytest.raises(ApiError):
        phone.join_code(seat_code(game, 1), "Bob")
    again = phone.join_code(new_code, "Eve")
    assert again["seat"] == 1
    assert testing.wait_until(lambda: "Eve" in screen.cards[1].line)


def test_rematch_online_same_people_same_seats(app, daphne_server, server_runtime):  # noqa: F811
    """A finished Teeko game, Ann on this tablet and Bob on a phone: Ann taps *Rematch*;
    the tablet opens the new game in Ann's seat, Bob's phone hears the `rematch` frame and
    takes his new seat with his old secret; asking again gives the same game."""
    from client_kivy.vm.net import Api, RemoteSession

    connect_lobby(app, daphne_server)
    api = Api(daphne_server.http)
    game = api.create("teeko", {}, [{"kind": "open"}, {"kind": "open"}],
                      join={"seat": 0, "name": "Ann"})
    bob = api.join_code(seat_code(game, 1), "Bob")
    phone = RemoteSession(api, bob["game"], 1, bob["secret"])
    phone.start()
    try:
        app.online_play(game, 0, game["joined"]["secret"])
        s = app.session
        assert testing.wait_until(lambda: s.connection == "online")
        assert testing.wait_until(lambda: phone.connection == "online")
        assert phone.send({"type": "resign"}) or True
        screen = app.root.get_screen("game")
        assert testing.wait_until(lambda: screen.banner is not None)
        assert screen.banner.again == "Rematch"
        testing.tap(screen.banner.ids.again)
        assert testing.wait_until(lambda: app.session is not s and app.session is not None), \
            app.lobby.error
        new = app.session
        assert new.game_id != game["id"] and new.seat == 0 and new.outcome is None
        assert testing.wait_until(lambda: phone.rematch_game == new.game_id)
        theirs = api.rematch(int(game["id"]), 1, bob["secret"])
        assert theirs["game"] == new.game_id and theirs["seat"] == 1 and theirs["secret"]
        assert api.rematch(int(game["id"]), 1, bob["secret"])["game"] == new.game_id  # once
        seats = api.game(new.game_id)["seats"]
        assert [x["name"] for x in seats] == ["Ann", "Bob"] and all(x["taken"] for x in seats)
        assert testing.wait_until(lambda: new.connection == "online")
    finally:
        phone.close()


def test_the_app_follows_a_rematch_made_elsewhere(app, daphne_server, server_runtime):  # noqa: F811
    """Bob asks for the rematch on his phone: the tablet, holding Ann's seat, follows the
    `rematch` frame to the new game by itself, in Ann's seat."""
    from client_kivy.vm.net import Api

    connect_lobby(app, daphne_server)
    api = Api(daphne_server.http)
    game = api.create("teeko", {}, [{"kind": "open"}, {"kind": "open"}],
                      join={"seat": 0, "name": "Ann"})
    bob = api.join_code(seat_code(game, 1), "Bob")
    app.online_play(game, 0, game["joined"]["secret"])
    s = app.session
    assert testing.wait_until(lambda: s.connection == "online")
    s.send({"type": "resign"})
    assert testing.wait_until(lambda: s.outcome is not None)
    made = api.rematch(int(game["id"]), 1, bob["secret"])
    assert testing.wait_until(lambda: app.session is not s and app.session is not None), \
        app.lobby.error
    assert app.session.game_id == made["game"] and app.session.seat == 0


def decode_qr_codes(path: str) -> set[str]:
    """Every QR code zbar's zbarimg reads in the picture at ``path``."""
    import subprocess

    out = subprocess.run(["zbarimg", "--raw", "-q", path], capture_output=True, text=True,
                         timeout=60)
    return {line.strip() for line in out.stdout.splitlines() if line.strip()}


def shown_cards(screen):
    """The seat cards on the screen now (on a phone only the chosen seat's)."""
    return sorted((c for c in screen.cards.values() if c.parent is not None
                   and c.get_root_window() is not None), key=lambda c: c.seat)


def test_every_open_seats_qr_code_is_at_its_seat_and_the_title_follows_who_sat(
        app, daphne_server, server_runtime, tmp_path):  # noqa: F811
    """On a tablet (on its side and upright) every open seat's QR code is in the window at
    once, at its own place round the board, and the window as drawn decodes to each seat's
    address; on a phone a row of seat buttons shows each seat's code in turn. A seat taken
    shows the player's name instead of its code, and once all four sat the title names
    them (no "(open)" left)."""
    import shutil

    from kivy.metrics import dp

    from client_kivy.vm.net import Api

    if shutil.which("zbarimg") is None:
        pytest.skip("zbarimg is not installed (apt-get install zbar-tools; .ci/run does it)")
    api = organiser_app(app, daphne_server)
    game = api.create("teka", {}, [{"kind": "open"}] * 4)
    urls = {s: f"{daphne_server.http}/join/{seat_code(game, s)}/" for s in range(4)}
    app.open_table(game)
    screen = table_screen(app)
    assert testing.wait_until(lambda: screen.model.session.connection == "spectating")

    def settled() -> bool:
        testing.pump(3)
        return bool(screen.cards) and all(c.get_root_window() is not None and c.width > 1
                                          for c in shown_cards(screen))

    for w, h in ((1280, 800), (800, 1280)):
        testing.set_size(w, h)
        assert testing.wait_until(lambda: settled() and len(shown_cards(screen)) == 4)
        testing.pump(6)
        qrs = {c.seat: c.ids.qr for c in shown_cards(screen) if c.code}
        assert sorted(qrs) == [0, 1, 2, 3]
        for seat, qr in qrs.items():
            assert testing.inside_window(qr), (w, h, seat, qr.to_window(*qr.pos), qr.size)
            assert qr.width >= dp(100)  # (a phone's camera reads it across the table)
        # each at its own place: North below the board, East right, South above, West left
        board = screen.board
        bx, by = board.to_window(*board.center)
        centre = {s: q.to_window(*q.center) for s, q in qrs.items()}
        assert centre[0][1] < by < centre[2][1] and centre[3][0] < bx < centre[1][0]
        # the codes as drawn: every seat's address, all in one picture of the screen
        read: set[str] = set()
        for attempt in range(10):
            path = str(tmp_path / f"table-{w}x{h}-{attempt}.png")
            screen.export_to_png(path)
            read = decode_qr_codes(path)
            if read == set(urls.values()):
                break
            testing.pump(5)
        assert read == set(urls.values()), (w, h, read)
    # a phone: one seat at a time, every seat one tap away
    testing.set_size(360, 740)
    assert testing.wait_until(lambda: settled() and screen.switcher is not None)
    for seat in range(4):
        tab = next(t for t in find(screen.switcher, "GToggle") if t.value == str(seat))
        assert testing.inside_window(tab) and tab.height >= dp(48) - 0.5
        testing.tap(tab)
        assert testing.wait_until(lambda: settled() and [c.seat for c in
                                                          shown_cards(screen)] == [seat])  # noqa: B023
        testing.pump(4)
        qr = shown_cards(screen)[0].ids.qr
        assert testing.inside_window(qr)
        read = set()
        for attempt in range(10):
            path = str(tmp_path / f"phone-{seat}-{attempt}.png")
            screen.export_to_png(path)
            read = decode_qr_codes(path)
            if read == {urls[seat]}:
                break
            testing.pump(5)
        assert read == {urls[seat]}, (seat, read)
    # a phone on its side: the card shown whole, its QR code and buttons in the window
    # (before: the hint line pushed Bot out of the window)
    testing.set_size(740, 360)
    assert testing.wait_until(lambda: settled() and screen.switcher is not None)
    testing.pump(4)
    [card] = shown_cards(screen)
    assert testing.inside_window(card.ids.qr)
    assert all(testing.inside_window(b) for b in find(card.ids.buttons, "GButton"))
    # people sit down: each card shows its player instead of the code; the title follows
    testing.set_size(1280, 800)
    phone = Api(daphne_server.http)
    for seat, name in enumerate(("Ann", "Bob", "Cleo", "Dan")):
        phone.join_code(seat_code(game, seat), name)
        assert testing.wait_until(lambda: screen.cards.get(seat) is not None  # noqa: B023
                                  and not screen.cards[seat].code  # noqa: B023
                                  and screen.cards[seat].who.startswith(name))  # noqa: B023
        assert screen.cards[seat].ids.qr.width == 0
        assert name in screen.ids.title.text
    assert testing.wait_until(lambda: "(open)" not in screen.title)
    assert screen.title == "The table · Teka: Ann v Bob v Cleo v Dan"
    assert screen.ids.title.text == screen.title


def setup_teka_for_four_people(app):  # noqa: F811
    """The set-up screen by touch: Teka, every seat a person; Start. The offer that comes
    up (a modal over the set-up), or None."""
    from kivy.core.window import Window

    app.show("home")
    testing.tap(app.root.get_screen("home").ids.play_here)
    setup = app.root.get_screen("setup")
    testing.tap(by_text(setup, "Teka"))
    for row in setup.rows:
        testing.tap(by_text(row, "Person"))
    assert [p["kind"] for p in setup.players()] == ["human"] * 4
    testing.tap(setup.ids.start)
    testing.pump(3)
    return next((w for w in Window.children if type(w).__name__ == "PhonesOffer"), None)


def test_four_people_setting_up_teka_are_offered_the_table_with_phones(
        app, daphne_server, server_runtime):  # noqa: F811
    """Four people setting up Teka on one device are asked first: phones at the table (the
    choice that leads, in the brass of the app's main buttons, on top) or pass this device.
    Passing starts the game here; phones makes the table on the server and shows it, every
    seat open with its code."""
    from kivy.metrics import dp

    from client_kivy.widgets.common import BRASS

    for w, h in ((360, 740), (1280, 800)):
        testing.set_size(w, h)
        offer = setup_teka_for_four_people(app)
        assert offer is not None and app.root.current == "setup" and app.session is None
        phones, here = offer.ids.phones, offer.ids.here
        assert phones.text == "Play with phones at the table" and here.text == "Pass this device"
        assert tuple(phones.bg) == BRASS and phones.y > here.y  # the lead, above
        for b in (phones, here):
            assert testing.inside_window(b) and b.width >= dp(48) and b.height >= dp(48)
        testing.tap(here)
        assert testing.wait_until(lambda: app.root.current == "game")
        assert app.session.kind == "local" and app.session.game_name == "teka"
        app.leave_game()
        testing.pump(3)
    # the phones: the table made on the server, this device showing it
    connect_lobby(app, daphne_server)
    offer = setup_teka_for_four_people(app)
    assert offer is not None
    testing.tap(offer.ids.phones)
    assert testing.wait_until(lambda: app.root.current == "table"), app.lobby.error
    screen = table_screen(app)
    assert screen.model.session.game_name == "teka"
    assert testing.wait_until(lambda: sorted(screen.cards) == [0, 1, 2, 3] and all(
        c.code for c in screen.cards.values()))
    # two people and two bots are not offered it: the game starts at once
    app.leave_table()
    app.show("home")
    testing.tap(app.root.get_screen("home").ids.play_here)
    setup = app.root.get_screen("setup")
    testing.tap(by_text(setup, "Teka"))
    testing.tap(by_text(setup.rows[1], "Person"))
    testing.tap(setup.ids.start)
    assert testing.wait_until(lambda: app.root.current == "game")
