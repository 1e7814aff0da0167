"""Teka's throw-in question stays secret in every byte, over real daphne.

Who is asked about a throw-in tells the others which hand holds nothing above a ten, so
nobody else may learn it until that player throws in: not from the ``keep`` record's
envelope, not from a ``bot`` frame while a bot thinks about it, not from ``to_act`` or
``presence``, and not over HTTP (``/state/``, ``/state/?events=1``, a replay step, the live
``/log/``). The seat and a spectator are connected throughout; every frame each of them
receives is kept with the seq its connection had reached and checked afterwards
(:func:`server_helpers.check_frames`).

Seed 91 deals only seat 1 a hand with nothing above a ten, and that hand has a suit of
seven, so the Teka bot keeps it."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import urllib.error
import urllib.request
from random import Random
from typing import Any

import pytest
import websockets
from server_fixtures import start_daphne, stop_daphne
from server_helpers import (
    Client,
    check_frames,
    check_record,
    close_all,
    communicator,
    sync_all,
)

import core
from core import upcast
from core.api import ALL, SPECTATOR, fold
from server.games import append, cache, chain, creating, reading
from server.games.runtime import SHARDS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

TEKA = core.GAMES["teka"]
SEED = 91
ASKED = 1


@pytest.fixture
def quick_daphne(transactional_db: Any, tmp_path: Any) -> Any:
    """daphne whose bots answer a secret question within half a second (not 4 s)."""
    server = start_daphne(tmp_path, extra_env={"GAMENIGHT_BOT_SECRET_DELAY": "0.5"})
    try:
        yield server
    finally:
        stop_daphne(server)


def test_the_seed_asks_seat_1_only() -> None:
    state = fold(TEKA, TEKA.start(TEKA.options({}), Random(SEED)))
    assert TEKA.to_act(state) == [ASKED]
    assert TEKA.visible_to_act(state, SPECTATOR) == []


class Recording(Client):
    """A client that keeps (seq reached, frame) for every frame and the raw text."""

    def __init__(self, ws: Any, name: str) -> None:
        self.texts: list[str] = []
        self.marks: list[tuple[int, dict[str, Any]]] = []

        async def recv() -> str:
            text = await ws.recv()
            self.texts.append(text)
            return str(text)

        super().__init__(ws.send, recv, name)
        self.ws = ws

    def _absorb(self, frame: dict[str, Any]) -> None:
        super()._absorb(frame)
        self.marks.append((self.seq, frame))


async def connect(server: Any, gid: int, name: str) -> Recording:
    ws = await websockets.connect(f"{server.ws}/ws/games/{gid}/", max_size=2**22)
    return Recording(ws, name)


def get(server: Any, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(server.http + path, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def verify_head(server: Any, gid: int) -> Any:
    status, raw = get(server, f"/api/games/{gid}/verify/")
    assert status == 200, raw
    out = json.loads(raw)
    assert out["ok"] is True
    return out.get("head")


def the_log(gid: int) -> tuple[list[Any], list[Any]]:
    e = cache.entry(gid, fresh=True)
    states = [TEKA.initial()]
    for _s, _seat, ev in e.log:
        states.append(TEKA.evolve(states[-1], ev))
    return list(e.log), states


def check_http(
    server: Any, gid: int, log: list[Any], states: list[Any], viewer: int, cred: str
) -> None:
    """``/state/`` (head and every replay step, with events) and the live ``/log/``."""
    for seq in [None, *range(1, len(log) + 1)]:
        q = "" if seq is None else f"&seq={seq}"
        status, raw = get(server, f"/api/games/{gid}/state/?events=1{q}{cred}")
        assert status == 200, raw
        out = json.loads(raw)
        assert out["viewer"] == viewer
        at = out["seq"]
        assert out["to_act"] == TEKA.visible_to_act(states[at], viewer)
        assert out["view"]["to_act"] == out["to_act"]
        assert [r["seq"] for r in out["events"]] == list(range(1, at + 1))
        for rec in out["events"]:
            check_record(TEKA, log, rec, viewer)
    status, raw = get(server, f"/api/games/{gid}/log/?{cred.lstrip('&')}")
    assert status == 200, raw
    lines = [json.loads(line) for line in raw.decode().splitlines()]
    assert lines[0]["viewer"] == viewer and len(lines) == len(log) + 1
    for rec in lines[1:]:
        assert rec.pop("v") == upcast.current("teka")  # (the schema version: today's)
        check_record(TEKA, log, rec, viewer)


def keeps_seen(marks: list[tuple[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [
        rec
        for _seq, f in marks
        if f.get("type") == "events"
        for rec in f["events"]
        if rec["event"]["type"] == "keep"
    ]


async def play_throw_in(server: Any, gid: int, secrets: dict[int, str], bot: bool) -> None:
    spectator = await connect(server, gid, "spectator")
    await spectator.hello()
    seats = {s: await connect(server, gid, f"seat {s}") for s in secrets}
    for s, c in seats.items():
        await c.hello(s, secret=secrets[s])
    everyone = [spectator, *seats.values()]
    if bot:  # the bot at seat 1 thinks (its progress frame), keeps, and calls first
        await spectator.until(lambda f: f["type"] == "events" and spectator.seq >= 5, 120)
        # one who comes in after the bot's call: the keep and that call (which names seat 1,
        # as every call does) arrive in one catch-up frame
        late = await connect(server, gid, "late spectator")
        await late.hello()
        everyone.append(late)
    else:
        asked = seats[ASKED]
        assert asked.to_act == [ASKED] and {"type": "keep"} in asked.legal
        for s, c in seats.items():
            if s != ASKED:
                assert c.to_act == [] and c.legal == []
        before = await asyncio.to_thread(verify_head, server, gid)
        answer = await asked.command({"type": "keep"})
        assert answer["type"] == "ok", answer
        after = await asyncio.to_thread(verify_head, server, gid)
        # /verify/ of a live game gives no head hash: with the heads before and after the
        # keep, four guesses would tell who kept
        guesses = [
            k
            for k in range(4)
            if isinstance(before, str)
            and chain.chain_hash(before, 4, k, {"type": "keep", "seat": k}) == after
        ]
        assert guesses == [] and before is None and after is None, guesses
    await sync_all(everyone)
    await asyncio.sleep(0.3)  # frames that may still come (a late bot or presence frame)
    for c in everyone:
        await c.drain(0.1)
    log, states = await SHARDS.call(gid, the_log, gid)
    types = [ev["type"] for _s, _seat, ev in log]
    assert types == ["start", "shuffle", "deal", "keep", "bid"][: len(types)]
    assert len(types) == (5 if bot else 4)
    assert log[3][1] == ASKED and states[3].phase == "throw_in" and states[4].phase == "bidding"
    viewers = {c: SPECTATOR for c in everyone if c not in seats.values()} | {
        c: s for s, c in seats.items()}
    for c, viewer in viewers.items():
        assert check_frames(TEKA, log, states, viewer, c.marks) >= 3
        keeps = keeps_seen(c.marks)
        assert len(keeps) == 1
        if viewer == ASKED:
            assert keeps[0] == {"seq": 4, "seat": ASKED, "event": log[3][2]}
            continue
        assert keeps[0] == {"seq": 4, "seat": None, "event": {"type": "keep"}}, c.name
        # in bytes: every keep record sent names no seat (a later call in the same frame
        # names its own, as every call does), and no bot frame came while the question was
        # open (seq 3: the deal)
        for text in c.texts:
            frame = json.loads(text)
            for r in frame["events"] if frame["type"] == "events" else []:
                if r["seq"] == 4:
                    record = json.dumps(r, separators=(",", ":"))
                    assert f'"seat":{ASKED}' not in record, (c.name, text)
            if frame["type"] == "bot":
                assert frame["seq"] != 3, (c.name, text)
        cred = "" if viewer == SPECTATOR else f"&seat={viewer}&secret={secrets[viewer]}"
        await asyncio.to_thread(check_http, server, gid, log, states, viewer, cred)
    # (That a bot's public decisions are still shown thinking is checked in-process by
    # test_server_leak: from the process pool a progress report may come after the move.)
    if ASKED in secrets:  # the asked seat itself sees its own record whole (not vacuous)
        cred = f"&seat={ASKED}&secret={secrets[ASKED]}"
        await asyncio.to_thread(check_http, server, gid, log, states, ASKED, cred)
        _status, raw = get(server, f"/api/games/{gid}/state/?events=1{cred}")
        assert json.loads(raw)["events"][3] == {"seq": 4, "seat": ASKED, "event": log[3][2]}
    # The whole log is shown once the game is over (viewer ALL): not hidden for ever.
    assert reading.redact_record(TEKA, *log[3], ALL)["seat"] == ASKED
    await close_all(everyone)


def make_game(bot_at: int | None) -> Any:
    seats: list[Any] = [{"kind": "guest", "name": f"P{i}"} for i in range(4)]
    if bot_at is not None:
        seats[bot_at] = {"kind": "bot", "level": "easy"}
    return creating.create_game("teka", {}, seats, rng=Random(SEED))


async def test_a_player_keeping_is_not_told_to_anyone(quick_daphne, server_runtime):
    game = await SHARDS.call(0, make_game, None)
    await play_throw_in(quick_daphne, game.pk, game.guest_secrets, bot=False)


async def test_a_bot_asked_about_a_throw_in_is_not_shown_thinking(quick_daphne, server_runtime):
    game = await SHARDS.call(0, make_game, ASKED)
    assert ASKED not in game.guest_secrets
    await play_throw_in(quick_daphne, game.pk, game.guest_secrets, bot=True)


async def test_a_bot_answers_a_secret_question_no_sooner_than_a_person(server_runtime, settings):
    """Its keep at once would tell the table that the bot (the only one here) was asked."""
    settings.GAMENIGHT = {**settings.GAMENIGHT, "BOT_SECRET_DELAY": 0.9}
    loop = asyncio.get_running_loop()
    game = await SHARDS.call(0, make_game, ASKED)
    spectator = await communicator(game.pk, "spectator")
    asked_at = loop.time()
    await spectator.hello()  # (the hello starts the bot)
    await spectator.until(lambda f: f["type"] == "events" and spectator.seq >= 4, 120)
    waited = loop.time() - asked_at
    assert spectator.events[3]["event"] == {"type": "keep"}
    assert 0.3 <= waited < 3, waited
    await close_all([spectator])


SEAT = "(?:shown_)?seat"


def shown(html: str, field: str) -> list[str]:
    """The values the admin page shows in column / read-only field ``field``."""
    cells = re.findall(rf'<td class="field-{field}">(.*?)</td>', html, re.S)
    fields = re.findall(rf'field-{field}">.*?<div class="readonly">(.*?)</div>', html, re.S)
    return [c.strip() for c in cells + fields]


def test_admin_shows_a_live_game_as_a_spectator_sees_it(admin_client, server_runtime):
    from server.games.models import Event, Game

    game = make_game(None)
    append.submit(game.pk, ASKED, {"type": "keep"}, 3)
    events = {e.seq: e for e in Event.objects.filter(game_id=game.pk)}
    deal, keep = events[3], events[4]
    assert keep.seat == ASKED and keep.type == "keep"
    base = "/admin/games/event/"
    page = admin_client.get(f"{base}{deal.pk}/change/").content.decode()
    assert deal.hash not in page
    for hand in deal.payload["hands"]:
        for card in hand:
            assert f"&quot;{card}&quot;" not in page and f"'{card}'" not in page, card
    page = admin_client.get(f"{base}{keep.pk}/change/").content.decode()
    assert keep.hash not in page
    assert shown(page, SEAT) == ["-"]
    html = admin_client.get(f"{base}?game__id__exact={game.pk}").content.decode()
    assert sorted(shown(html, "type")) == ["deal", "keep", "shuffle", "start"]
    assert shown(html, SEAT) == ["-"] * 4
    # lookups that would answer questions about hidden events are refused
    for q in (f"seat={ASKED}", f"seat__exact={ASKED}", "payload__hands__0__0=2S"):
        r = admin_client.get(f"{base}?game__id__exact={game.pk}&{q}")
        assert r.status_code == 400, q
    assert admin_client.get(f"{base}?type=keep").status_code == 200
    # once the game is over, everything is shown
    Game.objects.filter(pk=game.pk).update(status=Game.FINISHED)
    page = admin_client.get(f"{base}{keep.pk}/change/").content.decode()
    assert shown(page, SEAT) == [str(ASKED)] and keep.hash in page
    page = admin_client.get(f"{base}{deal.pk}/change/").content.decode()
    assert f"&quot;{deal.payload['hands'][0][0]}&quot;" in page


def test_admin_never_shows_a_token(admin_client, django_user_model, server_runtime):
    from server.games import accounts
    from server.games.models import Token

    ann = django_user_model.objects.create_user("ann", password="pw")
    token, key = accounts.issue(ann, Token.API, None)
    page = admin_client.get("/admin/games/token/")
    assert page.status_code == 200 and "ann" in page.content.decode()
    assert key not in page.content.decode() and token.digest not in page.content.decode()
    assert admin_client.get("/admin/games/token/add/").status_code == 403


@pytest.mark.parametrize("kind", ["teeko", "tiku", "tedoku", "teka"])
def test_which_bot_questions_are_paced(kind: str, settings: Any) -> None:
    """Only decisions made on what only the bot's seat knows (a Teka hand) wait out the
    pace; a question whose existence is secret waits longer and is heard only by its seat
    (which no client holds for a bot)."""
    from server.games.bots import BotRunner

    settings.GAMENIGHT = {**settings.GAMENIGHT, "BOT_PACE": 1.0, "BOT_SECRET_DELAY": 3.0}
    game = core.GAMES[kind]
    rng = Random(4)
    state = fold(game, game.start(game.options({}), Random(SEED)))  # (Teka: a throw-in)
    kinds: set[str] = set()
    for _ in range(150):
        if game.outcome(state) is not None:
            break
        seat = rng.choice(game.to_act(state))
        ask = BotRunner.question(game, state, seat, 7, game.view(state, seat))
        assert ask.seq == 7
        if kind != "teka":
            assert ask.wait == 0 and ask.audience is None
        elif state.phase == "throw_in":
            assert ask.audience == frozenset({seat}) and 1.0 <= ask.wait <= 3.0
            kinds.add("secret")
        elif game.view(state, seat)["hand"]:
            assert ask.audience is None and 0.5 <= ask.wait <= 1.0, state.phase
            kinds.add("paced")
        else:  # (between hands: the cut, made on nothing hidden)
            assert ask.wait == 0
        legal = [c for c in game.legal_commands(state, seat) if c["type"] != "resign"]
        state, _ = core.api.apply(game, state, seat, rng.choice(legal), rng)
    if kind == "teka":
        assert kinds == {"secret", "paced"}


def command_times(game_id: int) -> list[Any]:
    """When each command's events were appended (one time per command, in order)."""
    from server.games.models import Event

    rows = Event.objects.filter(game_id=game_id).order_by("seq").values_list("created_at")
    return sorted({t for (t,) in rows})


async def test_a_bots_answer_does_not_tell_how_long_it_thought(server_runtime, settings):
    """A Teka bot's answers come after its pace whatever its thinking took (nothing for a
    forced card, more for more cards to choose from), and its progress frames tell the
    share of that wait."""
    settings.GAMENIGHT = {**settings.GAMENIGHT, "BOT_PACE": 0.3}
    bots = [{"kind": "bot", "level": "easy"} for _ in range(4)]
    game = await SHARDS.call(0, creating.create_game, "teka", {}, bots, rng=Random(0))
    spectator = await communicator(game.pk, "spectator")
    await spectator.hello()
    await spectator.until(lambda f: spectator.seq >= 3 + 10, 120)  # 4 calls, trumps, 5 cards
    await close_all([spectator])
    times = await SHARDS.call(game.pk, command_times, game.pk)
    assert len(times) >= 11  # the start (one time) and at least ten answers
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(times)]
    assert min(gaps) >= 0.15, gaps  # (the database's times: each answer's own statement)
    ticks: dict[int, list[float]] = {}
    for f in spectator.frames:
        if f["type"] == "bot":
            ticks.setdefault(f["seq"], []).append(f["progress"])
    assert len(ticks) >= 10
    for shares in ticks.values():
        assert shares[0] == 0.0 and shares == sorted(shares)


async def test_a_throw_in_question_that_runs_out_stays_private(quick_daphne, server_runtime):
    """Time rules: seat 1 lets its throw-in question run out; the timeout and the bot's
    answer for it name seat 1 to seat 1 only (envelopes included)."""
    seats = [{"kind": "guest", "name": f"P{i}"} for i in range(4)]
    game = await SHARDS.call(
        0, creating.create_game, "teka", {}, seats, rng=Random(SEED), table={"move_limit": 1}
    )
    gid, secrets = game.pk, game.guest_secrets
    spectator = await connect(quick_daphne, gid, "spectator")
    await spectator.hello()
    clients = {s: await connect(quick_daphne, gid, f"seat {s}") for s in range(4)}
    for s, c in clients.items():
        await c.hello(s, secret=secrets[s])

    def answered(f: dict[str, Any]) -> bool:
        return f["type"] == "events" and any(r["event"]["type"] == "keep" for r in f["events"])

    # (the question may have run out before the spectator's hello: the keep then came in the
    # hello's catch-up, which hello reads; a loaded run waited for it for ever)
    if not keeps_seen(spectator.marks):
        await spectator.until(answered, 120)
    keep_seq = keeps_seen(spectator.marks)[0]["seq"]
    everyone = [spectator, *clients.values()]
    for c in everyone:
        await c.sync_to(keep_seq, 120)
        await c.drain(0.1)
    await close_all(everyone)
    log, states = await SHARDS.call(gid, the_log, gid)
    kinds = [ev["type"] for _s, _seat, ev in log]
    i = kinds.index("timeout")
    assert kinds[i + 1] == "keep" and log[i][2].get("hidden") and log[i + 1][1] == ASKED
    for c, viewer in [(spectator, SPECTATOR), *((clients[s], s) for s in range(4))]:
        # (welcome and at least one events frame; the records up to the keep, checked
        # whether they came live or in the hello's catch-up)
        assert check_frames(TEKA, log, states, viewer, c.marks) >= 2 and c.seq >= keep_seq
        got = {r["seq"]: r for _q, f in c.marks if f["type"] == "events" for r in f["events"]}
        shown = [got[i + 1]["seat"], got[i + 2]["seat"]]  # (records of seq i+1, i+2)
        assert shown == ([None, ASKED] if viewer == ASKED else [None, None]), (viewer, shown)
