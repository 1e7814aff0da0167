"""Game sessions the game screen talks to: the same interface offline (core API on the device)
and online (the server). No Kivy here: the app passes ``post`` (run a callable on the UI thread)
and the tests drive sessions directly.

A session exposes what the screen draws: ``view`` (JSON, for ``viewer``), ``legal`` (commands
``viewer`` may send now), ``to_act``, ``outcome``, ``thinking``/``progress`` (a bot at work),
``message`` (last refusal or notice), ``handoff`` (pass-and-play: the seat the tablet must be
handed to before its hidden information is shown) and ``events`` (the log, for replay).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from random import Random
from typing import Any

import core
from core import upcast, wording
from core.api import ALL, SPECTATOR, Game, IllegalMoveError, fold
from core.words import describe

Obj = dict[str, Any]
Post = Callable[[Callable[[], None]], None]

HIDDEN_INFO_GAMES = frozenset({"teka", "tedoku"})


def _labels(game: str) -> list[str]:
    g = core.GAMES.get(game)
    return g.seat_labels(g.max_seats) if g is not None else []


def seat_label(game: str, seat: int) -> str:
    """The seat's place at the table in a word (``Game.seat_labels``: White, Light, North...,
    else "Seat N")."""
    names = _labels(game)
    if 0 <= seat < len(names):
        return names[seat]
    return f"Seat {seat + 1}"


def partnership_of(game: str, seats: int, seat: int) -> str:
    """The side of ``seat`` in words ("North-South") where the game is played in
    partnerships (``Game.sides``: Teka's), else ""."""
    g = core.GAMES.get(game)
    if g is None:
        return ""
    sides = g.sides(seats)
    if all(len(side) <= 1 for side in sides):
        return ""
    labels = g.side_labels(seats)
    return next((labels[i] for i, side in enumerate(sides) if seat in side), "")


def seat_word(game: str, seat: int) -> str:
    """A seat told in a word: its place where the game names it (``Game.seat_labels``:
    Teka's compass points, Teeko's colours), else the seat's number."""
    label = seat_label(game, seat)
    return str(seat + 1) if label == f"Seat {seat + 1}" else label


def player_names(game: str, players: list[Obj]) -> list[str]:
    """Each seat's player by name, as the live game names them: the one source of the names
    the app shows (chips, status, titles, the lobby, replays, the analysis, saved games). A
    seat without a name reads its place ("North", "White", "Seat 3"); bots sharing a name
    (online every server bot is "Bot": ``client_kivy.vm.net.seat_player``) are told apart by
    their seat ("Bot East", "Bot 2")."""
    bases = [str(p.get("name") or seat_label(game, i)) for i, p in enumerate(players)]
    return wording.told_apart(bases, [p.get("kind") == "bot" for p in players],
                              [seat_label(game, i) for i in range(len(players))])


def make_bot(game: str, level: Any) -> Any:
    """The core bot for ``game`` at ``level``; a random mover if that level is not there."""
    try:
        from core.ai.bots import LEVELS
        from core.ai.bots import make_bot as core_make_bot

        levels = LEVELS.get(game, ["random"])
        if level not in levels:
            level = levels[min(len(levels) - 1, 2)] if isinstance(level, int) else "random"
        return core_make_bot(game, str(level))
    except (ImportError, ValueError, KeyError):
        return RandomBot(game)


class RandomBot:
    def __init__(self, game: str) -> None:
        self.game = core.GAMES[game]

    def choose(self, view: Obj, seat: int, rng: Random, should_stop: Any = None,
               progress: Any = None) -> Obj:
        state = self.game.resample(view, seat, rng)
        moves = [c for c in self.game.legal_commands(state, seat)
                 if c.get("type") not in core.api.META_COMMANDS]
        if progress is not None:
            progress(1.0)
        return rng.choice(moves or self.game.legal_commands(state, seat))


class Session:
    """Base: listeners and the fields screens read."""

    kind = "base"

    def __init__(self, game_name: str) -> None:
        self.game_name = game_name
        self.game: Game = core.GAMES[game_name]
        self.players: list[Obj] = []
        self.view: Obj = {}
        self.viewer: int = SPECTATOR
        self.legal: list[Obj] = []
        self.to_act: list[int] = []
        self.outcome: Obj | None = None
        self.thinking: bool = False
        self.thinking_seat: int = -1
        self.progress: float = 0.0
        self.message: str = ""
        self.handoff: int | None = None
        self.connection: str = "local"
        self.events: list[Obj] = []
        self.closed = False
        """Set by :meth:`close`: the game left the screen; :meth:`send` refuses from then."""
        self._listeners: list[Callable[[], None]] = []

    # -- listeners -------------------------------------------------------------------------
    def subscribe(self, callback: Callable[[], None]) -> None:
        self._listeners.append(callback)

    def unsubscribe(self, callback: Callable[[], None]) -> None:
        if callback in self._listeners:
            self._listeners.remove(callback)

    def notify(self) -> None:
        for cb in list(self._listeners):
            cb()

    # -- what screens call -----------------------------------------------------------------
    def send(self, command: Obj) -> bool:
        raise NotImplementedError

    def confirm_handoff(self) -> None:
        self.handoff = None
        self.refresh()

    def refresh(self) -> None:
        self.notify()

    def close(self) -> None:
        self.closed = True
        self._listeners.clear()

    # -- helpers ---------------------------------------------------------------------------
    def player_name(self, seat: int) -> str:
        """The seat's name (:func:`player_names`). The bot level is in :meth:`bot_level`."""
        names = player_names(self.game_name, self.players)
        return names[seat] if 0 <= seat < len(names) else seat_label(self.game_name, seat)

    def bot_level(self, seat: int) -> str:
        """ "easy bot", "bot"..., or "" for a person."""
        if 0 <= seat < len(self.players) and self.players[seat].get("kind") == "bot":
            level = str(self.players[seat].get("level", "")).replace("random", "")
            return f"{level} bot" if level else "bot"
        return ""

    @property
    def my_turn(self) -> bool:
        return self.viewer >= 0 and self.viewer in self.to_act and self.handoff is None

    def status_text(self) -> str:
        """One line saying whose turn it is (or how the game ended)."""
        if self.outcome is not None:
            return outcome_text(self.game_name, self.players, self.outcome)
        if self.handoff is not None:
            return f"Pass the tablet to {self.player_name(self.handoff)}"
        if self.thinking:
            return f"{self.player_name(self.thinking_seat)} is thinking..."
        if self.my_turn:
            if len(self.human_seats()) > 1:
                return f"{self.player_name(self.viewer)}: your turn"
            return "Your turn"
        if self.to_act:
            return "Waiting for " + ", ".join(self.player_name(s) for s in self.to_act)
        return ""

    def human_seats(self) -> list[int]:
        return [i for i, p in enumerate(self.players) if p.get("kind") == "human"]

    def rules_state(self) -> Any:
        """A core state matching what the viewer sees (the real one on the device; online,
        one consistent with the view)."""
        return self.game.resample(self.view, self.viewer, Random(0))

    def why_not(self, command: Obj) -> str:
        """Why ``command`` would be refused now, in the rules' own words ("" if it would
        not be): what a tap that sends nothing tells the player."""
        if self.outcome is not None:
            return "The game is over"
        if self.viewer < 0:
            return "You are watching this game"
        if not self.my_turn:
            waiting = ", ".join(self.player_name(s) for s in self.to_act)
            return f"Not your turn: waiting for {waiting}" if waiting else "Not your turn"
        try:
            self.game.decide(self.rules_state(), self.viewer, command, Random(0))
        except IllegalMoveError as e:
            return sentence(e.reason)
        except Exception:
            return ""
        return ""

    def share_url(self) -> str | None:
        """The address of this game's page on the server (``/games/<id>/``: watch it live or
        replay it in any browser), or None for a game kept on this device."""
        return None

    def share(self) -> str | None:
        """Say the game page's address (the screen also puts it on the clipboard)."""
        url = self.share_url()
        if url is not None:
            self.message = f"Watch or replay in a browser: {url}"
            self.notify()
        return url

    def notice(self) -> str:
        """A standing notice from the game: a draw offer waiting, a draw just declined."""
        v = self.view or {}
        offer = v.get("draw_offer")
        if self.outcome is None and isinstance(offer, int) and offer >= 0:
            if offer == self.viewer:
                others = [self.player_name(s) for s in range(len(self.players)) if s != offer]
                return f"{self.player_name(offer)} offered a draw: waiting for " + \
                    " & ".join(others)
            return f"{self.player_name(offer)} offers a draw: accept or decline"
        last = self.events[-1] if self.events else {}
        if last.get("type") == "draw_declined" and isinstance(last.get("seat"), int):
            return f"{self.player_name(last['seat'])} declined the draw"
        return ""


def sentence(text: str) -> str:
    """The rules' reason as a sentence: first word capitalised unless it is a name such as
    a square ("c3 is already occupied")."""
    first = text.split(" ", 1)[0]
    return text[:1].upper() + text[1:] if first.isalpha() else text


def outcome_text(game: str, players: list[Obj], outcome: Obj | None) -> str:
    """How a game ended, in the game's own words (``Game.result_text``) with the players as
    the app names them (:func:`player_names`): "Computer wins 52-40", "Bot North & Bot
    South win 104-52", "Tedoku Champion: 30 points"; "" for no outcome. The one result line
    of the app: the status, the end banner, the replay, the lobby and the saved games."""
    g = core.GAMES.get(game)
    if g is None or not outcome:
        return ""
    return g.result_text(outcome, player_names(game, players))


LEVEL_SECONDS: dict[str, float] = {"random": 0.5, "easy": 0.5, "medium": 1.5, "hard": 3.0,
                                   "max": 5.0, "expert": 5.0, "perfect": 5.0}
"""Seconds a bot of each level may think on this device before it answers with its best move
so far (the levels' own budgets end most searches sooner): what a phone's pure-Python core
can bear a move. Measured per game and level: docs/ai.md, "Time per move in the app"."""


DEFAULT_THINK = 8.0
"""The settings' default for the device's limit: each level keeps its own (all shorter)."""


def think_limit(level: Any) -> float:
    """The seconds a bot of ``level`` may think (:data:`LEVEL_SECONDS`; the longest for a
    level it does not know)."""
    return LEVEL_SECONDS.get(str(level), max(LEVEL_SECONDS.values()))


class LocalSession(Session):
    """A game played on this device with the core: people (pass-and-play) and bots.

    ``post`` runs a callable on the UI thread (Kivy: Clock); ``None`` means bots play in the
    calling thread at once (tests, the screenshot tool). ``store`` keeps the event log.
    """

    kind = "local"
    bot_time_limit: float = float(os.environ.get("GAMENIGHT_BOT_TIME_LIMIT", str(DEFAULT_THINK)))
    """The most seconds any bot may think on this device (the settings' choice), over each
    level's own limit (:func:`think_limit`): the shorter of the two counts."""
    clock: Callable[[], float] = staticmethod(time.monotonic)
    bot_pause: float = 0.25
    """Seconds a bot waits before it plays (so a move is seen before the next one)."""
    card_pause: float = 0.8
    """Teka: seconds between bot cards, and (:attr:`trick_pause`) after a finished trick."""
    trick_pause: float = 2.0
    pace: float = 1.0
    """All the pauses above times this (the settings' bot speed: 2 slow, 1, 0 fast)."""

    def __init__(self, game_name: str, players: list[Obj], options: Obj | None = None,
                 store: Any = None, record: Obj | None = None, post: Post | None = None,
                 seed: int | None = None) -> None:
        super().__init__(game_name)
        self.store = store
        self.post = post
        self.rng = Random(seed if seed is not None else int.from_bytes(os.urandom(8), "big"))
        if record is not None:
            self.record = record
            self.players = list(record["players"])
            self.events = saved_events(record)
            record["version"] = upcast.current(game_name)  # (saved again in today's version)
            self.options = dict(record.get("options", {}))
        else:
            self.options = self.game.options({**(options or {}), "seats": len(players)}
                                             if self.game.max_seats != self.game.min_seats
                                             else dict(options or {}))
            self.players = [dict(p) for p in players]
            self.events = list(self.game.start(self.options, self.rng))
            for ev in self.events:
                # Teka's draw for partners re-seats the lobby places: seating[seat] = place
                seating = ev.get("seating") if ev.get("type") == "draw" else None
                if isinstance(seating, list) and sorted(seating) == list(range(len(players))):
                    self.players = [dict(players[place]) for place in seating]
            self.record = {
                "id": store.new_id() if store is not None else "",
                "game": game_name, "options": self.options, "players": self.players,
                "events": self.events, "finished": False, "outcome": None,
                "version": upcast.current(game_name),
            }
            self.record["created"] = time.time()
        self.state = fold(self.game, self.events)
        self._last_viewer: int | None = None
        self._bot_gen = 0
        self._stop = threading.Event()
        self._hurry = threading.Event()
        self.undo_marks: list[int] = list(self.record.get("undo_marks") or [])
        """Lengths of the log before each command of the one person playing the computer:
        :meth:`undo` goes back to the last of them."""
        self.connection = "local"
        self._save()
        self._update()

    # -- state -> fields -------------------------------------------------------------------
    def _update(self) -> None:
        g, s = self.game, self.state
        out = g.outcome(s)
        self.outcome = out.to_json() if out is not None else None
        self.to_act = [] if out is not None else list(g.to_act(s))
        humans = self.human_seats()
        acting_humans = [h for h in self.to_act if h in humans]
        if acting_humans:
            viewer = acting_humans[0]
        elif self._last_viewer is not None:
            viewer = self._last_viewer
        elif humans:
            viewer = humans[0]
        else:
            viewer = SPECTATOR
        if out is not None:
            viewer = ALL if len(humans) != 1 else humans[0]
            self.handoff = None
        elif (self.game_name in HIDDEN_INFO_GAMES and len(humans) > 1 and viewer >= 0
              and viewer != self._last_viewer and acting_humans
              and self._has_secret(viewer)):
            self.handoff = viewer
        self._last_viewer = viewer if viewer >= 0 else self._last_viewer
        self.viewer = viewer
        shown = SPECTATOR if self.handoff is not None else viewer
        self.view = g.view(s, shown)
        self.legal = (g.legal_commands(s, viewer)
                      if viewer >= 0 and viewer in self.to_act and self.handoff is None else [])

    def rematch_options(self) -> Obj:
        """The options of a rematch: the same, but partners already drawn stay partners
        (the same people in the same seats: no new draw for partners)."""
        options = dict(self.options)
        if options.get("draw_for_partners"):
            options["draw_for_partners"] = False
        return options

    def _has_secret(self, seat: int) -> bool:
        """Whether ``seat``'s view shows anything the public view does not (a hand, a
        drawing not yet revealed): only then must the tablet be handed over first."""
        return bool(_public(self.game.view(self.state, seat))
                    != _public(self.game.view(self.state, SPECTATOR)))

    def refresh(self) -> None:
        self._update()
        self.notify()
        self._maybe_bot()

    def rules_state(self) -> Any:
        return self.state

    def start(self) -> None:
        """Begin (or resume): lets a bot move if it is a bot's turn."""
        self.notify()
        self._maybe_bot()

    # -- commands --------------------------------------------------------------------------
    def send(self, command: Obj, seat: int | None = None) -> bool:
        if self.closed:
            return False
        seat = self.viewer if seat is None else seat
        try:
            events = self.game.decide(self.state, seat, command, self.rng)
        except IllegalMoveError as e:
            self.message = f"Refused: {e.reason}"
            self.notify()
            return False
        self.message = ""
        if self.can_take_back_ever() and command.get("type") not in ("resign",):
            self.undo_marks.append(len(self.events))
        self._apply(events)
        return True

    # -- take back (a person against the computer) -------------------------------------------
    def can_take_back_ever(self) -> bool:
        humans = self.human_seats()
        return len(humans) == 1 and len(humans) < len(self.players)

    @property
    def can_undo(self) -> bool:
        return self.can_take_back_ever() and bool(self.undo_marks) and not self.closed

    def undo(self) -> bool:
        """Take back the person's last move (and the computer's answers since): the log
        goes back to its state before that move; a bot at work is stopped."""
        if not self.can_undo:
            return False
        self._bot_gen += 1
        self.thinking = False
        cut = self.undo_marks.pop()
        self.events = self.events[:cut]
        self.state = fold(self.game, self.events)
        self.message = "Move taken back"
        self._update()
        self._save()
        self.notify()
        self._maybe_bot()
        return True

    # -- hints (Teeko against the computer, with the solved table) ---------------------------
    @property
    def can_hint(self) -> bool:
        """A hint can be asked: Teeko, one person against the computer on this device (never
        a league or online game), that person to move, and the solved table built."""
        if (self.game_name != "teeko" or not self.can_take_back_ever() or self.closed
                or self.outcome is not None or self.viewer not in self.to_act):
            return False
        return solved_table(str(self.options.get("squares", "axis"))) is not None

    def hint(self) -> bool:
        """Put the value of the position and its best plies in :attr:`message`."""
        if not self.can_hint:
            return False
        from core.teeko_analysis import hint

        h = hint(self.state)
        best = ", ".join(b["move"] for b in h["best"][:4])
        self.message = f"Hint: {value_phrase(h['value'], 'you')} - best: {best}"
        self.notify()
        return True

    def hurry(self) -> None:
        """A tap on the table: the bot waiting to play (after a finished trick) goes on."""
        self._hurry.set()

    def _apply(self, events: list[Obj]) -> None:
        for ev in events:
            self.state = self.game.evolve(self.state, ev)
            self.events.append(ev)
        self._update()
        self._save()
        self.notify()
        self._maybe_bot()

    def _save(self) -> None:
        self.record["events"] = self.events
        self.record["undo_marks"] = self.undo_marks
        self.record["finished"] = self.outcome is not None
        self.record["outcome"] = self.outcome
        if self.store is not None:
            self.store.save(self.record)

    # -- bots ------------------------------------------------------------------------------
    def _bot_to_move(self) -> int | None:
        for seat in self.to_act:
            if 0 <= seat < len(self.players) and self.players[seat].get("kind") == "bot":
                return seat
        return None

    def _maybe_bot(self) -> None:
        if self.thinking or self.outcome is not None:
            return
        seat = self._bot_to_move()
        if seat is None:
            return
        if self.post is None:
            # Synchronous: play every bot move now (loop, not recursion).
            while seat is not None and self.outcome is None:
                cmd = self._bot_choose(seat, None)
                events = self.game.decide(self.state, seat, cmd, self.rng)
                for ev in events:
                    self.state = self.game.evolve(self.state, ev)
                    self.events.append(ev)
                self._update()
                seat = self._bot_to_move()
            self._save()
            self.notify()
            return
        self.thinking = True
        self.thinking_seat = seat
        self.progress = 0.0
        self._bot_gen += 1
        gen = self._bot_gen
        view = self.game.view(self.state, seat)
        self.notify()
        rng = Random(self.rng.getrandbits(64))
        pause = self.pause_before(view)
        self._hurry.clear()

        def work() -> None:
            if pause > 0:
                self._hurry.wait(pause)
            try:
                cmd: Obj | None = self._bot_choose(seat, view, rng, gen)
                err = ""
            except Exception as e:
                cmd, err = None, str(e)
            self.post(lambda: self._bot_done(gen, seat, cmd, err))  # type: ignore[misc]

        threading.Thread(target=work, daemon=True, name=f"bot-{seat}").start()

    def think_seconds(self, seat: int) -> float:
        """How long the bot of ``seat`` may think: its level's limit, at most the device's
        (the settings' choice); a choice beyond :data:`DEFAULT_THINK` ("up to 20 s") lets
        every level think that long (stronger, slower: the player asked for it)."""
        level = self.players[seat].get("level", "random") if 0 <= seat < len(
            self.players) else "random"
        if self.bot_time_limit > DEFAULT_THINK:
            return self.bot_time_limit
        return min(self.bot_time_limit, think_limit(level))

    def pause_before(self, view: Obj) -> float:
        """How long a bot waits before playing, so people can follow: a finished Teka trick
        stays on the table :attr:`trick_pause` seconds (or until the table is tapped)."""
        if self.game_name == "teka" and view.get("phase") == "play":
            if not view.get("trick") and (view.get("last_trick") or {}).get("cards"):
                return self.trick_pause * self.pace
            return self.card_pause * self.pace
        return self.bot_pause * self.pace

    def _bot_choose(self, seat: int, view: Obj | None, rng: Random | None = None,
                    gen: int = 0) -> Obj:
        level = self.players[seat].get("level", "random")
        bot = make_bot(self.game_name, level)
        if view is None:
            view = self.game.view(self.state, seat)

        def progress(p: float, *_: Any) -> None:
            try:
                value = float(p)
            except (TypeError, ValueError):
                return
            if value > 1.0:
                value = value / 100.0
            self.progress = max(0.0, min(1.0, value))
            if self.post is not None:
                self.post(self.notify)

        deadline = self.clock() + self.think_seconds(seat)

        def should_stop() -> bool:
            return (self._stop.is_set() or (gen != 0 and gen != self._bot_gen)
                    or self.clock() >= deadline)

        cmd: Obj = bot.choose(view, seat, rng or self.rng, should_stop, progress)
        return cmd

    def _bot_done(self, gen: int, seat: int, cmd: Obj | None, err: str) -> None:
        if gen != self._bot_gen or self.closed:
            return
        self.thinking = False
        self.progress = 1.0
        if cmd is None:
            self.message = f"The bot failed: {err}"
            self.notify()
            return
        try:
            events = self.game.decide(self.state, seat, cmd, self.rng)
        except IllegalMoveError as e:
            self.message = f"The bot's move was refused: {e.reason}"
            self.notify()
            return
        self._apply(events)

    def close(self) -> None:
        super().close()
        self._stop.set()
        self._bot_gen += 1
        self.thinking = False


def solved_table(squares: str) -> Any:
    """The solved Teeko table of ``squares`` (core.teeko_table) or None when it is not built
    on this device or cannot be read."""
    from core.teeko_analysis import NoTable, table_for

    try:
        return table_for(squares)
    except NoTable:
        return None


def value_phrase(value: Obj, who: str) -> str:
    """``"you can win in 5"``, ``"Ann loses in 4"``, ``"a draw"`` from a table value."""
    result, plies = value.get("result"), value.get("plies")
    if result == "win":
        return f"{who} can win in {plies} plies" if plies != 1 else f"{who} can win now"
    if result == "loss":
        return f"{who} can be beaten in {plies} plies"
    return "a draw with best play"


LOST_TEXT = {"win_to_draw": "a win let slip to a draw", "win_to_loss": "a win thrown away",
             "draw_to_loss": "a draw lost"}


def _public(view: Any) -> Any:
    """A view without what only says who looks (``viewer``) and without empty fields."""
    if isinstance(view, dict):
        return {k: _public(v) for k, v in view.items()
                if k != "viewer" and v not in (None, [], {}, "")}
    if isinstance(view, list):
        return [_public(v) for v in view]
    return view


def saved_events(record: Obj) -> list[Obj]:
    """A saved game's events in today's version (through the upcasters, ``core.upcast``): a
    record says the schema version its events are in (none: saved before versions, 1)."""
    version = record.get("version", upcast.FIRST)
    return upcast.upcast_log(str(record["game"]), [(version, e) for e in record["events"]])


class ReplayModel:
    """Step through a finished (or any) event log: ``index`` events applied, ``view`` of it."""

    def __init__(self, game_name: str, events: list[Obj], players: list[Obj] | None = None,
                 viewer: int = ALL) -> None:
        self.game_name = game_name
        self.game = core.GAMES[game_name]
        self.events = list(events)
        self.players = players or []
        self.viewer = viewer
        self.states: list[Any] = [self.game.initial()]
        for ev in self.events:
            self.states.append(self.game.evolve(self.states[-1], ev))
        # Start after the opening events (start, deal...) so the board shows something.
        self.index = min(len(self.events), 1)
        self.playing = False
        self._analysis: dict[int, Obj] | None = None
        self._no_analysis = ""
        self.teka_analysis: Any = None
        """A finished online Teka match: its analysis from the server
        (client_kivy.vm.teka_analysis.TekaReplayAnalysis), else None."""

    @property
    def length(self) -> int:
        return len(self.events)

    @property
    def view(self) -> Obj:
        state = self.states[self.index]
        if self.index == 0:
            return {}
        return self.game.view(state, self.viewer)

    @property
    def state(self) -> Any:
        return self.states[self.index]

    def outcome(self) -> Obj | None:
        if self.index == 0:
            return None
        out = self.game.outcome(self.states[self.index])
        return out.to_json() if out is not None else None

    def seek(self, index: int) -> None:
        self.index = max(0, min(self.length, int(index)))

    def step(self, delta: int = 1) -> bool:
        before = self.index
        self.seek(self.index + delta)
        return self.index != before

    def marks(self) -> list[int]:
        """Event indices where a new hand / round starts (Teka: hand by hand)."""
        starts = {"deal", "new_hand", "hand", "round", "new_round", "next_round", "flip"}
        return [i + 1 for i, ev in enumerate(self.events) if ev.get("type") in starts]

    def next_mark(self, delta: int) -> None:
        marks = self.marks()
        if delta > 0:
            later = [m for m in marks if m > self.index]
            self.seek(later[0] if later else self.length)
        else:
            earlier = [m for m in marks if m < self.index]
            self.seek(earlier[-1] if earlier else 1)

    def event_text(self) -> str:
        if self.index == 0:
            return ""
        ev = self.events[self.index - 1]
        text = describe_event(ev, player_names(self.game_name, self.players))
        ply = self.analysis().get(self.index - 1)
        if ply is not None:
            text += " - " + ply_phrase(ply)
        if self.teka_analysis is not None:
            text += self.teka_analysis.note(self.index - 1)
        return text

    def analysis(self) -> dict[int, Obj]:
        """Teeko with its solved table on this device: the analysis of each ply
        (core.teeko_analysis.analyse) by event index; else empty."""
        if self._analysis is None:
            self._analysis = {}
            if self.game_name == "teeko":
                from core.teeko_analysis import NoTable, analyse

                try:
                    plies = analyse(self.events)["plies"]
                except NoTable as exc:
                    plies = []
                    self._no_analysis = f"No analysis of the moves here: {exc.reason}"
                except ValueError:
                    plies = []
                at = [i for i, ev in enumerate(self.events) if ev.get("type") in ("placed",
                                                                               "moved")]
                self._analysis = dict(zip(at, plies, strict=False))
        return self._analysis


    def analysis_note(self) -> str:
        """Why a game that could be analysed on this device is not (Teeko without its solved
        table): a line for the replay; "" otherwise."""
        self.analysis()
        return self._no_analysis


def ply_phrase(ply: Obj) -> str:
    """How a ply did under perfect play: ``"kept: win in 11"``, ``"a win thrown away (win in 1
    -> loss in 2; best d1)"``."""
    before, after = ply["before"]["text"], ply["after"]["text"]
    if ply.get("lost"):
        best = ", ".join(ply.get("best", [])[:3])
        return f"{LOST_TEXT.get(ply['lost'], ply['lost'])} ({before} -> {after}; best {best})"
    if not ply.get("best_move"):
        return f"slower: {before} -> {after}"
    return f"best: {after}"


def describe_event(ev: Obj, names: list[str] | None = None) -> str:
    """A short line for the replay caption: "Ann placed c3", "Dan cut the deck"... The one
    text of the app and the web pages: core.words.describe."""
    return describe(ev, names)


HEADINGS = {"deal", "flip", "round_end"}
"""Events shown in the move list as a heading (a new hand, a Tedoku turn, a round's end)."""
NOT_MOVES = {"first_player", "timeout", "seat_to_bot"}


def move_list(events: list[Obj], names: list[str] | None = None) -> list[str]:
    """The game's moves, numbered, in the notation of the replay captions (docs/notation.md):
    "1. Ann placed c3", "2. Bob moved b2-c3"...; a new hand or turn is a heading."""
    out: list[str] = []
    n = 0
    for ev in events:
        t = ev.get("type")
        if t in HEADINGS:
            out.append(describe_event(ev, names) if t != "round_end" else "Round over")
        elif isinstance(ev.get("seat"), int) and t not in NOT_MOVES:
            n += 1
            out.append(f"{n}. {describe_event(ev, names)}")
    return out
