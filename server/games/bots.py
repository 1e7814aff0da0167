"""The bot runner (:class:`BotRunner`): bots think in a process pool (or threads), never on
the event loop, and submit through :func:`server.games.append.submit` like anyone else."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import logging
import multiprocessing
import os
import secrets
import threading
from dataclasses import dataclass
from typing import Any

from core.api import SPECTATOR, IllegalMoveError, dumps

from . import append, botworker, cache, listeners
from .dbpool import knob
from .frames import bot_frame
from .hub import HUB, on_loop
from .shards import SHARDS

log = logging.getLogger("server.games")


_SYSTEM_RANDOM = secrets.SystemRandom()
TICK = 0.25
"""Seconds between the progress frames of a paced bot question."""


@dataclass(frozen=True)
class Ask:
    """One bot question as the runner treats it (see :meth:`BotRunner.question`)."""

    seq: int
    audience: frozenset[int] | None
    """Who may hear the bot think (None: everybody; the empty set: nobody)."""
    wait: float
    """Seconds from the question before the answer is submitted (0: as soon as it is
    chosen)."""


class BotRunner:
    """Starts a bot whenever a game waits for a bot seat; at most one job per (game, seat)."""

    def __init__(self) -> None:
        self.inflight: set[tuple[int, int]] = set()
        self.jobs: dict[int, tuple[int, int]] = {}
        self.job_ids = itertools.count(1)
        self.pool: concurrent.futures.Executor | None = None
        self.lock = threading.Lock()
        self.bot_seats: dict[int, dict[int, str]] = {}
        self.progress_queue: Any = None
        self.enabled = True
        self.failures: dict[tuple[int, int], int] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        self.asked: dict[tuple[int, int], Ask] = {}

    def seats(self, game_id: int) -> dict[int, str]:
        seats = self.bot_seats.get(game_id)
        if seats is None:
            from .models import Seat

            seats = {
                s.number: s.bot_level or "random"
                for s in Seat.objects.filter(game_id=game_id, kind=Seat.BOT)
            }
            self.bot_seats[game_id] = seats
            # (a cache of the seat rows: the oldest go first beyond the cache's size)
            while len(self.bot_seats) > cache.cache_size():
                self.bot_seats.pop(next(iter(self.bot_seats)), None)
        return seats

    def executor(self) -> concurrent.futures.Executor:
        with self.lock:
            if self.pool is None:
                workers = int(knob("BOT_WORKERS", 1))
                if knob("BOT_POOL", "process") == "thread":
                    botworker.set_sink(self._progress)
                    self.pool = concurrent.futures.ThreadPoolExecutor(workers, "gamenight-bot")
                else:
                    ctx = multiprocessing.get_context("spawn")
                    self.progress_queue = ctx.Queue()
                    self.pool = concurrent.futures.ProcessPoolExecutor(
                        workers,
                        mp_context=ctx,
                        initializer=botworker.init,
                        initargs=(self.progress_queue, os.getpid()),
                    )
                    threading.Thread(
                        target=self._read_progress, daemon=True, name="gamenight-bot-progress"
                    ).start()
                    # Run before concurrent.futures' own exit hook (these run last first),
                    # which would wait for a bot that is thinking.
                    register = getattr(threading, "_register_atexit", None)
                    if register is not None:
                        register(self._kill_workers)
            return self.pool

    def _kill_workers(self) -> None:
        """(process exit) end the bot workers at once: a daphne that stops must not wait for a
        bot to finish thinking (up to ``BOT_TIME_LIMIT`` seconds). Workers also die by
        themselves when this process is gone (:func:`server.lifeline.die_with_parent`)."""
        pool = self.pool
        if isinstance(pool, concurrent.futures.ProcessPoolExecutor):
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                with contextlib.suppress(Exception):
                    proc.kill()

    def _read_progress(self) -> None:
        q = self.progress_queue
        while True:
            try:
                job, share = q.get()
            except (EOFError, OSError):
                return
            self._progress(job, share)

    def _progress(self, job: int, share: float) -> None:
        """(any thread) the bot's own progress report: passed on unless the question is
        paced (then the frames tell the share of the wait instead, see :meth:`_tick`)."""
        where = self.jobs.get(job)
        ask = self.asked.get(where) if where is not None else None
        if where is None or ask is None or ask.wait > 0 or ask.audience == frozenset():
            return
        frame = bot_frame(where[0], where[1], ask.seq, share)
        HUB.broadcast_threadsafe(where[0], frame, ask.audience)

    @staticmethod
    def question(game: Any, state: Any, seat: int, seq: int, view: Any) -> Ask:
        """How the runner treats a bot's question at ``seq`` (see docs/protocol.md, "What
        each viewer sees"):

        * who may hear the bot think: the viewers whose ``visible_to_act`` lists the seat;
        * a question whose existence is secret for someone (Teka's throw-in) is answered no
          sooner than a person might: after a random third of ``BOT_SECRET_DELAY`` to all
          of it;
        * a decision made on what only this seat knows (its view holds one of the
          spectator's secrets: a Teka hand) is answered after a random half of
          ``BOT_PACE`` to all of it, whatever the bot's thinking took (which grows with the
          number of cards it may play, and is nothing for a forced card); its progress
          frames then tell the share of that wait.
        """
        viewers = [SPECTATOR, *range(game.seats(state))]
        told = frozenset(v for v in viewers if seat in game.visible_to_act(state, v))
        audience = None if len(told) == len(viewers) else told
        if audience is not None:
            most = float(knob("BOT_SECRET_DELAY", 4.0))
            return Ask(seq, audience, _SYSTEM_RANDOM.uniform(most / 3, most))
        pace = float(knob("BOT_PACE", 1.0))
        if pace > 0:
            text = dumps(view)
            if any(dumps(x) in text for x in game.secrets(state, SPECTATOR)):
                return Ask(seq, None, _SYSTEM_RANDOM.uniform(pace / 2, pace))
        return Ask(seq, None, 0.0)

    def forget(self, game_id: int) -> None:
        """A finished game: drop what the runner remembered of it."""
        self.bot_seats.pop(game_id, None)
        for key in [k for k in self.failures if k[0] == game_id]:
            self.failures.pop(key, None)

    def after_batch(self, batch: listeners.Batch) -> None:
        """(committing thread) start bots the game now waits for."""
        if batch.outcome is not None:
            self.forget(batch.game_id)
        if not self.enabled or batch.outcome is not None:
            return
        self._start_for(batch.game_id, batch.entry, batch.state, batch.seq)

    def kick(self, game_id: int) -> None:
        """(worker thread) look at the game's current state and start bots if needed."""
        try:
            e = cache.entry(game_id, fresh=True)
        except cache.NotFound:
            return
        with cache.game_lock(game_id):
            state, seq = e.state, e.seq
        if e.game.outcome(state) is None:
            self._start_for(game_id, e, state, seq)

    def _start_for(self, game_id: int, e: cache.Entry, state: Any, seq: int) -> None:
        loop = HUB.live_loop()
        if loop is None:
            return
        bots = self.bot_seats.get(game_id)
        if bots is None:
            if on_loop(loop):  # no database access on the event loop: look on a worker
                SHARDS.submit(game_id, self.kick, game_id)
                return
            bots = self.seats(game_id)
        if not bots:
            return
        for seat in e.game.to_act(state):
            if seat not in bots:
                continue
            with self.lock:
                if (game_id, seat) in self.inflight:
                    continue
                self.inflight.add((game_id, seat))
            view = e.game.view(state, seat)
            ask = self.question(e.game, state, seat, seq, view)
            watch = float(knob("BOT_WATCH_PACE", 1.0))
            if watch > ask.wait and len(bots) >= e.game.seats(state):
                # (nobody at the table but bots: no faster than a person can watch it)
                ask = Ask(ask.seq, ask.audience, watch)
            self.asked[(game_id, seat)] = ask
            loop.call_soon_threadsafe(self._launch, game_id, e.kind, seat, bots[seat], seq, view)

    def _launch(self, game_id: int, kind: str, seat: int, level: str, seq: int, view: Any) -> None:
        task = asyncio.ensure_future(self._run(game_id, kind, seat, level, seq, view))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _run(
        self, game_id: int, kind: str, seat: int, level: str, seq: int, view: Any
    ) -> None:
        job = next(self.job_ids)
        log.debug("bot job %s: game %s seat %s level %s seq %s", job, game_id, seat, level, seq)
        self.jobs[job] = (game_id, seat)
        loop = asyncio.get_running_loop()
        asked_at = loop.time()
        ask = self.asked.get((game_id, seat))
        ticker = None
        if ask is not None and ask.wait > 0 and ask.audience != frozenset():
            ticker = asyncio.ensure_future(self._tick(game_id, seat, ask, asked_at))
        try:
            seed = secrets.randbits(64)
            limit = float(knob("BOT_TIME_LIMIT", 10.0))
            if self.failures.get((game_id, seat), 0) >= 3:
                level = "random"  # a bot that keeps failing falls back to random moves
            command = await loop.run_in_executor(
                self.executor(), botworker.choose, kind, view, seat, level, seed, job, limit
            )
            if command is None:
                return
            if ask is not None and ask.wait > loop.time() - asked_at:
                await asyncio.sleep(ask.wait - (loop.time() - asked_at))
            await SHARDS.call(game_id, self._submit, game_id, seat, command, seq, dumps(view))
            self.failures.pop((game_id, seat), None)
        except IllegalMoveError as exc:
            log.warning("bot %s/%s refused: %s %s", game_id, seat, exc.code, exc.reason)
            self.failures[(game_id, seat)] = self.failures.get((game_id, seat), 0) + 1
        except Exception:
            log.exception("bot %s/%s failed", game_id, seat)
            self.failures[(game_id, seat)] = self.failures.get((game_id, seat), 0) + 1
            if self.failures[(game_id, seat)] > 6:
                return  # give up on this seat until something else happens in the game
        finally:
            if ticker is not None:
                ticker.cancel()
            self.jobs.pop(job, None)
            with self.lock:
                self.inflight.discard((game_id, seat))
                self.asked.pop((game_id, seat), None)
        # Look again: the same seat may be to act again (a trick winner leads), which the
        # commit of this very move could not start while this job was still in flight.
        if self.enabled:
            SHARDS.submit(game_id, self.kick, game_id)

    @staticmethod
    async def _tick(game_id: int, seat: int, ask: Ask, start: float) -> None:
        """(event loop) progress frames of a paced question: the share of its wait."""
        loop = asyncio.get_running_loop()
        share = 0.0
        while True:
            HUB.broadcast(game_id, bot_frame(game_id, seat, ask.seq, share), ask.audience)
            if share >= 1.0:
                return
            await asyncio.sleep(TICK)
            share = min(1.0, (loop.time() - start) / ask.wait)

    @staticmethod
    def _submit(game_id: int, seat: int, command: Any, seq: int, view_dump: str) -> str:
        try:
            append.submit(game_id, seat, command, seq)
            return "ok"
        except append.StaleError:
            # Others acted meanwhile (Tedoku: everyone places at once). If what this bot
            # sees is unchanged, its choice still stands: submit it at the current seq.
            e = cache.entry(game_id, fresh=True)
            with cache.game_lock(game_id):
                state, now = e.state, e.seq
                if seat in e.game.to_act(state) and dumps(e.game.view(state, seat)) == view_dump:
                    append.submit(game_id, seat, command, now)
                    return "ok"
            return "rethink"

    def shutdown(self) -> None:
        with self.lock:
            pool, self.pool = self.pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


BOTS = BotRunner()
