"""The suite's servers get a port even when another process takes the one picked first (a
loaded run saw a daphne fail with ``Address already in use``: the kernel had handed the
port it picked to another socket between the pick and daphne's bind)."""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import server_fixtures

from bench.loadbench import ephemeral_ports, free_port

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_daphne_whose_port_was_taken_meanwhile_starts_on_another(
    transactional_db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", free_port()))
        taken.listen()
        port = int(taken.getsockname()[1])
        picks = iter([port])  # (the first pick is the port another process holds)
        monkeypatch.setattr(server_fixtures, "free_port", lambda: next(picks, None) or free_port())
        s = server_fixtures.start_daphne(tmp_path, "taken")
        try:
            assert s.port != port
            with urllib.request.urlopen(f"{s.http}/healthz", timeout=60) as r:
                assert r.status == 200
            assert "Address already in use" not in s.output()  # (a log of the retry's own)
        finally:
            server_fixtures.stop_daphne(s)


def test_free_ports_are_below_the_range_of_outgoing_connections() -> None:
    lo, _hi = ephemeral_ports()
    ports = {free_port() for _ in range(50)}
    assert all(1024 < p < lo for p in ports), sorted(ports)
    assert len(ports) > 40  # (picked at random: two runs do not try the same ports)
