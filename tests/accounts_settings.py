"""Settings of the daphne that tests/test_server_accounts.py starts: the server's own, with
a password hasher that notes each time it runs (tests/counting_hasher.py), so that the test
sees a login refused by the throttle run no password hash at all."""

from server.settings import *  # noqa: F403

PASSWORD_HASHERS = ["counting_hasher.CountingHasher"]
