"""Screenshots of the club pages and admin for docs/club.md, with headless chromium.

    python tools/club_screenshots.py http://127.0.0.1:8713 <sessionid> docs/screenshots

Drives chromium over the DevTools protocol (``websockets``): sets the admin session cookie,
opens each page, saves a full-page PNG. Pages: see PAGES."""

from __future__ import annotations

import asyncio
import base64
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import websockets

PAGES = [
    ("club-front.png", "/", 1100),
    ("club-league.png", "/leagues/{league}/", 1100),
    ("club-league-autumn.png", "/leagues/{league}/?season={autumn}", 1100),
    ("club-player.png", "/players/ada/", 1100),
    ("club-admin-season.png", "/admin/leagues/season/{winter}/change/", 1300),
    ("club-admin-seasons.png", "/admin/leagues/season/", 1300),
    ("club-admin-games.png", "/admin/games/game/", 1400),
    ("club-admin-decide.png", "/admin/games/game/{live}/decide/", 1100),
    ("club-admin-record.png", "/admin/games/game/record/", 1100),
    ("club-admin-players-csv.png", "/admin/leagues/league/players-csv/", 1100),
]


async def shoot(base: str, session: str, out: Path, ids: dict[str, Any]) -> None:
    port = 9333
    profile = tempfile.mkdtemp(prefix="club-shots-")
    proc = subprocess.Popen(
        ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
         f"--remote-debugging-port={port}", f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/json") as r:
                    targets = json.loads(r.read())
                page = next(t for t in targets if t["type"] == "page")
                break
            except Exception:
                time.sleep(0.2)
        else:
            raise RuntimeError("chromium did not start")
        async with websockets.connect(page["webSocketDebuggerUrl"], max_size=2**26) as ws:
            n = 0

            async def call(method: str, **params: Any) -> Any:
                nonlocal n
                n += 1
                await ws.send(json.dumps({"id": n, "method": method, "params": params}))
                while True:
                    msg = json.loads(await ws.recv())
                    if msg.get("id") == n:
                        return msg.get("result", {})

            await call("Network.enable")
            await call("Page.enable")
            await call("Network.setCookie", name="sessionid", value=session,
                       url=base + "/")
            for name, path, width in PAGES:
                await call("Emulation.setDeviceMetricsOverride", width=width, height=900,
                           deviceScaleFactor=1, mobile=False)
                await call("Page.navigate", url=base + path.format(**ids))
                await asyncio.sleep(1.5)
                metrics = await call("Page.getLayoutMetrics")
                height = min(int(metrics["cssContentSize"]["height"]), 2600)
                await call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                           deviceScaleFactor=1, mobile=False)
                shot = await call("Page.captureScreenshot", format="png")
                (out / name).write_bytes(base64.b64decode(shot["data"]))
                print(name, height)
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    base, session, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    ids = json.loads(sys.argv[4])
    asyncio.run(shoot(base.rstrip("/"), session, out, ids))
