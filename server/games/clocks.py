"""Table time rules: a move time limit or a per-player clock, timeouts, seats handed to bots.

Everything here follows from the log (docs/protocol.md, "Time rules and abandoned seats"):

* ``{"type": "table", "move_limit": s, "clock": s, "increment": s, "abandon": s,
  "running": bool}`` carries a table's rules. It is appended after the start events when the
  game is created with rules; ``running`` is false while seats are open, and a second one
  with ``running: true`` is appended when the last seat is taken (the clocks start there).
* A seat waits from the commit after which the game waits for it (and had not waited for it
  just before, or it had just acted). With ``move_limit`` its deadline is that time plus the
  limit; with ``clock`` (Teeko and Tiku) each seat's time is ``clock`` plus ``increment`` per
  move it made minus the time it spent waiting, and its deadline is when that reaches 0.
  The times are the events' ``created_at``, so a restarted server computes the same
  deadlines from the log (:func:`rearm_all`).
* At a deadline the server appends ``{"type": "timeout", "seat": K}`` and, in the same
  statement, what it causes: the core's :meth:`core.api.Game.forfeit` (a loss on time in
  Teeko and Tiku) or the command a bot chooses for seat K from K's view (Tedoku, Teka),
  through :func:`server.games.append.submit` like any move. The append expects the seq the
  deadline was computed at: when the seat moved in time it fails as stale and nothing is
  appended, so at most one process (or timer) ever records a timeout.
* ``{"type": "seat_to_bot", "seat": K, "by": J, "level": L}``: seat K, away (no socket) for
  longer than ``abandon`` seconds, handed to a bot at J's request; its Seat row becomes a bot
  seat in the same transaction (its user or guest stays recorded, see
  :func:`server.games.seating.seat_replaced`).

Bot seats have no deadline. The core ignores table events when folding
(:data:`core.api.TABLE_EVENTS`). No clock is read inside ``core``: the server measures time
(wall clock for deadlines, the database's ``now()`` for the log).
"""

from __future__ import annotations

import concurrent.futures
import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from django.db import connection, transaction

from core.api import SPECTATOR, TABLE_EVENTS, IllegalMoveError

from . import append, botworker, cache, creating, listeners
from .dbpool import knob
from .shards import SHARDS
from .tablerules import RULE_KEYS, rules_in

log = logging.getLogger("server.games")

EARLY = 0.02
"""A deadline this close (seconds) counts as reached (timer jitter)."""


class Bots(Protocol):
    """What the clocks need of the bot runner (:class:`server.games.bots.BotRunner`), given
    to them at start-up (:func:`use_bots`; the runner's frames carry the clocks, so this
    module does not import it)."""

    bot_seats: dict[int, dict[int, str]]
    """{game id: {bot seat: level}} of the games the runner has looked at (no database)."""

    def seats(self, game_id: int) -> dict[int, str]:
        """(database thread) the game's bot seats and their levels."""

    def executor(self) -> concurrent.futures.Executor:
        """Where :func:`server.games.botworker.choose` runs."""


_BOTS: list[Bots] = []


def use_bots(bots: Bots) -> None:
    """Give the clocks the bot runner (at start-up, :func:`server.games.runtime.install`)."""
    _BOTS[:] = [bots]


def _bots() -> Bots:
    if not _BOTS:
        raise RuntimeError("the clocks have no bot runner: clocks.use_bots was not called")
    return _BOTS[0]


# --------------------------------------------------------------------------- clocks


@dataclass
class Clock:
    """The time state of one timed game after event ``seq`` (see the module doc)."""

    game_id: int
    seats: int
    rules: dict[str, Any] = field(default_factory=dict)
    running: bool = False
    seq: int = 0
    t: float = 0.0
    waiting: dict[int, float] = field(default_factory=dict)
    used: list[float] = field(default_factory=list)
    moves: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.used = [0.0] * self.seats
        self.moves = [0] * self.seats

    def step(self, game: Any, state: Any, group: list[cache.Record], t: float) -> None:
        """Account one commit (``group``: its records; ``state``: the state after it) at time
        ``t`` (seconds since the epoch)."""
        if self.running and self.rules.get("clock"):
            for s in self.waiting:
                self.used[s] += max(0.0, t - self.t)
        actor: int | None = None
        for _seq, seat, ev in group:
            if ev["type"] == "table":
                self.rules = {k: ev.get(k) for k in RULE_KEYS}
                self.running = bool(ev.get("running"))
            elif seat is not None and ev["type"] not in TABLE_EVENTS:
                actor = seat
        if actor is not None and 0 <= actor < self.seats:
            self.moves[actor] += 1
        if not self.running or game.outcome(state) is not None:
            self.waiting = {}
        else:
            self.waiting = {
                s: (self.waiting[s] if s in self.waiting and s != actor else t)
                for s in game.to_act(state)
            }
        self.t = t
        self.seq = group[-1][0]

    def left(self, seat: int) -> float:
        """A clock's seconds for ``seat`` at ``self.t`` (before the current wait)."""
        base = float(self.rules.get("clock") or 0)
        return base + float(self.rules.get("increment") or 0) * self.moves[seat] - self.used[seat]

    def deadline(self, seat: int) -> float | None:
        since = self.waiting.get(seat)
        if since is None:
            return None
        if self.rules.get("move_limit"):
            return since + float(self.rules["move_limit"])
        if self.rules.get("clock"):
            return self.t + self.left(seat)
        return None

    def next_deadline(self, exempt: set[int] | frozenset[int] = frozenset()) -> float | None:
        times = [d for s in self.waiting if s not in exempt and (d := self.deadline(s)) is not None]
        return min(times) if times else None

    def to_json(
        self, visible: list[int], now: float, exempt: set[int] | frozenset[int] = frozenset()
    ) -> dict[str, Any]:
        """What a viewer sees: the rules, and milliseconds left for the seats it may know
        are waited for (``deadlines``) and, with a clock, every seat's time (``remaining``)."""
        out: dict[str, Any] = {k: self.rules.get(k) for k in RULE_KEYS}
        out["running"] = self.running
        deadlines = []
        for s in visible:
            d = self.deadline(s)
            if d is not None and s not in exempt:
                deadlines.append({"seat": s, "ms": max(0, int((d - now) * 1000))})
        out["deadlines"] = deadlines
        if self.rules.get("clock"):
            out["remaining"] = [
                max(0, int((self.left(s) - (now - self.t if s in self.waiting else 0)) * 1000))
                for s in range(self.seats)
            ]
        else:
            out["remaining"] = None
        return out


CLOCKS: dict[int, Clock] = {}
UNTIMED: set[int] = set()
_lock = threading.RLock()


def _times(game_id: int, upto: int) -> dict[int, float]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT seq, extract(epoch FROM created_at)::float8 FROM games_event "
            "WHERE game_id = %s AND seq <= %s",
            [game_id, upto],
        )
        return {int(seq): float(t) for seq, t in cur.fetchall()}


def build(e: cache.Entry) -> Clock | None:
    """(database thread) the clock of ``e``'s game from its log and the events' times."""
    with cache.game_lock(e.game_id):
        recs = list(e.log[: e.seq])
    if rules_in(recs) is None:
        return None
    times = _times(e.game_id, recs[-1][0])
    g = e.game
    c = Clock(e.game_id, e.num_seats)
    state = g.initial()
    group: list[cache.Record] = []
    gt = 0.0
    for rec in recs:
        t = times.get(rec[0], gt)
        if group and t != gt:
            c.step(g, state, group, gt)
            group = []
        state = g.evolve(state, rec[2])
        group.append(rec)
        gt = t
    if group:
        c.step(g, state, group, gt)
    return c


def ensure(e: cache.Entry) -> Clock | None:
    """(database thread) the game's clock at ``e.seq``, rebuilt from the log when the one in
    memory is behind (another process moved, a restart); arms its timer. None: untimed."""
    gid = e.game_id
    if gid in UNTIMED or e.finished:
        return None
    c = CLOCKS.get(gid)
    if c is not None and c.seq == e.seq:
        return c
    c = build(e)
    with _lock:
        if c is None:
            UNTIMED.add(gid)
            CLOCKS.pop(gid, None)
            return None
        CLOCKS[gid] = c
    _arm(c)
    return c


def on_batch(batch: listeners.Batch) -> None:
    """(committing thread, maybe the event loop: no database here) account a commit."""
    gid = batch.game_id
    if gid in UNTIMED:
        if batch.outcome is not None:
            UNTIMED.discard(gid)
        return
    with _lock:  # (one game's commits may be announced from two threads)
        _account(batch)


def _account(batch: listeners.Batch) -> None:
    gid = batch.game_id
    c = CLOCKS.get(gid)
    if c is None:
        if batch.first_seq == 1:  # a new game: is it timed?
            if rules_in(batch.records) is None:
                UNTIMED.add(gid)
                return
            c = Clock(gid, batch.entry.num_seats)
            CLOCKS[gid] = c
        else:
            _rebuild_later(gid)
            return
    if c.seq != batch.first_seq - 1:
        _rebuild_later(gid)
        return
    c.step(batch.entry.game, batch.state, batch.records, time.time())
    if batch.outcome is not None:
        CLOCKS.pop(gid, None)
        TIMEKEEPER.set(gid, None)
        return
    _arm(c)


def _rebuild_later(gid: int) -> None:
    def rebuild() -> None:
        try:
            ensure(cache.entry(gid, fresh=True))
        except cache.NotFound:
            pass

    SHARDS.submit(gid, rebuild)


def _exempt(gid: int) -> set[int]:
    """Bot seats (no deadline): from the bot runner's cache, without the database."""
    return set(_BOTS[0].bot_seats.get(gid) or ()) if _BOTS else set()


def _arm(c: Clock) -> None:
    TIMEKEEPER.set(c.game_id, c.next_deadline(_exempt(c.game_id)))


def frame_clock(e: cache.Entry, seq: int, state: Any, viewer: int) -> dict[str, Any] | None:
    """The ``clock`` member of a frame for ``viewer`` at ``seq`` (None: untimed, or the
    clock in memory is not at ``seq``)."""
    c = CLOCKS.get(e.game_id)
    if c is None or c.seq != seq or not c.rules:
        return None
    visible = e.game.visible_to_act(state, viewer)
    return c.to_json(visible, time.time(), _exempt(e.game_id))


# --------------------------------------------------------------------------- timers


class Timekeeper:
    """One thread holding every timed game's next deadline (wall clock); at a deadline the
    game is looked at again on its database thread and a timeout appended if still due.
    Started in the serving process only (server/asgi.py); elsewhere deadlines are noted but
    nothing fires."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.due: dict[int, float] = {}
        self.thread: threading.Thread | None = None
        self.pool: concurrent.futures.ThreadPoolExecutor | None = None
        self.busy: set[int] = set()
        self.failures: dict[int, int] = {}

    def set(self, game_id: int, when: float | None) -> None:
        with self.cond:
            if when is None:
                self.due.pop(game_id, None)
            else:
                self.due[game_id] = when
            self.cond.notify()

    def start(self) -> None:
        with self.cond:
            if self.thread is not None:
                return
            self.pool = concurrent.futures.ThreadPoolExecutor(2, "gamenight-timeout")
            self.thread = threading.Thread(target=self._run, name="gamenight-clock", daemon=True)
            self.thread.start()
        self.pool.submit(rearm_all)

    def _run(self) -> None:
        while True:
            with self.cond:
                ready = [g for g, t in self.due.items() if t - EARLY <= time.time()]
                for g in ready:
                    del self.due[g]
                if not ready:
                    delay = min(self.due.values(), default=time.time() + 60) - time.time()
                    self.cond.wait(max(0.005, min(delay, 60.0)))
                    continue
            for g in ready:
                if g not in self.busy and self.pool is not None:
                    self.busy.add(g)
                    try:
                        self.pool.submit(self._expire, g)
                    except RuntimeError:  # (the interpreter is shutting down)
                        return

    def _expire(self, gid: int) -> None:
        try:
            expire(gid)
            self.failures.pop(gid, None)
        except Exception:  # (the database away...): look again, 1 s, 2 s, 4 s... 30 s later
            n = self.failures[gid] = self.failures.get(gid, 0) + 1
            log.exception("game %s: timeout handling failed (%d times)", gid, n)
            self.set(gid, time.time() + min(30.0, 2.0 ** (n - 1)))
        finally:
            self.busy.discard(gid)


TIMEKEEPER = Timekeeper()


def forget() -> None:
    """Drop every clock and deadline of this process (tests, between databases)."""
    with _lock:
        CLOCKS.clear()
        UNTIMED.clear()
    with TIMEKEEPER.cond:
        TIMEKEEPER.due.clear()
        TIMEKEEPER.failures.clear()


def rearm_all() -> None:
    """(at start) every live game with time rules gets its deadline from the log again."""
    def live_timed() -> list[int]:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT DISTINCT e.game_id FROM games_event e JOIN games_game g "
                "ON g.id = e.game_id WHERE e.type = 'table' AND g.status = 'live'"
            )
            return [int(r[0]) for r in cur.fetchall()]

    def one(gid: int) -> None:
        try:
            e = cache.entry(gid, fresh=True)
        except cache.NotFound:
            return
        ensure(e)

    try:
        ids = SHARDS.submit(0, live_timed).result(60)
    except Exception:
        log.exception("could not re-arm the game clocks")
        return
    for gid in ids:
        SHARDS.submit(gid, one, gid)
    if ids:
        log.info("game clocks re-armed for %d live games", len(ids))


def _plan(gid: int) -> dict[str, Any] | None:
    """(database thread) the seat whose deadline has come, if any, with what it needs."""
    e = cache.entry(gid, fresh=True)
    c = ensure(e)
    with cache.game_lock(gid):
        seq, state = e.seq, e.state
    if c is None or c.seq != seq or e.game.outcome(state) is not None:
        return None
    exempt = set(_bots().seats(gid))
    now = time.time()
    due = [
        (d, s)
        for s in c.waiting
        if s not in exempt and (d := c.deadline(s)) is not None and d - EARLY <= now
    ]
    if not due:
        return {"next": c.next_deadline(exempt)}
    _d, seat = min(due)
    hidden = seat not in e.game.visible_to_act(state, SPECTATOR)
    timeout: dict[str, Any] = {"type": "timeout", "seat": seat}
    if hidden:
        timeout["hidden"] = True  # who was waited for is a secret (Teka's throw-in)
    forfeit = e.game.forfeit(state, seat)
    return {
        "seq": seq,
        "seat": seat,
        "kind": e.kind,
        "timeout": timeout,
        "forfeit": forfeit,
        "view": None if forfeit else e.game.view(state, seat),
    }


def expire(gid: int) -> None:
    """(timeout thread) append the timeouts that are due in game ``gid``, then re-arm."""
    refused = 0
    for _ in range(12):
        plan = SHARDS.submit(gid, _plan, gid).result(120)
        if plan is None:
            TIMEKEEPER.set(gid, None)
            return
        if "seat" not in plan:
            TIMEKEEPER.set(gid, plan["next"])
            return
        pre: list[tuple[int | None, dict[str, Any]]]
        seat, seq, pre = plan["seat"], plan["seq"], [(None, plan["timeout"])]
        command = None
        if plan["forfeit"]:
            pre += [(None, ev) for ev in plan["forfeit"]]
        else:
            level = knob("TIMEOUT_BOT_LEVEL", None) or creating.bot_level(plan["kind"], None)
            if refused:
                level = "random"
            limit = float(knob("TIMEOUT_BOT_TIME", 1.0))
            command = (
                _bots().executor()
                .submit(
                    botworker.choose,
                    plan["kind"],
                    plan["view"],
                    seat,
                    level,
                    secrets.randbits(64),
                    0,
                    limit,
                )
                .result(limit + 60)
            )
            if command is None:  # (no move to make: never a timeout alone, again and again)
                log.warning("game %s: no move for timed-out seat %s", gid, seat)
                TIMEKEEPER.set(gid, time.time() + 5.0)
                return
        try:
            SHARDS.submit(gid, append.submit, gid, seat, command, seq, None, pre).result(120)
            log.info("game %s: seat %s ran out of time at seq %s", gid, seat, seq)
        except append.StaleError:
            pass  # the seat (or another) moved in time: look again
        except IllegalMoveError as exc:
            log.warning("game %s: timeout of seat %s refused: %s", gid, seat, exc.reason)
            refused += 1
            if refused > 2:
                TIMEKEEPER.set(gid, time.time() + 5.0)
                return
    TIMEKEEPER.set(gid, time.time() + 0.5)  # (still moving after all that: look again)


# --------------------------------------------------------------------------- abandoned seats


def replace_with_bot(
    game_id: int, by: int, command: dict[str, Any], expected_seq: Any, away: float | None
) -> append.SubmitResult:
    """(database thread) ``by`` asks to hand seat ``command["seat"]`` to a bot; ``away``:
    seconds that seat has had no socket here (None: connected). Raises IllegalMoveError."""
    from .models import Seat

    append.check_expected(expected_seq)
    target = command.get("seat")
    if not isinstance(target, int) or isinstance(target, bool):
        raise IllegalMoveError("malformed", 'replace_with_bot needs "seat": a seat number')
    e = cache.entry(game_id, fresh=True)
    if e.finished:
        raise IllegalMoveError("game_over", "the game is over")
    if not 0 <= target < e.num_seats:
        raise IllegalMoveError("wrong_seat", f"no seat {target} at this table")
    rules = rules_in(e.log)
    abandon = rules.get("abandon") if rules else None
    if not abandon:
        raise IllegalMoveError(
            "illegal", "this table has no abandon rule: its seats are not handed to bots"
        )
    if target == by:
        raise IllegalMoveError("illegal", "you cannot hand your own seat to a bot")
    row = Seat.objects.filter(game_id=game_id, number=target).first()
    if row is None or not row.claimed:
        raise IllegalMoveError("illegal", f"seat {target} is open: nobody has left it")
    if row.kind == Seat.BOT:
        raise IllegalMoveError("illegal", f"seat {target} is already played by a bot")
    if away is None:
        raise IllegalMoveError("illegal", f"seat {target} is connected")
    if away < abandon:
        raise IllegalMoveError(
            "too_early",
            f"seat {target} has been away {int(away)} s; it may be handed to a bot after "
            f"{abandon} s",
        )
    level = creating.bot_level(e.kind, None)
    event = {"type": "seat_to_bot", "seat": target, "by": by, "level": level}
    with transaction.atomic():
        Seat.objects.filter(pk=row.pk).update(kind=Seat.BOT, bot_level=level)
        # (before the move's own on_commit: the bot runner must see the new bot seat)
        bots = _bots()
        transaction.on_commit(lambda: bots.bot_seats.pop(game_id, None))
        result = append.submit(game_id, by, None, expected_seq, pre=[(by, event)])
        transaction.on_commit(lambda: listeners.notify_seats(game_id))
    return result
