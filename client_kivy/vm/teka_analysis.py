"""The double-dummy analysis of a finished Teka match in the app's replay, as the server
computes it (``GET /api/games/<id>/analysis/``, docs/protocol.md): fetched in the background
("computing... hand 3 of 9" until it is ready), then laid over the replay's events: each
card's cost (``?`` one trick, ``??`` more) in the caption, the deal and its par when a
hand's replay starts, the par beside each hand's score line."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from core.api import Obj
from core.teka import SEATS, SUITS
from core.wording import SUIT_SYMBOLS, card_text

SEAT_NAMES = ["North", "East", "South", "West"]
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
VERDICTS = {"overbid": "overbid", "underbid": "underbid", "exact": "bid to par"}
OUTCOMES = {
    "made_as_par": "made, as par says",
    "failed_as_par": "down, as par says",
    "made_against_par": "made against par",
    "failed_against_par": "down against par",
}
POLL_SECONDS = 2.0
QUEUE_FULL_SECONDS = 30.0
"""How long to wait before asking again when the server's analysis queue is full."""
QUEUE_FULL = ("too_many_analyses", "queue_full")


def cost_mark(cost: Any) -> str:
    """``"?"`` for a card that cost its side one trick, ``"??"`` for more, else ``""``."""
    if not isinstance(cost, int) or cost <= 0:
        return ""
    return "??" if cost > 1 else "?"


def hand_text(cards: list[str]) -> str:
    """``"♠ A K Q 10  ♥ 4 3 2"``: a hand by suits, high cards first (as dealt: sorted), with
    the suits' symbols and ranks as the table draws them (:func:`core.wording.card_text`)."""
    parts = []
    for suit in SUITS:
        ranks = [card_text(c)[:-1] for c in cards if c[1] == suit]
        if ranks:
            parts.append(SUIT_SYMBOLS[suit] + " " + " ".join(ranks))
    return "  ".join(parts)


def _figure(v: Any) -> str:
    return "?" if v is None else str(v)


def par_text(h: Obj) -> str:
    """``"par 10 in spades (bid 11: overbid); hearts 7, diamonds 0, clubs 0"``."""
    c = h["contract"]
    call = "double 13" if c.get("double13") else f"bid {c['bid']}"
    verdict = VERDICTS.get(h.get("verdict") or "", "")
    others = ", ".join(f"{SUIT_WORDS[s]} {_figure(h['par_suits'].get(s))}"
                       for s in SUITS if s != h["trumps"])
    return (f"par {_figure(h['par'])} in {SUIT_WORDS[h['trumps']]} "
            f"({call}{': ' + verdict if verdict else ''}); {others}")


class TekaReplayAnalysis:
    """The analysis of one match for a :class:`client_kivy.vm.session.ReplayModel`:
    ``state`` is ``computing`` (``progress`` says how far), ``ready`` or ``unavailable``
    (``reason``); ``on_change`` is called (on the thread that posts) when it changes."""

    def __init__(self, events: list[Obj]) -> None:
        self.events = events
        self.state = "computing"
        self.progress = "starting"
        self.reason = ""
        self.data: Obj | None = None
        self.cards: dict[int, Obj] = {}
        """Event index -> the analysis of the card played there."""
        self.starts: list[Obj] = []
        """``{"from": deal index, "first": first card index, "hand": ...}`` per hand."""
        self.scores: dict[int, Obj] = {}
        """Event index of a hand's score -> its hand."""
        self.on_change: Callable[[], None] | None = None
        self._stop = threading.Event()

    # -- data -----------------------------------------------------------------------------
    def set_data(self, data: Obj) -> None:
        """Lay ``data`` (the server's analysis) over the events."""
        self.data = data
        hands = list(data.get("hands") or [])
        k = -1
        card = 0
        last_deal = 0
        current: Obj | None = None
        for i, ev in enumerate(self.events):
            t = ev.get("type")
            if t == "deal":
                last_deal = i
            elif t == "trumps":
                k += 1
                card = 0
                current = None
                if k < len(hands):
                    current = {"from": last_deal, "first": len(self.events), "hand": hands[k]}
                    self.starts.append(current)
            elif t == "play" and current is not None:
                cards = current["hand"].get("cards") or []
                if card == 0:
                    current["first"] = i
                if card < len(cards):
                    self.cards[i] = cards[card]
                card += 1
            elif t == "score" and current is not None:
                self.scores[i] = current["hand"]
        self.state = "ready"
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    # -- texts ----------------------------------------------------------------------------
    def note(self, index: int) -> str:
        """What the analysis says of event ``index`` (a card, a score), for the caption."""
        c = self.cards.get(index)
        if c is not None:
            cost = c.get("cost")
            if cost is None:
                return " - not solved in time"
            if cost:
                best = [card_text(x) for x in c.get("best") or []]
                also = f"; best {' '.join(best[:3])}{' ...' if len(best) > 3 else ''}" \
                    if best else ""
                return (f" - {cost_mark(cost)} cost {cost} trick{'s' if cost > 1 else ''} "
                        f"(declarers {c['before']} -> {c['after']}{also})")
            return ""
        h = self.scores.get(index)
        if h is not None:
            return f" - {par_text(h)}; {OUTCOMES.get(h.get('outcome') or '', '')}".rstrip("; ")
        return ""

    def mark(self, index: int) -> str:
        """``"  ?"`` after the move list's line of a card that cost one trick, ``"  ??"``
        more, else ``""``."""
        c = self.cards.get(index)
        m = cost_mark(c.get("cost")) if c is not None else ""
        return f"  {m}" if m else ""

    def panel(self, index: int, names: list[str]) -> str:
        """The analysis line under the board for the position after ``index`` events: the
        progress while computing, the deal and par from a hand's deal to its first card,
        else the match's summary."""
        if self.state == "computing":
            return f"Analysis: computing... {self.progress}"
        if self.state != "ready" or self.data is None:
            return f"Analysis not available: {self.reason}" if self.reason else ""
        for start in self.starts:
            h = start["hand"]
            if start["from"] <= index - 1 < start["first"]:
                lines = [f"Hand {h['hand']}: the deal"]
                for seat in range(SEATS):
                    who = names[seat] if seat < len(names) and names[seat] else SEAT_NAMES[seat]
                    if not who.endswith(SEAT_NAMES[seat]):  # ("Bot North" says where)
                        who += f" ({SEAT_NAMES[seat]})"
                    out = " (sits out)" if seat == h.get("sitting_out") else ""
                    lines.append(f"{who}{out}: {hand_text(h['deal'][seat])}")
                lines.append(par_text(h))
                return "\n".join(lines)
        s = self.data.get("summary") or {}
        lost = ", ".join(
            f"{names[p['seat']] if p['seat'] < len(names) else SEAT_NAMES[p['seat']]} "
            f"{p['tricks_lost']}" for p in s.get("players", []))
        return f"Double-dummy, tricks lost to play: {lost}"

    # -- fetching -------------------------------------------------------------------------
    def fetch(self, get: Callable[[], Obj], post: Callable[[Callable[[], None]], None],
              sleep: float = POLL_SECONDS) -> None:
        """Ask the server (``get``: the analysis endpoint's answer) in a thread until the
        analysis is ready, posting each change to the UI thread (``post``)."""

        def work() -> None:
            from client_kivy.vm.net import ApiError

            while not self._stop.is_set():
                try:
                    body = get()
                except ApiError as exc:
                    if exc.code in QUEUE_FULL:  # (429/503: not started yet; ask later)
                        post(partial(self._progress, f"not started yet ({exc.reason}); "
                                     f"asking again in {QUEUE_FULL_SECONDS:.0f} s"))
                        self._stop.wait(QUEUE_FULL_SECONDS)
                        continue
                    post(partial(self._unavailable, exc.reason))
                    return
                if isinstance(body, dict) and isinstance(body.get("hands"), list):
                    post(partial(self.set_data, body))
                    return
                post(partial(self._progress, str((body or {}).get("progress") or "")))
                self._stop.wait(sleep)

        threading.Thread(target=work, daemon=True, name="gamenight-teka-analysis").start()

    def _progress(self, text: str) -> None:
        self.progress = text
        self._changed()

    def _unavailable(self, reason: str) -> None:
        self.state = "unavailable"
        self.reason = reason
        self._changed()

    def stop(self) -> None:
        self._stop.set()
