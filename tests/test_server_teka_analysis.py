"""``GET /api/games/<id>/analysis/`` for a finished Teka match, over real HTTP on two real
daphne processes and the test PostgreSQL: 202 with the progress while it is computed in the
background, one computation for every request of both processes, then the analysis from the
file cache; 409 for a live match, never a 500."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from server_fixtures import start_daphne, stop_daphne
from teka_match import BID, THROW, teka_match, throwing

from server.games import creating
from server.games.models import Game

pytestmark = pytest.mark.django_db(transaction=True)


def get(url: str, method: str = "GET") -> tuple[int, Any, dict[str, str]]:
    req = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read()), dict(r.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read()), dict(exc.headers)


def test_a_finished_match_is_analysed_once_in_the_background(
    transactional_db: Any, tmp_path: Path
) -> None:
    g = creating.import_game("teka", None, None, teka_match(throwing(THROW), bid=BID + 1))
    assert g.status == Game.FINISHED
    live = creating.create_game("teka", {}, [{"kind": "open"}] * 4)
    cache = tmp_path / "analysis"
    env = {"GAMENIGHT_ANALYSIS_DIR": str(cache), "GAMENIGHT_TEKA_SOLVE_SECONDS": "20"}
    servers = [start_daphne(tmp_path, f"daphne{i}", env) for i in range(2)]
    try:
        url = [f"{s.http}/api/games/{g.pk}/analysis/" for s in servers]
        with ThreadPoolExecutor(6) as pool:
            first = list(pool.map(lambda i: get(url[i % 2]), range(6)))
        statuses = [s for s, _, _ in first]
        assert set(statuses) <= {200, 202} and 202 in statuses, first
        for status, body, headers in first:
            if status == 202:
                assert body["state"] in ("queued", "computing"), body
                assert headers["Retry-After"] == "2" and body["retry_after"] == 2
                assert body["progress"] in ("starting", "hand 1 of 1", "next in the queue")
        deadline = time.monotonic() + 120
        while True:
            status, a, _ = get(url[1])
            if status == 200:
                break
            assert status == 202, a
            assert time.monotonic() < deadline, "the analysis did not finish in 2 minutes"
            time.sleep(0.2)
        assert a["id"] == g.pk and a["game"] == "teka" and a["cut_short"] == []
        (h,) = a["hands"]
        assert h["par"] == 10 and h["verdict"] == "overbid"
        assert h["outcome"] == "made_against_par" and h["swing"] == [11, -22]
        assert [(c["n"], c["seat"], c["card"], c["cost"]) for c in h["cards"] if c["cost"]] == [
            (2, 1, "AH", 1)
        ]
        assert h["cards"][1]["best"][:3] == ["AD", "KD", "QD"]
        assert a["summary"]["decisive"] == [1]
        assert a["budget"]["seconds_per_solve"] == 20 and a["budget"]["cut_short"] == 0
        assert a["partial"] is False and "partial_reason" not in a
        # the other process answers from the same cache; one computation in all
        status, again, _ = get(url[0])
        assert status == 200 and again == a
        logs = [s.log.read_text(errors="replace") for s in servers]
        # (each start is logged once, with the time; a second handler echoes it bare)
        started = [line for text in logs for line in text.splitlines()
                   if f"WARNING  analysing match {g.pk} " in line]
        assert len(started) == 1, [line for text in logs for line in text.splitlines()
                                   if "nalys" in line]
        from server.games.models import ChainHead

        head = ChainHead.objects.get(game_id=g.pk).head
        assert sorted(p.name for p in cache.iterdir() if not p.name.endswith(".lock")) == [
            "queue.json", f"teka-{g.pk}-v1-{head[:16]}.json"
        ]
        assert json.loads((cache / "queue.json").read_text()) == {"jobs": []}
        # never for a live match, nor another method; errors as JSON
        status, err, _ = get(f"{servers[0].http}/api/games/{live.pk}/analysis/")
        assert status == 409 and err["error"]["code"] == "not_finished"
        status, err, _ = get(url[0], "POST")
        assert status == 405 and err["error"]["code"] == "method_not_allowed"
        status, err, _ = get(f"{servers[0].http}/api/games/999999/analysis/")
        assert status == 404 and err["error"]["code"] == "not_found"
    finally:
        for s in servers:
            stop_daphne(s)


def test_a_cache_that_cannot_be_written_is_a_503_with_a_reason(
    client: Any, tmp_path: Path, settings: Any
) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    settings.GAMENIGHT = {**settings.GAMENIGHT, "ANALYSIS_DIR": str(blocked / "analysis")}
    g = creating.import_game("teka", None, None, teka_match(throwing(THROW)))
    r = client.get(f"/api/games/{g.pk}/analysis/")
    assert r.status_code == 503, r.content
    err = r.json()["error"]
    assert err["code"] == "unavailable" and "cannot be kept" in err["reason"]
    assert str(tmp_path) not in err["reason"]  # (no path of the server's)


def test_a_failed_analysis_is_a_503_with_its_reason_not_a_retry_loop(
    client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    import core.teka_analysis

    def broken(*args: object, **kw: object) -> object:
        raise ValueError("a deliberate failure")

    settings.GAMENIGHT = {**settings.GAMENIGHT, "ANALYSIS_DIR": str(tmp_path / "analysis")}
    monkeypatch.setattr(core.teka_analysis, "analyse", broken)
    g = creating.import_game("teka", None, None, teka_match(throwing(THROW)))
    r = client.get(f"/api/games/{g.pk}/analysis/")
    assert r.status_code == 202, r.content
    deadline = time.monotonic() + 120
    while r.status_code == 202:
        assert time.monotonic() < deadline
        time.sleep(0.1)
        r = client.get(f"/api/games/{g.pk}/analysis/")
    assert r.status_code == 503, r.content
    err = r.json()["error"]
    assert err["code"] == "analysis_failed" and "a deliberate failure" in err["reason"]
    # asked again at once: the same answer, no new computation
    assert client.get(f"/api/games/{g.pk}/analysis/").status_code == 503
