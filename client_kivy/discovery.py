"""Find gamenight servers on the local network (mDNS / DNS-SD), without Kivy.

A server started with ``./gamenight serve`` announces ``_gamenight._tcp.local.``
(server/ops/announce.py): its name, address, port and a TXT record with the protocol
version and the HTTP path. :class:`Discovery` browses for it with python-zeroconf's
``ServiceBrowser`` and keeps the list of servers heard; every change is handed to
``on_change`` through ``post`` (the app passes one that runs it on Kivy's main thread).

Without python-zeroconf (the Android build, see docs/client.md) or without multicast,
:meth:`Discovery.start` returns False and says why in ``error``; the typed address is the
way in.

``GAMENIGHT_DISCOVERY=0`` turns browsing off; ``GAMENIGHT_DISCOVERY_INTERFACES`` (comma
separated addresses, e.g. ``127.0.0.1``) listens on those interfaces only (the tests and
the screenshot tool listen on loopback).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

SERVICE_TYPE = "_gamenight._tcp.local."  # = server.ops.announce.SERVICE_TYPE
PROTOCOL_VERSION = "1"  # = server.ops.announce.PROTOCOL_VERSION

Post = Callable[[Callable[[], None]], None]


@dataclass(frozen=True)
class Found:
    """One server heard on the network."""

    key: str  # the mDNS instance name (unique on the network)
    name: str  # the club's name (TXT ``name``, else the instance name)
    host: str  # an IPv4 address
    port: int
    path: str = "/"
    proto: str = PROTOCOL_VERSION

    @property
    def usable(self) -> bool:
        return self.proto == PROTOCOL_VERSION

    @property
    def address(self) -> str:
        """What the connect screen's address field takes: ``192.168.1.20:8000``."""
        path = self.path.strip("/")
        return f"{self.host}:{self.port}" + (f"/{path}" if path else "")


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return "" if value is None else str(value)


def found_from_info(info: Any) -> Found | None:
    """A :class:`Found` from a resolved ``zeroconf.ServiceInfo`` (None without an IPv4
    address or a port)."""
    addresses = [a for a in info.parsed_addresses() if ":" not in a]
    if not addresses or not info.port:
        return None
    props = {_text(k): _text(v) for k, v in (info.properties or {}).items()}
    key = str(info.name)
    instance = key[: -len(SERVICE_TYPE) - 1] if key.endswith("." + SERVICE_TYPE) else key
    return Found(key=key, name=props.get("name") or instance, host=addresses[0],
                 port=int(info.port), path=props.get("path") or "/",
                 proto=props.get("proto") or "")


def enabled() -> bool:
    return os.environ.get("GAMENIGHT_DISCOVERY", "1").strip().lower() not in ("0", "no", "off",
                                                                               "false")


def interfaces_from_env() -> list[str] | None:
    raw = os.environ.get("GAMENIGHT_DISCOVERY_INTERFACES", "").strip()
    return [a.strip() for a in raw.split(",") if a.strip()] or None


def warm_up() -> None:
    """Import python-zeroconf in a background thread (half a second or more, cold), so the
    connect screen does not stall the first time it starts listening."""

    def load() -> None:
        with contextlib.suppress(ImportError):
            import zeroconf  # noqa: F401

    if enabled():
        threading.Thread(target=load, name="gamenight-zeroconf-import", daemon=True).start()


class Discovery:
    """Browse for gamenight servers while started; ``servers`` is the current list."""

    def __init__(self, on_change: Callable[[], None] | None = None, post: Post | None = None,
                 interfaces: list[str] | None = None) -> None:
        self.on_change = on_change
        self.post: Post = post or (lambda fn: fn())
        self.interfaces = interfaces if interfaces is not None else interfaces_from_env()
        self.error = ""
        self._found: dict[str, Found] = {}
        self._lock = threading.Lock()
        self._zc: Any = None
        self._browser: Any = None

    @property
    def running(self) -> bool:
        return self._zc is not None

    @property
    def servers(self) -> list[Found]:
        with self._lock:
            return sorted(self._found.values(), key=lambda f: (not f.usable, f.name.lower(),
                                                                f.key))

    def start(self) -> bool:
        """Listen (again); False, with ``error`` set, when it cannot be done here."""
        if self._zc is not None:
            return True
        if not enabled():
            self.error = "finding servers is off (GAMENIGHT_DISCOVERY=0)"
            return False
        try:
            from zeroconf import InterfaceChoice, IPVersion, ServiceBrowser, Zeroconf
        except ImportError:
            self.error = "finding servers needs python-zeroconf"
            return False
        try:
            self._zc = Zeroconf(interfaces=self.interfaces or InterfaceChoice.All,
                                ip_version=IPVersion.V4Only)
            self._browser = ServiceBrowser(self._zc, SERVICE_TYPE, handlers=[self._on_state])
        except Exception as exc:  # OSError: no multicast on this network
            self.error = f"cannot listen for servers: {exc}"
            self.stop()
            return False
        self.error = ""
        return True

    def stop(self) -> None:
        """Stop listening: the browser's thread and the sockets are closed; the list is
        emptied (a server may be gone by the next start)."""
        browser, zc = self._browser, self._zc
        self._browser = self._zc = None
        if browser is not None:
            with contextlib.suppress(Exception):
                browser.cancel()
        if zc is not None:
            with contextlib.suppress(Exception):
                zc.close()
        with self._lock:
            had = bool(self._found)
            self._found.clear()
        if had:
            self._changed()

    # -- zeroconf's thread --------------------------------------------------------------------
    def _on_state(self, zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        from zeroconf import ServiceStateChange

        if state_change is ServiceStateChange.Removed:
            with self._lock:
                gone = self._found.pop(name, None)
            if gone is not None:
                self._changed()
            return
        # Added or Updated: resolve (SRV, TXT, A); this runs in the browser's own thread.
        try:
            info = zeroconf.get_service_info(service_type, name, timeout=3000)
        except Exception:
            info = None
        found = found_from_info(info) if info is not None else None
        if found is None or zeroconf is not self._zc:
            return
        with self._lock:
            same = self._found.get(name) == found
            self._found[name] = found
        if not same:
            self._changed()

    def _changed(self) -> None:
        cb = self.on_change
        if cb is not None:
            self.post(cb)
