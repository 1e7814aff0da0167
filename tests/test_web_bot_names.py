"""Server bots are named by seat on the web pages, as the app and the live game name them
("Bot East", not "Bot (easy)" three times): the table page, a phone's seat page, the game
page, the front page's list and the server's words (server/games/wording.py player_names,
static/web/common.js playerNames; core.wording.told_apart). In Chromium against a real
daphne (each check fails on the code before: "Bot (easy)" everywhere)."""

from __future__ import annotations

from typing import Any

import pytest
from test_web_seats import PHONE, join_phones, organiser_table
from web_browser import browser, in_thread, open_page  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(400)]

BOTS = ["Bot East", "Bot South", "Bot West"]


def page_text(w: Any) -> str:
    return str(w.page.evaluate("() => document.body.innerText + ' ' + "
                               "[...document.querySelectorAll('svg')].map((s) => "
                               "s.textContent).join(' ')"))


def says_bots(w: Any) -> None:
    """Wait until the page names the three bots by seat; no "Bot (easy)" on it then."""
    w.page.wait_for_function(
        "(bots) => { const t = document.body.innerText + ' ' + [...document.querySelectorAll("
        "'svg')].map((s) => s.textContent).join(' '); return bots.every((b) => t.includes(b)); }",
        arg=BOTS)
    text = page_text(w)
    assert "Bot (easy)" not in text, text  # (the front page's form offers "A bot (easy)")


def test_pages_name_server_bots_by_seat(daphne_server: Any, browser: Any,  # noqa: F811
                                        django_user_model: Any) -> None:
    server = daphne_server
    g, table = organiser_table(browser, server, django_user_model, {
        "kind": "teka", "options": {"target": 52}, "public": True,
        "seats": [{"kind": "open"}] + [{"kind": "bot", "level": "easy"}] * 3,
    })
    says_bots(table)  # the table page, before anyone sat down
    assert table.js_errors() == []
    # the server's own names, which word its sentences
    from server.games.models import Game
    from server.web.views import seat_names

    names = in_thread(lambda: seat_names(Game.objects.prefetch_related("seat_set")
                                         .get(pk=g["id"])))
    assert names[1:] == BOTS, names
    # a phone sits down: its seat page, and the table page after it, say the same
    (phone,) = join_phones(browser, server, g, ["Zed"])
    says_bots(phone)
    assert phone.js_errors() == []
    says_bots(table)
    # the game page of the live game
    page = open_page(browser, f"{server.http}/games/{g['id']}/", *PHONE)
    says_bots(page)
    assert page.js_errors() == []
    # the front page's list of games in progress (a public table)
    home = open_page(browser, f"{server.http}/", 1280, 800)
    says_bots(home)
