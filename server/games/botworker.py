"""Where bots think: a function run in a worker process (or thread). No Django here.

``choose(kind, view, seat, level, seed, job, time_limit)`` builds ``core.ai.bots.make_bot``
(or, when that module is missing or fails, picks a uniformly random legal move through the
game API) and returns the command. The bot only ever gets ``view`` (what its seat sees).
Progress (share of the budget, 0..1) goes to the queue given to :func:`init` as ``(job, share)``.
"""

from __future__ import annotations

import time
from random import Random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.ai.base import Bot

_progress_queue: Any = None
_progress_sink: Any = None  # in-process callable(job, share), for the thread pool


def init(queue: Any, parent: int | None = None) -> None:
    """Process-pool initializer: where to put progress reports; die with the parent
    (``parent``, the pid of the process that owns the pool: a daphne killed with SIGKILL
    must not leave its workers behind)."""
    global _progress_queue
    _progress_queue = queue
    from server.lifeline import die_with_parent

    die_with_parent(parent)
    import core  # noqa: F401  (import the rules once per worker, not per move)


def set_sink(sink: Any) -> None:
    global _progress_sink
    _progress_sink = sink


def _report(job: int, share: float) -> None:
    try:
        if _progress_sink is not None:
            _progress_sink(job, share)
        elif _progress_queue is not None:
            _progress_queue.put_nowait((job, share))
    except Exception:
        pass


def random_command(game: Any, view: Any, seat: int, rng: Random) -> Any:
    from core.api import META_COMMANDS

    state = game.resample(view, seat, rng)
    legal = game.legal_commands(state, seat)
    moves = [c for c in legal if c["type"] not in META_COMMANDS]
    if moves:
        return rng.choice(moves)
    for c in legal:
        if c["type"] == "decline_draw":
            return c
    return rng.choice(legal) if legal else None


def choose(
    kind: str, view: Any, seat: int, level: str, seed: int, job: int, time_limit: float
) -> Any:
    import core

    game = core.GAMES[kind]
    rng = Random(seed)
    deadline = time.monotonic() + time_limit
    last = [0.0, -1.0]  # time of last report, last share

    def should_stop() -> bool:
        return time.monotonic() >= deadline

    def progress(share: float, *rest: Any) -> None:
        try:
            value = float(share) / float(rest[0]) if rest else float(share)
        except (TypeError, ValueError, ZeroDivisionError):
            return
        now = time.monotonic()
        if value >= 1.0 or (now - last[0] >= 0.1 and value - last[1] >= 0.02):
            last[0], last[1] = now, value
            _report(job, max(0.0, min(1.0, value)))

    make_bot: Callable[[str, str], Bot] | None
    try:
        from core.ai.bots import make_bot
    except ImportError:
        make_bot = None
    if make_bot is not None:
        try:
            bot = make_bot(kind, level)
        except Exception:
            bot = None
        if bot is not None:
            try:
                return bot.choose(view, seat, rng, should_stop, progress)
            except NotImplementedError:
                pass
    return random_command(game, view, seat, rng)
