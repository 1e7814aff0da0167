"""Run by tests/test_suite_database.py in a pytest of its own. Before any test has the
database, the server's pool statistics are asked for (as ``/healthz`` does, or a test that
needs no database: Django's pool is made by ``connection.pool``, past pytest-django's guard,
while the settings still name the development database; here at collection, in a worker of
several it was a test without the database that came first). The test that then has the
database must be connected to the *test* database."""

from __future__ import annotations

import pytest

from server.games import dbpool

BEFORE = dbpool.sync_pool()
"""The pool made before the test database existed."""


@pytest.mark.django_db(transaction=True)
def test_a_database_test_is_on_the_test_database() -> None:
    from django.db import connection

    assert BEFORE is not None  # (the pool was made: the case is the one it says)
    with connection.cursor() as cur:
        cur.execute("SELECT current_database()")
        (name,) = cur.fetchone()
    assert name == connection.settings_dict["NAME"] and name.startswith("test_"), name
