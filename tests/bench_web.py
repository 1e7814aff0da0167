"""Benchmark and screenshots of the web pages (server/web, docs/web.md), in the real browser.

Not a test of the suite (its name is not test_*.py): run it with

    ./gamenight bench web                       # figures (docs/web.md, "Measured")
    ./gamenight bench web -k screenshots        # docs/screenshots/web-*.png

It prints figures, it does not time out on them: opening the replay of a 2,000-event Teka
match to its first drawn position, a step through it, the page's JavaScript and CSS size, the
TV page with 50 live games in step."""

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
from web_browser import browser, in_thread, open_page  # noqa: F401  (the fixture)

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
    from server.games import store

    game = store.import_game(kind, options, [{"kind": "bot", "level": "random"}] * seats, records)
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
    """``moves`` random legal commands at a table, appended as its seats' (server.games.store)."""
    from server.games import store

    rng = Random(seed)
    for _ in range(moves):
        e = store.entry(game_id, fresh=True)
        seat = e.game.to_act(e.state)[0]
        legal = [c for c in e.game.legal_commands(e.state, seat) if c["type"] not in META_COMMANDS]
        store.submit(game_id, seat, rng.choice(legal), e.seq)


SIZES = {"desktop": (1280, 800), "tablet": (820, 1180), "phone": (390, 844)}
TV_SIZES = {"desktop-1920": (1920, 1080), **SIZES}


def test_screenshots(
    server_runtime: Any, tmp_path: Any, browser: Any, transactional_db: Any  # noqa: F811
) -> None:
    """docs/screenshots/web-*.png: each page at desktop, tablet and phone widths."""
    from server.games.models import Game

    server = start_daphne(tmp_path, "shots", {"GAMENIGHT_BOT_PACE": "1.5"})
    try:
        in_thread(lambda: call_command("load_demo", stdout=io.StringIO()))
        heads = {g.pk: get_json(server, f"/api/games/{g.pk}/")["seq"]
                 for g in in_thread(lambda: list(Game.objects.all()))}
        finished = {}
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
        w = open_page(browser, f"{server.http}/", 1280, 800)
        w.page.screenshot(path=str(SHOTS / "web-desktop-front-page.png"), full_page=False)
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
