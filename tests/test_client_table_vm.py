"""Table mode's logic without a window: seat codes, the QR matrix, the open seats, and a
tablet holding several seats of an online game (its sockets heard one after another)."""

from __future__ import annotations

import pytest

from client_kivy.vm.table import open_seats, qr_matrix, seat_codes


def test_seat_codes_are_the_servers():
    """Each seat's own code, as the server gave it (to the organiser or a seat holder);
    none when the answer carries none (a stranger's view)."""
    game = {"seats": [{"seat": 0, "code": "K7QF9A3M"}, {"seat": 1, "code": None},
                      {"seat": 2, "code": "XY23ZW4P"}]}
    assert seat_codes(game) == {0: "K7QF9A3M", 2: "XY23ZW4P"}
    assert seat_codes({"seats": [{"seat": 0, "code": None}]}) == {}


def test_qr_matrix_is_segnos_with_a_quiet_zone():
    segno = pytest.importorskip("segno")
    url = "http://192.168.1.20:8000/join/K7QF9A3/"
    m = qr_matrix(url)
    inner = [list(map(bool, row)) for row in segno.make_qr(url, error="m").matrix]
    assert len(m) == len(inner) + 8 and all(len(r) == len(m) for r in m)
    assert [row[4:-4] for row in m[4:-4]] == inner
    assert not any(m[0]) and not any(m[-1])


def test_open_seats_are_the_untaken_non_bot_ones():
    seats = [{"seat": 0, "kind": "guest", "taken": True},
             {"seat": 1, "kind": "open", "taken": False},
             {"seat": 2, "kind": "bot", "taken": True},
             {"seat": 3, "kind": "guest", "taken": False}]  # released: joinable again
    assert open_seats(seats) == [1, 3]


class NoSocket:
    def __init__(self, *a, **kw):
        pass

    def start(self):
        pass

    def close(self):
        pass

    def send(self, _msg):
        return True


def frame(seq, to_act, *events):
    """An ``events`` frame up to ``seq`` (one event of each type given, or one "x")."""
    types = events or ("x",)
    first = seq - len(types) + 1
    return {"type": "events", "from": first, "to": seq,
            "events": [{"seq": first + i, "event": {"type": t}} for i, t in enumerate(types)],
            "view": {"phase": "bidding"}, "to_act": to_act,
            "legal": [{"type": "bid", "call": "pass"}] if to_act else []}


def north_and_east_on_the_tablet():
    """A Teka table with North and East on this tablet (a socket each, fed by hand) and the
    hand-offs it asks for, in order."""
    from client_kivy.vm.net import KioskRemoteSession

    game = {"id": 1, "kind": "teka", "code": "ABCDEF",
            "seats": [{"seat": i, "kind": "guest", "taken": True} for i in range(4)]}
    k = KioskRemoteSession(None, game, {0: "a", 1: "b"}, socket_factory=NoSocket)
    handoffs = []
    k.subscribe(lambda: handoffs.append(k.handoff) if k.handoff is not None and (
        not handoffs or handoffs[-1] != k.handoff) else None)
    return k, handoffs


def test_a_seat_socket_behind_the_other_hands_nothing_over():
    """North and East on the tablet, each its own socket. North bids; East's socket hears
    it first: the hand-off to East waits for North's socket (whose events the tablet shows).
    East bids, a phone is to act; East's socket is behind in a throw-in it was asked about
    (a phone threw in first): its stale question is no hand-off to East."""
    k, handoffs = north_and_east_on_the_tablet()
    north, east = k.seats[0], k.seats[1]
    north.handle(frame(1, [0]))
    east.handle(frame(1, [0]))
    assert k.handoff == 0
    k.confirm_handoff()
    east.handle(frame(2, [1]))  # North bid: East's socket hears it first
    assert k.handoff is None, "handed over for a bid the tablet does not show yet"
    north.handle(frame(2, [1]))
    assert k.handoff == 1 and handoffs == [0, 1]
    k.confirm_handoff()
    east.handle(frame(3, [2]))  # East bid: a phone's turn
    north.handle(frame(3, [2]))
    assert k.handoff is None and handoffs == [0, 1]
    north.handle(frame(4, [0]))  # the phone played: North's turn (East's socket is behind)
    assert k.handoff == 0 and handoffs == [0, 1, 0]
    k.confirm_handoff()
    # a poor hand each for North, East and a phone: North keeps, and the phone throws in
    # (the phone cuts next) before East's socket hears North's keep: East's stale question
    north.handle(frame(5, [0], "deal"))
    east.handle(frame(4, [0]))
    east.handle(frame(5, [1], "deal"))
    north.handle(frame(6, [], "keep"))
    north.handle(frame(7, [2], "throw_in"))
    assert k.handoff is None and handoffs == [0, 1, 0], "handed over on a stale socket's word"
    east.handle(frame(6, [1], "keep"))
    east.handle(frame(7, [2], "throw_in"))
    assert k.handoff is None and handoffs == [0, 1, 0]


def test_the_hand_off_for_the_next_hand_waits_for_the_end_of_this_one():
    """North plays the hand's last card; the hand is scored and East cuts for the next one.
    East's socket hears it before North's, whose events and outcome the tablet shows: the
    tablet asks to be handed to East only once it shows the card and the score too (it
    never hands over for a move it does not show yet)."""
    k, handoffs = north_and_east_on_the_tablet()
    north, east = k.seats[0], k.seats[1]
    for s in (north, east):
        s.handle(frame(1, [0], "deal"))
    assert k.handoff == 0
    k.confirm_handoff()
    end = frame(3, [1], "play", "score")
    east.handle(end)
    assert k.handoff is None and handoffs == [0], (
        "handed over before the tablet shows the hand's end")
    assert k.viewer == 0 and [e["type"] for e in k.events] == ["deal"]
    north.handle(end)
    assert [e["type"] for e in k.events] == ["deal", "play", "score"]
    assert k.handoff == 1 and handoffs == [0, 1]


def test_local_rematch_keeps_drawn_partners_in_their_seats():
    """A Teka match whose partners were drawn: the rematch has the same people in the same
    seats (no second draw)."""
    from client_kivy.vm.session import LocalSession

    people = [{"name": n, "kind": "human", "level": ""} for n in ("Ann", "Bob", "Cleo", "Dan")]
    for seed in range(20):
        first = LocalSession("teka", people, {"draw_for_partners": True}, seed=seed)
        if [p["name"] for p in first.players] != ["Ann", "Bob", "Cleo", "Dan"]:
            break
    else:
        raise AssertionError("no draw moved anyone")
    for seed in range(10):
        again = LocalSession("teka", first.players, first.rematch_options(), seed=seed)
        assert [p["name"] for p in again.players] == [p["name"] for p in first.players]
    # (what Rematch did before: the match's own options drew partners again)
    names = [p["name"] for p in first.players]
    redrawn = [[p["name"] for p in LocalSession("teka", first.players, first.options,
                                                 seed=seed).players] for seed in range(10)]
    assert any(r != names for r in redrawn)
