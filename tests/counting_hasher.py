"""A password hasher that notes each time it runs (for tests/test_server_accounts.py): one
line per hash made or checked, in the file named by ``GAMENIGHT_TEST_HASH_LOG`` (nothing
when it is unset). It hashes as Django's MD5 hasher (fast: the tests log in often)."""

from __future__ import annotations

import os
from typing import Any

from django.contrib.auth.hashers import MD5PasswordHasher
from django.utils.crypto import constant_time_compare


def note(what: str) -> None:
    path = os.environ.get("GAMENIGHT_TEST_HASH_LOG")
    if path:
        with open(path, "a") as out:
            out.write(what + "\n")


class CountingHasher(MD5PasswordHasher):
    algorithm = "counted_md5"

    def encode(self, password: Any, salt: Any) -> str:
        note("encode")
        return str(super().encode(password, salt))

    def verify(self, password: Any, encoded: Any) -> bool:
        note("verify")  # (one hash: the check below hashes without noting it again)
        salt = self.decode(encoded)["salt"]
        return constant_time_compare(encoded, MD5PasswordHasher.encode(self, password, salt))
