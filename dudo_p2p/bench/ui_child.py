"""UI figures in their own process: ``python -m dudo_p2p.bench.ui_child FRAMES IDLE_S``.

Runs ``dudo_p2p.ui.bench`` headless (SDL dummy video and audio drivers, 1280x800) and prints
one JSON line: "ui_frame_ms_p50", "ui_frame_ms_p99" (update + draw of a live table with the
animated path on), "ui_reveal_frame_ms_p99" (the same through the reveal's animation: cups
lifting one by one, dice pulsing and flying) and "ui_reveal_frame_cpu_ms_p99" (its CPU time
per frame, which a loaded machine does not inflate) and "ui_idle_cpu_pct" (CPU of the real
main loop while the table waits, in percent of one core), plus "ui_rss_mb" (this process's
peak resident memory). A separate process keeps pygame out of the bench process and its
memory figure honest.
"""

from __future__ import annotations

import json
import os
import sys
import time

UI_TIMEOUT_S = 90.0


def measure_ui(frames: int, idle_seconds: float) -> dict[str, float]:
    """Run this module as a child process (from the bench process, which never imports
    pygame) and return its figures; ``ChildFailed`` if it fails or prints no JSON."""
    from dudo_p2p.bench.procs import Child, ChildFailed

    env = dict(os.environ, SDL_VIDEODRIVER="dummy", SDL_AUDIODRIVER="dummy",
               PYGAME_HIDE_SUPPORT_PROMPT="1")
    child = Child.python("dudo_p2p.bench.ui_child", str(frames), str(idle_seconds), env=env)
    try:
        lines = child.lines_until_exit(UI_TIMEOUT_S + idle_seconds)
    finally:
        code = child.stop()
    if code != 0 or not lines:
        raise ChildFailed(f"ui child exited {code}: {child.stderr_tail()}")
    figures = json.loads(lines[-1])
    return {key: float(value) for key, value in figures.items()}


def peak_rss_kib() -> float:
    """This process's peak resident memory in KiB (``resource`` is POSIX only: NaN elsewhere;
    macOS reports bytes where Linux reports KiB)."""
    try:
        import resource
    except ImportError:
        return float("nan")
    peak = float(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    return peak / 1024 if sys.platform == "darwin" else peak


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m dudo_p2p.bench.ui_child FRAMES IDLE_SECONDS", file=sys.stderr)
        return 2
    frames, idle_seconds = int(argv[0]), float(argv[1])
    os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ["SDL_AUDIODRIVER"] = "dummy"
    from dudo_p2p.bench.figures import percentile
    from dudo_p2p.ui import bench, theme

    if tuple(theme.SIZE) != (1280, 800):
        print(f"the table is {theme.SIZE}, not 1280x800", file=sys.stderr)
        return 1
    times = bench.frame_times(frames)
    reveal = bench.reveal_frame_times(frames)
    reveal_cpu = bench.reveal_frame_times(frames, time.thread_time)
    idle = bench.idle_cpu_percent(idle_seconds)
    rss_kib = peak_rss_kib()
    print(json.dumps({
        "ui_frame_ms_p50": percentile(times, 50),
        "ui_frame_ms_p99": percentile(times, 99),
        "ui_reveal_frame_ms_p99": percentile(reveal, 99),
        "ui_reveal_frame_cpu_ms_p99": percentile(reveal_cpu, 99),
        "ui_idle_cpu_pct": idle,
        "ui_rss_mb": rss_kib / 1024,
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
