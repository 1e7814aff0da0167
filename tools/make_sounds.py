"""Synthesise the app's short sounds into ``client_kivy/sounds/`` (WAV, 16-bit mono, 22 050 Hz)
with nothing but the standard library: a wooden click for a move, a rising pair for a trick
won, a soft bell for your turn, a three-note chord for the end of a game.

    .venv/bin/python tools/make_sounds.py

The files are committed; run this again only to change them (the output is deterministic).
"""

from __future__ import annotations

import math
import os
import struct
import wave

RATE = 22050
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "client_kivy", "sounds")


def tone(freq: float, seconds: float, volume: float = 0.5, decay: float = 8.0,
         harmonics: tuple[float, ...] = (1.0, 0.3, 0.1)) -> list[float]:
    """A plucked tone: a few harmonics under an exponential decay, a 5 ms fade-in."""
    n = int(RATE * seconds)
    out = []
    for i in range(n):
        t = i / RATE
        env = math.exp(-decay * t) * min(1.0, t / 0.005)
        s = sum(a * math.sin(2 * math.pi * freq * (k + 1) * t) for k, a in enumerate(harmonics))
        out.append(volume * env * s / sum(harmonics))
    return out


def click(seconds: float = 0.07) -> list[float]:
    """A short knock of wood on wood: a low thump with a fast-decaying tick over it."""
    n = int(RATE * seconds)
    seed = 12345
    out = []
    for i in range(n):
        t = i / RATE
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        noise = (seed / 0x7FFFFFFF) * 2 - 1
        body = math.sin(2 * math.pi * 180 * t) * math.exp(-45 * t)
        tick = noise * math.exp(-160 * t)
        out.append(0.55 * body + 0.25 * tick)
    return out


def mix(*parts: tuple[float, list[float]]) -> list[float]:
    """Sounds laid over each other, each starting at its offset in seconds."""
    length = max(int(off * RATE) + len(p) for off, p in parts)
    out = [0.0] * length
    for off, p in parts:
        start = int(off * RATE)
        for i, s in enumerate(p):
            out[start + i] += s
    return out


def write(name: str, samples: list[float]) -> str:
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, name + ".wav")
    peak = max(1e-9, max(abs(s) for s in samples))
    scale = min(1.0, 0.9 / peak)
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(b"".join(struct.pack("<h", int(s * scale * 32767)) for s in samples))
    return path


SOUNDS = {
    "move": lambda: click(),
    "trick": lambda: mix((0.0, tone(660, 0.18, 0.5, 14)), (0.09, tone(880, 0.25, 0.5, 10))),
    "turn": lambda: tone(988, 0.35, 0.35, 9, (1.0, 0.5, 0.25, 0.12)),
    "end": lambda: mix((0.0, tone(523, 0.7, 0.35, 4)), (0.12, tone(659, 0.6, 0.35, 4)),
                       (0.24, tone(784, 0.8, 0.4, 3.5))),
}


def main() -> None:
    for name, make in SOUNDS.items():
        print(write(name, make()))


if __name__ == "__main__":
    main()
