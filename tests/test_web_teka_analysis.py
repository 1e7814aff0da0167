"""The Teka analysis in the browser replay (server/web/static/web/teka_analysis.js): chromium
through Playwright, a real daphne computing the analysis on the test PostgreSQL. The page says
"computing…" until the server has it, then marks each costly card, shows the deal and par
when the hand's replay starts and the par beside the score line, as the API gives them."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from server_fixtures import start_daphne, stop_daphne
from teka_match import BID, SEATS, THROW, teka_match, throwing
from web_browser import WAIT_MS, Watched, browser, in_thread  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(300)]


def analysis_of(server: Any, game_id: int) -> Any:
    """The analysis from the API, once computed."""
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(f"{server.http}/api/games/{game_id}/analysis/",
                                        timeout=30) as r:
                body = json.loads(r.read())
                if r.status == 200:
                    return body
        except urllib.error.HTTPError as exc:
            raise AssertionError(exc.read()) from None
        assert time.monotonic() < deadline
        time.sleep(0.3)


def shots() -> Path | None:
    """Where to keep the screenshots (``GAMENIGHT_SCREENSHOTS``), if anywhere."""
    own = os.environ.get("GAMENIGHT_SCREENSHOTS", "")
    return Path(own) if own else None


def test_teka_replay_shows_the_analysis_as_the_api_gives_it(
    transactional_db: Any, tmp_path: Path, browser: Any  # noqa: F811
) -> None:
    from server.games import creating

    events = teka_match(throwing(THROW), bid=BID + 1)
    game_id = in_thread(lambda: creating.import_game("teka", None, SEATS, events).pk)
    server = start_daphne(tmp_path, "web-teka-analysis",
                          {"GAMENIGHT_ANALYSIS_DIR": str(tmp_path / "analysis")})
    try:
        ctx = browser.new_context(viewport={"width": 1280, "height": 800})
        ctx.set_default_timeout(WAIT_MS)
        page = ctx.new_page()
        w = Watched(page)
        answers: list[int] = []
        page.on("response", lambda r: answers.append(r.status) if "/analysis/" in r.url else None)
        asked: list[str] = []
        page.on("request", lambda r: asked.append(r.url) if "/analysis/" in r.url else None)
        # the first position after the trumps are named: the hand's replay starts
        trumps_seq = 1 + next(i for i, e in enumerate(events) if e["type"] == "trumps")
        page.goto(f"{server.http}/games/{game_id}/?seq={trumps_seq}")
        page.wait_for_function("() => window.gnStats && window.gnStats.analysis === 'computing'")
        assert "computing…" in page.text_content("#analysis")
        page.wait_for_function("() => window.gnStats.analysis === 'shown'", timeout=120_000)
        assert answers[0] == 202 and answers[-1] == 200, answers
        # the open replay says so: its match goes first in the server's queue
        assert asked and all(u.endswith("/analysis/?watch=1") for u in asked), asked
        a = analysis_of(server, game_id)
        (h,) = a["hands"]
        # the marks: the play events whose card cost its side, with the cost
        plays = [i + 1 for i, e in enumerate(events) if e["type"] == "play"]
        want = [[plays[c["n"] - 1], "??" if c["cost"] > 1 else "?", str(c["cost"])]
                for c in h["cards"] if c["cost"]]
        rows = page.evaluate(
            "() => [...document.querySelectorAll('#moves li')].map(li => { "
            "const v = li.querySelector('.av.lost'); return v && [+li.dataset.seq, "
            "v.textContent, v.dataset.cost]; }).filter(Boolean)")
        assert rows == want and len(want) == 1, (rows, want)
        # the deal and its par, at the start of the hand
        page.wait_for_function(f"() => window.gnStats.index === {trumps_seq}")
        assert page.is_visible("#deal")
        deal = page.evaluate(
            "() => [...document.querySelectorAll('#deal .deal-hands li')].map(li => "
            "li.querySelector('.cards').textContent)")
        assert len(deal) == 4 and deal[0].startswith("♠A K Q J 10 9 8 7 6 5"), deal
        assert page.get_attribute("#deal .par", "data-par") == str(h["par"])
        assert f"par {h['par']} in ♠ (bid 11: overbid)" in page.text_content("#deal .par")
        # the par beside the hand's score line (the sheet at the end of the match)
        page.keyboard.press("End")
        page.wait_for_function(f"() => window.gnStats.index === {len(events)}")
        assert not page.is_visible("#deal")
        assert page.get_attribute("#sheet td.par", "data-par") == str(h["par"])
        assert "made_against_par" in (page.get_attribute("#sheet td.par", "class") or "")
        assert events[-1]["type"] == "score"  # (the match ends with the hand)
        assert "par 10 in ♠ (bid 11: overbid)" in page.text_content("#caption")
        assert "made against par" in page.text_content("#caption")
        out = shots()
        if out is not None:
            page.screenshot(path=str(out / "web-desktop-replay-teka-analysis.png"))
        # the caption of the costly card says its cost
        page.click(f'#moves button[data-seq="{want[0][0]}"]')
        page.wait_for_function(f"() => window.gnStats.index === {want[0][0]}")
        assert "? cost 1 trick (declarers 10 → 11; best ♦A ♦K ♦Q …)" in page.text_content(
            "#caption")
        page.click(f'#moves button[data-seq="{trumps_seq}"]')
        page.wait_for_function(f"() => window.gnStats.index === {trumps_seq}")
        if out is not None:
            page.screenshot(path=str(out / "web-desktop-replay-teka-deal.png"), full_page=True)
        summary = page.text_content("#analysis")
        assert "tricks lost to play" in summary and "decided the match: 1" in summary, summary
        assert w.js_errors() == []
        page.context.close()
    finally:
        stop_daphne(server)
