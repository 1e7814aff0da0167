"""The Teka analysis in the app's replay (client_kivy.vm.teka_analysis), in a real offscreen
window: a finished match replayed from a real daphne on the test PostgreSQL says
"computing..." while the server computes it, then shows the deal and par when the hand's
replay starts, the cost of the costly card in its caption and the par at the score."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from server_fixtures import start_daphne, stop_daphne
from teka_match import BID, SEATS, THROW, teka_match, throwing

from bench import testing

testing.headless(960, 640)

pytestmark = [pytest.mark.gui, pytest.mark.e2e]


@pytest.fixture(scope="module")
def app(tmp_path_factory: Any) -> Any:
    return testing.start_app(str(tmp_path_factory.mktemp("client")))


@pytest.mark.django_db(transaction=True)
def test_the_replay_of_a_finished_match_shows_its_analysis(app: Any, tmp_path: Path) -> None:
    from client_kivy.vm.net import Api
    from server.games import creating

    events = teka_match(throwing(THROW), bid=BID + 1)
    game_id = creating.import_game("teka", None, SEATS, events).pk
    server = start_daphne(tmp_path, "app-teka-analysis",
                          {"GAMENIGHT_ANALYSIS_DIR": str(tmp_path / "analysis")})
    try:
        app.lobby.api = Api(server.http)
        app.online_replay(app.lobby.api.game(game_id))
        assert testing.wait_until(lambda: app.root.current == "replay"), app.lobby.error
        replay = app.root.get_screen("replay")
        a = replay.model.teka_analysis
        assert a is not None
        seen: list[str] = []

        def ready() -> bool:
            seen.append(replay.analysis_text)
            return a.state == "ready"

        assert testing.wait_until(ready, 60), (a.state, a.reason)
        assert any(t.startswith("Analysis: computing...") for t in seen), seen
        testing.pump(2)
        # the hand's replay starts (the trumps named): the deal and par under the board
        trumps = 1 + next(i for i, e in enumerate(events) if e["type"] == "trumps")
        replay.ids.slider.value = trumps
        testing.pump(2)
        text = replay.ids.analysis.text
        assert "Hand 1: the deal" in text
        assert "(North): \u2660 A K Q J 10 9 8 7 6 5  \u2665 4 3 2" in text, text
        assert "par 10 in spades (bid 11: overbid); hearts 7, diamonds 0, clubs 0" in text
        assert replay.ids.analysis.opacity == 1
        shots = os.environ.get("GAMENIGHT_SCREENSHOTS", "")
        if shots:
            testing.screenshot(str(Path(shots) / "app-replay-teka-deal.png"))
        # the costly card: East's ace of hearts, its cost in the caption
        plays = [i + 1 for i, e in enumerate(events) if e["type"] == "play"]
        replay.ids.slider.value = plays[1]
        testing.pump(2)
        assert "played A\u2665" in replay.caption
        best = "best A\u2666 K\u2666 Q\u2666 ..."
        assert f"? cost 1 trick (declarers 10 -> 11; {best})" in replay.caption, replay.caption
        assert replay.ids.analysis.text.startswith("Double-dummy, tricks lost to play")
        replay.show_moves()
        testing.pump(2)
        marked = [line for line in replay.moves_view.lines if line.endswith("?")]
        assert marked == ["7. Bob played A\u2665  ?"], marked
        replay.moves_view.dismiss(animation=False)
        testing.pump(2)
        if shots:
            testing.screenshot(str(Path(shots) / "app-replay-teka-analysis.png"))
        # the score: the par beside it
        score = 1 + next(i for i, e in enumerate(events) if e["type"] == "score")
        replay.ids.slider.value = score
        testing.pump(2)
        assert "par 10 in spades" in replay.caption and "made against par" in replay.caption
        app.show("home")
        testing.pump(2)
    finally:
        app.lobby.api = None
        stop_daphne(server)
