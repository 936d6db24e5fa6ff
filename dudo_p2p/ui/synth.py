"""The table's sounds, synthesized in code: nothing is recorded or downloaded.

Each sound is a list of samples in -1..1 at ``RATE`` Hz, built from a few primitives (a tone
with an envelope and an optional glide, a filtered noise burst, a mix of parts at offsets).
The noise comes from a seeded ``random.Random``, so every run makes the same sounds. Pure
Python on purpose (numpy is not a dependency): all of them together take a few tenths of a
second, once, when the sound bank opens.
"""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Callable

RATE = 22050
FADE_S = 0.02  # every sound ends on a ramp this long
Samples = list[float]


def tone(freq: float, dur: float, *, glide_to: float | None = None, decay: float = 6.0,
         attack: float = 0.004, harmonics: tuple[float, ...] = (1.0,)) -> Samples:
    """A tone of ``freq`` Hz (gliding to ``glide_to``) for ``dur`` s: a short attack, then an
    exponential decay (``decay`` per second); ``harmonics`` weight the partials 1, 2, 3..."""
    n = int(RATE * dur)
    end = glide_to if glide_to is not None else freq
    out: Samples = []
    phase = 0.0
    norm = sum(abs(h) for h in harmonics) or 1.0
    for i in range(n):
        t = i / RATE
        f = freq + (end - freq) * (i / n)
        phase += 2 * math.pi * f / RATE
        env = min(1.0, t / attack) * math.exp(-decay * t)
        s = sum(h * math.sin(k * phase) for k, h in enumerate(harmonics, start=1))
        out.append(env * s / norm)
    return out


def noise(dur: float, rng: random.Random, *, decay: float = 30.0, smooth: float = 0.0,
          attack: float = 0.001) -> Samples:
    """A burst of noise: ``smooth`` 0..1 low-passes it (0 bright hiss, 0.9 a dull thud)."""
    n = int(RATE * dur)
    out: Samples = []
    last = 0.0
    for i in range(n):
        t = i / RATE
        last = smooth * last + (1 - smooth) * rng.uniform(-1, 1)
        out.append(last * min(1.0, t / attack) * math.exp(-decay * t))
    return out


def mix(parts: list[tuple[float, Samples, float]]) -> Samples:
    """Lay ``(start seconds, samples, gain)`` parts over one another; clipped to -1..1."""
    length = max(int(start * RATE) + len(s) for start, s, _ in parts)
    out = [0.0] * length
    for start, samples, gain in parts:
        at = int(start * RATE)
        for i, v in enumerate(samples):
            out[at + i] += v * gain
    return [max(-1.0, min(1.0, v)) for v in out]


def fade_out(samples: Samples, seconds: float = FADE_S) -> Samples:
    """The last ``seconds`` ramped down to silence: a sound cut while still ringing clicks."""
    n = min(len(samples), int(RATE * seconds))
    if n == 0:
        return samples
    head, tail = samples[:-n], samples[-n:]
    return head + [v * (n - 1 - i) / n for i, v in enumerate(tail)]


def _rattle(rng: random.Random) -> Samples:
    # dice knocking inside a leather cup: many short dull clicks, denser in the middle
    parts: list[tuple[float, Samples, float]] = []
    t = 0.0
    while t < 0.85:
        parts.append((t, noise(0.025, rng, decay=180, smooth=0.55), rng.uniform(0.3, 0.7)))
        t += rng.uniform(0.018, 0.06)
    return mix(parts)


def _slam(rng: random.Random) -> Samples:
    # the cup brought down on the table: a low thump and a short knock
    return mix([(0, tone(85, 0.3, glide_to=55, decay=14), 0.9),
                (0, noise(0.08, rng, decay=60, smooth=0.8), 0.8)])


def _chord(freqs: tuple[float, ...], step: float, dur: float, decay: float) -> Samples:
    return mix([(i * step, tone(f, dur, decay=decay, harmonics=(1.0, 0.3, 0.1)), 0.45)
                for i, f in enumerate(freqs)])


SOUNDS: dict[str, Callable[[random.Random], Samples]] = {
    "rattle": _rattle,
    "slam": _slam,
    "bid": lambda rng: mix([(0, tone(620, 0.12, decay=40, harmonics=(1.0, 0.5)), 0.6),
                            (0, noise(0.02, rng, decay=200, smooth=0.5), 0.3)]),
    "dudo": lambda rng: mix([(0, tone(392, 0.2, decay=8, harmonics=(1.0, 0.6, 0.4, 0.2)), 0.6),
                             (0.16, tone(262, 0.3, decay=7, harmonics=(1.0, 0.6, 0.4, 0.2)),
                              0.6)]),
    "calzo": lambda rng: mix([(0, tone(330, 0.18, decay=8, harmonics=(1.0, 0.5, 0.2)), 0.6),
                              (0.14, tone(494, 0.3, decay=7, harmonics=(1.0, 0.5, 0.2)), 0.6)]),
    "reveal": lambda rng: mix([(0, noise(0.35, rng, decay=6, smooth=0.3, attack=0.25), 0.35),
                               (0.25, tone(880, 0.35, decay=9, harmonics=(1.0, 0.3)), 0.4)]),
    "lose": lambda rng: tone(440, 0.45, glide_to=180, decay=5, harmonics=(1.0, 0.4, 0.2)),
    "gain": lambda rng: _chord((523, 659, 784), 0.08, 0.3, 9),
    "click": lambda rng: mix([(0, noise(0.03, rng, decay=300, smooth=0.1), 0.8),
                              (0, tone(2200, 0.03, decay=150), 0.4)]),
    "bang": lambda rng: mix([(0, noise(0.6, rng, decay=7, smooth=0.35), 1.0),
                             (0, tone(70, 0.4, glide_to=40, decay=9), 0.8)]),
    "turn": lambda rng: _chord((659, 880), 0.12, 0.25, 10),
    "tick": lambda rng: tone(1500, 0.05, decay=90),
    "victory": lambda rng: _chord((523, 659, 784, 1047), 0.14, 0.6, 3.5),
    "talk": lambda rng: tone(900, 0.09, glide_to=1200, decay=30),
}


def render(name: str, channels: int = 1, volume: float = 1.0) -> bytes:
    """Sound ``name`` as signed 16-bit native-endian PCM, ``channels`` interleaved."""
    rng = random.Random(name)  # each sound its own fixed noise
    samples = fade_out(SOUNDS[name](rng))
    pcm = array("h", (int(v * volume * 32000) for v in samples for _ in range(channels)))
    return pcm.tobytes()
