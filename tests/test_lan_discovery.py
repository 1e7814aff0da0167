"""Finding the server at a game night: the server's mDNS announcement (server/ops/announce.py)
heard by the app's discovery module (client_kivy/discovery.py), for real, on loopback only
(zeroconf bound to 127.0.0.1: nothing is sent to any other address)."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator

import psutil
import pytest

from client_kivy import discovery
from client_kivy.discovery import Discovery, Found
from server import run
from server.ops import announce

LOOPBACK = ["127.0.0.1"]
# Other test runs on this machine may announce on loopback at the same time: every name here
# carries this process's id, and only those entries are looked at.
TAG = f"#{os.getpid()}"


def mine(found: Discovery) -> list[Found]:
    return [s for s in found.servers if s.name.endswith(TAG)]


def wait_for(cond: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Whether ``cond`` came true within ``timeout`` (a deadline only a hang reaches: an
    entry without a goodbye would stay for its TTL, 75 minutes)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


def mdns_sockets() -> list[object]:
    """This process's sockets on the mDNS port (5353)."""
    proc = psutil.Process()
    conns = getattr(proc, "net_connections", proc.connections)  # psutil < 6: connections
    return [c for c in conns(kind="udp") if c.laddr and c.laddr.port == 5353]


@pytest.fixture
def no_leftovers() -> Iterator[None]:
    """No zeroconf thread and no mDNS socket outlives the test."""
    threads = set(threading.enumerate())
    assert not mdns_sockets()
    yield
    assert wait_for(lambda: set(threading.enumerate()) <= threads), \
        [t.name for t in set(threading.enumerate()) - threads]
    assert not mdns_sockets()


def test_the_app_hears_the_servers_announcement_with_its_address_and_port(no_leftovers):
    lines: list[str] = []
    changes: list[int] = []
    found = Discovery(on_change=lambda: changes.append(len(mine(found))), interfaces=LOOPBACK)
    assert found.start(), found.error
    server = announce.start(8123, "127.0.0.1", f"Club night {TAG}", say=lines.append)
    try:
        assert server is not None, lines
        assert lines == [f'announcing "Club night {TAG}" on the local network (mDNS '
                         '_gamenight._tcp, 127.0.0.1:8123; --no-announce turns it off)']
        assert wait_for(lambda: bool(mine(found))), "the announcement was not heard"
        [s] = mine(found)
        assert (s.name, s.host, s.port, s.path, s.proto) == (f"Club night {TAG}", "127.0.0.1",
                                                             8123, "/", "1")
        assert s.usable and s.address == "127.0.0.1:8123"
        assert s.key == f"Club night {TAG}._gamenight._tcp.local."
        assert changes and changes[-1] == 1
        server.stop()
        # The announcer stops cleanly: goodbye packets, so the app drops the entry at once
        # (not after the 75-minute TTL), and its threads and sockets are gone.
        assert wait_for(lambda: not mine(found)), found.servers
        assert changes[-1] == 0
    finally:
        if server is not None:
            server.stop()
        found.stop()
    assert not found.running


def test_the_shared_constants_agree():
    assert discovery.SERVICE_TYPE == announce.SERVICE_TYPE
    assert discovery.PROTOCOL_VERSION == announce.PROTOCOL_VERSION


def test_two_servers_and_one_of_another_protocol(no_leftovers, monkeypatch):
    found = Discovery(interfaces=LOOPBACK)
    assert found.start()
    a = announce.start(8201, "127.0.0.1", f"Zebra club {TAG}")
    monkeypatch.setattr(announce, "PROTOCOL_VERSION", "2")
    b = announce.start(8202, "127.0.0.1", f"Attic {TAG}")
    try:
        assert a is not None and b is not None
        assert wait_for(lambda: len(mine(found)) == 2)
        # usable ones first, then by name; the other protocol is listed but not usable
        assert [(s.name, s.port, s.usable) for s in mine(found)] == [
            (f"Zebra club {TAG}", 8201, True), (f"Attic {TAG}", 8202, False)]
    finally:
        for x in (a, b):
            if x is not None:
                x.stop()
        found.stop()


def test_no_multicast_is_one_line_and_no_error(no_leftovers):
    """An interface that does not exist here (a documentation address: nothing can be sent
    to it) stands for a network without multicast: one line, None, nothing left running."""
    lines: list[str] = []
    assert announce.start(8000, "192.0.2.1", "X", say=lines.append) is None
    assert len(lines) == 1 and lines[0].startswith("not announced on the local network ("), lines
    d = Discovery(interfaces=["192.0.2.1"])
    assert d.start() is False and d.error.startswith("cannot listen for servers"), d.error
    assert not d.running and d.servers == []


def test_switches(monkeypatch):
    monkeypatch.delenv("GAMENIGHT_ANNOUNCE", raising=False)
    assert announce.enabled()
    assert not announce.enabled(flag_off=True)
    monkeypatch.setenv("GAMENIGHT_ANNOUNCE", "0")
    assert not announce.enabled()
    assert run.start_announcing(run.parse_args(["--host", "127.0.0.1"])) is None
    monkeypatch.setenv("GAMENIGHT_ANNOUNCE", "1")
    assert run.start_announcing(run.parse_args(["--no-announce"])) is None
    monkeypatch.setenv("GAMENIGHT_DISCOVERY", "0")
    d = Discovery(interfaces=LOOPBACK)
    assert d.start() is False and "GAMENIGHT_DISCOVERY=0" in d.error
    monkeypatch.setenv("GAMENIGHT_NAME", "The attic")
    assert announce.default_name() == "The attic"
    assert announce.instance_label("a.b " + "x" * 80) == "a b " + "x" * 59
    assert len(announce.instance_label("é" * 40).encode()) <= 63


@pytest.mark.e2e
def test_serve_announces_and_stops_announcing(no_leftovers):
    """``python -m server.run --host 127.0.0.1 --name ...`` is heard with its port; SIGTERM
    stops it cleanly and the entry goes at once (goodbye), not when its TTL runs out."""
    from server_fixtures import free_port
    from test_ops_e2e import assert_clean_stop, start_run_command, stop_run_command

    found = Discovery(interfaces=LOOPBACK)
    assert found.start()
    port = free_port()
    proc, pgdata, out = start_run_command(port, "--host", "127.0.0.1", "--no-demo",
                                          "--name", f"Friday club {TAG}",
                                          GAMENIGHT_ANNOUNCE="1")
    try:
        assert any(f'announcing "Friday club {TAG}" on the local network' in ln
                   and f"127.0.0.1:{port}" in ln for ln in out), "".join(out)
        assert wait_for(lambda: any(s.port == port for s in found.servers)), "".join(out)
        [s] = [s for s in found.servers if s.port == port]
        assert (s.name, s.host, s.address) == (f"Friday club {TAG}", "127.0.0.1",
                                               f"127.0.0.1:{port}")
        assert_clean_stop(proc, signal.SIGTERM)
        assert wait_for(lambda: not any(s.port == port for s in found.servers))
    finally:
        stop_run_command(proc, pgdata)
        found.stop()

