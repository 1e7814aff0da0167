"""Teka table model: seats around the viewer, the hand, what can be played and called."""

from __future__ import annotations

from typing import Any

from core.teka import CALL_MEANINGS, FORCED_MEANING, RAISE_MEANING, SIGNAL_MEANINGS

Obj = dict[str, Any]
SUITS = "SHDC"
SUIT_SYMBOL = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
SUIT_NAME = {"S": "Spades", "H": "Hearts", "D": "Diamonds", "C": "Clubs"}
SEAT_NAMES = ["North", "East", "South", "West"]
SIGNALS = ("slam", "snap", "drop")


def card_text(card: str) -> str:
    rank = "10" if card[0] == "T" else card[0]
    return rank + SUIT_SYMBOL.get(card[1], card[1])


RANKS = "AKQJT98765432"


def sort_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=lambda c: (SUITS.index(c[1]), RANKS.index(c[0])))


def call_text(call: Any) -> str:
    if isinstance(call, int):
        return str(call)
    return {"pass": "Pass", "ter": "Ter", "behi ter": "Behi ter",
            "double 13": "Double 13"}.get(str(call), str(call))


def calls_meaning(calls: list[Any]) -> str:
    """A line under the bid buttons saying what the calls offered that are not numbers mean
    (core.teka.CALL_MEANINGS): "Ter: a pass that tells your partner: ..."; "" for none."""
    said = [f"{call_text(c)}: {CALL_MEANINGS[str(c)]}" for c in calls
            if not isinstance(c, int) and str(c) in CALL_MEANINGS and c != "pass"]
    return "  ·  ".join(said)


def signals_meaning(signals: list[str]) -> str:
    """A line under the signal buttons: what each signal offered tells the partner."""
    return "  ·  ".join(f"+ {s}: {SIGNAL_MEANINGS[s]}" for s in signals if s in SIGNAL_MEANINGS)


def side_name(side: int) -> str:
    return "North-South" if side == 0 else "East-West"


class TekaModel:
    def __init__(self) -> None:
        self.view: Obj = {}
        self.legal: list[Obj] = []
        self.viewer: int = 0
        self.selected: str | None = None
        self.raising = False
        """The declarer's raise chooser is open (:meth:`open_raise`)."""
        self.raise_chosen: Obj | None = None
        """The raise chosen, held until it is confirmed (:meth:`choose_raise`)."""

    def update(self, view: Obj, legal: list[Obj], viewer: int = 0) -> None:
        self.view = view or {}
        self.legal = list(legal)
        self.viewer = viewer if viewer >= 0 else 0
        if self.selected is not None and self.selected not in self.playable():
            self.selected = None
        if not self.raise_levels():  # the moment to raise has gone: chooser and choice too
            self.cancel_raise()
        elif self.raise_chosen is not None and self.raise_chosen not in self.legal:
            self.raise_chosen = None  # (that number is no longer allowed: choose again)

    # -- seats around the table: the viewer at the bottom -----------------------------------
    def position(self, seat: int) -> str:
        return ["bottom", "right", "top", "left"][(seat - self.viewer) % 4]

    @property
    def phase(self) -> str:
        return str(self.view.get("phase", ""))

    def hand(self) -> list[str]:
        own = list(self.view.get("hand") or [])
        if not own and isinstance(self.view.get("hands"), list):  # the full view (replay)
            return sort_cards(self.full_hand(self.viewer))
        return own

    def full_hand(self, seat: int) -> list[str]:
        hands = self.view.get("hands") or []
        return list(hands[seat]) if 0 <= seat < len(hands) and hands[seat] else []

    def hand_line(self, seat: int) -> str:
        """A seat's cards in one line by suit (full view only), e.g. "S QJ5  H J54"."""
        cards = sort_cards(self.full_hand(seat))
        parts = []
        for suit in SUITS:
            ranks = "".join(c[0] for c in cards if c[1] == suit)
            if ranks:
                parts.append(SUIT_SYMBOL[suit] + ranks.replace("T", "10"))
        return "  ".join(parts)

    def playable(self) -> list[str]:
        return sorted({c["card"] for c in self.legal if c.get("type") == "play"})

    def commands(self, kind: str) -> list[Obj]:
        return [c for c in self.legal if c.get("type") == kind]

    def bids(self) -> list[Obj]:
        return self.commands("bid")

    def last_call(self, seat: int) -> Any:
        calls = [b["call"] for b in self.view.get("bids") or [] if b.get("seat") == seat]
        return calls[-1] if calls else None

    def trick(self) -> list[Obj]:
        """The trick in progress; when none has started yet, the last completed trick (so
        its fourth card is seen); see :meth:`showing_last`."""
        trick = list(self.view.get("trick") or [])
        if not trick and self.phase in ("play", "cut", "over"):
            last = self.view.get("last_trick") or {}
            trick = list(last.get("cards") or [])
        return trick

    def showing_last(self) -> int | None:
        """The winner of the completed trick shown, when :meth:`trick` shows one."""
        if self.view.get("trick"):
            return None
        last = self.view.get("last_trick") or {}
        winner = last.get("winner")
        return int(winner) if winner is not None and last.get("cards") else None

    def contract_text(self) -> str:
        c = self.view.get("contract")
        if not c:
            return ""
        who = SEAT_NAMES[c["bidder"] % 4]
        bid = "Double 13" if c.get("double13") else str(c["bid"])
        trumps = c.get("trumps")
        t = f" in {SUIT_SYMBOL[trumps]} {SUIT_NAME[trumps]}" if trumps else ""
        extra = " (raised)" if c.get("raised") else " (forced)" if c.get("forced") else ""
        return f"{who}: {bid}{t}{extra}"

    def tap_card(self, card: str) -> Obj | None:
        """First tap selects a playable card; a second tap plays it without a signal."""
        if card not in self.playable():
            self.selected = None
            return None
        if self.selected == card:
            self.selected = None
            return self.play(card, None)
        self.selected = card
        return None

    def play(self, card: str, signal: str | None) -> Obj | None:
        for c in self.legal:
            if c.get("type") == "play" and c.get("card") == card and c.get("signal") == signal:
                return c
        return None

    # -- the declarer's raise: one action, a chooser, a confirmation --------------------------
    def raise_levels(self) -> list[int]:
        """The numbers the declarer may raise the contract to now (none: no raise)."""
        return sorted(int(c["to"]) for c in self.commands("raise"))

    def open_raise(self) -> bool:
        """Open the chooser of :meth:`raise_levels` (``False`` when no raise is allowed)."""
        self.raise_chosen = None
        self.raising = bool(self.raise_levels())
        return self.raising

    def choose_raise(self, to: int) -> Obj | None:
        """Hold the raise to ``to`` for confirmation; the held command (None if not legal)."""
        for c in self.commands("raise"):
            if int(c["to"]) == to:
                self.raise_chosen = dict(c)
                return self.raise_chosen
        return None

    def raise_held(self) -> Obj | None:
        return self.raise_chosen

    def confirm_raise(self) -> Obj | None:
        """The raise to send, once confirmed; the chooser closes."""
        command, self.raise_chosen = self.raise_chosen, None
        self.raising = False
        return command

    def cancel_raise(self) -> None:
        self.raise_chosen = None
        self.raising = False

    def raise_question(self) -> str:
        """What the confirmation asks: "Raise the contract from 9 to 11?" and what it means."""
        held = self.raise_chosen
        if held is None:
            return ""
        bid = (self.view.get("contract") or {}).get("bid")
        start = f" from {bid}" if bid else ""
        return f"Raise the contract{start} to {held['to']}? {RAISE_MEANING}"

    def forced_meaning(self) -> str:
        """Why the contract is marked "(forced)"; "" when it is not."""
        c = self.view.get("contract") or {}
        return f"Forced: {FORCED_MEANING}." if c.get("forced") and not c.get("raised") else ""

    def score_series(self) -> list[tuple[int, int]]:
        """Totals of both sides after each hand, starting from 0-0 (for the chart)."""
        out = [(0, 0)]
        for row in self.view.get("sheet") or []:
            t = row.get("totals") or [0, 0]
            out.append((int(t[0]), int(t[1])))
        return out
