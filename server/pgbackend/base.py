"""Django's PostgreSQL backend with one change: a pooled connection is checked before it is
lent, and when one is found dead every idle one in the pool is checked at once.

Django's own check (``CONN_HEALTH_CHECKS`` with a pool: psycopg_pool's ``check``) finds the
dead connections of a database restart, or of backends terminated, one per attempt, and waits
1, 2, 4 ... s between attempts: a pool that had grown to four or more idle connections used up
a borrower's whole wait (``GAMENIGHT_DB_POOL_TIMEOUT``, 10 s) on dead ones, while new ones
could be had at once. Here the first dead one found makes the pool check all of them
(``ConnectionPool.check()``: the dead are replaced by new connections), and the borrower takes
the next. Settings turn Django's check off where this one runs (one round trip a borrow,
as before)."""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool

TRIES = 3
"""Dead connections one borrower gives back before it takes what the pool gives unchecked
(the pool has checked all its idle ones after the first)."""


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params: Any) -> Any:
        pool = self.pool
        for _ in range(TRIES if pool is not None else 0):
            conn = super().get_new_connection(conn_params)
            try:
                ConnectionPool.check_connection(conn)
            except Exception:
                pool.putconn(conn)  # dead: the pool closes it and connects anew
                pool.check()  # and so with every other dead one
            else:
                return conn
        return super().get_new_connection(conn_params)
