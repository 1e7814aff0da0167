"""Logins, sessions and the login throttle (issue 26, items 2 and 3; server/games/accounts.py,
docs/protocol.md "Logging in", docs/deploy.md "Logins"), through a real daphne on the real
(test) PostgreSQL over HTTP; the table page's organiser login in a real Chromium.

Reproductions of the issue, each failing before its fix:

* every login made a new 30-day token, older ones stayed valid, and nobody could revoke
  their own: now a logout, a list of one's sessions and their revoke;
* tokens were stored as they are: a copy of the database gave working credentials;
* the table page kept the organiser's 30-day token in ``localStorage`` (a script that got
  into the page sent it away): now an HttpOnly session cookie, CSRF on every POST;
* logins were never limited: after 20 wrong passwords the right one worked, every attempt
  ran the password hasher; now a lock-out per user name and per address, 429 with the wait,
  the right password refused during it without hashing anything.

The daphne here runs ``tests/accounts_settings.py``: the server's settings with a password
hasher that notes each time it runs (tests/counting_hasher.py).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import http.client
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from server_fixtures import ROOT, start_daphne, stop_daphne
from web_browser import browser, in_thread  # noqa: F401  (the fixture)
from websockets.sync.client import connect

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]

HASHERS = ["counting_hasher.CountingHasher"]
FAILURES = 5  # GAMENIGHT_LOGIN_FAILURES of this daphne
LOCKOUT_MINUTES = 10
CSRF = "c" * 32  # (a CSRF cookie and the same token in the header, as a page sends them)
CHROME_UA = ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
             "Chrome/120.0.0.0 Safari/537.36")


@pytest.fixture
def server(transactional_db: Any, tmp_path: Path, settings: Any) -> Any:
    settings.PASSWORD_HASHERS = HASHERS  # (users made here are checked with it by daphne)
    log = tmp_path / "hashes.log"
    log.write_text("")
    srv = start_daphne(tmp_path, "accounts", {
        "DJANGO_SETTINGS_MODULE": "accounts_settings",
        "PYTHONPATH": f"{ROOT / 'tests'}:{ROOT}",
        "GAMENIGHT_TEST_HASH_LOG": str(log),
        "GAMENIGHT_LOGIN_FAILURES": str(FAILURES),
        "GAMENIGHT_LOGIN_LOCKOUT_MINUTES": str(LOCKOUT_MINUTES),
    })
    srv.hash_log = log
    try:
        yield srv
    finally:
        stop_daphne(srv)


def hashes(server: Any) -> int:
    """How many times daphne has run the password hasher so far."""
    return len(server.hash_log.read_text().splitlines())


class Answer:
    def __init__(self, status: int, headers: http.client.HTTPMessage, raw: bytes) -> None:
        self.status, self.headers, self.raw = status, headers, raw
        ctype = headers.get("Content-Type", "")
        self.json: Any = json.loads(raw) if "json" in ctype else None

    @property
    def code(self) -> str | None:
        return (self.json or {}).get("error", {}).get("code")

    def cookie(self, name: str) -> str | None:
        for line in self.headers.get_all("Set-Cookie") or []:
            if line.startswith(name + "="):
                return line.split(";")[0].split("=", 1)[1]
        return None

    def cookie_line(self, name: str) -> str:
        return next(x for x in self.headers.get_all("Set-Cookie") or [] if x.startswith(name))


def call(server: Any, method: str, path: str, data: Any = None, source: str = "127.0.0.1",
         raw: bytes | None = None, **headers: str) -> Answer:
    """One HTTP request to daphne from the loopback address ``source`` (127.x.y.z: each is
    another client address to the server)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30,
                                      source_address=(source, 0))
    try:
        body = raw if raw is not None else (json.dumps(data).encode() if data is not None
                                            else None)
        hdrs = {"Content-Type": "application/json", **{k.replace("_", "-"): v
                                                         for k, v in headers.items()}}
        conn.request(method, path, body=body, headers=hdrs)
        r = conn.getresponse()
        return Answer(r.status, r.msg, r.read())
    finally:
        conn.close()


def make_user(django_user_model: Any, name: str, **kw: Any) -> Any:
    return django_user_model.objects.create_user(name, password=f"{name}-pw", **kw)


def login(server: Any, name: str, password: str | None = None, source: str = "127.0.0.1",
          **headers: str) -> Answer:
    return call(server, "POST", "/api/login", {"username": name,
                                              "password": password or f"{name}-pw"},
                source=source, **headers)


def token(answer: Answer) -> dict[str, str]:
    assert answer.status == 200, (answer.status, answer.raw)
    return {"Authorization": f"Token {answer.json['token']}"}


def me(server: Any, auth: dict[str, str], source: str = "127.0.0.1") -> int:
    return call(server, "GET", "/api/me/", source=source, **auth).status


# ------------------------------------------------------------------------------ sessions


def test_logout_and_a_users_own_sessions_revoke_logins(server: Any, django_user_model: Any):
    """Reproduction (issue 26, 3): every login made a new token, older ones stayed valid,
    and a user could not revoke them."""
    from server.games import creating

    make_user(django_user_model, "ann")
    make_user(django_user_model, "bob")
    a = login(server, "ann", User_Agent="curl/8.5.0")
    b = login(server, "ann", User_Agent="gamenight-app/0.1 (Android)")
    c = login(server, "ann", source="127.0.0.2", User_Agent=CHROME_UA)
    ta, tb, tc = token(a), token(b), token(c)
    assert all(me(server, t) == 200 for t in (ta, tb, tc))
    listing = call(server, "GET", "/api/sessions/", **ta)
    assert listing.status == 200
    got = {s["id"]: s for s in listing.json["sessions"]}
    assert set(got) == {a.json["session"], b.json["session"], c.json["session"]}
    sa, sb, sc = (got[x.json["session"]] for x in (a, b, c))
    assert [s["current"] for s in (sa, sb, sc)] == [True, False, False]
    assert (sa["client"], sb["client"], sc["client"]) == (
        "curl", "gamenight app 0.1 on Android", "Chrome on Linux")
    assert (sa["address"], sc["address"]) == ("127.0.0.1", "127.0.0.2")
    for s in (sa, sb, sc):
        assert s["kind"] == "api" and s["last_used_at"] is not None
        made, until = dt.datetime.fromisoformat(s["created_at"]), dt.datetime.fromisoformat(
            s["expires_at"])
        assert until - made == dt.timedelta(days=30)
        assert "token" not in s and "digest" not in s
    assert a.json["expires_at"] == sa["expires_at"]

    # used from another address: the list says where it was last used from
    assert me(server, tc, source="127.0.0.3") == 200
    sc = {s["id"]: s for s in call(server, "GET", "/api/sessions/", **ta).json["sessions"]}[
        c.json["session"]]
    assert (sc["address"], sc["last_address"]) == ("127.0.0.2", "127.0.0.3")

    # another user neither sees nor revokes ann's
    tbob = token(login(server, "bob"))
    assert [s["current"] for s in call(server, "GET", "/api/sessions/",
                                       **tbob).json["sessions"]] == [True]
    r = call(server, "POST", f"/api/sessions/{a.json['session']}/revoke/", {}, **tbob)
    assert r.status == 404 and r.code == "not_found"
    assert me(server, ta) == 200

    # ann revokes the app's login from curl's
    r = call(server, "POST", f"/api/sessions/{b.json['session']}/revoke/", {}, **ta)
    assert r.status == 200 and r.json == {"revoked": 1}
    assert me(server, tb) == 401 and me(server, ta) == 200
    # a revoked token opens no seat on the game socket either
    g = creating.create_game("teeko", {}, [{"kind": "user", "username": "ann"}, {"kind": "open"}])
    for auth, want in ((tb, "error"), (tc, "welcome")):
        with connect(f"ws://127.0.0.1:{server.port}/ws/games/{g.pk}/") as ws:
            ws.send(json.dumps({"type": "hello", "seat": 0, "last_seq": 0,
                                "token": auth["Authorization"][6:]}))
            frame = json.loads(ws.recv(30))
            assert frame["type"] == want, frame
            if want == "error":
                assert frame["code"] == "forbidden"

    # every other login of ann's at once
    r = call(server, "POST", "/api/sessions/revoke_others/", {}, **ta)
    assert r.status == 200 and r.json == {"revoked": 1}
    assert me(server, tc) == 401 and me(server, ta) == 200 and me(server, tbob) == 200
    assert [s["id"] for s in call(server, "GET", "/api/sessions/", **ta).json["sessions"]] == [
        a.json["session"]]

    # the logout revokes the token it is made with
    r = call(server, "POST", "/api/logout/", {}, **ta)
    assert r.status == 200 and r.json == {"logged_out": True}
    assert me(server, ta) == 401
    for method, path, want in (("POST", "/api/logout/", (401, "not_logged_in")),
                               ("GET", "/api/sessions/", (401, "not_logged_in")),
                               ("POST", "/api/sessions/revoke_others/", (401, "not_logged_in")),
                               ("GET", "/api/logout/", (405, "method_not_allowed")),
                               ("POST", f"/api/sessions/{10**17}/revoke/",
                                (404, "not_found"))):
        r = call(server, method, path, {} if method == "POST" else None,
                 **(ta if want[0] == 401 else tbob))
        assert (r.status, r.code) == want, (method, path, r.raw)


def test_a_copy_of_the_database_gives_no_working_credential(server: Any,
                                                            django_user_model: Any):
    """Only the SHA-256 of a key is stored; the browser's session is a signed cookie (no
    session table): no table holds a key, and what the table holds is no key."""
    from django.contrib.sessions.backends.signed_cookies import SessionStore
    from django.db import connection

    from server.games.accounts import SESSION_TOKEN

    make_user(django_user_model, "ann")
    key = login(server, "ann").json["token"]
    # a browser login needs the page's CSRF token; a bad flag is refused, nothing made
    body = {"username": "ann", "password": "ann-pw", "session": True}
    r = call(server, "POST", "/api/login", body)
    assert (r.status, r.code, r.cookie("sessionid")) == (403, "csrf_failed", None)
    r = call(server, "POST", "/api/login", {**body, "session": "yes"},
             Cookie=f"csrftoken={CSRF}", X_CSRFToken=CSRF)
    assert (r.status, r.code) == (400, "malformed")
    r = call(server, "POST", "/api/login", body, Cookie=f"csrftoken={CSRF}",
             X_CSRFToken="d" * 32)
    assert (r.status, r.code) == (403, "csrf_failed")
    browser_login = call(server, "POST", "/api/login", {"username": "ann", "password": "ann-pw",
                                                        "session": True},
                         Cookie=f"csrftoken={CSRF}", X_CSRFToken=CSRF)
    assert browser_login.status == 200 and "token" not in browser_login.json
    cookie = browser_login.cookie("sessionid")
    browser_key = SessionStore(session_key=cookie).load()[SESSION_TOKEN]
    assert me(server, {"Cookie": f"sessionid={cookie}"}) == 200
    with connection.cursor() as cur:
        cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        tables = [t for (t,) in cur.fetchall()]
        dump = []
        for t in tables:
            cur.execute(f'SELECT t::text FROM "{t}" t')
            dump += [row for (row,) in cur.fetchall()]
    text = "\n".join(dump)
    assert "games_token" in tables and len(dump) > 10
    for k in (key, browser_key):
        assert k not in text
        assert hashlib.sha256(k.encode()).hexdigest() in text  # (what is stored instead)
    # what the copy holds works as no credential
    for digest in re.findall(r"\b[0-9a-f]{64}\b", text):
        assert me(server, {"Authorization": f"Token {digest}"}) == 401


def test_the_app_logs_out_for_real_and_says_what_it_is(server: Any, django_user_model: Any):
    """The Kivy app's lobby (client_kivy/vm/lobby.py): its login is listed as the app's, and
    logging out revokes its token at the server."""
    from client_kivy.vm.lobby import Lobby
    from client_kivy.vm.net import USER_AGENT

    make_user(django_user_model, "ann")

    class Settings(dict[str, Any]):
        def set(self, key: str, value: Any) -> None:
            self[key] = value

    settings = Settings()
    lobby = Lobby(settings, background=False)
    lobby.connect(f"127.0.0.1:{server.port}", username="ann", password="ann-pw")
    assert lobby.error == "" and lobby.username == "ann"
    key = settings["token"]
    listing = call(server, "GET", "/api/sessions/", Authorization=f"Token {key}").json
    system = USER_AGENT.split("(")[1].rstrip(")")
    assert [s["client"] for s in listing["sessions"]] == [f"gamenight app 0.1 on {system}"]
    # logging in again replaces the stored login: the old one is revoked
    lobby.connect(f"127.0.0.1:{server.port}", username="ann", password="ann-pw")
    assert settings["token"] != key and me(server, {"Authorization": f"Token {key}"}) == 401
    key = settings["token"]
    lobby.logout()
    assert settings["token"] == "" and me(server, {"Authorization": f"Token {key}"}) == 401


# ------------------------------------------------------------------------------ throttle


def shift_failures(minutes: float) -> None:
    """As if ``minutes`` had passed since every failed login counted so far."""
    from axes.models import AccessAttempt

    for a in AccessAttempt.objects.all():
        AccessAttempt.objects.filter(pk=a.pk).update(
            attempt_time=a.attempt_time - dt.timedelta(minutes=minutes))


def failures() -> int:
    from axes.models import AccessAttempt

    return sum(a.failures_since_start for a in AccessAttempt.objects.all())


def locked(r: Answer, seen: dict[str, Any] | None = None) -> int:
    """Check a throttle's answer; the wait it gives, in seconds."""
    assert r.status == 429 and r.code == "locked_out", (r.status, r.raw)
    wait = r.json["error"]["retry_after"]
    assert isinstance(wait, int) and 0 < wait <= LOCKOUT_MINUTES * 60
    assert r.headers["Retry-After"] == str(wait)
    reason = r.json["error"]["reason"]
    assert reason.startswith("too many failed logins for this user name or from this address")
    assert re.search(r"try again in \d+ (minutes|seconds)$", reason), reason
    return int(wait)


def test_logins_are_throttled_per_user_name_and_per_address(server: Any,
                                                            django_user_model: Any):
    """Reproduction (issue 26, 3): no limit, no lock-out (after 20 wrong passwords the right
    one worked), every attempt ran the hasher. Now FAILURES wrong ones lock the user name
    (from whatever addresses) and the address (whatever names); during the lock even the
    right password is refused, with the wait, and nothing is hashed."""
    for name in ("ann", "bob", "cy", "di"):
        make_user(django_user_model, name)

    # a wrong password and a wrong user name: the same answer, one hash each
    before = hashes(server)
    wrong_password = login(server, "ann", "nope", source="127.0.1.1")
    assert hashes(server) == before + 1
    wrong_name = login(server, "nobody", "nope", source="127.0.1.2")
    assert hashes(server) == before + 2
    assert (wrong_password.status, wrong_password.raw) == (wrong_name.status, wrong_name.raw)
    assert wrong_password.json == {"error": {"code": "bad_credentials",
                                             "reason": "wrong username or password"}}
    # a name longer than any user's, a long program name: the same answer, never a 500
    for name, agent in (("x" * 5000, "curl/8"), ("zed", "y" * 5000)):
        r = login(server, name, "nope", source="127.0.1.3", User_Agent=agent)
        assert (r.status, r.raw) == (401, wrong_name.raw)

    # per user name: ann's password guessed from a new address each time
    for i in range(2, FAILURES):
        assert login(server, "ann", f"guess{i}", source=f"127.0.1.{i + 10}").status == 401
    wait = locked(login(server, "ann", "last-guess", source="127.0.1.30"))
    assert wait > (LOCKOUT_MINUTES - 2) * 60  # (just locked: about the whole lock-out)
    counted, before = failures(), hashes(server)
    for source in ("127.0.1.31", "127.0.1.1"):  # the right password, from a fresh address too
        locked(login(server, "ann", source=source))
    assert hashes(server) == before  # (refused before the hasher)
    assert failures() == counted  # (refused attempts are not counted: no longer lock)
    # the others, from those addresses, are not locked
    assert login(server, "bob", source="127.0.1.31").status == 200

    # per address: one address guessing many names (existing or not: alike)
    names = ["u1", "bob", "u2", "u3", "cy"]
    answers = [login(server, n, "nope", source="127.0.2.1") for n in names]
    assert [a.status for a in answers] == [401] * (FAILURES - 1) + [429]
    assert len({a.raw for a in answers[:-1]}) == 1  # (existing name or not: the same)
    before = hashes(server)
    locked(login(server, "di", source="127.0.2.1"))  # di never failed: the address is locked
    assert hashes(server) == before
    assert login(server, "di", source="127.0.2.2").status == 200
    # a forwarding header from the client moves nothing (daphne trusts none by default)
    locked(login(server, "di", source="127.0.2.1", X_Forwarded_For="10.1.2.3",
                 X_Real_IP="10.1.2.3"))

    # the wait shrinks as time passes, and the lock ends after it
    shift_failures(LOCKOUT_MINUTES / 2)
    wait = locked(login(server, "ann", source="127.0.1.40"))
    assert wait <= LOCKOUT_MINUTES * 60 / 2
    shift_failures(LOCKOUT_MINUTES / 2 + 0.1)
    assert login(server, "ann", source="127.0.1.40").status == 200
    assert login(server, "cy", source="127.0.2.1").status == 200


def test_the_admin_login_is_throttled_alike(server: Any, django_user_model: Any):
    """The admin's login form counts with the API's: locked after FAILURES, the right
    password refused with a 429 saying the wait; a browser login is a session row."""
    from server.games.models import Token

    make_user(django_user_model, "boss", is_staff=True, is_superuser=True)
    form = {"Content_Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={CSRF}"}

    def admin_login(password: str) -> Answer:
        body = f"csrfmiddlewaretoken={CSRF}&username=boss&password={password}&next=/admin/"
        return call(server, "POST", "/admin/login/?next=/admin/", raw=body.encode(),
                    source="127.0.3.1", **form)

    ok = admin_login("boss-pw")
    assert ok.status == 302 and ok.cookie("sessionid")
    assert "HttpOnly" in ok.cookie_line("sessionid")
    assert "SameSite=Lax" in ok.cookie_line("sessionid")
    rows = list(Token.objects.filter(user__username="boss").values_list("kind", "address"))
    assert rows == [("browser", "127.0.3.1")]
    page = call(server, "GET", "/admin/", Cookie=f"sessionid={ok.cookie('sessionid')}")
    assert page.status == 200 and b"boss" in page.raw
    for i in range(FAILURES - 1):
        assert admin_login(f"guess{i}").status == 200  # (the form again, with its error)
    refused = admin_login("guess-last")
    assert refused.status == 429 and "try again in" in refused.raw.decode()
    before = hashes(server)
    refused = admin_login("boss-pw")
    assert refused.status == 429 and int(refused.headers["Retry-After"]) > 0
    assert refused.raw.decode().startswith("Too many failed logins")
    assert hashes(server) == before
    locked(login(server, "boss", source="127.0.3.2"))  # (the same name through the API)
    # revoked in the admin's list of logins: the admin's own session ends
    Token.objects.filter(user__username="boss").delete()
    page = call(server, "GET", "/admin/", Cookie=f"sessionid={ok.cookie('sessionid')}")
    assert page.status == 302 and "/admin/login/" in page.headers["Location"]


# ------------------------------------------------------------------------------ the table page


def test_no_page_keeps_a_token_in_local_storage():
    """(issue 26, 1) the table page kept the organiser's token in localStorage; no page
    writes any credential there now (the seat pages keep their seat's secret: a seat, not
    an account)."""
    static = ROOT / "server" / "web" / "static" / "web"
    for path in static.glob("*.js"):
        text = path.read_text()
        assert not re.search(r"localStorage\.setItem\([^)]*token", text, re.I), path.name
        assert "Authorization: `Token ${token}`" not in text, path.name


def test_table_page_organiser_login_is_an_httponly_session_with_csrf(
    server: Any, django_user_model: Any, browser: Any  # noqa: F811
) -> None:
    """Reproduction (issue 26, 1, the credentials): a script in the table page read the
    organiser's 30-day token from localStorage. Now the login is an HttpOnly, SameSite
    session cookie no script reads; a POST without the page's CSRF token acts as nobody;
    the logout ends it (the cookie replayed is worth nothing), and the page lists the
    organiser's logins with a logout for each."""
    from server.games import creating

    def setup() -> int:
        make_user(django_user_model, "org")
        g = creating.create_game("teeko", {}, [{"kind": "guest", "name": "Ann"},
                                            {"kind": "open"}],
                              created_by=django_user_model.objects.get(username="org"))
        return int(g.pk)

    gid = in_thread(setup)
    old = token(login(server, "org"))  # (an older page kept this one in localStorage)
    script = token(login(server, "org", User_Agent="curl/8.5.0"))  # (another login of org's)
    ctx = browser.new_context()
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    url = f"{server.http}/games/{gid}/table/"
    page.goto(url)
    page.evaluate("(t) => localStorage.setItem('gamenight-token', t)",
                  old["Authorization"][6:])
    page.reload()
    # the old token is forgotten by the page and revoked at the server
    deadline = time.time() + 30
    while me(server, old) != 401:
        assert time.time() < deadline, "the page did not revoke the old token"
        time.sleep(0.1)
    assert page.evaluate("() => localStorage.getItem('gamenight-token')") is None
    assert page.locator("#org-in").is_hidden()

    page.locator("#organiser > summary").click()
    page.fill("#user", "org")
    page.fill("#password", "wrong")
    page.locator("#login button").click()
    page.wait_for_function("() => document.getElementById('org-error').textContent !== ''")
    assert page.text_content("#org-error") == "wrong username or password"
    page.fill("#password", "org-pw")
    page.locator("#login button").click()
    page.wait_for_selector("#org-in:not([hidden])")
    assert page.text_content("#org-user") == "org"
    page.wait_for_selector("#seats li[data-seat='0'] button:text('To a bot')")

    cookies = {c["name"]: c for c in ctx.cookies()}
    session = cookies["sessionid"]
    assert session["httpOnly"] and session["sameSite"] == "Lax"
    assert "sessionid" not in page.evaluate("() => document.cookie")  # (no script reads it)
    stored = page.evaluate("() => JSON.stringify({...localStorage, ...sessionStorage})")
    assert "token" not in stored.lower() and session["value"] not in stored

    # without the page's CSRF token a POST acts as nobody, even with the cookie
    status = page.evaluate(f"""async () => (await fetch('/api/games/{gid}/seats/0/bot/',
        {{method: 'POST', headers: {{'Content-Type': 'application/json'}}, body: '{{}}'}}))
        .status""")
    assert status == 403
    r = call(server, "POST", f"/api/games/{gid}/seats/0/bot/", {},
             Cookie=f"sessionid={session['value']}")
    assert r.status == 403 and r.code == "forbidden"
    # a page of another site cannot either (SameSite: its POST carries no cookie)
    page2 = ctx.new_page()
    page2.goto(f"http://localhost:{server.port}/healthz")
    page2.evaluate(f"""async () => {{ try {{ await fetch(
        'http://127.0.0.1:{server.port}/api/games/{gid}/seats/0/bot/',
        {{method: 'POST', mode: 'no-cors', credentials: 'include', body: '{{}}'}}); }}
        catch (e) {{}} }}""")
    page2.close()
    assert [s["kind"] for s in call(server, "GET", f"/api/games/{gid}/").json["seats"]] == [
        "guest", "open"]

    # the page's own button, with its token: seat 0 to a bot (once confirmed)
    page.locator("#seats li[data-seat='0'] button:text('To a bot')").click()
    page.locator(".gn-confirm-yes").click()
    deadline = time.time() + 30
    while call(server, "GET", f"/api/games/{gid}/").json["seats"][0]["kind"] != "bot":
        assert time.time() < deadline, page.text_content("#org-error")
        time.sleep(0.1)

    # where org is logged in: this browser and the script; "everywhere else" ends the script's
    assert not page.locator("#login").is_visible()  # (the form is gone once logged in)
    page.locator("#org-sessions > summary").click()
    page.wait_for_function("() => document.querySelectorAll('#sessions li').length === 2")
    texts = page.locator("#sessions li").all_text_contents()
    assert any("this browser" in t for t in texts) and any(t.startswith("curl") for t in texts)
    page.locator("#revoke-others").click()
    page.wait_for_function("() => document.querySelectorAll('#sessions li').length === 1")
    assert me(server, script) == 401

    # the logout ends the session: the cookie, replayed, is worth nothing
    assert me(server, {"Cookie": f"sessionid={session['value']}"}) == 200
    page.locator("#logout").click()
    page.wait_for_selector("#org-out:not([hidden])")
    assert me(server, {"Cookie": f"sessionid={session['value']}"}) == 401
    assert page.locator("#seats button").count() == 0
    page.reload()
    page.wait_for_selector("#seats li")
    assert page.locator("#org-in").is_hidden()
    assert not errors, errors
    ctx.close()
