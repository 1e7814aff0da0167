"""Heap profile of a running daphne: which allocation sites grow (``bench soak --heap-profile``).

``GAMENIGHT_HEAP_PROFILE=<seconds>:<directory>`` starts :mod:`tracemalloc` (25 frames) at
start-up; every ``<seconds>`` a thread compares a snapshot with the first one taken after a
warm-up and writes the 25 sites that grew most, grouped by their traceback, to
``<directory>/heap-<pid>.txt`` (replaced each time). tracemalloc of the standard library: no
dependency, and it attributes every Python allocation to the line that made it.
"""

from __future__ import annotations

import linecache
import os
import threading
import time
import tracemalloc
from pathlib import Path


def _filtered(snap: tracemalloc.Snapshot) -> tracemalloc.Snapshot:
    return snap.filter_traces([tracemalloc.Filter(False, tracemalloc.__file__),
                               tracemalloc.Filter(False, linecache.__file__),
                               tracemalloc.Filter(False, "<frozen importlib._bootstrap>")])


def _run(every: float, out: Path) -> None:
    time.sleep(min(every, 60.0))  # (start-up and the first games: not growth)
    base = _filtered(tracemalloc.take_snapshot())
    started = time.strftime("%H:%M:%S")
    while True:
        time.sleep(every)
        snap = _filtered(tracemalloc.take_snapshot())
        stats = snap.compare_to(base, "traceback")
        current, peak = tracemalloc.get_traced_memory()
        lines = [f"pid {os.getpid()} at {time.strftime('%H:%M:%S')}, compared with {started}; "
                 f"traced now {current / 2**20:.1f} MB (peak {peak / 2**20:.1f} MB)"]
        for st in stats[:25]:
            lines.append(f"\n{st.size_diff / 1024:+10.1f} KiB {st.count_diff:+8d} blocks "
                         f"(now {st.size / 1024:.1f} KiB)")
            lines.extend("    " + ln for ln in st.traceback.format()[-12:])
        tmp = out.with_suffix(".part")
        tmp.write_text("\n".join(lines) + "\n")
        tmp.replace(out)


def start(spec: str) -> None:
    """Start tracing and the writer thread (``spec``: ``<seconds>:<directory>``)."""
    every, _, where = spec.partition(":")
    tracemalloc.start(25)
    out = Path(where or ".") / f"heap-{os.getpid()}.txt"
    out.parent.mkdir(parents=True, exist_ok=True)
    threading.Thread(target=_run, args=(float(every), out), daemon=True,
                     name="gamenight-heap-profile").start()
