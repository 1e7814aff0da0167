"""The clock view model without a window (client_kivy/vm/clocks.py)."""

from __future__ import annotations

from types import SimpleNamespace

from client_kivy.vm import clocks


def remote(clock, players=None, seat=0, at=100.0, presence_at=100.0):
    return SimpleNamespace(kind="remote", clock=clock, clock_at=at, outcome=None, seat=seat,
                           players=players or [], presence_at=presence_at,
                           player_name=lambda k: ["Ann", "Bob"][k])


def test_form_choices_make_the_servers_table_rules():
    assert clocks.table_rules("", "") is None
    assert clocks.table_rules("move:30", "") == {"move_limit": 30}
    assert clocks.table_rules("clock:300:5", "180") == {"clock": 300, "increment": 5,
                                                         "abandon": 180}
    assert "clock:300:5" in dict(clocks.time_choices("tiku"))
    assert "clock:300:5" not in dict(clocks.time_choices("teka"))  # Teeko and Tiku only


def test_text_rounds_up_and_turns_urgent_in_words():
    assert [clocks.fmt_seconds(x) for x in (0, 0.2, 23.2, 60, 3725)] == [
        "0:00", "0:01", "0:24", "1:00", "1:02:05"]
    s = remote({"deadlines": [{"seat": 0, "ms": 30000}], "remaining": None})
    assert clocks.seat_clock(s, 0, now=105.0) == ("0:25", False)
    assert clocks.seat_clock(s, 0, now=121.5) == ("!0:09", True)
    assert clocks.seat_clock(s, 0, now=140.0) == ("!0:00", True)
    assert clocks.seat_clock(s, 1, now=105.0) == ("", False)  # not waited for


def test_chess_clock_runs_for_the_waited_seat_only():
    s = remote({"deadlines": [{"seat": 1, "ms": 60000}], "remaining": [200000, 60000],
                "running": True})
    assert clocks.seat_clock(s, 0, now=110.0) == ("3:20", False)  # stopped: not urgent
    assert clocks.seat_clock(s, 1, now=110.0) == ("0:50", False)
    s.outcome = {"winners": [0]}
    assert clocks.seat_clock(s, 1, now=110.0) == ("", False)


def test_hand_to_bot_only_for_another_players_seat_away_long_enough():
    bob = {"name": "Bob", "kind": "remote", "taken": True, "connected": False, "away": 50,
           "replaced": False}
    s = remote({"abandon": 60, "deadlines": []}, [{"name": "Ann", "kind": "remote"}, bob])
    assert not clocks.can_hand_to_bot(s, 1, now=105.0)  # 55 s
    assert clocks.can_hand_to_bot(s, 1, now=110.0)  # 60 s, counted on from the frame
    assert not clocks.can_hand_to_bot(s, 0, now=200.0)  # our own seat
    s.seat = -1
    assert not clocks.can_hand_to_bot(s, 1, now=200.0)  # a spectator
    s.seat = 0
    s.players[1] = dict(bob, kind="bot", replaced=True, connected=True, away=None)
    assert not clocks.can_hand_to_bot(s, 1, now=200.0)
    assert clocks.chip_name(s, 1) == "Bob (left; bot)"
    s.clock = {"deadlines": []}  # no abandon rule
    s.players[1] = bob
    assert not clocks.can_hand_to_bot(s, 1, now=200.0)
