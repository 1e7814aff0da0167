"""The seam to daphne, autobahn and twisted (server/transport.py, docs/transport.md): the
versions it was written for are the installed ones and the pinned ones, it is the only
module that imports those frameworks, and on other versions it keeps out of the way."""

from __future__ import annotations

import ast
import functools
import logging
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from server import transport

ROOT = Path(__file__).resolve().parent.parent
FRAMEWORKS = ("daphne", "twisted", "autobahn")


def test_installed_versions_are_those_the_adapter_was_written_for() -> None:
    bad = transport.mismatches()
    assert not bad, (
        "server/transport.py uses private parts of daphne, autobahn and twisted, and was "
        "written for "
        + ", ".join(f"{k} {v}" for k, v in transport.WRITTEN_FOR.items())
        + "; here "
        + "; ".join(bad)
        + ". Follow docs/transport.md, 'Moving to new versions': check every private name it "
        "uses against the new versions, run the tests named there, then update WRITTEN_FOR "
        "and the pins in pyproject.toml together."
    )


def test_pyproject_pins_the_versions_the_adapter_was_written_for() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pins: dict[str, str] = {}
    for line in project["optional-dependencies"]["server"]:
        req = Requirement(line)
        if req.name.lower() in FRAMEWORKS:
            pins[req.name.lower()] = str(req.specifier)
    assert pins == {k: f"=={v}" for k, v in transport.WRITTEN_FOR.items()}, (
        "pyproject.toml's [server] pins and server/transport.py's WRITTEN_FOR must name the "
        "same exact versions (docs/transport.md)"
    )


def test_a_version_mismatch_is_named() -> None:
    want = transport.WRITTEN_FOR
    assert transport.mismatches(dict(want)) == []
    assert transport.mismatches({**want, "twisted": "1.0", "autobahn": None}) == [
        f"twisted: 1.0 installed, {want['twisted']} expected",
        f"autobahn: not installed, {want['autobahn']} expected",
    ]


def _daphne_send() -> Any:
    """An ASGI ``send`` as daphne makes it for a WebSocket connection (not connected)."""
    from daphne.server import Server
    from daphne.ws_protocol import WebSocketProtocol

    server = Server(application=None, endpoints=["tcp:port=0:interface=127.0.0.1"])  # (not run)
    server.connections = {}  # (as run() makes it)
    proto = WebSocketProtocol()
    return functools.partial(server.handle_reply, proto)


def test_direct_wire_only_on_the_versions_it_was_written_for(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    send = _daphne_send()
    transport._versions_ok.cache_clear()
    try:
        assert isinstance(transport.direct_wire(send), transport.DirectWire)
        assert transport.direct_wire(lambda message: None) is None  # not daphne's
        other = {**transport.WRITTEN_FOR, "autobahn": "0.0.1"}
        monkeypatch.setattr(transport, "WRITTEN_FOR", other)
        transport._versions_ok.cache_clear()
        with caplog.at_level(logging.WARNING, logger="server.transport"):
            assert transport.direct_wire(send) is None
        assert "autobahn" in caplog.text and "ASGI send" in caplog.text
    finally:
        transport._versions_ok.cache_clear()


def _framework_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        found += [f"{path.relative_to(ROOT)}:{node.lineno} {n}" for n in names
                  if n.split(".")[0] in FRAMEWORKS]
    return found


def test_only_the_adapter_imports_daphne_autobahn_or_twisted() -> None:
    files = [p for d in ("server", "core", "client_kivy") for p in (ROOT / d).rglob("*.py")]
    assert len(files) > 50
    found = [hit for p in files if p != ROOT / "server" / "transport.py"
             for hit in _framework_imports(p)]
    assert found == [], "import these through server/transport.py (docs/transport.md)"
    assert _framework_imports(ROOT / "server" / "transport.py")  # (the check sees imports)
