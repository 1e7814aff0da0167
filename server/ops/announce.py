"""Announce the server on the local network (mDNS / DNS-SD), so tablets find it by itself.

``./gamenight serve`` (server/run.py) calls :func:`start` once daphne's socket listens and
:meth:`Announcer.stop` on exit. The service is ``_gamenight._tcp.local.``; the instance name
is the club's name (``--name`` / ``GAMENIGHT_NAME``, default ``gamenight on <host>``), its
SRV record carries the port, its A record the address tablets should use, and its TXT
record:

    proto=1     docs/protocol.md's version (the app lists other versions as not usable)
    name=...    the club's name as typed (an instance name is cut to 63 bytes)
    path=/      the HTTP path the API lives under

The library is python-zeroconf (pure Python, with optional compiled speed-ups; its own
responder, so no Avahi or Bonjour daemon is needed). Announcing is best effort: when
multicast is unavailable (no network, a container without it) one line says so and the
server goes on; a tablet can always type the address the banner prints.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable

SERVICE_TYPE = "_gamenight._tcp.local."
PROTOCOL_VERSION = "1"
HTTP_PATH = "/"
_MAX_LABEL = 63  # bytes in one DNS label (the instance name)


def enabled(flag_off: bool = False) -> bool:
    """Off with ``--no-announce`` or ``GAMENIGHT_ANNOUNCE=0``."""
    if flag_off:
        return False
    return os.environ.get("GAMENIGHT_ANNOUNCE", "1").strip().lower() not in ("0", "no", "off",
                                                                              "false")


def default_name() -> str:
    name = os.environ.get("GAMENIGHT_NAME", "").strip()
    return name or f"gamenight on {socket.gethostname().split('.')[0] or 'this machine'}"


def instance_label(name: str) -> str:
    """``name`` cut to one DNS label (63 bytes of UTF-8, whole characters), dots replaced
    (a dot would start a new label)."""
    label = " ".join(name.replace(".", " ").split()) or "gamenight"
    while len(label.encode("utf-8")) > _MAX_LABEL:
        label = label[:-1]
    return label.rstrip() or "gamenight"


def txt_record(name: str) -> dict[str, str]:
    return {"proto": PROTOCOL_VERSION, "name": name, "path": HTTP_PATH}


class Announcer:
    """One registered service on one ``Zeroconf`` instance. Registration (mDNS probing,
    about 1.7 s) runs in a thread, so the server's start is not held up; :meth:`stop`
    waits for it, says goodbye (the tablets drop the entry at once) and closes the
    sockets and threads."""

    def __init__(self, name: str, port: int, address: str,
                 interfaces: list[str] | None = None,
                 say: Callable[[str], None] | None = None) -> None:
        from zeroconf import InterfaceChoice, IPVersion, ServiceInfo, Zeroconf

        self.name = name
        self.port = port
        self.address = address
        self._say = say or (lambda _msg: None)
        # May raise OSError (no multicast): the caller decides what to say.
        self.zc = Zeroconf(interfaces=interfaces or InterfaceChoice.All,
                           ip_version=IPVersion.V4Only)
        host = instance_label(socket.gethostname().split(".")[0] or "gamenight")
        self.info = ServiceInfo(
            SERVICE_TYPE, f"{instance_label(name)}.{SERVICE_TYPE}",
            addresses=[socket.inet_aton(address)], port=port,
            properties=txt_record(name), server=f"{host.replace(' ', '-')}.local.")
        self.registered = threading.Event()
        self.stopped = False
        self.error = ""
        self._thread = threading.Thread(target=self._register, name="gamenight-announce",
                                        daemon=True)
        self._thread.start()

    @property
    def service_name(self) -> str:
        """The registered instance name (zeroconf appends `` (2)`` on a clash)."""
        return str(self.info.name)

    def _register(self) -> None:
        try:
            self.zc.register_service(self.info, allow_name_change=True)
            self.registered.set()
        except Exception as exc:  # never take the server down
            self.error = f"{type(exc).__name__}: {exc}"
            self._say(f"not announced on the local network ({self.error}); tablets can type "
                      f"the address")

    def stop(self) -> None:
        """Goodbye packets, then the threads and sockets closed; a second call does nothing."""
        self._thread.join(timeout=5.0)
        if self.stopped:
            return
        self.stopped = True
        if self.registered.is_set():
            with contextlib.suppress(Exception):
                self.zc.unregister_service(self.info)
        with contextlib.suppress(Exception):
            self.zc.close()


def start(port: int, host: str, name: str | None = None,
          say: Callable[[str], None] | None = None,
          lan_address: Callable[[], str] | None = None) -> Announcer | None:
    """Announce ``port`` as the club ``name``; None (after one line through ``say``) when
    it cannot be done. ``host`` is what the server listens on: the whole LAN (0.0.0.0)
    announces the LAN address on every interface; one address (e.g. 127.0.0.1) announces
    that address on that interface only."""
    out = say or (lambda _msg: None)
    name = name or default_name()
    if host in ("", "0.0.0.0", "::"):
        address = lan_address() if lan_address is not None else "127.0.0.1"
        interfaces: list[str] | None = None
    else:
        address, interfaces = host, [host]
    try:
        socket.inet_aton(address)
    except OSError:
        out(f"not announced on the local network (not an IPv4 address: {address})")
        return None
    try:
        announcer = Announcer(name, port, address, interfaces, say=out)
    except ImportError:
        out("not announced on the local network (python-zeroconf is not installed)")
        return None
    except Exception as exc:  # OSError: no multicast here; never keep the server from starting
        out(f"not announced on the local network ({type(exc).__name__}: {exc}); tablets can "
            f"type the address")
        return None
    out(f'announcing "{name}" on the local network (mDNS {SERVICE_TYPE[:-7]}, '
        f"{address}:{port}; --no-announce turns it off)")
    return announcer

