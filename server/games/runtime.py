"""The process's machinery between the store and the sockets, and where it is wired
together (:func:`install`):

* :mod:`server.games.shards`: the database threads (one game's work always on the same one);
* :mod:`server.games.frames`: the frames sent on a game's sockets;
* :mod:`server.games.hub`: which sockets watch which game, fan-out after each commit, other
  processes told through Redis;
* :mod:`server.games.bots`: the bot runner;
* :func:`submit`: a seat's command from its socket.

The names the consumers use are importable from here.
"""

from __future__ import annotations

import signal
import sys
from typing import Any

from . import append, clocks, listeners, loopsubmit
from .bots import BOTS
from .dbpool import knob
from .frames import Frame, catchup_frames
from .hub import HUB, seat_info
from .shards import SHARDS

__all__ = ["BOTS", "HUB", "SHARDS", "Frame", "catchup_frames", "install", "knob", "seat_info",
           "submit"]


async def submit(game_id: int, seat: int, command: Any, expected_seq: Any) -> append.SubmitResult:
    """A seat's command from its socket: ``{"type": "replace_with_bot", "seat": K}`` is the
    table's (:func:`server.games.clocks.replace_with_bot`, told how long K has had no socket
    here), any other the game's (:func:`server.games.loopsubmit.submit_async`)."""
    append.check_expected(expected_seq)
    if isinstance(command, dict) and command.get("type") == "replace_with_bot":
        away = HUB.away(game_id, command.get("seat"))
        return await SHARDS.call(
            game_id, clocks.replace_with_bot, game_id, seat, command, expected_seq, away
        )
    return await loopsubmit.submit_async(game_id, seat, command, expected_seq)


def install() -> None:
    """Wire the process's parts together (called from AppConfig.ready): the clocks, the hub
    and the bot runner hear of each commit, in that order (frames show the clock; bots start
    after the frames are out), and the clocks and the hub get the bot runner."""
    die_with = knob("DIE_WITH", None)
    if die_with is not None:  # a daphne of server.run: stop when server.run is gone
        from server import lifeline

        # On Linux the kernel signals us (PR_SET_PDEATHSIG, set before exec); this covers a
        # server.run that died before that, and other systems.
        lifeline.die_with_parent(int(die_with), signal.SIGTERM,
                                 watchdog=not sys.platform.startswith("linux"))
    if knob("TEEKO_BUILD", []):  # (an operator's: see solved.py)
        from . import solved

        solved.build_at_start()
    profile = str(knob("HEAP_PROFILE", ""))
    if profile:
        from server.ops import heapprofile

        heapprofile.start(profile)
    interval = knob("SWITCH_INTERVAL", None)
    if interval is not None:
        sys.setswitchinterval(float(interval))
    if clocks.on_batch not in listeners.LISTENERS:
        listeners.LISTENERS.insert(0, clocks.on_batch)  # (before the hub: frames show the clock)
    if HUB.on_batch not in listeners.LISTENERS:
        listeners.LISTENERS.append(HUB.on_batch)
    if BOTS.after_batch not in listeners.LISTENERS:
        listeners.LISTENERS.append(BOTS.after_batch)
    if BOTS.forget not in HUB.forgetting:
        HUB.forgetting.append(BOTS.forget)
    clocks.use_bots(BOTS)
    if HUB.on_seats_changed not in listeners.SEAT_LISTENERS:
        listeners.SEAT_LISTENERS.append(HUB.on_seats_changed)
