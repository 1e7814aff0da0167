"""Stage the Android build tree for deploy/buildozer.spec.

    .venv/bin/python -m client_kivy.android_stage        # -> build/android/
    cd deploy && buildozer android debug

buildozer wants one folder with ``main.py`` at its top: this copies ``client_kivy/`` and the
pure-Python sources of ``core/`` (never compiled modules), the rules pages
(``docs/rules/`` with the pages for players in ``players/``, into ``client_kivy/rules/``, where
the in-app rules screen finds them)
and writes a ``main.py`` that sets ``GAMENIGHT_PURE=1`` and starts the app.
"""

from __future__ import annotations

import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c", "*.pyc")


def stage(dest: str) -> str:
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    for pkg in ("client_kivy", "core"):
        shutil.copytree(os.path.join(ROOT, pkg), os.path.join(dest, pkg), ignore=SKIP)
    shutil.copytree(os.path.join(ROOT, "docs", "rules"), os.path.join(dest, "client_kivy", "rules"))
    with open(os.path.join(dest, "main.py"), "w", encoding="utf-8") as f:
        f.write('import os\nos.environ.setdefault("GAMENIGHT_PURE", "1")\n'
                "from client_kivy.app import main\nmain()\n")
    return dest


if __name__ == "__main__":
    out = stage(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "android"))
    print(out)
