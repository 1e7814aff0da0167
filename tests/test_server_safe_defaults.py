"""Safe defaults of ``./gamenight serve``: a secret key made per install and kept under
``var/``, ``ALLOWED_HOSTS`` the addresses ``serve`` prints plus loopback (never ``*``), API
tokens that expire after a documented lifetime and can be revoked in the admin."""

from __future__ import annotations

import datetime as dt
import json
import stat
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings

import server.settings as server_settings
from server.games.models import Token
from server.run import lan_address

OLD_CONSTANT = "gamenight-dev-insecure-key-change-me"


def test_the_secret_key_is_made_once_per_install_under_var(monkeypatch, tmp_path):
    assert settings.SECRET_KEY != OLD_CONSTANT and len(settings.SECRET_KEY) >= 50
    monkeypatch.setattr(server_settings, "VAR_DIR", tmp_path / "var")
    with ThreadPoolExecutor(8) as pool:  # processes starting at once agree on one key
        keys = set(pool.map(lambda _i: server_settings._install_secret_key(), range(16)))
    assert len(keys) == 1
    key = keys.pop()
    path = tmp_path / "var" / "secret-key.txt"
    assert path.read_text().strip() == key and len(key) >= 50
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert server_settings._install_secret_key() == key  # every later start: the same key
    assert sorted(p.name for p in (tmp_path / "var").iterdir()) == ["secret-key.txt"]
    monkeypatch.setattr(server_settings, "VAR_DIR", tmp_path / "other")
    assert server_settings._install_secret_key() != key  # another install, another key


def test_allowed_hosts_default_to_the_printed_address_and_loopback(monkeypatch):
    assert "*" not in settings.ALLOWED_HOSTS
    hosts = server_settings._default_hosts()
    assert "*" not in hosts
    assert {"localhost", "127.0.0.1", lan_address()} <= set(hosts)
    monkeypatch.setenv("GAMENIGHT_HOST", "10.1.2.3")
    assert "10.1.2.3" in server_settings._default_hosts()


pytestmark_db = pytest.mark.django_db(transaction=True)


@pytestmark_db
def test_api_tokens_expire_and_are_revoked_in_the_admin(client, admin_client, django_user_model):
    user = django_user_model.objects.create_user("ann", password="pw")
    r = client.post("/api/login", data=json.dumps({"username": "ann", "password": "pw"}),
                    content_type="application/json")
    key = r.json()["token"]

    def me(k: str) -> int:
        return client.get("/api/me/", headers={"Authorization": f"Token {k}"}).status_code

    assert me(key) == 200
    token = Token.objects.get(digest=Token.digest_of(key))
    assert token.expires_at - token.created_at == dt.timedelta(days=settings.API_TOKEN_DAYS)
    Token.objects.filter(pk=token.pk).update(expires_at=token.created_at - dt.timedelta(
        seconds=1))
    assert me(key) == 401  # expired: log in again
    r = client.post("/api/login", data=json.dumps({"username": "ann", "password": "pw"}),
                    content_type="application/json")
    fresh = r.json()["token"]
    assert me(fresh) == 200
    page = admin_client.get("/admin/auth/user/").content.decode()
    assert "revoke_api_tokens" in page
    r = admin_client.post("/admin/auth/user/", {"action": "revoke_api_tokens",
                                                "_selected_action": [user.pk]})
    assert r.status_code == 302
    assert me(fresh) == 401 and not Token.objects.filter(user=user).exists()
    listing = admin_client.get("/admin/games/token/").content.decode()
    assert fresh not in listing


@pytest.mark.parametrize("https, expected", [
    ("0", {"W004", "W008", "W012", "W016"}),  # a game night: plain http on the LAN
    ("1", {"W005", "W021"}),  # a public server: HSTS for subdomains and preload are the domain's
])
def test_check_deploy_leaves_only_the_explained_warnings(tmp_path, https, expected):
    """``manage.py check --deploy`` (docs/deploy.md, "A public server"): on a game night
    only the https warnings, with ``GAMENIGHT_HTTPS=1`` only the two that are the domain
    owner's choice."""
    import os
    import re
    import subprocess
    import sys

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "server.settings", "GAMENIGHT_HTTPS": https,
           "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/none",  # (check connects to none)
           "GAMENIGHT_VAR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "django", "check", "--deploy"], env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    found = set(re.findall(r"\(security\.(\w+)\)", out.stdout + out.stderr))
    assert found == expected, out.stdout + out.stderr
