"""No markup from data, on any page (issue 26): names and other text people type go into the
pages as text, never as markup, and a Content-Security-Policy stops any script that is not one
of the server's own files.

* the pages' JavaScript: every markup sink (``innerHTML``, ``insertAdjacentHTML``, ...) is one
  of a known list, and no text people type is put into markup unescaped (``esc``);
* the templates: nothing marked safe, no inline script or style element, no event handler;
* every page and every admin page answers with the policy;
* in a real browser, hostile names for guests, a bot, a league, a season and a player on
  every page and admin page: no element of theirs is made and no policy violation is
  reported (an inline handler the policy blocked would report one)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_browser import WAIT_MS, browser, in_thread  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "server" / "web" / "static" / "web"
TEMPLATES = [*ROOT.glob("server/*/templates/**/*.html")]

# ------------------------------------------------------------------ the pages' JavaScript

SINK = re.compile(
    r"\.(innerHTML|outerHTML)\s*=(?!=)|insertAdjacentHTML\s*\(|document\.write|\.srcdoc\s*="
    r"|createContextualFragment|new\s+DOMParser|\beval\s*\(|new\s+Function\s*\("
)

SINKS = {
    # file: number of markup sinks, each fed only by the file's own builders, where every
    # value that comes from data passes through esc() (checked below)
    "boards.js": 3,  # the SVG boards: patch() and draw() put svgText()/layers in place
    "game.js": 8,  # analysis notes, the move list, the players panel, the score sheet
    "tv.js": 2,  # a tile's frame, the empty note
    "table_story.js": 1,  # the table page's score sheet (boards.js sheetOf)
    "teka_analysis.js": 2,  # the analysis marks in the move list
}

TEXTY = re.compile(
    r"name|text|title|reason|label|caption|note|league|season|word|summary|who|error|message"
    r"|username|player|guest|code",
    re.IGNORECASE,
)
"""Expressions that look like words people typed (or words about them)."""

SAFE_EXPRESSIONS = {
    # (file, expression): why it is not text from data
    ("boards.js", "fitText(name.length, big, w - (pts.length + 1) * big * 0.58)"): "a number",
    ("boards.js", "fitText(detail.length, dsz, w)"): "attributes with numbers",
    ("boards.js", "fitText(head.length, hsz, W - 2 * pad)"): "attributes with numbers",
    ("boards.js", "fit(nameW)"): "attributes with numbers",
    ("boards.js", "fitText(line.length, min, width)"): "attributes with numbers",
    ("boards.js", "cyText"): "a number",
    ("boards.js", "cyText + tsz + 6"): "a number",
    ("boards.js", "cyText + 2 * tsz + 12"): "a number",
    ("boards.js", "fitText(contract.length, csz, 600)"): "attributes with numbers",
    ("boards.js", "fitText(tricks.length, tsz, 640)"): "attributes with numbers",
    ("boards.js", "fitText(t.length, 24, W - 60)"): "attributes with numbers",
    ("boards.js", "cellName"): "a cell's name from the constants (A1..I9)",
    ("teka_analysis.js", "who"): "made of esc(name) and a seat's word",
}


def template_literals(src: str) -> Iterator[tuple[int, str, list[str]]]:
    """(line, literal, [interpolated expressions]) of each template literal of ``src``
    (nested literals inside an interpolation are part of that expression)."""
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            i = j + 1
        elif src.startswith("//", i):
            i = src.find("\n", i) % (n + 1) or n
        elif src.startswith("/*", i):
            i = src.index("*/", i) + 2
        elif c == "`":
            j, exprs = i + 1, []
            while j < n and src[j] != "`":
                if src[j] == "\\":
                    j += 2
                elif src.startswith("${", j):
                    k, depth = j + 2, 1
                    while depth:
                        if src[k] == "{":
                            depth += 1
                        elif src[k] == "}":
                            depth -= 1
                        elif src[k] == "`":
                            k += 1
                            while src[k] != "`":
                                k += 2 if src[k] == "\\" else 1
                        k += 1
                    exprs.append(src[j + 2:k - 1].strip())
                    j = k
                else:
                    j += 1
            yield src.count("\n", 0, i) + 1, src[i:j + 1], exprs
            i = j + 1
        else:
            i += 1


def unescaped(name: str, src: str) -> list[str]:
    """Interpolations into markup of ``src`` that look like text and are not escaped."""
    out = []
    for line, literal, exprs in template_literals(src):
        if "<" not in literal:
            continue
        for e in exprs:
            if e.startswith("esc(") or (name, e) in SAFE_EXPRESSIONS:
                continue
            if TEXTY.search(e):
                out.append(f"{name}:{line}: ${{{e}}}")
    return out


def test_every_markup_sink_is_known_and_no_typed_text_goes_in_unescaped() -> None:
    found = {}
    problems = []
    for path in sorted(STATIC.glob("*.js")):
        src = path.read_text()
        count = len(SINK.findall(src))
        if count:
            found[path.name] = count
        problems += unescaped(path.name, src)
    assert found == SINKS, (
        "a markup sink was added or removed: use textContent / createElement for data, or "
        "build the markup with esc() and list the sink here")
    assert problems == [], "text into markup without esc(): " + "; ".join(problems)


def test_the_scan_sees_an_unescaped_name() -> None:
    """(the check above can fail: the table page's old seat list is caught)"""
    old = ("li.innerHTML = `<div class=\"name\">${seatLabel(game.kind, s.seat)}: "
           "${names[s.seat]}</div>`;")
    assert unescaped("table.js", old) == ["table.js:1: ${seatLabel(game.kind, s.seat)}",
                                          "table.js:1: ${names[s.seat]}"]
    assert SINK.findall(old)
    assert unescaped("table.js", "x.innerHTML = `<b>${esc(names[s.seat])}</b>`;") == []


def test_templates_mark_nothing_safe_and_hold_no_inline_script_or_style() -> None:
    bad = []
    for path in TEMPLATES:
        text = path.read_text()
        rel = path.relative_to(ROOT)
        for pattern, why in [
            (r"\|\s*safe\b", "|safe"),
            (r"autoescape\s+off", "autoescape off"),
            (r"<script(?![^>]*\bsrc=)(?![^>]*application/json)", "an inline script"),
            (r"<style", "a <style> element (the policy refuses it: a static .css file)"),
            (r"\son[a-z]+\s*=", "an event-handler attribute"),
            (r"javascript:", "a javascript: address"),
        ]:
            if re.search(pattern, text, re.IGNORECASE):
                bad.append(f"{rel}: {why}")
    assert bad == []
    py = [p for p in ROOT.glob("server/**/*.py") if "migrations" not in p.parts]
    marked = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in py
              for m in re.finditer(r"mark_safe\(\s*f[\"']", p.read_text())]
    assert marked == [], "mark_safe of an f-string: use format_html"


# ------------------------------------------------------------------ the policy on every page

HOSTILE = [
    '<img src=x id=gnxss1 onerror="window.gnPwned=1">',
    '"><b id=gnxss2>bold</b><script>window.gnPwned=2</script>',
    "</title><svg id=gnxss3 onload=window.gnPwned=3>",
    "=cmd|' /C calc'!A0 <i id=gnxss4>x</i>",
    "'><a id=gnxss5 href=javascript:window.gnPwned=5>ok</a>",
]
"""Names of at most 60 characters (a seat's name): markup, an inline handler, a script, a
formula."""


def hostile_world() -> dict[str, Any]:
    """A league and season with hostile names, a player in it, a live Teeko table of guests
    with hostile names, a Teka table where an outsider joined an open seat with one (the
    reproduction of issue 26), a seat handed to a bot under its hostile name, and a finished
    game of hostile names (its replay)."""
    from django.contrib.auth.models import User

    from server.games import append, cache, creating, seating, tables
    from server.leagues.models import League, Season

    admin = User.objects.create_superuser("boss", "boss@example.org", "boss-password-1")
    player = User.objects.create_user("ann", password="ann-password-1",
                                      first_name=HOSTILE[0][:30], last_name=HOSTILE[2][:30])
    league = League.objects.create(name=HOSTILE[1][:60], kind="teeko")
    league.members.add(player)
    import datetime

    today = datetime.date.today()
    season = Season.objects.create(league=league, name=HOSTILE[2][:60], start=today,
                                   end=today + datetime.timedelta(days=30))
    live = creating.create_game("teeko", {}, [{"kind": "guest", "name": HOSTILE[0]},
                                            {"kind": "guest", "name": HOSTILE[1]}])
    teka = creating.create_game("teka", {}, [{"kind": "guest", "name": "Org"},
                                          {"kind": "guest", "name": "Bo"}], created_by=admin)
    seating.join_seat(teka.pk, 2, user=None, name=HOSTILE[2])
    seating.join_seat(teka.pk, 3, user=None, name=HOSTILE[4])
    tables.to_bot(teka.pk, 3, "random", admin)
    done = creating.create_game("teeko", {}, [{"kind": "guest", "name": HOSTILE[3]},
                                            {"kind": "guest", "name": HOSTILE[4]}],
                             league=league.pk, season=season.pk, created_by=admin)
    e = cache.entry(done.pk, fresh=True)
    append.submit(done.pk, 0, {"type": "resign"}, e.seq)
    return {"live": live.pk, "teka": teka.pk, "done": done.pk, "league": league.pk,
            "season": season.pk, "player": player.pk}


WATCH = """() => { window.gnViolations = []; document.addEventListener('securitypolicyviolation',
  (e) => window.gnViolations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sample)); }"""

CHECK = """() => ({
  pwned: window.gnPwned || null,
  made: [...document.querySelectorAll('[id^=gnxss]')].map((e) => e.id),
  violations: window.gnViolations || [],
  shown: document.body.innerText.includes('gnxss'),
})"""


@pytest.mark.e2e
@pytest.mark.timeout(300)
@pytest.mark.django_db(transaction=True)
def test_hostile_names_run_no_script_on_any_page_or_admin_page(
    daphne_server: Any, browser: Any  # noqa: F811
) -> None:
    w = in_thread(hostile_world)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(WAIT_MS)  # (only a hang takes this long)
    ctx.add_init_script(f"({WATCH})()")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    base = daphne_server.http

    def visit(path: str, *, shown: bool = True) -> None:
        resp = page.goto(base + path)
        assert resp is not None and resp.status == 200, (path, resp and resp.status)
        csp = resp.headers.get("content-security-policy", "")
        script_src = csp.split("script-src", 1)[-1].split(";")[0]
        assert "script-src 'self'" in csp and "unsafe" not in script_src, (path, csp)
        page.wait_for_load_state("networkidle")
        got = page.evaluate(CHECK)
        assert got["pwned"] is None and got["made"] == [] and got["violations"] == [], (path, got)
        if shown:  # the names are there, as text
            assert got["shown"], (path, "no hostile name shown as text")

    pages = [
        "/", "/tv/", f"/games/{w['live']}/", f"/games/{w['done']}/", f"/games/{w['live']}/table/",
        f"/games/{w['teka']}/table/", f"/games/{w['teka']}/", "/leagues/",
        f"/leagues/{w['league']}/", "/players/ann/",
    ]
    for path in pages:
        visit(path, shown=path not in ("/", "/tv/", "/leagues/", "/players/ann/"))
    # the admin, logged in: every list and change page where the names appear
    page.goto(base + "/admin/login/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "boss-password-1")
    page.click("input[type=submit]")
    page.wait_for_url(re.compile(r".*/admin/$"))
    for path in [
        "/admin/", "/admin/games/game/", f"/admin/games/game/{w['live']}/change/",
        f"/admin/games/game/{w['done']}/change/", f"/admin/games/game/{w['teka']}/change/",
        "/admin/games/event/", "/admin/leagues/league/",
        f"/admin/leagues/league/{w['league']}/change/",
        "/admin/leagues/season/", f"/admin/leagues/season/{w['season']}/change/",
        "/admin/auth/user/", f"/admin/auth/user/{w['player']}/change/",
    ]:
        visit(path, shown=False)
    assert errors == []
    ctx.close()
