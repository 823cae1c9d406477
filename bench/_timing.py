"""Timing shared by the benchmarks (run as ``python bench/<name>.py``, so this imports as ``_timing``)."""
import time


def best_of(fn, runs=3):
    """Smallest wall time of ``runs`` calls of ``fn`` and the last call's result.

    The minimum is the least disturbed run on a shared machine; each benchmark times the
    peer and imlkit in the same process, so the ratio is what counts.
    """
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out
