"""The server fixtures' reset between tests (tests/server_fixtures.py): a bot job whose event
loop ended with its test is not waited for. Such a job stayed in the runner's table for good,
and every later test's teardown waited its whole deadline (60 s) for it."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from types import SimpleNamespace

from server_fixtures import live_bot_tasks


async def forever() -> None:
    await asyncio.Event().wait()


def test_a_job_whose_loop_ended_is_not_waited_for() -> None:
    loop = asyncio.new_event_loop()
    task = loop.create_task(forever())
    loop.run_until_complete(asyncio.sleep(0))  # (started, then its loop stops for good)
    loop.close()
    assert not task.done()
    assert live_bot_tasks(SimpleNamespace(tasks={task})) == []


def test_a_job_on_a_running_loop_is_waited_for() -> None:
    loop = asyncio.new_event_loop()
    started = threading.Event()
    holder: dict[str, asyncio.Task[None]] = {}

    async def main() -> None:
        holder["task"] = asyncio.ensure_future(forever())
        started.set()
        with contextlib.suppress(asyncio.CancelledError):
            await holder["task"]

    thread = threading.Thread(target=lambda: loop.run_until_complete(main()), daemon=True)
    thread.start()
    assert started.wait(120)
    try:
        assert live_bot_tasks(SimpleNamespace(tasks={holder["task"]})) == [holder["task"]]
    finally:
        loop.call_soon_threadsafe(holder["task"].cancel)
        thread.join(120)
        loop.close()
