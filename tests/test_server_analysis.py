"""``GET /api/games/<id>/analysis/``: a finished Teeko game ply by ply (core.teeko_analysis),
409 with a reason when it is not finished or no table is built, never a 500."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from teeko_stub import ANALYSED_PLIES, finished_teeko_events, install

from server.games import creating

pytestmark = pytest.mark.django_db(transaction=True)

def test_analysis_of_a_finished_game(
    client, server_runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch, tmp_path)
    g = creating.import_game("teeko", None, None, finished_teeko_events())
    r = client.get(f"/api/games/{g.pk}/analysis/")
    assert r.status_code == 200, r.content
    a = r.json()
    assert a["id"] == g.pk and a["squares"] == "axis" and len(a["plies"]) == len(ANALYSED_PLIES)
    assert [(p["ply"], p["lost"]) for p in a["plies"] if p["lost"]] == [
        (6, "draw_to_loss"),
        (7, "win_to_loss"),
    ]
    assert [s["accuracy"] for s in a["summary"]] == [0.75, 0.75]
    assert client.post(f"/api/games/{g.pk}/analysis/").status_code == 405


def test_analysis_errors_are_json_with_a_reason(
    client, server_runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GAMENIGHT_TEEKO_TABLES", str(tmp_path))  # no table there
    g = creating.import_game("teeko", None, None, finished_teeko_events("classic"))
    r = client.get(f"/api/games/{g.pk}/analysis/")
    assert r.status_code == 409
    err = r.json()["error"]
    assert err["code"] == "no_table" and "not built" in err["reason"]
    assert "solve teeko --squares classic" in err["reason"]
    live = creating.create_game("teeko", {}, [{"kind": "open"}, {"kind": "open"}])
    r = client.get(f"/api/games/{live.pk}/analysis/")
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_finished"
    tiku = creating.create_game("tiku", {}, [{"kind": "open"}, {"kind": "open"}])
    r = client.get(f"/api/games/{tiku.pk}/analysis/")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
    r = client.get("/api/games/999999/analysis/")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"


def test_requests_never_start_a_build(
    client, server_runtime, settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An anonymous analysis or a guest's hint without a table: answered at once that
    analysis is not available, and no build is started (it took minutes and hundreds of MB:
    anyone could make the server do that), whatever the old on-demand setting says."""
    import subprocess
    import time

    from server.games import solved

    monkeypatch.setenv("GAMENIGHT_TEEKO_TABLES", str(tmp_path))
    settings.GAMENIGHT = {**settings.GAMENIGHT, "TEEKO_SOLVE_ON_DEMAND": True}
    commands: list[object] = []

    def no_popen(cmd: list[str], **kw: object) -> subprocess.Popen[bytes]:
        commands.append(cmd)
        raise AssertionError(f"a request started {cmd}")

    monkeypatch.setattr(solved.subprocess, "Popen", no_popen)
    g = creating.import_game("teeko", None, None, finished_teeko_events("tilted"))
    for _ in range(2):
        t0 = time.monotonic()
        r = client.get(f"/api/games/{g.pk}/analysis/")
        assert time.monotonic() - t0 < 2
        assert r.status_code == 409, r.content
        err = r.json()["error"]
        assert err["code"] == "no_table" and "not available" in err["reason"], err
        assert "solve teeko --squares tilted" in err["reason"]
    guest = creating.create_game("teeko", {"squares": "tilted"},
                              [{"kind": "guest"}, {"kind": "bot", "level": "easy"}])
    r = client.get(f"/api/games/{guest.pk}/hint/?seat=0",
                   HTTP_X_SEAT_SECRET=guest.guest_secrets[0])
    assert r.status_code == 409 and r.json()["error"]["code"] == "no_table", r.content
    assert "not available" in r.json()["error"]["reason"]
    assert commands == []
    assert list(tmp_path.iterdir()) == []  # no lock, no log, no part file


def test_one_build_per_table_across_processes(
    server_runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one builder holds a table's lock, the CLI refuses at once (it used to ignore
    the server's lock and write the same temporary file), the server starts nothing and
    the endpoints say the table is being built; the lock goes with its holder."""
    import subprocess
    import sys

    from core.teeko_solve import build_lock, building
    from server.games import solved

    monkeypatch.setenv("GAMENIGHT_TEEKO_TABLES", str(tmp_path))
    path = tmp_path / "tilted.tbl"
    started: list[object] = []
    with build_lock(path):
        cli = subprocess.run(
            [sys.executable, "-m", "core.teeko_solve", "build", "--squares", "tilted",
             "--dir", str(tmp_path), "--quiet"],
            capture_output=True, text=True, timeout=60)
        assert cli.returncode == 3, cli.stdout + cli.stderr
        assert "being built by another process" in cli.stdout
        monkeypatch.setattr(solved.subprocess, "Popen",
                            lambda cmd, **kw: started.append(cmd))  # (must not be called)
        assert "being built" in solved.start_build("tilted")
        assert "being built" in (solved.ensure_table("tilted") or "")
        assert building(path)
    assert started == []
    assert not building(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tilted.building"]  # no .part


def test_an_operator_starts_one_build(
    server_runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    import subprocess
    import sys

    from server.games import solved

    monkeypatch.setenv("GAMENIGHT_TEEKO_TABLES", str(tmp_path))  # (the rules core's)
    settings.GAMENIGHT = {**settings.GAMENIGHT, "TEEKO_BUILD": ["tilted", "nonsense"]}
    commands: list[list[str]] = []
    real_popen = subprocess.Popen

    def fake_popen(cmd: list[str], **kw: object) -> subprocess.Popen[bytes]:
        commands.append(cmd)  # the real build takes minutes: a short stand-in
        return real_popen([sys.executable, "-c", "import time; time.sleep(1)"], **kw)  # type: ignore[call-overload]

    monkeypatch.setattr(solved.subprocess, "Popen", fake_popen)
    solved.build_at_start()  # (the unknown set is logged, not fatal)
    assert "being built" in solved.start_build("tilted")
    assert len(commands) == 1 and commands[0][1:6] == [
        "-m", "core.teeko_solve", "build", "--squares", "tilted"
    ]
    proc = solved._started["tilted"]
    proc.wait(20)
    with pytest.raises(ValueError):
        solved.start_build("nonsense")


def test_creating_a_game_with_the_perfect_level_says_when_its_table_is_missing(
    client, server_runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    monkeypatch.setenv("GAMENIGHT_TEEKO_TABLES", str(tmp_path))
    spec = {"kind": "teeko", "options": {"squares": "classic"},
            "seats": [{"kind": "open"}, {"kind": "bot", "level": "perfect"}]}
    r = client.post("/api/games/", data=json.dumps(spec), content_type="application/json")
    assert r.status_code == 201, r.content
    g = r.json()
    assert g["seats"][1]["bot_level"] == "perfect"
    assert "plays like max" in g["notice"] and "'classic' is not built" in g["notice"]
    install(monkeypatch, tmp_path, "classic")  # with a table: no notice
    r = client.post("/api/games/", data=json.dumps(spec), content_type="application/json")
    assert r.status_code == 201 and "notice" not in r.json()


def test_hints_for_the_player_to_move_against_the_computer_only(
    client, server_runtime, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from server.leagues.models import League

    install(monkeypatch, tmp_path)
    g = creating.create_game("teeko", {}, [{"kind": "guest", "name": "Ann"},
                                        {"kind": "bot", "level": "random"}])
    secret = g.guest_secrets[0]
    url = f"/api/games/{g.pk}/hint/?seat=0"
    r = client.get(url, headers={"X-Seat-Secret": secret})
    assert r.status_code == 200, r.content
    h = r.json()
    assert h["seat"] == 0 and h["value"]["result"] == "draw" and len(h["moves"]) == 25
    assert h["best"][0]["command"]["type"] == "place"
    assert client.get(url).status_code == 403  # no credentials
    assert client.get(url, headers={"X-Seat-Secret": "wrong"}).status_code == 403
    r = client.get(f"/api/games/{g.pk}/hint/", headers={"X-Seat-Secret": secret})
    assert r.status_code == 403  # no seat given: a spectator gets no hints
    people = creating.create_game("teeko", {}, [{"kind": "guest", "name": "Ann"},
                                             {"kind": "guest", "name": "Bob"}])
    r = client.get(f"/api/games/{people.pk}/hint/?seat=0",
                   headers={"X-Seat-Secret": people.guest_secrets[0]})
    assert r.status_code == 403 and "against the computer" in r.json()["error"]["reason"]
    league = League.objects.create(name="Friday", kind="teeko")
    ranked = creating.create_game("teeko", {}, [{"kind": "guest", "name": "Ann"},
                                             {"kind": "bot", "level": "random"}],
                               league=league.pk)
    r = client.get(f"/api/games/{ranked.pk}/hint/?seat=0",
                   headers={"X-Seat-Secret": ranked.guest_secrets[0]})
    assert r.status_code == 403 and "league" in r.json()["error"]["reason"]
    finished = creating.import_game("teeko", None, None, finished_teeko_events())
    assert client.get(f"/api/games/{finished.pk}/hint/?seat=0").status_code == 409
