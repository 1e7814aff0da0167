"""Django settings for the gamenight server.

Database: ``server.dbconfig.database_settings`` when that module exists (it handles
DATABASE_URL and the embedded PostgreSQL); otherwise DATABASE_URL or a local PostgreSQL at
127.0.0.1:5432 (user postgres, trust, db postgres). ``GAMENIGHT_DB_JSON`` (a JSON object of
Django database settings, used by the end-to-end tests to point daphne at the *test*
database) overrides both.

Channel layer: REDIS_URL set -> channels_redis' pub/sub layer; else in-memory (one process).

Connections per process are bounded by GAMENIGHT_DB_POOL + GAMENIGHT_ASYNC_DB_CONNECTIONS
(PostgreSQL) and 2 (Redis): docs/deploy.md, "Connections".

**The one place that reads the environment.** Every variable the server process reads
(``GAMENIGHT_*``, ``REDIS_URL``, ``DJANGO_*``...) is read here, once, when Django loads
the settings; the rest of ``server/`` reads ``django.conf.settings`` when it runs (the
server's own knobs: ``settings.GAMENIGHT[...]`` through :func:`server.games.dbpool.knob`),
never the environment, and never at import time. The exceptions run before Django is
configured: ``server/dbconfig.py`` (where the database is, for these settings), the
launcher ``server/run.py`` and its ``server/ops/announce.py``, the entry points
(``server/asgi.py``, ``server/settings_typecheck.py``); ``tests/test_settings.py`` holds the
list and fails on any other module that reads the environment. Every variable, with its
default: docs/deploy.md, "Options and environment".
"""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

BASE_DIR = Path(__file__).resolve().parent.parent


def _flag(name: str, default: bool) -> bool:
    """An on/off variable: unset is ``default``; "" and "0" are off, anything else on."""
    raw = os.environ.get(name)
    return default if raw is None else raw not in ("", "0")


def _number(name: str, default: float, low: float) -> float:
    """A number that falls back to ``default`` when unset, not a number, or below ``low``."""
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        return default
    return value if value >= low else default


VAR_DIR = Path(os.environ.get("GAMENIGHT_VAR", "") or BASE_DIR / "var")


def _install_secret_key() -> str:
    """This install's secret key: generated once into ``var/secret-key.txt`` (mode 600), as
    the admin password is, and read from there by every later start and every process.
    Written to a temporary file and linked into place, so processes starting at once all
    read the one key that won."""
    import secrets
    import tempfile
    import time

    path = VAR_DIR / "secret-key.txt"
    for _ in range(50):
        try:
            key = path.read_text().strip()
        except FileNotFoundError:
            key = ""
        if key:
            return key
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=VAR_DIR, prefix=".secret-key.")  # mode 600
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(50) + "\n")
        try:
            os.link(tmp, path)
        except FileExistsError:
            time.sleep(0.01)
        finally:
            os.unlink(tmp)
    raise RuntimeError(f"cannot read or write the secret key {path}")


def _default_hosts() -> list[str]:
    """The names this server is reached by when ``ALLOWED_HOSTS`` is not set: the address
    ``serve`` prints (the LAN address, or ``GAMENIGHT_HOST`` when it is one), this
    machine's name (and its mDNS ``.local`` name), and loopback."""
    import socket

    from server.run import lan_address

    hosts = ["localhost", "127.0.0.1", "[::1]", "testserver"]
    listen = os.environ.get("GAMENIGHT_HOST", "")
    if listen and listen not in ("0.0.0.0", "::"):
        hosts.append(f"[{listen}]" if ":" in listen else listen)
    hosts.append(lan_address())
    name = socket.gethostname()
    if name:
        hosts += [name, f"{name.split('.')[0]}.local"]
    return list(dict.fromkeys(hosts))


SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or _install_secret_key()
DEBUG = _flag("DJANGO_DEBUG", False)
ALLOWED_HOSTS = [h for h in os.environ.get("ALLOWED_HOSTS", "").split(",") if h] or (
    _default_hosts()
)

API_TOKEN_DAYS = float(os.environ.get("GAMENIGHT_TOKEN_DAYS", "30"))
"""Days an API token (``/api/login``) is accepted after it was made; then log in again.
A user revokes their own (``/api/logout/``, ``/api/sessions/``); an admin revokes a user's
in the admin (Users: "Revoke API tokens")."""
BROWSER_SESSION_HOURS = float(os.environ.get("GAMENIGHT_BROWSER_SESSION_HOURS", "12"))
"""Hours a browser's login (the table page's organiser, the admin) lasts unused; each use
renews it (server/games/accounts.py)."""
# The browser's session is a signed cookie (nothing of it in the database: a copy of the
# database holds no session), HttpOnly and SameSite=Lax; the login row it names is the
# server's say (revoked there, the cookie is worth nothing: accounts.SessionTokens).
SESSION_ENGINE = "django.contrib.sessions.backends.signed_cookies"
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SESSION_COOKIE_AGE = int(max(BROWSER_SESSION_HOURS * 3600, API_TOKEN_DAYS * 86400))
# Logins throttled by django-axes (docs/deploy.md, "Logins"): failures are counted per
# client address and per user name (a wrong name counts like a wrong password); at
# GAMENIGHT_LOGIN_FAILURES within GAMENIGHT_LOGIN_LOCKOUT_MINUTES the address or the name
# is locked out for that long after its last failure: 429 with Retry-After, the right
# password refused too, without running the password hasher. Refused attempts do not
# prolong the lock (the owner gets in once it ends) and are not stored.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("GAMENIGHT_LOGIN_FAILURES", "10"))
AXES_COOLOFF_TIME = timedelta(
    minutes=float(os.environ.get("GAMENIGHT_LOGIN_LOCKOUT_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = False  # (a login to one's own account must not clear an address)
AXES_DISABLE_ACCESS_LOG = True  # (successful logins are the session rows)
AXES_USERNAME_FORM_FIELD = "username"
AXES_LOCKOUT_CALLABLE = "server.games.accounts.lockout_response"
AXES_CLIENT_IP_CALLABLE = "server.games.accounts.axes_address"
AXES_VERBOSE = False
# Content-Security-Policy of every page, the admin's included (django-csp; docs/deploy.md,
# "A public server"): scripts only from this server's own files (no inline script, no
# event-handler attribute, no eval), so a name that got into a page as markup still could
# not run; the pages' configuration is a JSON data block (json_script), not a script.
# Styles: the stylesheets from this server; style="..." attributes are allowed (the boards
# size their text with them), <style> elements are not.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "style-src-elem": ["'self'"],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "font-src": ["'self'"],
        # the phone's app: the web app manifest and the seat pages' service worker (/sw.js)
        "manifest-src": ["'self'"],
        "worker-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
# A public server behind https (nginx with TLS: docs/deploy.md, "A public server"):
# GAMENIGHT_HTTPS=1 makes the cookies secure-only, trusts nginx's X-Forwarded-Proto, sends
# HSTS and redirects plain http. Off by default: a game night on a LAN has no https.
HTTPS = _flag("GAMENIGHT_HTTPS", False)
if HTTPS:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # (a monitor on the machine itself)
    SECURE_HSTS_SECONDS = int(os.environ.get("GAMENIGHT_HSTS_SECONDS", str(180 * 24 * 3600)))
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
CSRF_TRUSTED_ORIGINS = [o for o in os.environ.get("CSRF_TRUSTED_ORIGINS", "").split(",") if o]

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "server.games",
    "server.ops",
    "server.leagues",  # club play: leagues, seasons, fixtures, ratings
    "server.web",  # watch and replay in the browser, TV mode
    "axes",  # the login throttle (AXES_* below)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "server.games.middleware.ControlCharactersInPath",  # /x%00/: 404 before any view
    # Static files (the admin's and server/web's) with caching headers, served by daphne
    # itself: no web server needed at a game night (docs/web.md, "Static files").
    "server.web.middleware.StaticFiles",  # WhiteNoise
    "django.contrib.sessions.middleware.SessionMiddleware",
    "server.games.middleware.ApiCommonMiddleware",  # CommonMiddleware, exact /api/ paths
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "server.games.accounts.SessionTokens",  # a revoked or expired browser login ends here
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",  # Content-Security-Policy on every answer (below)
    "server.games.middleware.DatabaseUnavailable",
    "axes.middleware.AxesMiddleware",  # a refused login: accounts.lockout_response
]

ROOT_URLCONF = "server.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

ASGI_APPLICATION = "server.asgi.application"
WSGI_APPLICATION = None


def _from_url(url: str) -> dict[str, object]:
    u = urlparse(url)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(u.path.lstrip("/")) or "postgres",
        "USER": unquote(u.username or "postgres"),
        "PASSWORD": unquote(u.password or ""),
        "HOST": unquote(u.hostname or "") if u.hostname else "",
        "PORT": str(u.port or ""),
    }


DB_POOL = int(os.environ.get("GAMENIGHT_DB_POOL", "8"))
"""Most connections the sync pool of one process opens (0: no pool, a connection per use)."""
DB_POOL_TIMEOUT = float(os.environ.get("GAMENIGHT_DB_POOL_TIMEOUT", "10"))
"""Seconds a caller waits for a free connection before it is told ``unavailable``."""
DB_RECONNECT_MAX_DELAY = float(os.environ.get("GAMENIGHT_DB_RECONNECT_MAX_DELAY", "2"))
"""Longest wait (s) between a pool's attempts to connect while PostgreSQL is away."""
ASYNC_DB_CONNECTIONS = int(os.environ.get("GAMENIGHT_ASYNC_DB_CONNECTIONS", "4"))
REDIS_CONNECTIONS = int(os.environ.get("GAMENIGHT_REDIS_CONNECTIONS", "4"))
REDIS_URL = os.environ.get("REDIS_URL", "").strip()
"""Redis, shared by the processes of one server (the channel layer, the join limit);
"": one process, nothing shared."""
REDIS_PREFIX = os.environ.get("GAMENIGHT_REDIS_PREFIX", "gamenight").strip() or "gamenight"
"""What this server's names in Redis start with (the channel layer's groups, the join
limit's counts): servers sharing one Redis give each its own."""


def _database() -> dict[str, object]:
    raw = os.environ.get("GAMENIGHT_DB_JSON")
    if raw:
        db: dict[str, object] = {"ENGINE": "django.db.backends.postgresql", **json.loads(raw)}
    else:
        database_settings: Callable[[Path], dict[str, Any]] | None
        try:
            from server.dbconfig import database_settings
        except ImportError:
            database_settings = None
        if database_settings is not None:
            db = dict(database_settings(BASE_DIR))
        elif os.environ.get("DATABASE_URL"):
            db = _from_url(os.environ["DATABASE_URL"])
        else:
            db = {
                "ENGINE": "django.db.backends.postgresql",
                "NAME": "postgres",
                "USER": "postgres",
                "PASSWORD": "",
                "HOST": "127.0.0.1",
                "PORT": "5432",
            }
    # A bounded pool per process (docs/deploy.md, "Connections"; server/games/dbpool.py):
    # Django's pool option for psycopg 3. It needs CONN_MAX_AGE 0: a request (in a thread
    # of its own under ASGI) and a shard thread borrow a connection and give it back.
    db["CONN_MAX_AGE"] = 0
    db.setdefault("CONN_HEALTH_CHECKS", True)
    if DB_POOL > 0 and db["ENGINE"] == "django.db.backends.postgresql" \
            and db["CONN_HEALTH_CHECKS"]:
        # Pooled connections are checked by server/pgbackend (every dead idle one at once,
        # not one per backoff step): Django's check is off there.
        db["ENGINE"] = "server.pgbackend"
        db["CONN_HEALTH_CHECKS"] = False
    if DB_POOL > 0:
        from server.dbconfig import reconnect_options

        opts = dict(db.get("OPTIONS") or {})  # type: ignore[call-overload]
        opts.setdefault("pool", {"min_size": 1, "max_size": DB_POOL, "timeout": DB_POOL_TIMEOUT,
                                 "max_idle": 60, "name": "gamenight-sync",
                                 **reconnect_options(DB_RECONNECT_MAX_DELAY)})
        db["OPTIONS"] = opts
    # Optional: GAMENIGHT_SYNC_COMMIT=off trades the last few ms of moves on a power cut for
    # throughput (moves are still committed before they are broadcast).
    sync = os.environ.get("GAMENIGHT_SYNC_COMMIT")
    if sync:
        opts = dict(db.get("OPTIONS") or {})  # type: ignore[call-overload]
        opts["options"] = (str(opts.get("options", "")) + f" -c synchronous_commit={sync}").strip()
        db["OPTIONS"] = opts
    return db


DATABASES = {"default": _database()}

if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # Redis pub/sub (channels_redis' RedisPubSubChannelLayer): a move's notification
            # is one PUBLISH, pushed to each process subscribed to the game's group (one
            # channel per process: hub.Hub.subscribe); no polling list per channel.
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            # redis-py 8 reads with a 5 s socket timeout by default: give reads more room.
            # (A process uses two connections: one subscribed, one publishing under a lock;
            # max_connections caps the publishing pool all the same.)
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 30,
                                  "max_connections": REDIS_CONNECTIONS}],
                       "prefix": REDIS_PREFIX},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

AUTH_PASSWORD_VALIDATORS: list[dict[str, str]] = []

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "var" / "static"
# WhiteNoise serves the apps' static files straight from their folders (no collectstatic
# needed; STATIC_ROOT is also served when it exists, and nginx may serve it: deploy/).
# Files are small ES modules that import each other by relative name, so no hashed names:
# they are cached for WHITENOISE_MAX_AGE seconds and revalidated (ETag, Last-Modified).
WHITENOISE_USE_FINDERS = True
# Compressed: ``collectstatic`` (run by ``./gamenight serve``) writes a gzip copy beside each
# file in STATIC_ROOT (for nginx); daphne sends the apps' text files gzipped to a browser that
# takes gzip, each compressed once into var/static-gz/ (server/web/middleware.py).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_AUTOREFRESH = DEBUG
WHITENOISE_MAX_AGE = int(os.environ.get("GAMENIGHT_STATIC_MAX_AGE", "300"))
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {
        "server": {"handlers": ["console"], "level": os.environ.get("GAMENIGHT_LOG", "INFO")},
    },
}

# gamenight server knobs (all optional).
GAMENIGHT = {
    # Worker threads for database work (games are sharded over them by id).
    "DB_SHARDS": int(os.environ.get("GAMENIGHT_DB_SHARDS", "8")),
    # Connections of one process (docs/deploy.md, "Connections"): the sync pool (HTTP views
    # and the shard threads share it), the event loop's pool, Redis.
    "DB_POOL": DB_POOL,
    "DB_POOL_TIMEOUT": DB_POOL_TIMEOUT,
    # Longest wait between a pool's attempts to reconnect after PostgreSQL went away (psycopg_pool
    # doubles it without a ceiling: the pools came back up to a minute after the database).
    "DB_RECONNECT_MAX_DELAY": DB_RECONNECT_MAX_DELAY,
    "REDIS_CONNECTIONS": REDIS_CONNECTIONS,
    "REDIS_PREFIX": REDIS_PREFIX,
    # Seconds between checks of the watched games' log heads against what Redis told this
    # process (pub/sub keeps nothing for a subscriber that was disconnected); 0: never.
    "REDIS_RECONCILE": float(os.environ.get("GAMENIGHT_REDIS_RECONCILE", "5")),
    # "process" (default) or "thread": where bots think.
    "BOT_POOL": os.environ.get("GAMENIGHT_BOT_POOL", "process"),
    "BOT_WORKERS": int(
        os.environ.get("GAMENIGHT_BOT_WORKERS", str(max(2, os.cpu_count() or 2)))
    ),
    # Hard cap on a bot's thinking time in seconds (should_stop turns true after it).
    "BOT_TIME_LIMIT": float(os.environ.get("GAMENIGHT_BOT_TIME_LIMIT", "10")),
    # A bot asked a question whose existence is secret (Teka's throw-in) answers after a
    # random time between a third of this and this many seconds (docs/protocol.md, "What
    # each viewer sees").
    "BOT_SECRET_DELAY": float(os.environ.get("GAMENIGHT_BOT_SECRET_DELAY", "4")),
    # A bot deciding on what only its seat knows (a Teka hand) answers after a random time
    # between half of this and this many seconds, whatever its thinking took (0: at once).
    "BOT_PACE": float(os.environ.get("GAMENIGHT_BOT_PACE", "1")),
    # At a table with no person at it (every seat a bot) each bot answers no sooner than this
    # many seconds after its question, so that the table can be watched (on the TV); 0: as
    # soon as it has chosen.
    "BOT_WATCH_PACE": float(os.environ.get("GAMENIGHT_BOT_WATCH_PACE", "1")),
    # The TV (/tv/) leaves out a live table with no event for this many seconds (abandoned),
    # and shows a finished one this many seconds more (its result).
    "TV_IDLE": float(os.environ.get("GAMENIGHT_TV_IDLE", "600")),
    "TV_LINGER": float(os.environ.get("GAMENIGHT_TV_LINGER", "30")),
    # The bot that moves for a seat whose time ran out (tables with time rules, Tedoku and
    # Teka): its level ("" = the kind's default) and thinking time in seconds.
    "TIMEOUT_BOT_LEVEL": os.environ.get("GAMENIGHT_TIMEOUT_BOT_LEVEL", ""),
    "TIMEOUT_BOT_TIME": float(os.environ.get("GAMENIGHT_TIMEOUT_BOT_TIME", "1")),
    # Socket moves are appended on the event loop (psycopg AsyncConnection pool) when the
    # game is cached; 0 sends every move through the worker threads instead.
    "ASYNC_DB": _flag("GAMENIGHT_ASYNC_DB", True),
    "ASYNC_DB_CONNECTIONS": ASYNC_DB_CONNECTIONS,
    # Seconds a stop (SIGTERM, Ctrl-C) waits for the requests in flight, and then for the
    # process to exit once daphne has stopped, before it ends the process without them
    # (server/transport.py, install_stop).
    "STOP_GRACE": _number("GAMENIGHT_STOP_GRACE", 3, 0),
    # Largest WebSocket text frame accepted from a client, in bytes.
    "MAX_FRAME": int(os.environ.get("GAMENIGHT_MAX_FRAME", "65536")),
    # Pre-encoded frames are written straight to daphne's connection when that is exactly
    # what autobahn would send (docs/benchmarks-server.md, "Optimisations"); 0 always uses
    # the ASGI send path.
    "DIRECT_WIRE": _flag("GAMENIGHT_DIRECT_WIRE", True),
    # Joins and code lookups one client address may make (server/games/joinlimit.py, the
    # "limits" library's notation: "60/minute", "10 per 10 seconds"); over it: 429.
    "JOIN_RATE": os.environ.get("GAMENIGHT_JOIN_RATE", "60/minute"),
    # The game cache (server/games/store.py): least recently used games out beyond this many
    # games or this many MB (estimated).
    "CACHE_GAMES": int(os.environ.get("GAMENIGHT_CACHE_GAMES", "4096")),
    "CACHE_MB": float(os.environ.get("GAMENIGHT_CACHE_MB", "256")),
    # The most games whose seats' presence times a process keeps (server/games/hub.py).
    "AWAY_GAMES": int(os.environ.get("GAMENIGHT_AWAY_GAMES", "4096")),
    # The serving process's garbage collector (hub.freeze_startup_heap): the start-up heap
    # frozen (off: "0"), the young generation's threshold.
    "GC_FREEZE": _flag("GAMENIGHT_GC_FREEZE", True),
    "GC_GEN0": int(os.environ.get("GAMENIGHT_GC_GEN0", "20000")),
    # Python's thread switch interval in seconds (None: Python's own; runtime.install).
    "SWITCH_INTERVAL": (float(os.environ["GAMENIGHT_SWITCH_INTERVAL"])
                        if os.environ.get("GAMENIGHT_SWITCH_INTERVAL") else None),
    # "interval:directory": sample the heap to that directory (server/ops/heapprofile.py).
    "HEAP_PROFILE": os.environ.get("GAMENIGHT_HEAP_PROFILE", ""),
    # The pid of the server.run that started this daphne (None: none): stop when it is gone.
    "DIE_WITH": (int(os.environ["GAMENIGHT_DIE_WITH"])
                 if os.environ.get("GAMENIGHT_DIE_WITH", "").isdigit() else None),
    # Teeko tables to build at start ("axis,tilted"; server/games/solved.py).
    "TEEKO_BUILD": [s.strip() for s in os.environ.get("GAMENIGHT_TEEKO_BUILD", "").split(",")
                    if s.strip()],
    # Teka analysis (server/games/analysis_jobs.py, docs/protocol.md): where results are
    # kept ("": var/analysis), matches that may wait, per client, the solver's CPU seconds
    # per match, matches analysed at once (and of them kept for watched games), one
    # solve's budget in seconds.
    "ANALYSIS_DIR": os.environ.get("GAMENIGHT_ANALYSIS_DIR", "").strip(),
    "ANALYSIS_QUEUE": int(_number("GAMENIGHT_ANALYSIS_QUEUE", 20, 1)),
    "ANALYSIS_PER_CLIENT": int(_number("GAMENIGHT_ANALYSIS_PER_CLIENT", 3, 1)),
    "ANALYSIS_CPU_SECONDS": _number("GAMENIGHT_ANALYSIS_CPU_SECONDS", 120, 0.001),
    "TEKA_ANALYSES": int(_number("GAMENIGHT_TEKA_ANALYSES", 1, 1)),
    "ANALYSIS_WATCHED_SLOTS": int(_number("GAMENIGHT_ANALYSIS_WATCHED_SLOTS", 1, 0)),
    "TEKA_SOLVE_SECONDS": _number("GAMENIGHT_TEKA_SOLVE_SECONDS", 30, 1e-9),
    # The role `migrate` gives the server's rights to ("": the app role of server/dbconfig.py).
    "APP_ROLE": os.environ.get("GAMENIGHT_APP_ROLE", "").strip(),
    # The admin account server.run creates on the first start (server/ops/admin_account.py):
    # its name, and its password ("": generated, kept in var/admin-password.txt).
    "ADMIN_USER": os.environ.get("GAMENIGHT_ADMIN_USER", "") or "admin",
    "ADMIN_PASSWORD": os.environ.get("GAMENIGHT_ADMIN_PASSWORD", ""),
}
