"""Results off the server and corrections: a ``result`` event the core accepts,
appended to the log (hash chain intact); forfeit, adjudicate, void, off the board; the
standings and ratings mark adjudicated results."""

from __future__ import annotations

from random import Random

import pytest
from server_helpers import pick_move

import core
from core.api import ALL, SPECTATOR, IllegalMoveError, OptionsError, fold, result_event
from server.games import append, chain, creating
from server.games.models import Event, Game
from server.leagues.models import League, Rating
from server.leagues.standings import all_time_table

OPTIONS = {"teeko": {}, "tiku": {}, "tedoku": {"seats": 3}, "teka": {}}


@pytest.mark.parametrize("kind", sorted(core.GAMES))
def test_every_game_accepts_a_result_event_mid_game(kind):
    game = core.GAMES[kind]
    rng = Random(3)
    events = game.start(game.options(OPTIONS[kind]), rng)
    state = fold(game, events)
    for _ in range(6):  # a few moves in
        seat = rng.choice(game.to_act(state))
        state, _ = core.api.apply(game, state, seat,
                                  pick_move(game.legal_commands(state, seat), rng), rng)
    n = game.seats(state)
    scores = [104, 52, 104, 52] if kind == "teka" else [7 * (i + 1) for i in range(n)]
    winners = [0, 2] if kind == "teka" else [n - 1]
    ev = result_event(n, winners, "adjudicated", scores)
    after = game.evolve(state, ev)
    out = game.outcome(after)
    assert out is not None and out.winners == winners and out.reason == "adjudicated"
    if kind in ("tedoku", "teka"):  # (Tiku keeps the counts of its board; Teeko none)
        assert out.scores == scores
    assert game.to_act(after) == []
    with pytest.raises(IllegalMoveError):
        game.decide(after, 0, {"type": "resign"}, rng)
    game.view(after, ALL), game.view(after, SPECTATOR), game.view(after, 0)
    assert game.redact(ev, SPECTATOR) == ev  # (a result is public)


def test_result_events_are_checked():
    for winners, reason, scores in (([5], "forfeit", None), ([0], "chess", None),
                                    ([0, 0], "forfeit", None), ([0], "void", None),
                                    ([0], "adjudicated", [1]), ([0, 1], "adjudicated", None),
                                    (["0"], "forfeit", None), ([0], "off_board", [True, 1])):
        with pytest.raises(OptionsError):
            result_event(2, winners, reason, scores)
    assert result_event(2, [], "void") == {"type": "result", "winners": [], "reason": "void",
                                            "scores": []}


def teka_game(league, names=("ann", "bob", "cid", "dee")):
    return creating.create_game("teka", {}, [{"kind": "user", "username": n} for n in names],
                             league=league)


@pytest.fixture
def organiser(admin_client):
    return admin_client  # (a superuser: every permission)


@pytest.mark.django_db(transaction=True)
def test_forfeit_adjudicate_void_from_the_admin(organiser, django_user_model, server_runtime):
    users = [django_user_model.objects.create_user(n, password="pw")
             for n in ("ann", "bob", "cid", "dee")]
    league = League.objects.create(name="Teka nights", kind="teka")
    league.members.set(users)
    g1, g2, g3 = teka_game(league), teka_game(league), teka_game(league)
    before = Event.objects.filter(game=g1).count()
    url = f"/admin/games/game/{g1.pk}/decide/"
    page = organiser.get(url).content.decode()
    assert "seat 1: bob" in page
    for hand in Event.objects.get(game=g1, type="deal").payload["hands"]:
        assert f"'{hand[0]}'" not in page  # (the live deal stays hidden)
    # bad input: a form error, nothing appended
    for bad in ({"reason": "forfeit"}, {"reason": "nonsense"}, {"reason": "adjudicated",
                "winners": ["0", "1", "2", "3"]}, {"reason": "adjudicated", "scores": "x"},
                {"reason": "adjudicated", "winners": ["9"]}, {"reason": "adjudicated",
                "scores": "1,2"}):
        r = organiser.post(url, bad)
        assert (r.status_code == 200 and b"errorlist" in r.content) or b"errornote" in r.content
    assert Event.objects.filter(game=g1).count() == before
    # bob forfeits: his partnership loses
    r = organiser.post(url, {"reason": "forfeit", "forfeit": "1"}, follow=True)
    assert "ann &amp; cid win" in r.content.decode()
    g1.refresh_from_db()
    assert g1.status == Game.FINISHED and g1.outcome["winners"] == [0, 2]
    assert g1.outcome["reason"] == "forfeit"
    assert Event.objects.filter(game=g1).count() == before + 1
    assert Event.objects.filter(game=g1).order_by("-seq").first().type == "result"
    assert chain.verify_chain(g1.pk).ok
    # adjudicated with scores
    r = organiser.post(f"/admin/games/game/{g2.pk}/decide/",
                       {"reason": "adjudicated", "winners": ["1", "3"], "scores": "52-104-52-104"},
                       follow=True)
    assert "bob &amp; dee win 104-52 (adjudicated)" in r.content.decode()
    # void: not counted
    organiser.post(f"/admin/games/game/{g3.pk}/decide/", {"reason": "void"})
    assert Game.objects.get(pk=g3.pk).outcome["reason"] == "void"
    # a finished game's result is corrected only with a reason on the record
    r = organiser.post(f"/admin/games/game/{g1.pk}/decide/", {"reason": "void"}, follow=True)
    assert "Correct the result" in r.content.decode() and b"errorlist" in r.content
    assert Game.objects.get(pk=g1.pk).outcome["reason"] == "forfeit"
    # standings and ratings mark the adjudicated results; the void game is left out
    rows = {r.username: r for r in all_time_table(league)}
    assert rows["ann"].played == 2 and rows["ann"].adjudicated == 2
    assert rows["ann"].won == 1 and rows["bob"].won == 1
    assert set(Rating.objects.values_list("adjudicated", flat=True)) == {True}
    assert not Rating.objects.filter(game_id=g3.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_record_a_game_played_on_a_board(organiser, django_user_model, server_runtime):
    for n in ("ann", "bob", "eve"):
        django_user_model.objects.create_user(n, password="pw")
    league = League.objects.create(name="Tuesday", kind="tiku")
    league.members.set(django_user_model.objects.filter(username__in=["ann", "bob"]))
    url = "/admin/games/game/record/"
    assert "Record a game played on a board" in organiser.get("/admin/games/game/").content.decode()
    for bad in ({"kind": "tiku", "players": "ann"}, {"kind": "tiku", "players": "ann, zed"},
                {"kind": "teeko", "players": "ann, bob", "league": league.pk},
                {"kind": "tiku", "players": "ann, bob", "winners": "cid"},
                {"kind": "tiku", "players": "ann, ann"}, {"kind": "chess", "players": "a, b"},
                {"kind": "tiku", "players": "ann, eve", "league": league.pk}):
        r = organiser.post(url, bad)
        assert r.status_code == 200 and (b"errornote" in r.content or b"errorlist" in r.content)
    assert not Game.objects.exists()
    r = organiser.post(url, {"kind": "tiku", "players": "ann, bob", "winners": "bob",
                             "league": league.pk}, follow=True)
    assert "recorded: bob wins" in r.content.decode() and "(played off the board)" in \
        r.content.decode()
    g = Game.objects.get()
    assert g.status == Game.FINISHED and g.outcome["reason"] == "off_board"
    assert g.league_id == league.pk and chain.verify_chain(g.pk).ok
    assert Rating.objects.filter(game=g).count() == 2


@pytest.mark.django_db(transaction=True)
def test_only_organisers_decide(client, django_user_model, server_runtime):
    staff = django_user_model.objects.create_user("staff", password="pw", is_staff=True)
    client.force_login(staff)
    g = creating.create_game("teeko", {}, [{"kind": "open"}, {"kind": "open"}])
    assert client.post(f"/admin/games/game/{g.pk}/decide/", {"reason": "void"}).status_code \
        == 403
    assert client.get("/admin/games/game/record/").status_code == 403
    assert Game.objects.get(pk=g.pk).status == Game.OPEN


@pytest.mark.django_db(transaction=True)
def test_club_demo(server_runtime):
    from server.leagues.demo import LEAGUE, load_club_demo
    from server.leagues.models import Fixture, Season

    assert load_club_demo(log=lambda _: None)
    assert not load_club_demo(log=lambda _: None)  # idempotent
    league = League.objects.get(name=LEAGUE)
    seasons = {s.name: s for s in Season.objects.filter(league=league)}
    assert set(seasons) == {"Autumn", "Winter"}
    from server.leagues.standings import season_table

    autumn = season_table(seasons["Autumn"])
    assert sum(r.played for r in autumn) == 30  # 15 games: every pair of six once
    winter = {r.username: r for r in season_table(seasons["Winter"])}
    assert sum(r.adjudicated for r in winter.values()) == 2
    reasons = list(Game.objects.filter(league=league).values_list("outcome__reason", flat=True))
    assert "adjudicated" in reasons and reasons.count("off_board") == 2
    assert Fixture.objects.filter(season=seasons["Winter"], round=3).count() == 3
    assert Rating.objects.filter(game__league=league).count() >= 2 * 23
    assert all(chain.verify_chain(g).ok for g in Game.objects.filter(league=league)
               .values_list("id", flat=True))


@pytest.mark.django_db(transaction=True)
def test_impossible_teka_and_tedoku_scores_are_refused_with_the_bound(
        django_user_model, server_runtime):
    """An off-board Teka match of 999-0 and an adjudicated 5000-0 were stored; a match to
    104 ends at 155 at most (the last hand gives at most 52), the loser under 104; a Tedoku
    sheet scores at most 45 (51 with the bonus shapes)."""
    from server.leagues.results import record_off_board

    users = [django_user_model.objects.create_user(n, password="pw")
             for n in ("ann", "bob", "cid", "dee")]
    before = Game.objects.count()
    for scores, match in (([999, 0, 999, 0], "155 points at most"),
                          ([104, 104, 104, 104], "ahead of the other"),
                          ([150, 110, 150, 110], "losing side stays under 104")):
        with pytest.raises(OptionsError, match=match):
            record_off_board("teka", users, [0, 2], scores)
    assert Game.objects.count() == before  # (nothing stored)
    g = teka_game(None)
    with pytest.raises(OptionsError, match="155 points at most"):
        append.append_result(g.pk, [0, 2], "adjudicated", [5000, 0, 5000, 0])
    assert Game.objects.get(pk=g.pk).status != Game.FINISHED
    append.append_result(g.pk, [0, 2], "adjudicated", [155, 0, 155, 0])  # (the bound itself)
    tedoku = core.GAMES["tedoku"]
    for options, top in (({"seats": 2}, 45), ({"seats": 2, "bonus": True}, 51)):
        state = fold(tedoku, tedoku.start(tedoku.options(options), Random(1)))
        with pytest.raises(IllegalMoveError, match=f"at most {top}"):
            tedoku.decide_result(state, {"type": "result", "winners": [0],
                                         "reason": "adjudicated", "scores": [top + 1, 3]})
        assert tedoku.decide_result(state, {"type": "result", "winners": [0],
                                            "reason": "adjudicated", "scores": [top, 3]})


@pytest.mark.django_db(transaction=True)
def test_the_record_form_fits_the_task(organiser, django_user_model, server_runtime):
    """The kind follows the league (it defaulted to another game); the day played is kept
    and must fall in the season; the login names are suggested as one types."""
    import datetime as dt

    ann, bob = (django_user_model.objects.create_user(n, password="pw") for n in ("ann", "bob"))
    league = League.objects.create(name="Teeko club", kind="teeko")
    league.members.set([ann, bob])
    from server.leagues.models import Season

    season = Season.objects.create(league=league, name="Spring", start=dt.date(2026, 3, 1),
                                   end=dt.date(2026, 5, 31))
    page = organiser.get("/admin/games/game/record/").content.decode()
    assert '<datalist id="gn-players">' in page and '<option value="ann">' in page
    r = organiser.post("/admin/games/game/record/", {
        "league": league.pk, "season": season.pk, "players": "ann, bob", "winners": "bob",
        "played_on": "2026-06-10"})
    assert "is not in the season Spring" in r.content.decode()
    r = organiser.post("/admin/games/game/record/", {
        "league": league.pk, "season": season.pk, "players": "ann, bob", "winners": "bob",
        "played_on": "2026-04-02"}, follow=True)
    g = Game.objects.get(league=league)
    assert g.kind == "teeko" and g.finished_at.date() == dt.date(2026, 4, 2)
    assert "bob wins" in r.content.decode()
