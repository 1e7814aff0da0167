"""A game is a plug-in of the core: tic-tac-toe, defined under tests/ (tests/games/), joins
``core.GAMES`` and is created over HTTP, played over real sockets of a daphne process on
the real PostgreSQL, watched, replayed, verified, drawn by the generic page drawing and
ranked in a league season (fixtures, results, standings, ratings), with nothing of
server/ naming it. The daphne process learns it from ``GAMENIGHT_GAMES``, the documented
plug-in mechanism (docs/games.md). And server/ names no game kind (outside migrations and
demo data)."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets
from server_fixtures import start_daphne, stop_daphne
from server_helpers import Client, close_all, seat_code, sync_all
from test_conformance import playthrough
from test_e2e_server import ahttp, http
from web_browser import browser, in_thread, open_page  # noqa: F401  (the fixture)

import core
from core import words
from core.api import Outcome, fold

MODULE = "tests.games.tictactoe"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def tictactoe() -> Iterator[core.Game]:
    """Tic-tac-toe registered in this process for the test, unregistered after."""
    (name,) = core.load_plugins(MODULE)
    try:
        yield core.GAMES[name]
    finally:
        core.unregister(name)


def test_register_and_unregister(tictactoe):
    assert core.GAMES["tictactoe"] is tictactoe and isinstance(tictactoe, core.Game)
    assert tictactoe.name == "tictactoe" and tictactoe.title() == "Tic-tac-toe"
    with pytest.raises(ValueError, match="a game of the core"):
        core.unregister("teeko")
    impostor = type(tictactoe)()
    impostor.name = "teka"
    with pytest.raises(ValueError, match="a game of the core"):
        core.register(impostor)
    impostor.name = "Tic tac"
    with pytest.raises(ValueError, match="lower-case word"):
        core.register(impostor)
    with pytest.raises(TypeError):
        core.register("tictactoe")  # type: ignore[arg-type]
    assert core.GAMES["teka"] is not impostor
    # the defaults of the API: single seats, winners first, generic drawing
    assert tictactoe.sides(2) == [[0], [1]]
    assert tictactoe.ranking(Outcome([1], "line"), 2) == [1, 0]
    assert tictactoe.ranking(Outcome([], "full"), 2) == [0, 0]
    assert tictactoe.league() == {"pairing": "pairs", "min_players": 2}
    info = tictactoe.info(2)
    assert json.loads(json.dumps(info)) == info and info["seat_labels"] == ["X", "O"]


def test_conformance(tictactoe):
    """The conformance suite's playthrough (every legal move applies, junk is refused and
    changes nothing, folding the log rebuilds the state, views survive JSON)."""
    for i in range(60):
        playthrough(tictactoe, {}, seed=1000 * i + 7, probe=i % 10 == 0)


def test_its_words_and_the_servers_events_come_through_the_game_api(tictactoe):
    """Its own event in its own words, the shared ones (a resignation, the server's events)
    and the result line from the base class, whichever way a caller asks (the game, or
    core.words with an event or a kind); the server's events folded by the base class's
    evolve: a table event changes nothing, a result ends the game through its end()."""
    from random import Random

    names = ["Ann", "Bob"]
    marked = {"type": "marked", "seat": 0, "square": "a1"}
    assert tictactoe.describe(marked, names) == words.describe(marked, names) == "Ann marked a1"
    assert tictactoe.describe({"type": "resigned", "seat": 1}, names) == "Bob resigned"
    assert words.describe({"type": "seat_to_bot", "seat": 1}, names) == "A bot plays for Bob"
    line = {"winners": [0], "reason": "line", "scores": []}
    assert tictactoe.result_text(line, names) == "Ann wins (line)"
    assert words.result("tictactoe", line, names) == "Ann wins (line)"
    assert words.doing("tictactoe", {"to_act": [1]}, names) == "Bob to play"
    assert words.trick_result({"to_act": [1]}, names) == words.hand_result({}) == ""
    state = fold(tictactoe, tictactoe.start({}, Random(1)))
    assert tictactoe.evolve(state, {"type": "timeout", "seat": 0}) is state
    ended = tictactoe.evolve(state, {"type": "result", "winners": [1], "reason": "forfeit",
                                     "scores": []})
    assert tictactoe.outcome(ended) == Outcome([1], "forfeit")
    assert tictactoe.outcome(state) is None


async def ws_client(server: Any, game_id: int, name: str) -> Client:
    ws = await websockets.connect(f"{server.ws}/ws/games/{game_id}/", max_size=2**22)
    c = Client(ws.send, ws.recv, name)
    c.ws = ws  # type: ignore[attr-defined]
    return c


@pytest.fixture
def plugin_daphne(transactional_db: Any, tmp_path: Path, tictactoe: Any) -> Iterator[Any]:
    """A daphne process that loads tic-tac-toe from ``GAMENIGHT_GAMES``."""
    server = start_daphne(tmp_path, extra_env={"GAMENIGHT_GAMES": MODULE})
    try:
        yield server
    finally:
        stop_daphne(server)


@pytest.mark.e2e
@pytest.mark.timeout(300)
async def test_created_played_watched_replayed_verified(plugin_daphne):
    server = plugin_daphne
    kinds = {k["kind"]: k for k in (await ahttp(server, "GET", "/api/kinds/"))["kinds"]}
    assert kinds["tictactoe"]["title"] == "Tic-tac-toe"
    assert kinds["tictactoe"]["board"]["drawing"] == "grid"
    assert kinds["tictactoe"]["bot_levels"] == ["random"]
    g = await ahttp(server, "POST", "/api/games/", {"kind": "tictactoe", "join": {"name": "Ann"}})
    gid = g["id"]
    status, body = await asyncio.to_thread(http, server, "POST", "/api/games/",
                                           {"kind": "tictactoe", "options": {"size": 4}})
    assert status == 400 and "no options" in json.dumps(body)
    spectator = await ws_client(server, gid, "spectator")
    await spectator.hello()
    j = await ahttp(server, "POST", "/api/join/", {"code": seat_code(g, 1), "name": "Bob"})
    ann, bob = await ws_client(server, gid, "ann"), await ws_client(server, gid, "bob")
    await ann.hello(0, secret=g["joined"]["secret"])
    await bob.hello(1, secret=j["secret"])
    assert (await bob.command({"type": "mark", "square": "b2"}))["code"] == "not_your_turn"
    assert (await ann.command({"type": "mark", "square": "d9"}))["code"] == "malformed"
    for player, square in [(ann, "a1"), (bob, "a2"), (ann, "b1"), (bob, "b2")]:
        await sync_all([ann, bob, spectator])
        assert (await player.command({"type": "mark", "square": square}))["type"] == "ok"
    await sync_all([ann, bob, spectator])
    assert (await ann.command({"type": "mark", "square": "b2"}))["code"] == "illegal"
    assert spectator.view["cells"] == [0, 0, None, 1, 1, None, None, None, None]
    assert (await ann.command({"type": "mark", "square": "c1"}))["type"] == "ok"
    await sync_all([ann, bob, spectator])
    for c in (ann, bob, spectator):
        fin = c.finished or await c.until(lambda f: f["type"] == "finished")
        assert fin["outcome"]["winners"] == [0] and fin["outcome"]["reason"] == "line"
    assert spectator.events == ann.events == bob.events
    detail = await ahttp(server, "GET", f"/api/games/{gid}/")
    assert detail["status"] == "finished" and detail["outcome"]["winners"] == [0]
    verified = await ahttp(server, "GET", f"/api/games/{gid}/verify/")
    assert verified["ok"] and verified["head"]
    late = await ws_client(server, gid, "late")  # the replay: everything, viewer ALL
    welcome = await late.hello()
    assert welcome["viewer"] == -2 and late.events == ann.events
    await close_all([ann, bob, spectator, late])
    said = await ahttp(server, "GET", f"/api/games/{gid}/words/")
    assert said["texts"][1:3] == ["Ann marked a1", "Bob marked a2"]
    assert said["result"] == "Ann wins (line)"
    page = await asyncio.to_thread(_get_text, f"{server.http}/games/{gid}/")
    assert "<h1>Tic-tac-toe #" in page and '"drawing": "grid"' in page
    status, _ = await asyncio.to_thread(http, server, "GET", f"/api/games/{gid}/analysis/")
    assert status == 400  # (no analysis for this game: a clear answer, not a 500)


def _get_text(url: str) -> str:
    import urllib.request

    with urllib.request.urlopen(url, timeout=60) as r:
        return str(r.read().decode())


def _play(game_id: int, squares: list[str], finished: bool = True) -> None:
    from server.games import append, cache

    for square in squares:
        e = cache.entry(game_id)
        (seat,) = e.game.to_act(e.state)
        append.submit(game_id, seat, {"type": "mark", "square": square}, e.seq)
    e = cache.entry(game_id)
    assert (e.game.outcome(e.state) is not None) == finished


@pytest.mark.django_db(transaction=True)
def test_ranked_in_a_league_season(tictactoe, django_user_model, server_runtime, client):
    from server.games.models import Game
    from server.leagues import fixtures, ratings, standings
    from server.leagues.models import Fixture, League, Rating, Season

    users = [django_user_model.objects.create_user(f"p{i}", password="pw") for i in range(4)]
    league = League.objects.create(name="Noughts club", kind="tictactoe")
    league.full_clean()
    league.members.set(users)
    season = Season.objects.create(league=league, name="Spring", start=dt.date(2026, 3, 3),
                                   end=dt.date(2026, 6, 30))
    made = fixtures.next_round(season, today=dt.date(2026, 3, 3))
    games = [f.game for f in made if not f.bye]
    assert len(games) == 2 and all(g.kind == "tictactoe" and g.status == Game.LIVE
                                   for g in games)
    first, second = games
    _play(first.pk, ["a1", "a2", "b1", "b2", "c1"])  # seat 0 wins
    _play(second.pk, ["a1", "b1", "c1", "b2", "a2", "c2", "b3", "a3", "c3"])  # a draw
    outcomes = {g.pk: g.outcome for g in Game.objects.filter(pk__in=[first.pk, second.pk],
                                                             status=Game.FINISHED)}
    assert outcomes[first.pk]["winners"] == [0] and outcomes[second.pk]["winners"] == []
    seats = {f.game_id: f.players for f in Fixture.objects.filter(season=season, bye=False)}
    table = {row.user_id: row for row in standings.season_table(season)}
    champion, beaten = seats[first.pk]
    assert table[champion].points == 3 and table[beaten].points == 0
    assert [table[u].points for u in seats[second.pk]] == [1, 1]
    assert standings.season_table(season)[0].user_id == champion
    ratings.drain()
    rated = {r.user_id: r for r in Rating.objects.filter(kind="tictactoe")}
    assert set(rated) == set(u.pk for u in users)
    assert rated[champion].mu > 25 > rated[seats[first.pk][1]].mu
    assert rated[champion].place == 0
    page = client.get(f"/leagues/{league.pk}/")
    assert page.status_code == 200 and b"Noughts club" in page.content


@pytest.mark.e2e
@pytest.mark.timeout(300)
def test_its_page_draws_the_grid_in_a_browser(plugin_daphne, browser):  # noqa: F811
    """The game page in chromium: the grid drawing of ``board()``, live, then the replay
    with the result line; no JavaScript error."""
    server = plugin_daphne
    status, g = http(server, "POST", "/api/games/", {"kind": "tictactoe", "seats": [
        {"kind": "guest", "name": "Ann"}, {"kind": "guest", "name": "Bob"}]})
    assert status == 201, g

    async def mark(squares: list[str]) -> None:
        seats = [await ws_client(server, g["id"], name) for name in ("ann", "bob")]
        for i, c in enumerate(seats):
            await c.hello(i, secret=g["guest_secrets"][str(i)])
        for square in squares:
            await sync_all(seats)
            (turn,) = seats[0].to_act
            answer = await seats[turn].command({"type": "mark", "square": square})
            assert answer["type"] == "ok", answer
        await sync_all(seats)
        await close_all(seats)

    in_thread(lambda: asyncio.run(mark(["b2", "a1", "c1"])))
    w = open_page(browser, f"{server.http}/games/{g['id']}/")
    marks = ("() => [...document.querySelectorAll('#board [data-square].gmark')]"
             ".map(e => e.dataset.square + ':' + e.textContent).sort()")
    w.page.wait_for_function(f"() => ({marks})().length === 3")
    assert w.page.evaluate(marks) == ["a1:O", "b2:X", "c1:X"]
    assert "Waiting for Bob" in (w.page.text_content("#status") or "")
    in_thread(lambda: asyncio.run(mark(["a2", "a3"])))  # c1-b2-a3: Ann wins
    w.page.wait_for_function("() => document.getElementById('outcome').textContent"
                             ".includes('Ann wins')")
    w.page.wait_for_function(f"() => ({marks})().length === 5")
    assert w.page.title().startswith("Tic-tac-toe #")
    assert w.js_errors() == []
    w.page.context.close()


KIND = re.compile(r"""["'](teeko|tiku|tedoku|teka)["']""")
KIND_COMPARED = re.compile(r"""kind\s*[!=]==?\s*["'`](teeko|tiku|tedoku|teka)""")
EXEMPT = (
    "server/leagues/demo.py",  # demo data: a Teeko league and its games
    "server/ops/demo.py",
)


def test_the_shared_words_name_no_game():
    """core/wording.py (the wording every game shares) and core/words.py (which finds the game
    for a caller) name no game, not even in an example: a game's words live in its own
    module, behind the game API."""
    for rel in ("core/wording.py", "core/words.py"):
        text = (ROOT / rel).read_text().lower()
        named = [g for g in sorted(core.BUILTIN) if g in text]
        assert not named, f"{rel} names {named}"


def test_server_names_no_game_kind():
    """No literal game kind in server/ (Python and templates) outside migrations and demo
    data, and no page script that decides by a game's kind: what a game is comes from the
    core's game API."""
    found = []
    for path in sorted((ROOT / "server").rglob("*")):
        rel = path.relative_to(ROOT).as_posix()
        if "/migrations/" in rel or rel in EXEMPT or path.suffix not in (".py", ".html", ".js"):
            continue
        pattern = KIND_COMPARED if path.suffix == ".js" else KIND
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if pattern.search(line):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, f"{len(found)} game kinds named in server/:\n" + "\n".join(found)
