"""Benchmark and screenshots of the web pages (server/web, docs/web.md), in the real browser.

Not a test of the suite (its name is not test_*.py): run it with

    ./gamenight bench web                       # figures (docs/web.md, "Measured")
    ./gamenight bench web -k seats              # the four games on touch phones
    ./gamenight bench web -k screenshots        # docs/screenshots/web-*.png

It prints figures, it does not time out on them: opening the replay of a 2,000-event Teka
match to its first drawn position, a step through it, the page's JavaScript and CSS size, the
TV page with 50 live games in step; each game played by phones tapping as a person would,
with the taps per action and the time from a tap to every other screen."""

from __future__ import annotations

import asyncio
import gzip
import io
import json
import os
import statistics
import time
import urllib.request
from pathlib import Path
from random import Random
from typing import Any

import pytest
from django.core.management import call_command
from server_fixtures import start_daphne, stop_daphne
from web_browser import browser, in_thread, open_page, sit_phone  # noqa: F401  (the fixture)

import core
from core.api import META_COMMANDS

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "server" / "web" / "static" / "web"
SHOTS = ROOT / "docs" / "screenshots"


def say(msg: str) -> None:
    print(f"[bench web] {msg}", flush=True)


def get_json(server: Any, path: str) -> Any:
    with urllib.request.urlopen(server.http + path, timeout=30) as r:
        return json.loads(r.read())


def post(server: Any, path: str, data: Any) -> Any:
    req = urllib.request.Request(server.http + path, data=json.dumps(data).encode(),
                                 method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def random_match(kind: str, options: dict[str, Any], min_events: int, seed: int = 1) -> list[Any]:
    """Records of a game played with random legal moves (no resign/draw) to its end."""
    g = core.GAMES[kind]
    rng = Random(seed)
    opts = g.options(options)
    events = g.start(opts, rng)
    state = g.initial()
    for ev in events:
        state = g.evolve(state, ev)
    records: list[dict[str, Any]] = [{"seat": None, "event": ev} for ev in events]
    while g.outcome(state) is None:
        seat = g.to_act(state)[0]
        legal = [c for c in g.legal_commands(state, seat) if c["type"] not in META_COMMANDS]
        new = g.decide(state, seat, rng.choice(legal), rng)
        for ev in new:
            state = g.evolve(state, ev)
            records.append({"seat": seat, "event": ev})
    assert len(records) >= min_events, len(records)
    return records


def import_match(kind: str, options: dict[str, Any], records: list[Any], seats: int) -> int:
    from server.games import creating

    bots = [{"kind": "bot", "level": "random"}] * seats
    game = creating.import_game(kind, options, bots, records)
    return int(game.pk)


def test_bench(daphne_server: Any, browser: Any) -> None:  # noqa: F811
    server = daphne_server
    say(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (other work shares them)")
    # -- a 2,000-event Teka match (random play to a high target)
    records = random_match("teka", {"target": 2450}, 2000)
    gid = in_thread(import_match, "teka", {"target": 2450}, records, 4)
    head = len(records)
    say(f"Teka match #{gid}: {head} events")

    t0 = time.perf_counter()
    for delta in (0, 1):
        t0 = time.perf_counter()
        with urllib.request.urlopen(
                f"{server.http}/api/games/{gid}/views/?from=0&to=999&delta={delta}") as r:
            body = r.read()
        t1 = time.perf_counter()
        say(f"/views/?from=0&to=999&delta={delta}: {1000 * (t1 - t0):.0f} ms, "
            f"{len(body) / 1e6:.2f} MB ({len(gzip.compress(body)) / 1e3:.0f} KB gzipped)")

    first, loaded = [], []
    w = open_page(browser, f"{server.http}/games/{gid}/?seq=0", 1280, 800)
    asked: list[str] = []
    w.page.on("request", lambda req: asked.append(req.url) if "/views/" in req.url else None)
    for _ in range(3):
        w.page.goto(f"{server.http}/games/{gid}/")
        w.page.wait_for_function("() => window.gnStats && window.gnStats.firstDraw !== undefined")
        first.append(w.page.evaluate("() => window.gnStats.firstDraw"))
        w.page.wait_for_function(f"() => document.querySelectorAll('#moves li').length === {head}",
                                 timeout=60_000)
        loaded.append(w.page.evaluate("() => performance.now()"))
    say(f"open the replay to its first drawn position: {statistics.median(first):.0f} ms "
        f"(runs {', '.join(f'{x:.0f}' for x in first)}; from navigation start, in chromium)")
    say(f"...and the whole match loaded (views and move list): {statistics.median(loaded):.0f} ms")
    firsts = [u for u in asked if f"to={head}&" in u and "from=2000" not in u]
    assert len(firsts) == 3, f"the preloaded views are asked for once a load: {asked}"

    steps = w.page.evaluate(STEP_JS)
    times = sorted(steps["times"])
    assert steps["index"] == head
    say(f"step through all {len(times)} positions (right arrow, then style and layout): "
        f"median {statistics.median(times):.2f} ms, mean {statistics.mean(times):.2f} ms, "
        f"p95 {times[int(len(times) * 0.95)]:.2f} ms, "
        f"max {times[-1]:.2f} ms a step (script {statistics.mean(steps['script']):.2f} ms, "
        f"style and layout {statistics.mean(steps['layout']):.2f} ms)")
    assert w.js_errors() == []
    w.page.context.close()

    # -- the page's own JavaScript and CSS
    files = sorted(p for p in STATIC.iterdir() if p.suffix in (".js", ".css"))
    total = sum(p.stat().st_size for p in files)
    gz = sum(len(gzip.compress(p.read_bytes())) for p in files)
    say(f"JavaScript and CSS: {total / 1024:.1f} KB uncompressed ({gz / 1024:.1f} KB gzipped), "
        f"{len(files)} files: "
        + ", ".join(f"{p.name} {p.stat().st_size / 1024:.1f}" for p in files))

    # -- TV mode with 50 live games, moves coming in all the time
    games = [post(server, "/api/games/", {"kind": "teeko", "public": True, "seats": [
        {"kind": "guest", "name": "A"}, {"kind": "guest", "name": "B"}]}) for _ in range(50)]
    tv = open_page(browser, f"{server.http}/tv/?rotate=5", 1920, 1080)
    tv.page.wait_for_function("() => window.gnTV && window.gnTV.tables === 50")
    moves = in_thread(lambda: asyncio.run(drive(server, games, seconds=20)))
    time.sleep(0.5)  # (the last commands' answers)
    now = [get_json(server, f"/api/games/{g['id']}/") for g in games]
    want = {g["id"]: g["seq"] for g in now if g["status"] == "live"}  # (the others: won)
    t0 = time.perf_counter()
    try:
        tv.page.wait_for_function(
            "(want) => Object.entries(want).every(([id, s]) => window.gnTV.seqs[id] === s)",
            arg=want, timeout=30_000)
    except Exception:
        got = tv.page.evaluate("() => window.gnTV.seqs")
        raise AssertionError(f"not in step: want {want}, page {got}") from None
    lag = time.perf_counter() - t0
    info = tv.page.evaluate("() => ({pages: window.gnTV.pages, per: window.gnTV.perPage, "
                            "renders: window.gnTV.renders})")
    say(f"TV page, 50 live Teeko games, {moves} moves in 20 s ({moves / 20:.0f} a second): every "
        f"table in step {1000 * lag:.0f} ms after the last move; {info['per']} tables a page, "
        f"{info['pages']} pages rotating, {info['renders']} tile drawings")
    assert tv.js_errors() == []
    tv.page.context.close()


STEP_JS = """async () => {
  const out = [], script = [], layout = [];
  const key = (k) => document.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
  key('Home');
  await new Promise(r => setTimeout(r, 50));
  const n = window.gnStats.head;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    key('ArrowRight');
    const t1 = performance.now();
    void document.body.offsetHeight;   // style and layout of the new position
    const t2 = performance.now();
    out.push(t2 - t); script.push(t1 - t); layout.push(t2 - t1);
  }
  return {times: out, script, layout, index: window.gnStats.index};
}"""


async def drive(server: Any, games: list[Any], seconds: float) -> int:
    """Both guests of every game play random moves over their sockets for ``seconds``."""
    import websockets

    rng = Random(3)
    moves = 0
    stop = time.monotonic() + seconds

    async def seat_loop(g: Any, seat: int) -> None:
        nonlocal moves
        async with websockets.connect(f"{server.ws}/ws/games/{g['id']}/", max_size=2**22) as ws:
            await ws.send(json.dumps({"type": "hello", "seat": seat,
                                      "secret": g["guest_secrets"][str(seat)]}))
            seq, legal, to_act = 0, [], []
            while time.monotonic() < stop:
                try:
                    f = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                except TimeoutError:
                    continue
                if f["type"] == "events" and "view" in f:
                    seq, legal, to_act = f["to"], f["legal"], f["to_act"]
                    if f.get("outcome"):
                        return
                    if seat in to_act and legal:
                        await asyncio.sleep(rng.uniform(0.3, 1.2))
                        if time.monotonic() >= stop:
                            return
                        moves_ = [c for c in legal if c["type"] not in META_COMMANDS]
                        await ws.send(json.dumps({"type": "command", "command": rng.choice(moves_),
                                                  "expected_seq": seq}))
                        moves += 1

    await asyncio.gather(*(seat_loop(g, s) for g in games for s in (0, 1)))
    return moves


def play_random(game_id: int, moves: int, seed: int = 5) -> None:
    """``moves`` random legal commands at a table, appended as its seats' (server.games.append)."""
    from server.games import append, cache

    rng = Random(seed)
    for _ in range(moves):
        e = cache.entry(game_id, fresh=True)
        seat = e.game.to_act(e.state)[0]
        legal = [c for c in e.game.legal_commands(e.state, seat) if c["type"] not in META_COMMANDS]
        append.submit(game_id, seat, rng.choice(legal), e.seq)


SIZES = {"desktop": (1280, 800), "tablet": (820, 1180), "phone": (390, 844)}
TV_SIZES = {"desktop-1920": (1920, 1080), **SIZES}


def test_screenshots(
    server_runtime: Any, tmp_path: Any, browser: Any, transactional_db: Any  # noqa: F811
) -> None:
    """docs/screenshots/web-*.png: each page at desktop, tablet and phone widths (the TV also
    at 1920x1080; the front page at desktop and phone widths)."""
    from server.games.models import Game

    server = start_daphne(tmp_path, "shots", {"GAMENIGHT_BOT_PACE": "1.5"})
    try:
        in_thread(lambda: call_command("load_demo", stdout=io.StringIO()))
        heads = {g.pk: get_json(server, f"/api/games/{g.pk}/")["seq"]
                 for g in in_thread(lambda: list(Game.objects.all()))}
        finished: dict[str, int] = {}
        for g in in_thread(lambda: list(Game.objects.order_by("id"))):
            if heads[g.pk] > heads.get(finished.get(g.kind, 0), -1):
                finished[g.kind] = g.pk
        live = post(server, "/api/games/", {"kind": "teka", "public": True, "seats": [
            {"kind": "bot", "level": "random"}] * 4})
        # tables of people for the TV (guests: they stay live), some moves into each
        for kind, n, moves in (("teeko", 2, 11), ("tiku", 2, 14), ("tedoku", 3, 20),
                               ("teka", 4, 30), ("teeko", 2, 5)):
            g = post(server, "/api/games/", {"kind": kind, "options": {"seats": n},
                                             "public": True, "seats": [
                {"kind": "guest", "name": name} for name in ("Ann", "Bob", "Cleo", "Dev")[:n]]})
            in_thread(play_random, g["id"], moves)
        mid = {"teeko": 14, "tiku": 30, "tedoku": 40, "teka": 80}
        SHOTS.mkdir(parents=True, exist_ok=True)
        for size, (w_, h_) in SIZES.items():
            for kind, gid in finished.items():
                w = open_page(browser, f"{server.http}/games/{gid}/?seq={mid[kind]}", w_, h_)
                try:
                    w.page.wait_for_function(
                        f"() => window.gnStats && window.gnStats.index === {mid[kind]}",
                        timeout=10_000)
                except Exception:
                    raise AssertionError(f"{kind} {gid}: {w.stats()} {w.js_errors()}") from None
                w.page.wait_for_timeout(300)
                w.page.screenshot(path=str(SHOTS / f"web-{size}-replay-{kind}.png"))
                assert w.js_errors() == []
                w.page.context.close()
            w = open_page(browser, f"{server.http}/games/{live['id']}/", w_, h_)
            w.page.wait_for_function("() => window.gnStats && window.gnStats.conn === 'live' && "
                                     "document.querySelectorAll('#board [data-card]').length > 0",
                                     timeout=30_000)
            w.page.wait_for_timeout(500)
            w.page.screenshot(path=str(SHOTS / f"web-{size}-live-teka.png"))
            w.page.context.close()
        for size, (w_, h_) in TV_SIZES.items():
            w = open_page(browser, f"{server.http}/tv/", w_, h_)
            try:
                w.page.wait_for_function("() => window.gnTV && window.gnTV.tables >= 5",
                                         timeout=10_000)
            except Exception:
                raise AssertionError(f"{w.page.evaluate('() => window.gnTV')} {w.js_errors()} "
                                     f"{get_json(server, '/api/games/?status=live')}") from None
            w.page.wait_for_timeout(1500)
            w.page.screenshot(path=str(SHOTS / f"web-{size}-tv.png"))
            assert w.js_errors() == []
            w.page.context.close()
        for size in ("desktop", "phone"):
            w = open_page(browser, f"{server.http}/", *SIZES[size])
            w.page.screenshot(path=str(SHOTS / f"web-{size}-front-page.png"), full_page=False)
            assert w.js_errors() == []
            w.page.context.close()
    finally:
        stop_daphne(server)


def test_screenshot_teeko_analysis(
    server_runtime: Any, tmp_path: Any, browser: Any, transactional_db: Any  # noqa: F811
) -> None:
    """docs/screenshots/web-desktop-replay-teeko-analysis.png: a demo Teeko replay with its
    analysis beside the moves, from the real solved tables (var/teeko; skips without them)."""
    from core import teeko_table
    from server.games.models import Game

    if not any(teeko_table.table_path(s).exists() for s in ("axis", "tilted", "classic")):
        pytest.skip("no solved Teeko table built (./gamenight solve teeko)")
    server = start_daphne(tmp_path, "shots-analysis")
    try:
        in_thread(lambda: call_command("load_demo", stdout=io.StringIO()))
        best: tuple[int, int, int] | None = None  # (plies lost, game, seq of the first)
        for g in in_thread(lambda: list(Game.objects.filter(kind="teeko", status="finished"))):
            try:
                a = get_json(server, f"/api/games/{g.pk}/analysis/")
            except urllib.error.HTTPError:
                continue
            log = get_json(server, f"/api/games/{g.pk}/state/?events=1")["events"]
            seqs = [r["seq"] for r in log if r["event"]["type"] in ("placed", "moved")]
            lost = [seqs[p["ply"] - 1] for p in a["plies"] if p["lost"]]
            if lost and (best is None or len(lost) > best[0]):
                best = (len(lost), g.pk, lost[-1])
        if best is None:
            pytest.skip("no demo Teeko game with an analysis that marks a lost ply")
        _n, gid, seq = best
        w = open_page(browser, f"{server.http}/games/{gid}/?seq={seq}", *SIZES["desktop"])
        w.page.wait_for_function(
            f"() => window.gnStats && window.gnStats.index === {seq} && "
            "window.gnStats.analysis === 'shown'", timeout=20_000)
        w.page.wait_for_timeout(300)
        SHOTS.mkdir(parents=True, exist_ok=True)
        w.page.screenshot(path=str(SHOTS / "web-desktop-replay-teeko-analysis.png"))
        assert w.js_errors() == []
        w.page.context.close()
    finally:
        stop_daphne(server)


# -- four games played on touch phones: taps per action, tap to every other screen -----------


SPY_JS = """() => {
  // the tap (pointerdown, with the seq the page held) and every events frame handled (the
  // seq after it, when the page had drawn it); one clock for all pages: the epoch in ms
  if (window.gnBench) return;
  const now = () => performance.timeOrigin + performance.now();
  const sock = (window.gnSeat || window.gnTable).socket;
  const b = (window.gnBench = {taps: [], seen: []});
  addEventListener('pointerdown', () => b.taps.push([now(), sock.seq]), true);
  const on = sock.h.onEvents;
  sock.h.onEvents = function (...args) {
    const r = on ? on.apply(this, args) : undefined;
    b.seen.push([sock.seq, now()]);
    return r;
  };
}"""

SEEN_JS = """([seq, t]) => {
  const hit = window.gnBench.seen.find(([s, at]) => s > seq && at >= t);
  return hit ? hit[1] : null;
}"""


class Latency:
    """From the tap that sent a command to the moment each other page has handled the frame
    that carries it (the phones and the table page)."""

    def __init__(self, pages: list[Any]) -> None:
        self.pages = pages
        self.ms: list[float] = []
        for w in pages:
            w.page.wait_for_function("() => (window.gnSeat || window.gnTable || {}).socket")
            w.page.evaluate(SPY_JS)

    def mark(self, actor: Any) -> None:
        """After a command of ``actor``'s landed (its last tap sent it)."""
        tap = actor.page.evaluate("() => window.gnBench.taps.at(-1)")
        for w in self.pages:
            if w is actor:
                continue
            handle = w.page.wait_for_function(f"(a) => ({SEEN_JS})(a)", arg=[tap[1], tap[0]])
            self.ms.append(float(handle.json_value()) - tap[0])

    def figures(self) -> str:
        ms = sorted(self.ms)
        return (f"tap to every other screen: median {statistics.median(ms):.0f} ms, "
                f"p95 {ms[min(len(ms) - 1, int(len(ms) * 0.95))]:.0f} ms, "
                f"max {ms[-1]:.0f} ms ({len(ms)} arrivals)")


def bench_teka(server: Any, browser: Any, django_user_model: Any) -> None:  # noqa: F811
    from server_helpers import seat_code
    from test_web_seat_teka import Table
    from test_web_seats import organiser_table

    g, table = organiser_table(browser, server, django_user_model, {"kind": "teka"})
    gid = g["id"]
    phones = []
    for seat, name in enumerate(["Ann", "Bob", "Cy", "Di"]):
        phones.append(sit_phone(browser, server, seat_code(g, seat), name))
    lat = Latency([*phones, table])
    t = Table(server, gid, phones, Random(7))
    t0 = time.monotonic()
    while True:
        view = get_json(server, f"/api/games/{gid}/state/")["view"]
        if view["sheet"]:
            break
        if view["phase"] == "throw_in":
            asked = [s for s, w in enumerate(phones) if w.page.query_selector(
                ".tk-calls button:not([disabled])")]
            for s in asked:
                t.act(s, view)
                lat.mark(phones[s])
            if not asked:
                phones[0].page.wait_for_timeout(200)  # (polling the phones)
        else:
            seat = view["to_act"][0]
            t.act(seat, view)
            lat.mark(phones[seat])
    n = len(t.plays)
    plain = n - t.signal_cards
    say(f"Teka, four phones (touch, 390x844) and the table page, one hand in "
        f"{time.monotonic() - t0:.0f} s: {n} cards played by tapping the card, "
        f"{t.card_taps / n:.2f} taps a card ({(t.card_taps - t.signal_taps) / max(plain, 1):.2f}"
        f" plain, {t.signal_taps / max(t.signal_cards, 1):.2f} with a signal, {t.signal_cards}"
        f" signalled); {t.calls} calls in {t.call_taps} taps "
        f"({t.call_taps / max(t.calls, 1):.2f} a call); {lat.figures()}")
    for w in [*phones, table]:
        assert not w.js_errors(), w.js_errors()
        w.page.context.close()


def bench_tedoku(server: Any, browser: Any) -> None:  # noqa: F811
    from server_helpers import post_json, seat_code
    from test_web_seat_tedoku import aim
    from test_web_seats import the_log

    g = post_json(server, "/api/games/", {"kind": "tedoku",
                                          "options": {"seats": 3, "bonus": True}})
    gid = g["id"]
    phones = []
    for seat, name in enumerate(["Ann", "Bob", "Cy"]):
        phones.append(sit_phone(browser, server, seat_code(g, seat), name))
    table = open_page(browser, f"{server.http}/games/{gid}/table/", 1920, 1080)
    lat = Latency([*phones, table])
    game = core.GAMES["tedoku"]
    rng = Random(7)
    taps = {"place": 0, "skip": 0}
    counts = {"place": 0, "skip": 0}

    def state_now() -> Any:
        st = game.initial()
        for _seq, _seat, ev in in_thread(the_log, gid):
            st = game.evolve(st, ev)
        return st

    t0 = time.monotonic()
    while True:
        st = state_now()
        if st.over:
            break
        turn = st.turn
        to_act = list(game.to_act(st))
        for seat in to_act:
            page = phones[seat].page
            page.wait_for_function(
                "(t) => { const s = document.querySelector('.tdk-sheet');"
                " const h = document.querySelector('.tdk-turn');"
                " return s && !s.classList.contains('locked') && h"
                " && h.textContent.startsWith('Turn ' + t + ' ') && !window.gnSeat.pending }",
                arg=turn)
            before = page.evaluate("() => window.gnSeat.commands")
            places = [c for c in game.legal_commands(state_now(), seat) if c["type"] == "place"]
            if not places:
                page.tap(".tdk-skip")
                page.wait_for_selector(".gn-confirm-yes")
                page.tap(".gn-confirm-yes")
                taps["skip"] += 2
                counts["skip"] += 1
            else:
                _want, cell, n = aim(page, places, rng)
                page.tap(f'[data-cell="{cell}"]')  # (the same cell again draws it)
                taps["place"] += n + 1
                counts["place"] += 1
            page.wait_for_function(
                f"() => window.gnSeat.commands === {before + 1} && !window.gnSeat.pending")
            lat.mark(phones[seat])
        phones[to_act[-1]].page.wait_for_function(
            "(t) => !document.querySelector('.tdk-turn').textContent.startsWith('Turn ' + t + ' ')"
            " || !document.getElementById('rematch').hidden", arg=turn)
    say(f"Tedoku, three phones (touch, 390x844) and the table page, a whole game in "
        f"{time.monotonic() - t0:.0f} s: {counts['place']} placements in {taps['place']} taps "
        f"({taps['place'] / max(counts['place'], 1):.2f} a placement: rotate/flip, the cell, "
        f"the same cell again), {counts['skip']} skips in {taps['skip']} taps; {lat.figures()}")
    for w in [*phones, table]:
        assert not w.js_errors(), w.js_errors()
        w.page.context.close()


def bench_board(server: Any, browser: Any, kind: str) -> None:  # noqa: F811
    from server_helpers import post_json, seat_code
    from test_web_seat_board import HOLD_COMMANDS, Phone, server_now, wait_past

    options = {"move_cap": 40} if kind == "teeko" else {}
    g = post_json(server, "/api/games/", {"kind": kind, "options": options})
    gid = g["id"]
    phones = []
    for seat, name in enumerate(["Ann", "Bob"]):
        w = sit_phone(browser, server, seat_code(g, seat), name)
        w.page.evaluate(HOLD_COMMANDS)
        phones.append(Phone(w, seat))
    table = open_page(browser, f"{server.http}/games/{gid}/table/", 1920, 1080)
    lat = Latency([*(p.w for p in phones), table])
    rng = Random(3)
    taps: dict[str, list[int]] = {"place": [], "move": []}
    t0 = time.monotonic()
    while len(taps["move"]) < (40 if kind == "teeko" else 16):
        game, state, seq = server_now(gid)
        if game.outcome(state) is not None:
            break
        seat = game.to_act(state)[0]
        me = phones[seat]
        for p in phones:
            p.wait_drawn(seq)
        board = [c for c in game.legal_commands(state, seat) if c["type"] in ("place", "move")]
        safe = [c for c in board if not any(
            ev["type"] == "game_over" for ev in game.decide(state, seat, c, Random(0)))]
        pick = rng.choice(safe or board)
        before = me.taps
        if pick["type"] == "place":
            me.tap_square(pick["to"])
        else:
            me.tap_square(pick["from"])
            me.page.wait_for_selector(f'#board .gn-target[data-target="{pick["to"]}"]')
            me.tap_square(pick["to"])
            if kind == "tiku":  # (the discs it lays shown first; the same square confirms)
                me.page.wait_for_selector("#commands [data-action=confirm]")
                me.tap_square(pick["to"])
        taps[pick["type"]].append(me.taps - before)
        wait_past(gid, seq)
        lat.mark(me.w)
    per = ", ".join(f"{len(v)} {k}s, {sum(v) / len(v):.2f} taps each"
                    for k, v in taps.items() if v)
    say(f"{kind.capitalize()}, two phones (touch, 390x844) and the table page, "
        f"{time.monotonic() - t0:.0f} s: {per}; {lat.figures()}")
    for w in [*(p.w for p in phones), table]:
        assert not w.js_errors(), w.js_errors()
        w.page.context.close()


def test_seats(daphne_server: Any, browser: Any, django_user_model: Any) -> None:  # noqa: F811
    """The four games played by phones tapping as a person would: taps per action and the time
    from a tap to every other screen (the other phones, the table page) showing the result."""
    say(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (other work shares them)")
    bench_board(daphne_server, browser, "teeko")
    bench_board(daphne_server, browser, "tiku")
    bench_tedoku(daphne_server, browser)
    bench_teka(daphne_server, browser, django_user_model)
