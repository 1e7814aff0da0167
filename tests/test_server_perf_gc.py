"""The collector tuning done when the server starts serving (hub.freeze_startup_heap)."""

from __future__ import annotations

import asyncio
import gc

from server.games import hub as hub_module


def test_serving_freezes_the_startup_heap_and_raises_gen0(monkeypatch) -> None:
    hub = hub_module.Hub()
    loop = asyncio.new_event_loop()
    try:
        hub.set_loop(loop)  # what the ASGI entry point does on the first connection
    finally:
        loop.close()
    assert hub_module._FROZEN
    assert gc.get_freeze_count() > 10000  # Django, the rules, ... are out of every collection
    assert gc.get_threshold()[0] >= 10000
    # the freeze happens once per process, not on every new loop
    calls: list[int] = []
    monkeypatch.setattr(hub_module.gc, "freeze", lambda: calls.append(1))
    loop = asyncio.new_event_loop()
    try:
        hub.set_loop(loop)
    finally:
        loop.close()
    assert calls == []
