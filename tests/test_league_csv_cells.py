"""The league's CSV files (``standings.csv``, ``fixtures.csv``) never hand a spreadsheet a
formula (issue 26, reproduction 5; OWASP "CSV Injection"): a name that starts with one of a
formula's first characters is written with a single quote before it, every other name as
it is."""

from __future__ import annotations

import csv
import io

import pytest

from server.leagues.models import League

pytestmark = pytest.mark.django_db

HOSTILE = ["=HYPERLINK(\"http://x.invalid\",\"x\")", "+1+2", "-2+3", "@SUM(A1:A2)",
           "\tcmd", "\r=1", "\n=1", " =1+1", "\uff1d1+1", "\uff20x"]
PLAIN = ["ann", "o'neil", "zo\u00eb", "a=b", "1+1"]


def test_standings_csv_prefixes_formula_cells(client, django_user_model):
    league = League.objects.create(name="Sheets", kind="teeko")
    stored = {}
    for name in HOSTILE + PLAIN:
        user = django_user_model.objects.create_user(name, password="pw")
        league.members.add(user)
        stored[name] = user.username  # (Django keeps a name NFKC-normalised: \uff1d is =)
    resp = client.get(f"/leagues/{league.pk}/standings.csv")
    assert resp.status_code == 200
    rows = list(csv.reader(io.StringIO(resp.content.decode("utf-8-sig"), newline="")))
    players = {r[1] for r in rows[1:]}
    assert players == {"'" + stored[n] for n in HOSTILE} | {stored[n] for n in PLAIN}
    for r in rows[1:]:  # (the figures are written as they are)
        assert r[2] == "0" and r[8] == "0"
