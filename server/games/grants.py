"""The rights of the role the server runs as (the *app* role): given after every ``migrate``.

The migrations run as the tables' owner. After each ``migrate`` (Django's ``post_migrate``
signal) the owner gives the app role exactly what the server needs:

* ``games_event``: SELECT and INSERT, nothing more (no UPDATE, DELETE, TRUNCATE, TRIGGER,
  REFERENCES). Not owning the table, it can neither disable nor drop its triggers.
* ``games_chainhead``: SELECT only (a trigger of the owner writes it when an event is
  inserted, see migration 0003).
* ``django_migrations``: SELECT only.
* every other table: SELECT, INSERT, UPDATE, DELETE; sequences: USAGE, SELECT.

The app role is ``dbconfig.app_credentials()`` (``gamenight_app`` on the embedded server, the
user of ``DATABASE_URL`` when ``DATABASE_OWNER_URL`` is set), or ``GAMENIGHT_APP_ROLE``.
Without one nothing is granted (a single role owns everything: see docs/deploy.md). The same
statements, for operators who migrate by other means: :func:`grant_sql` (docs/deploy.md).
"""

from __future__ import annotations

from typing import Any

READ_ONLY = ("games_chainhead", "django_migrations")
APPEND_ONLY = ("games_event", "games_correction", "leagues_clubevent")


def app_role() -> str | None:
    """The role to give the server's rights to, or None."""
    from .dbpool import knob

    explicit = str(knob("APP_ROLE", ""))
    if explicit:
        return explicit
    from server import dbconfig

    creds = dbconfig.app_credentials()
    return creds[0] if creds else None


def grant_sql(role: str, schema: str = "public", present: set[str] | None = None) -> list[str]:
    """The statements (run by the owner) that give ``role`` the server's rights.
    ``present``: the tables the database has (a database migrated back to an older schema
    lacks the newer ones); None: all of them."""
    from psycopg import sql

    r, s = sql.Identifier(role), sql.Identifier(schema)
    append_only = tuple(t for t in APPEND_ONLY if present is None or t in present)
    read_only = tuple(t for t in READ_ONLY if present is None or t in present)

    def tables(names: tuple[str, ...]) -> Any:
        return sql.SQL(", ").join(sql.Identifier(schema, n) for n in names)

    stmts = [
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(s, r),
        sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA {} FROM {}").format(s, r),
        sql.SQL("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {} TO {}")
        .format(s, r),
        sql.SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {} TO {}").format(s, r),
        sql.SQL("REVOKE ALL ON {} FROM {}").format(tables(append_only + read_only), r),
        sql.SQL("GRANT SELECT, INSERT ON {} TO {}").format(tables(append_only), r),
        sql.SQL("GRANT SELECT ON {} TO {}").format(tables(read_only), r),
    ]
    return [stmt.as_string(None) for stmt in stmts]


def grant_app_role(using: str = "default", role: str | None = None) -> str | None:
    """Give the app role its rights on database ``using`` (as the connection's user, who must
    own the tables). Returns the role, or None when there is none (or it is this user)."""
    from django.db import connections

    role = role or app_role()
    conn = connections[using]
    if not role or conn.vendor != "postgresql":
        return None
    with conn.cursor() as cur:
        cur.execute("SELECT current_user, current_schema(), "
                    "EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %s)", [role])
        user, schema, exists = cur.fetchone()
        if user == role:
            return None
        if not exists:
            raise RuntimeError(f"the server's database role {role!r} does not exist "
                               f"(docs/deploy.md, 'Database roles')")
        cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", [schema])
        present = {str(row[0]) for row in cur.fetchall()}
        for stmt in grant_sql(role, schema, present):
            cur.execute(stmt)
    return role


def on_post_migrate(sender: Any, using: str = "default", **kwargs: Any) -> None:
    if getattr(sender, "label", None) == "games":
        grant_app_role(using)
