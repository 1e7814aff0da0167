"""A night that starts from any browser (server/web front.js, seat_login.js, pwa.js, sw.js;
docs/web.md, "Starting a night" and "An app on the phone"), in Chromium with touch at
360x740 and 390x844 against a real daphne and PostgreSQL:

* the front page starts a table (the first game the server lists, or Teeko: a phone seat and
  a bot) with no account, and opens its table page with the phone's code and QR code; another
  phone types that code on its front page and lands on its seat; an unknown code is refused
  with the reason;
* a league fixture's seat is taken by its member, who logs in on the seat page;
* the manifest and the service worker are served, the worker registers, and the seat page's
  shell loads with no network; static files are sent gzipped;
* no page overflows sideways at 360 px: the front page, the league pages, the seat page's
  join form and its login."""

from __future__ import annotations

import gzip
import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from server_helpers import get_json, http
from test_web_seats import shot
from web_browser import PHONE, WAIT_MS, Watched, browser, in_thread, open_page  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(400)]

SMALL = (360, 740)
ROOT = Path(__file__).resolve().parent.parent

OVERFLOW = """() => {
  const W = document.documentElement.clientWidth;
  const bad = [];
  const sw = document.documentElement.scrollWidth;
  if (sw > W) bad.push('page ' + sw + ' > ' + W);
  for (const e of document.querySelectorAll('body *')) {
    if (e.parentElement && e.parentElement.closest('.wide')) continue;  // (a table's scroll box)
    const r = e.getBoundingClientRect();
    if (r.width && r.height && r.right > W + 1)
      bad.push(e.tagName + '.' + e.className + ' right ' + Math.round(r.right));
  }
  return bad.slice(0, 12);
}"""

SMALL_CONTROLS = """() => {
  const bad = [];
  for (const b of document.querySelectorAll('button, select, input:not([type=hidden])')) {
    const r = b.getBoundingClientRect();
    if (r.width && (r.height < 44 || r.width < 44))
      bad.push(b.tagName + ' ' + (b.id || b.textContent) + ' ' + Math.round(r.height));
  }
  for (const e of document.querySelectorAll('body *')) {
    if (!e.childNodes.length || e.closest('svg') || !e.getClientRects().length) continue;
    const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (own && parseFloat(getComputedStyle(e).fontSize) < 12) bad.push('text ' + e.tagName);
  }
  return bad;
}"""


def phone(chromium: Any, size: tuple[int, int] = PHONE) -> Watched:
    """A touch phone (its own context: cookies, storage and service workers of its own)."""
    w = open_page(chromium, None, *size, touch=True)
    w.failed = []  # type: ignore[attr-defined]
    w.page.on("response", lambda r: w.failed.append(f"{r.status} {r.url}")  # type: ignore[attr-defined]
              if r.status >= 400 else None)
    return w


def no_overflow(w: Watched, what: str) -> None:
    bad = w.page.evaluate(OVERFLOW)
    assert bad == [], (what, bad)


def front(w: Watched, server: Any) -> None:
    w.page.goto(server.http + "/")
    w.page.wait_for_function("() => window.gnFront && window.gnFront.ready")


def the_kind(server: Any) -> tuple[int, dict[str, Any]]:
    """Teeko when the server has it (else the first two-seat game it lists): its place in the
    list and its info."""
    kinds = get_json(server, "/api/kinds/")["kinds"]
    two = [(i, k) for i, k in enumerate(kinds) if k["min_seats"] <= 2 <= k["max_seats"]]
    return next(((i, k) for i, k in two if k["kind"] == "teeko"), two[0])


def game_of(game_id: int) -> dict[str, Any]:
    from server.games.models import Game

    g = Game.objects.select_related("created_by").get(pk=game_id)
    return {"creator": g.created_by.get_username() if g.created_by else None,
            "public": g.public, "kind": g.kind,
            "seats": [(s.kind, s.bot_level, s.claimed, s.code) for s in
                      g.seat_set.order_by("number")]}


def test_a_table_started_on_the_front_page_and_joined_by_its_code(
    daphne_server: Any, browser: Any  # noqa: F811
) -> None:
    server = daphne_server
    index, kind = the_kind(server)
    kinds = get_json(server, "/api/kinds/")["kinds"]
    org = phone(browser, PHONE)
    front(org, server)
    # the games as the server lists them, the first chosen; nothing of a game named in the page
    titles = org.page.eval_on_selector_all("#kind option", "os => os.map(o => o.textContent)")
    assert titles == [k["title"] for k in kinds]
    assert org.page.eval_on_selector("#kind", "s => s.selectedIndex") == 0
    org.page.select_option("#kind", index=index)
    if kind["min_seats"] != kind["max_seats"]:
        org.page.select_option("#seats-n", "2")
    labels = org.page.eval_on_selector_all("#options .field > span",
                                           "s => s.map(e => e.textContent)")
    assert labels == [f["label"] for f in kind["option_fields"]]
    rows = org.page.locator("#seat-rows select")
    assert rows.count() == 2
    level = kind["bot_levels"][1 if len(kind["bot_levels"]) > 1 else 0]
    rows.nth(1).select_option(label=f"A bot ({level})")
    assert not org.page.evaluate(SMALL_CONTROLS)
    no_overflow(org, "the front page at 390 px")
    shot(org.page, "front-phone.png")
    assert not org.js_errors(), org.js_errors()
    assert org.failed == []  # type: ignore[attr-defined]  # (the page asks for nothing missing)
    org.page.locator("#start").tap()
    org.page.wait_for_url(re.compile(r".*/games/\d+/table/$"))
    game_id = int(org.page.url.rstrip("/").split("/")[-2])
    # the table page, for this browser's throw-away organiser: the phone seat's code and QR
    org.page.wait_for_selector("#seats img.qr")
    g = in_thread(game_of, game_id)
    assert g["kind"] == kind["kind"] and g["public"] is False
    assert g["creator"].startswith("guest-")
    assert [(k, lv) for k, lv, _c, _code in g["seats"]] == [("open", ""), ("bot", level)]
    code = g["seats"][0][3]
    assert org.page.inner_text("#seats .code") == code
    assert org.page.locator("#seats img.qr").count() == 1
    assert (org.page.text_content("#org-user") or "").startswith("guest-")

    # another phone: an unknown code is refused with the reason, the right one (typed in
    # lower case, with a space) opens its seat
    player = phone(browser, SMALL)
    front(player, server)
    no_overflow(player, "the front page at 360 px")
    player.page.fill("#join-code", "zzzz 2222")
    player.page.locator("#join-form button").tap()
    player.page.wait_for_function("() => document.getElementById('join-error').textContent")
    said = player.page.inner_text("#join-error")
    assert "No seat has the code ZZZZ2222" in said, said
    assert player.page.url == server.http + "/"
    player.page.fill("#join-code", "#!")
    player.page.locator("#join-form button").tap()
    player.page.wait_for_function(
        "() => document.getElementById('join-error').textContent.includes('letters and digits')")
    player.page.fill("#join-code", f"{code[:4].lower()} {code[4:].lower()}")
    player.page.locator("#join-form button").tap()
    player.page.wait_for_url(f"{server.http}/join/{code}/")
    no_overflow(player, "the seat's join form at 360 px")
    player.page.fill("#name", "Ann")
    player.page.locator("#open-seats button").tap()
    player.page.wait_for_selector("#play:not([hidden])")
    player.page.wait_for_function(
        "() => document.getElementById('conn').textContent === 'connected'")
    assert in_thread(game_of, game_id)["seats"][0][2] is True  # (the seat is taken)
    org.page.wait_for_function("() => !document.querySelector('#seats img.qr')")
    # (the one refusal: the unknown code's lookup, which the browser logs)
    assert player.failed == [f"404 {server.http}/api/codes/ZZZZ2222/"]  # type: ignore[attr-defined]
    errors = [e for e in player.js_errors() if "status of 404" not in e]
    assert not errors, errors


def league_fixture(kind: str) -> dict[str, Any]:
    """A league of ``kind`` with two members (ann, bob), a season and its first round opened:
    a fixture's table with a seat kept for each."""
    import datetime

    from django.contrib.auth.models import User

    from server.leagues import fixtures
    from server.leagues.models import League, Season

    ann = User.objects.create_user("ann", password="ann-pw-1")
    bob = User.objects.create_user("bob", password="bob-pw-1")
    league = League.objects.create(name="Tuesday club", kind=kind)
    league.members.add(ann, bob)
    today = datetime.date.today()
    season = Season.objects.create(league=league, name="Spring", start=today,
                                   end=today + datetime.timedelta(days=60))
    made = fixtures.next_round(season, today=today)
    game = next(f.game for f in made if f.game is not None)
    seats = {s.user.get_username(): (s.number, s.code) for s in game.seat_set.all()}
    return {"league": league.pk, "season": season.pk, "game": game.pk, "seats": seats}


def test_a_member_logs_in_on_a_fixtures_seat_page_and_takes_the_seat(
    daphne_server: Any, browser: Any  # noqa: F811
) -> None:
    server = daphne_server
    _i, kind = the_kind(server)
    world = in_thread(league_fixture, kind["kind"])
    number, code = world["seats"]["ann"]
    w = phone(browser, SMALL)
    w.page.goto(f"{server.http}/join/{code}/")
    w.page.wait_for_selector("#member:not([hidden])")
    assert "league Tuesday club" in w.page.inner_text("#member-note")
    assert w.page.inner_text("#join-title").endswith("ann's seat")
    assert "Log in" in w.page.inner_text("#member-note")
    assert w.page.is_hidden("#open-seats") and w.page.is_hidden("#name")
    assert w.page.input_value("#member-user") == "ann"
    no_overflow(w, "the fixture's seat page at 360 px")
    shot(w.page, "seat-member-login-phone.png")
    assert not w.page.evaluate(SMALL_CONTROLS)
    # a wrong password: the reason, nothing taken
    w.page.fill("#member-password", "wrong")
    w.page.locator("#member-login button").tap()
    w.page.wait_for_function("() => document.getElementById('member-error').textContent")
    assert "wrong username or password" in w.page.inner_text("#member-error")
    w.page.fill("#member-password", "ann-pw-1")
    w.page.locator("#member-login button").tap()
    w.page.wait_for_selector("#play:not([hidden])")
    w.page.wait_for_function("() => document.getElementById('conn').textContent === 'connected'")
    welcome = next(json.loads(f) for f in w.frames if '"welcome"' in f)
    assert welcome["seat"] == number  # the socket holds the seat with the browser's session
    seats = in_thread(game_of, world["game"])["seats"]
    assert seats[number][:1] == ("user",) and seats[number][2] is True
    # the session cookie is HttpOnly: no script of the page reads it
    assert "sessionid" not in w.page.evaluate("() => document.cookie")
    # a reload keeps the seat (the session is the seat's credential)
    w.page.reload()
    w.page.wait_for_function("() => document.getElementById('conn').textContent === 'connected'")
    assert w.page.is_visible("#play")
    # the league pages fit a 360 px phone
    for path in (f"/leagues/{world['league']}/?season={world['season']}", "/leagues/",
                 f"/leagues/{world['league']}/?season=all", "/players/ann/", "/"):
        w.page.goto(server.http + path)
        no_overflow(w, path)
        if "season=" in path and "all" not in path:  # (a fixture leads to its table page)
            assert w.page.locator(f"a[href='/games/{world['game']}/table/']").count() == 1
    # (the one refusal: the wrong password, which the browser logs)
    assert w.failed == [f"401 {server.http}/api/login"]  # type: ignore[attr-defined]
    errors = [e for e in w.js_errors() if "status of 401" not in e]
    assert not errors, errors


def test_the_phone_page_installs_and_its_shell_loads_offline(
    daphne_server: Any, browser: Any  # noqa: F811
) -> None:
    server = daphne_server
    status, manifest = http(server, "GET", "/manifest.webmanifest")
    assert status == 200 and isinstance(manifest, dict)
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    assert manifest["name"] and manifest["short_name"]
    sizes = {i["sizes"] for i in manifest["icons"]}
    assert {"any", "192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        with urllib.request.urlopen(server.http + icon["src"], timeout=30) as r:
            assert r.status == 200 and r.headers["Content-Type"] == icon["type"], icon
    # a seat's own manifest opens that seat: the same document, start_url "./"
    _i, kind = the_kind(server)
    status, g = http(server, "POST", "/api/games/", {"kind": kind["kind"]})
    assert status == 201
    code = g["seats"][0]["code"]
    status, seat_manifest = http(server, "GET", f"/join/{code}/manifest.webmanifest")
    assert status == 200 and seat_manifest["start_url"] == "./"
    req = urllib.request.Request(server.http + "/sw.js")
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.headers["Content-Type"].startswith("text/javascript")
        worker = r.read().decode()
    assert "const VERSION" in worker and "/static/web/seat.js" in worker
    files = next(line for line in worker.splitlines() if line.startswith("const FILES"))
    assert "/api/" not in files and "/join/" not in files
    # static files gzipped for a browser that takes it
    req = urllib.request.Request(server.http + "/static/web/seat.js",
                                 headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in r.headers["Vary"]
        body = gzip.decompress(r.read())
    assert body == (ROOT / "server/web/static/web/seat.js").read_bytes()
    # the policy lets the manifest and the worker in, and nothing more
    with urllib.request.urlopen(server.http + "/", timeout=30) as r:
        csp = r.headers["Content-Security-Policy"]
    assert "manifest-src 'self'" in csp and "worker-src 'self'" in csp

    w = phone(browser, PHONE)
    resp = w.page.goto(f"{server.http}/join/{code}/")
    assert resp is not None and resp.status == 200
    assert w.page.eval_on_selector("link[rel=manifest]", "l => l.href") == \
        f"{server.http}/join/{code}/manifest.webmanifest"
    w.page.wait_for_function("() => window.gnStats && window.gnStats.sw === 'ready'")
    # the first load was not the worker's: it keeps the page when asked
    w.page.wait_for_function(
        "async () => !!(await caches.match(location.href, {cacheName: 'gamenight-pages'}))",
        polling=200)
    w.page.fill("#name", "Ann")
    w.page.locator("#open-seats button").tap()
    w.page.wait_for_function("() => document.getElementById('conn').textContent === 'connected'")
    # no network: the seat page's shell still opens, from the worker's copies
    w.page.context.set_offline(True)
    resp = w.page.reload()
    assert resp is not None and resp.from_service_worker
    w.page.wait_for_selector("#play:not([hidden])")
    assert w.page.inner_text(".seat-top .who")
    colour = w.page.eval_on_selector(".seat-top", "e => getComputedStyle(e).backgroundColor")
    assert colour == "rgb(45, 74, 62)"  # (seat.css came from the worker's copy)
    assert w.page.inner_text("#conn") != "connected"
    # what the worker keeps: static files and seat pages, no API answer
    kept = w.page.evaluate("""async () => {
      const out = [];
      for (const name of await caches.keys())
        for (const r of await (await caches.open(name)).keys()) out.push(new URL(r.url).pathname);
      return out; }""")
    assert kept and all(p.startswith("/static/web/") or p.startswith("/join/") for p in kept), kept
    assert f"/join/{code}/" in kept
    w.page.context.set_offline(False)
    w.page.wait_for_function(
        "() => document.getElementById('conn').textContent === 'connected'")
    errors = [e for e in w.js_errors() if "Failed to fetch" not in e and "ERR_INTERNET" not in e]
    assert not errors, errors


CSRF = "c" * 32  # (a CSRF cookie and the same token in the header, as a page sends them)


def request(server: Any, method: str, path: str, data: Any = None, cookies: str = "",
            csrf: bool = True) -> tuple[int, Any, dict[str, str]]:
    """``method path`` as a page of the site sends it: (status, JSON, the cookies set)."""
    jar = f"csrftoken={CSRF}; {cookies}" if csrf else cookies
    headers = {"Content-Type": "application/json", "Cookie": jar}
    if csrf:
        headers["X-CSRFToken"] = CSRF
    req = urllib.request.Request(server.http + path, method=method, headers=headers,
                                 data=json.dumps(data or {}).encode() if method == "POST" else None)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            status, raw, msg = r.status, r.read(), r.headers
    except urllib.error.HTTPError as err:
        status, raw, msg = err.code, err.read(), err.headers
    set_ = {line.split("=", 1)[0]: line.split(";")[0].split("=", 1)[1]
            for line in msg.get_all("Set-Cookie") or []}
    return status, json.loads(raw) if raw else None, set_


def hello(server: Any, game_id: int, seat: int, cookie: str, origin: str | None = None) -> str:
    """The answer to a seat's hello that names neither a token nor a secret, on a socket
    whose handshake carries the browser's session cookie: "welcome" or the error's code."""
    from websockets.sync.client import connect

    headers = {"Cookie": f"sessionid={cookie}"}
    if origin:
        headers["Origin"] = origin
    with connect(f"{server.ws}/ws/games/{game_id}/", additional_headers=headers) as ws:
        ws.send(json.dumps({"type": "hello", "seat": seat, "last_seq": 0}))
        while True:
            f = json.loads(ws.recv(60))
            if f["type"] == "welcome":
                return "welcome"
            if f["type"] == "error":
                return str(f["code"])


def test_a_guest_organiser_and_a_members_session_on_the_socket(
    daphne_server: Any,
) -> None:
    """The throw-away organiser needs the page's CSRF token; a browser's session holds on the
    game socket the seats its user holds, and nothing once logged out; a socket from another
    site's page is refused before any hello."""
    from websockets.exceptions import InvalidStatus

    server = daphne_server
    status, out, _ = request(server, "POST", "/api/guest/", csrf=False)
    assert (status, out["error"]["code"]) == (403, "csrf_failed")
    status, guest, cookies = request(server, "POST", "/api/guest/")
    assert status == 200 and guest["guest"] and guest["username"].startswith("guest-")
    guest_cookie = cookies["sessionid"]
    # logged in already: the same user, no second guest
    status, again, _ = request(server, "POST", "/api/guest/", cookies=f"sessionid={guest_cookie}")
    assert status == 200 and again["username"] == guest["username"] and not again["guest"]
    # the guest's table: made with its session (the page's CSRF token), its codes for it
    _i, kind = the_kind(server)
    status, g, _ = request(server, "POST", "/api/games/", {"kind": kind["kind"]},
                           cookies=f"sessionid={guest_cookie}")
    assert status == 201 and all(s["code"] for s in g["seats"])
    assert in_thread(game_of, g["id"])["creator"] == guest["username"]
    status, listed, _ = request(server, "GET", f"/api/games/{g['id']}/", csrf=False)
    assert [s["code"] for s in listed["seats"]] == [None] * len(g["seats"])  # (nobody's)

    world = in_thread(league_fixture, kind["kind"])
    number, code = world["seats"]["ann"]
    assert hello(server, world["game"], number, guest_cookie) == "forbidden"
    status, _ann, cookies = request(server, "POST", "/api/login",
                                   {"username": "ann", "password": "ann-pw-1", "session": True})
    assert status == 200
    ann_cookie = cookies["sessionid"]
    status, taken, _ = request(server, "POST", "/api/join/", {"code": code},
                               cookies=f"sessionid={ann_cookie}")
    assert status == 200 and taken["seat"] == number and taken["secret"] is None
    assert hello(server, world["game"], number, ann_cookie) == "welcome"
    assert hello(server, world["game"], 1 - number, ann_cookie) == "forbidden"  # (bob's)
    assert hello(server, world["game"], number, ann_cookie, server.http) == "welcome"
    with pytest.raises(InvalidStatus):  # (another site's page: no socket at all)
        hello(server, world["game"], number, ann_cookie, "http://evil.example")
    status, _out, _ = request(server, "POST", "/api/logout/", cookies=f"sessionid={ann_cookie}")
    assert status == 200
    assert hello(server, world["game"], number, ann_cookie) == "forbidden"
