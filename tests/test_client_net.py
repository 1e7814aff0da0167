"""The client's network layer against a real server (daphne on a free port, real database):
HTTP lobby calls, a socket session playing Teeko against a server bot, spectating, reconnect
after a drop with catch-up from the last seq, and replay from the exported log."""

from __future__ import annotations

import queue
import time
from random import Random

import pytest

from client_kivy.vm.lobby import Lobby
from client_kivy.vm.net import Api, ApiError, RemoteSession
from client_kivy.vm.settings import Settings

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


class Pump:
    """Frames arrive on the socket thread; the test runs them here (the app uses Clock)."""

    def __init__(self) -> None:
        self.q: queue.Queue = queue.Queue()

    def post(self, fn) -> None:
        self.q.put(fn)

    def until(self, cond, timeout: float = 20.0) -> bool:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if cond():
                return True
            try:
                self.q.get(timeout=0.05)()
            except queue.Empty:
                pass
        return cond()


def winning(session, moves):
    import core
    from core.api import apply

    game = core.GAMES[session.game_name]
    state = game.resample(session.view, session.seat, Random(0))
    for c in moves:
        after, _ = apply(game, state, session.seat, c, Random(0))
        if game.outcome(after) is not None:
            return c
    return None


def test_lobby_create_play_spectate_replay(daphne_server, server_runtime, tmp_path):
    pump = Pump()
    settings = Settings(str(tmp_path))
    lobby = Lobby(settings, post=pump.post, background=False)
    lobby.connect(f"127.0.0.1:{daphne_server.port}", name="Ann")
    pump.until(lambda: lobby.connected)
    assert lobby.error == "" and lobby.connected
    assert Settings(str(tmp_path)).get("server") == daphne_server.http
    assert "teeko" in [k["kind"] for k in lobby.kinds]

    got = {}
    lobby.create("teeko", {"move_cap": 40}, [{"kind": "open"}, {"kind": "bot", "level": "random"}],
                 0, lambda g, seat, secret: got.update(game=g, seat=seat, secret=secret))
    pump.until(lambda: "game" in got)
    assert got["seat"] == 0 and got["secret"]
    game = got["game"]
    assert lobby.held_seat(game["id"])["secret"] == got["secret"]

    s = lobby.session(game, got["seat"], got["secret"], post=pump.post)
    s.start()
    watcher = lobby.session(game, None, "", post=pump.post)
    watcher.start()
    try:
        assert pump.until(lambda: s.my_turn, 20), s.status_text()
        assert s.connection == "online"
        # a refused move comes back as a clear message and changes nothing
        seq = s.seq
        s.send({"type": "move", "from": "a1", "to": "a2"})
        assert pump.until(lambda: s.message != "")
        assert s.message.startswith(("Not allowed", "Refused")) and s.seq == seq
        rng = Random(3)
        dropped = False
        while s.outcome is None:
            assert pump.until(lambda: s.my_turn or s.outcome is not None, 30), s.status_text()
            if s.outcome is not None:
                break
            if not dropped and s.seq >= 5:
                # cut the socket under the client: it reconnects and catches up
                dropped = True
                before = s.seq
                s.socket._ws.close()
                assert pump.until(lambda: s.connection == "offline" or s.connection == "connecting", 5) or True
                assert pump.until(lambda: s.connection == "online" and s.seq >= before, 20)
                assert pump.until(lambda: s.my_turn, 20)
            moves = [c for c in s.legal if c["type"] in ("place", "move")]
            seq = s.seq
            assert s.send(winning(s, moves) or rng.choice(moves))
            assert pump.until(lambda: s.seq > seq, 20)
        assert dropped
        # the log is whole: seqs 1..n with no gaps after the reconnect
        assert [r["seq"] for r in s.records] == list(range(1, s.seq + 1))
        assert pump.until(lambda: watcher.outcome is not None, 20)
        assert watcher.seq == s.seq and watcher.connection == "spectating"
        assert watcher.legal == []
    finally:
        s.close()
        watcher.close()

    lobby.refresh()
    pump.until(lambda: not lobby.busy)
    assert game["id"] in [g["id"] for g in lobby.games["finished"]]
    got_replay = {}
    lobby.replay(game, lambda m: got_replay.update(model=m))
    pump.until(lambda: "model" in got_replay)
    assert "model" in got_replay, lobby.error + daphne_server.output()
    model = got_replay["model"]
    assert model.length == s.seq
    model.seek(model.length)
    assert model.outcome() == s.outcome


def test_api_errors_are_clear(daphne_server, server_runtime):
    api = Api(daphne_server.http)
    with pytest.raises(ApiError) as e:
        api.by_code("NOPE00")
    assert e.value.code == "not_found"
    with pytest.raises(ApiError) as e:
        api.login("nobody", "wrong")
    assert e.value.code == "bad_credentials"
    with pytest.raises(ApiError) as e:
        Api("127.0.0.1:1").kinds()
    assert e.value.code == "unreachable"
