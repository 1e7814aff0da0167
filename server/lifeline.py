"""Child processes that die with their parent. Standard library only (no Django), so bot
workers and the run command's children can use it before anything else is imported.

Two mechanisms, because neither is enough alone:

* ``PR_SET_PDEATHSIG`` (Linux ``prctl``): the kernel sends a signal to the child when its
  parent dies, even by SIGKILL. It only covers a parent that dies *after* the call (a
  parent killed while the child starts leaves it re-parented already), and it fires when
  the *thread* that started the child ends, not the process; the callers here start
  children from a thread that lives as long as the process (daphne's event loop thread,
  server.run's main thread).
* A watchdog thread that looks at ``os.getppid()`` every half second and ends the process
  when it changes (the parent died and the child was re-parented to init or a subreaper).
  This covers the start-up race and systems without ``prctl``.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1


def set_pdeathsig(sig: int = signal.SIGKILL) -> bool:
    """(Linux) have the kernel send ``sig`` to this process when its parent dies. Safe
    between fork and exec (``preexec_fn``): nothing is imported here."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except Exception:
        return False


def die_with_parent(parent: int | None = None, sig: int = signal.SIGKILL,
                    interval: float = 0.5, watchdog: bool = True) -> None:
    """End this process with ``sig`` when ``parent`` (default: the current parent) is gone.

    Sets the death signal, then (``watchdog``) starts :func:`watch_parent`. If the parent is
    already gone when this is called, the process ends at once."""
    expected = os.getppid() if parent is None else parent
    set_pdeathsig(sig)
    if os.getppid() != expected:  # the parent died before (or while) the signal was set
        _end(sig)
    if watchdog:
        watch_parent(expected, sig, interval)


def watch_parent(parent: int, sig: int = signal.SIGKILL, interval: float = 0.5) -> None:
    """A daemon thread that ends this process with ``sig`` once its parent is no longer
    ``parent`` (it died and this process was re-parented)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        _end(sig)

    threading.Thread(target=watch, daemon=True, name="gamenight-lifeline").start()


def _end(sig: int) -> None:
    """Send ourselves ``sig`` (a graceful stop where the process handles it); if that has not
    ended the process within 10 s, exit."""
    with contextlib.suppress(OSError):
        os.kill(os.getpid(), sig)
    if sig != signal.SIGKILL:
        time.sleep(10)
    os._exit(1)


def reset_sigint() -> None:
    """SIGINT back to its default action. A shell starts background jobs (``cmd &`` in a
    script) with SIGINT ignored, and an ignored signal stays ignored across ``exec``: a
    server started that way would not stop on SIGINT."""
    if threading.current_thread() is threading.main_thread():
        with contextlib.suppress(ValueError, OSError):
            if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
                signal.signal(signal.SIGINT, signal.default_int_handler)
