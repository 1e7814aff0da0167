"""Teka bots: legal commands through whole matches, bidding from the hand, no peeking at
hidden hands, raise answers, winning a trick its partner cannot."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from core.ai.bots import LEVELS, device_levels, make_bot
from core.ai.teka_bot import (
    TekaBot,
    TekaLevel,
    best_trump,
    card_int,
)
from core.api import Obj
from core.teka import DECK, GAME, TekaState, card_rank, deal_hands, may_throw_in


def stop_after(calls: int) -> Any:
    asked = [0]

    def should_stop() -> bool:
        asked[0] += 1
        return asked[0] > calls

    return should_stop


def started(seed: int, options: Obj) -> TekaState:
    rng = Random(seed)
    st = GAME.initial()
    for ev in GAME.start(options, rng):
        st = GAME.evolve(st, ev)
    return st


def step(st: TekaState, seat: int, cmd: Obj, rng: Random) -> TekaState:
    assert cmd in GAME.legal_commands(st, seat), cmd
    for ev in GAME.decide(st, seat, cmd, rng):
        st = GAME.evolve(st, ev)
    return st


def play_match(levels: list[str], seed: int, target: int, budget: int = 3) -> TekaState:
    st = started(seed, {"target": target, "first_dealer": seed % 4})
    bots = [make_bot("teka", lv) for lv in levels]
    rng = Random(seed + 1)
    brng = Random(seed + 2)
    n = 0
    while GAME.outcome(st) is None:
        seat = GAME.to_act(st)[0]
        cmd = bots[seat].choose(GAME.view(st, seat), seat, brng, should_stop=stop_after(budget))
        st = step(st, seat, cmd, rng)
        n += 1
        assert n < 3000
    return st


def test_levels_registered() -> None:
    assert LEVELS["teka"] == ["random", "easy", "medium", "hard", "expert"]


def test_expert_is_offered_only_on_a_compiled_core() -> None:
    assert device_levels("teka", compiled=True)[-1] == "expert"
    assert "expert" not in device_levels("teka", compiled=False)
    assert device_levels("teeko", compiled=False) == LEVELS["teeko"]


@pytest.mark.parametrize(
    ("levels", "seed"),
    [
        (["easy", "random", "easy", "random"], 1),
        (["random", "medium", "random", "medium"], 2),
        (["hard", "easy", "hard", "medium"], 3),
        (["expert", "hard", "expert", "hard"], 4),
    ],
)
def test_whole_matches_only_legal_commands(levels: list[str], seed: int) -> None:
    st = play_match(levels, seed, target=14)
    out = GAME.outcome(st)
    assert out is not None and len(out.winners) == 2


def test_bots_beat_random_partnership() -> None:
    wins = 0
    for seed in range(3):
        side = seed % 2
        levels = ["medium" if s % 2 == side else "random" for s in range(4)]
        st = play_match(levels, 40 + seed, target=30, budget=2)
        out = GAME.outcome(st)
        assert out is not None
        wins += out.winners[0] % 2 == side
    assert wins >= 2


# -- bidding ------------------------------------------------------------------------------


def bidding_state(hand: list[str], seat: int = 1, dealer: int = 0, bids: list[Obj] | None = None
                  ) -> TekaState:
    """A bidding position where ``seat`` holds ``hand`` and the other cards are dealt in
    order to the other seats; ``bids`` are the calls before it."""
    st = started(0, {"first_dealer": dealer})
    rest = [c for c in DECK if c not in hand]
    hands: list[list[str]] = []
    for s in range(4):
        if s == seat:
            hands.append(list(hand))
        else:
            hands.append(rest[:13])
            rest = rest[13:]
    st.hands = hands
    st.phase = "bidding"
    st.eligible = [False] * 4
    st.decided = [False] * 4
    st.bids = list(bids or [])
    return st


STRONG = ["AS", "KS", "QS", "JS", "9S", "5S", "AH", "KH", "4H", "AD", "7D", "AC", "3C"]
CERTAIN = ["AS", "KS", "QS", "JS", "TS", "9S", "8S", "AH", "KH", "QH", "AD", "KD", "AC"]
WEAK = ["2S", "5S", "7S", "3H", "6H", "8H", "2D", "4D", "9D", "3C", "6C", "8C", "JC"]
MIDDLING = ["AS", "8S", "4S", "KH", "7H", "3H", "QD", "9D", "5D", "2D", "JC", "6C", "4C"]


def call_of(hand: list[str], level: str = "medium", **kw: Any) -> Any:
    st = bidding_state(hand, **kw)
    seat = kw.get("seat", 1)
    cmd = make_bot("teka", level).choose(GAME.view(st, seat), seat, Random(1))
    assert cmd in GAME.legal_commands(st, seat)
    return cmd["call"]


def test_strong_hand_bids_a_number() -> None:
    for level in ("medium", "hard"):
        call = call_of(STRONG, level)
        assert isinstance(call, int) and 8 <= call <= 11, call


def test_certain_hand_bids_double_13_and_only_that_one() -> None:
    assert call_of(CERTAIN) == "double 13"
    assert call_of(STRONG) != "double 13"


def test_weak_hands_pass_with_the_right_hint() -> None:
    assert call_of(WEAK) == "behi ter"
    assert call_of(MIDDLING) in ("ter", "pass")
    # Partner's "behi ter" makes a good but not great hand pass.
    good = ["AS", "KS", "QS", "7S", "5S", "AH", "4H", "3H", "KD", "7D", "6C", "3C", "2C"]
    partner_weak = [{"seat": 3, "call": "behi ter"}, {"seat": 0, "call": "pass"}]
    assert not isinstance(call_of(good, seat=1, dealer=2, bids=partner_weak), int)


def test_forced_dealer_bids() -> None:
    passes = [{"seat": 1, "call": "pass"}, {"seat": 2, "call": "ter"}, {"seat": 3, "call": "pass"}]
    call = call_of(WEAK, seat=0, dealer=0, bids=passes)
    assert call == 8


def test_names_the_longest_strongest_suit() -> None:
    suit, _ = best_trump([card_int(c) for c in STRONG])
    assert "SHDC"[suit] == "S"
    st = bidding_state(STRONG)
    st.bids = [{"seat": 1, "call": 9}, {"seat": 2, "call": "pass"}, {"seat": 3, "call": "pass"},
               {"seat": 0, "call": "pass"}]
    st.bidder, st.bid, st.phase = 1, 9, "trumps"
    cmd = make_bot("teka", "medium").choose(GAME.view(st, 1), 1, Random(0))
    assert cmd == {"type": "trumps", "suit": "S"}


def test_throw_in_of_a_hand_without_honours() -> None:
    st = bidding_state([*WEAK[:-1], "TC"])
    st.phase = "throw_in"
    st.eligible = [False, True, False, False]
    cmd = make_bot("teka", "medium").choose(GAME.view(st, 1), 1, Random(0))
    assert cmd == {"type": "throw_in"}


def test_bots_do_not_redeal_a_deck_forever() -> None:
    """A throw-in deals the same deck again after a cut. With the 36 cards up to the ten in
    one run (by rank, so no suit of seven), every cut gives some seat a hand without
    honours: bots that always threw such a hand in re-dealt forever (a server table of four
    bots appended throw-ins without end)."""
    low = sorted((c for c in DECK if card_rank(c) <= card_rank("TS")), key=card_rank)
    deck = low + [c for c in DECK if c not in low]
    for seed in range(5):
        st = started(seed, {"first_dealer": 0})
        st.hands = deal_hands(deck, st.dealer)
        st.eligible = [may_throw_in(h) for h in st.hands]
        st.decided = [False] * 4
        st.phase = "throw_in"
        assert any(st.eligible)
        bots = [make_bot("teka", "hard") for _ in range(4)]
        rng = Random(seed)
        brng = Random(seed + 1)
        steps = 0
        while st.phase in ("throw_in", "cut"):
            seat = GAME.to_act(st)[0]
            st = step(st, seat, bots[seat].choose(GAME.view(st, seat), seat, brng), rng)
            steps += 1
            assert steps < 400, "still re-dealing"
        assert st.phase == "bidding"


# -- play ---------------------------------------------------------------------------------


def play_position(seed: int, tricks: int) -> TekaState:
    """A real hand with random card play until ``tricks`` tricks are complete (the first
    caller bids 8, the others pass; everybody keeps)."""
    for s in range(seed, seed + 50):
        st = started(s, {})
        rng = Random(s)
        while st.phase in ("throw_in", "bidding", "trumps", "play"):
            if st.phase == "play" and len(st.tricks) >= tricks and not st.trick:
                return st
            seat = GAME.to_act(st)[0]
            if st.phase == "throw_in":
                cmd: Obj = {"type": "keep"}
            elif st.phase == "bidding":
                cmd = {"type": "bid", "call": 8 if not st.bids else "pass"}
            else:
                legal = GAME.legal_commands(st, seat)
                cmd = rng.choice([c for c in legal if "signal" not in c and c["type"] != "raise"])
            st = step(st, seat, cmd, rng)
    raise AssertionError("no position found")


@pytest.mark.parametrize("tricks", [2, 6])
def test_never_reads_hidden_hands(tricks: int) -> None:
    st = play_position(5, tricks)
    seat = GAME.to_act(st)[0]
    others = [s for s in range(4) if s != seat]
    a, b = others[0], others[1]
    st2 = st.copy()
    # Exchange one card between two other players: same view for ``seat``.
    ca, cb = st2.hands[a][0], st2.hands[b][0]
    st2.hands[a][0], st2.hands[b][0] = cb, ca
    assert GAME.view(st, seat) == GAME.view(st2, seat)
    assert st.hands != st2.hands
    for level in ("easy", "medium", "expert"):
        bot = make_bot("teka", level)
        c1 = bot.choose(GAME.view(st, seat), seat, Random(9))
        c2 = bot.choose(GAME.view(st2, seat), seat, Random(9))
        assert c1 == c2
        assert c1 in GAME.legal_commands(st, seat)


def test_answers_a_raise() -> None:
    st = play_position(7, 1)
    rng = Random(3)
    bidder = st.bidder
    st = step(st, bidder, {"type": "raise", "to": st.bid + 1}, rng)
    for opp in ((bidder + 1) % 4, (bidder + 3) % 4):
        assert opp in GAME.to_act(st)
        cmd = make_bot("teka", "medium").choose(GAME.view(st, opp), opp, Random(4))
        assert cmd["type"] in ("accept_raise", "refuse_raise")
        if cmd["type"] == "refuse_raise":
            st = step(st, opp, cmd, rng)
            break
        st = step(st, opp, cmd, rng)
    assert not st.raise_to


def power(card: str, led: str, trumps: str) -> int:
    if card[1] == trumps:
        return 100 + card_rank(card)
    return card_rank(card) if card[1] == led else -1


def test_wins_the_trick_partner_cannot() -> None:
    """Last to play, the opponents winning, a card that wins in hand: the bot wins the trick
    (nearly always: the sampled worlds may very rarely show a reason not to)."""
    bot = TekaBot("test", TekaLevel(4))
    cases = 0
    good = 0
    for seed in range(60):
        st = started(100 + seed, {})
        rng = Random(seed)
        brng = Random(seed + 7)
        while GAME.outcome(st) is None and st.hand_no == 1 and cases < 15:
            seat = GAME.to_act(st)[0]
            view = GAME.view(st, seat)
            if st.phase == "play" and not st.raise_to and len(st.trick) == 3 and (
                st.sitting_out < 0
            ):
                led, tr = st.trick[0]["card"][1], st.trumps
                best = max(st.trick, key=lambda e: power(e["card"], led, tr))
                if best["seat"] % 2 != seat % 2:
                    top = power(best["card"], led, tr)
                    winners = [c for c in view["playable"] if power(c, led, tr) > top]
                    if winners:
                        cmd = bot.choose(view, seat, brng)
                        cases += 1
                        good += cmd["card"] in winners
                        st = step(st, seat, cmd, rng)
                        continue
            cmd = bot.choose(view, seat, brng)
            st = step(st, seat, cmd, rng)
        if cases >= 15:
            break
    assert cases >= 12
    assert good >= cases - 1


# -- expert: double-dummy play -------------------------------------------------------------


def known_ending() -> TekaState:
    """Three cards each, seat 0 to lead, every hidden card known to it from the voids shown:
    seat 1 can hold only hearts, seat 3 only clubs, so partner (seat 2) holds the rest, three
    small diamonds. Seat 0 declared 8 (spades, all played) and has 5 tricks: it needs all
    three. Only the jack of diamonds first takes them (then the 4 to partner's 6, who runs
    the last diamond); the playouts, which continue with a fixed policy, see no way.
    """
    st = started(0, {"first_dealer": 3})
    st.phase = "play"
    st.trumps = "S"
    st.bidder = 0
    st.bid = 8
    st.first_bid = 8
    st.leader = 0
    st.hands = [["4D", "JD", "2H"], ["3H", "5H", "8H"], ["6D", "3D", "5D"], ["9C", "AC", "JC"]]
    used = {c for h in st.hands for c in h}
    pool = {su: [c for c in DECK if c[1] == su and c not in used] for su in "SHDC"}
    # Suits per trick (seats 0..3): all follow, then the tricks that show the voids.
    plan = ["SSSS", "SSSS", "SSSC", "HHHH", "DDDD",
            "CCCC", "SHSC", "DHDC", "HHDC", "CHDC"]
    tricks: list[Obj] = []
    for ti, suits in enumerate(plan):
        cards = [{"seat": seat, "card": pool[su].pop()} for seat, su in enumerate(suits)]
        tricks.append({"leader": 0, "cards": cards, "winner": ti % 2})
    assert not any(pool.values())
    st.tricks = tricks
    st.won = [5, 5]
    st.trick = []
    st.bids = [{"seat": 0, "call": 8}, {"seat": 1, "call": "pass"},
               {"seat": 2, "call": "pass"}, {"seat": 3, "call": "pass"}]
    return st


def test_expert_finds_the_double_dummy_card_the_playouts_miss() -> None:
    st = known_ending()
    view = GAME.view(st, 0)
    assert sorted(view["playable"]) == ["2H", "4D", "JD"]
    assert make_bot("teka", "hard").choose(view, 0, Random(1))["card"] != "JD"
    assert make_bot("teka", "expert").choose(view, 0, Random(1))["card"] == "JD"
    # And that line does make the contract in the real deal.
    rng = Random(2)
    bots = [make_bot("teka", "expert") for _ in range(4)]
    while not st.sheet:
        seat = GAME.to_act(st)[0]
        st = step(st, seat, bots[seat].choose(GAME.view(st, seat), seat, rng), rng)
    assert st.sheet[-1]["made"]


def test_expert_keeps_to_its_time_limit() -> None:
    """With its own limit spent at once, the expert answers after one sampled deal."""
    st = play_position(5, 6)
    seat = GAME.to_act(st)[0]
    seen: list[float] = []
    bot = TekaBot("expert", TekaLevel(32, dd_cards=9, dd_worlds=24, seconds=1e-9))
    cmd = bot.choose(GAME.view(st, seat), seat, Random(1), progress=seen.append)
    assert cmd in GAME.legal_commands(st, seat)
    assert seen == [1 / 24, 1.0]
