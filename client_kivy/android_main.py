"""Entry point of the Android build (deploy/buildozer.spec): pure-Python core, then the app."""

import os

os.environ.setdefault("GAMENIGHT_PURE", "1")

from client_kivy.app import main  # noqa: E402

main()
