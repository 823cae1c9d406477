"""joblib map with one SeedSequence child per task.

Reproducibility rule: the random numbers of task ``i`` come only from child ``i`` of the one
SeedSequence made from ``random_state`` at the public entry point. Which worker runs a task,
and in which order, therefore cannot change a result: the same ``random_state`` gives the same
numbers for ``n_jobs=1``, ``n_jobs=2`` and any joblib backend (loky, threading, Dask via
``joblib.parallel_config(backend="dask")``).

Threads: with several workers, imlkit limits the BLAS and OpenMP thread pools (threadpoolctl)
so that workers × threads never exceeds the cores: each task runs with at most
``cpu_count() // workers`` threads (at least 1). Threading-backend workers share the caller's
process, so the (process-wide) BLAS limit is set there around the whole map and the OpenMP
limit, a per-thread setting, in each task's thread; process workers (loky) set both in each
task. An oversubscribed machine is not a little slower but many times slower (OpenMP
threads of a HistGradientBoosting fit spin-wait on cores that other workers hold). With
``n_jobs=1`` (one worker, in the caller's process) imlkit leaves the user's thread settings
alone: the model may use every core, and the user can still wrap the call in
``threadpoolctl.threadpool_limits``. Dask workers keep the cluster's own configuration.
"""
from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import threading
from contextlib import nullcontext

import numpy as np
from joblib import Parallel, delayed

from ._validation import check_n_jobs

__all__ = ["spawn", "parallel_map", "progress_bar", "progress_sink", "thread_budget", "limit_threads"]

#: The receiver of unit counts set by :func:`progress_sink` (the report's progress), or None.
_SINK = contextvars.ContextVar("imlkit_progress_sink", default=None)


def thread_budget(n_jobs):
    """BLAS/OpenMP threads per worker for ``n_jobs`` workers, or None for one worker.

    ``max(1, cpu_count() // workers)`` with joblib's count of usable cores (it honours CPU
    affinity and cgroup quotas) and of workers (``n_jobs=None`` inside ``parallel_config``).
    """
    from joblib import cpu_count, effective_n_jobs

    workers = effective_n_jobs(n_jobs)
    if workers <= 1:
        return None
    return max(1, cpu_count() // workers)


def limit_threads(threads, user_api=None):
    """A context limiting threadpoolctl-managed pools (all, or ``user_api``) to ``threads``
    (None: no limit)."""
    if threads is None:
        return nullcontext()
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=int(threads), user_api=user_api)


def spawn(seed_sequence, n):
    """``n`` independent child SeedSequences, one per task."""
    return seed_sequence.spawn(n)


def rng_of(seed):
    """A Generator for one task's SeedSequence."""
    return np.random.default_rng(seed)


def progress_bar(total, desc, enabled):
    """A tqdm bar when ``enabled`` (imported lazily), else a do-nothing stand-in.

    Every method's ``progress=`` goes through here, so this is also the one place where a
    caller that shows progress itself (the report) hears of the units of a long computation:
    inside :func:`progress_sink` the bar draws nothing and passes ``done/total`` on to the sink
    instead, whatever ``enabled`` says.
    """
    sink = _SINK.get()
    if sink is not None:
        return _SinkBar(sink, total, desc)
    if not enabled:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, leave=False)


@contextlib.contextmanager
def progress_sink(sink):
    """Send the unit counts of every :func:`progress_bar` opened inside to ``sink``.

    ``sink`` has ``units(desc, done, total)`` (called on each update of the outermost open bar)
    and ``units_end()`` (when that bar closes). Bars nested in the outermost one (the predictions
    of one refit inside LOCO's bar over refits) stay silent: the step's coarse count is what a
    reader can follow. Bars in other processes (loky workers) never see the sink; the caller's
    bar over their results does.
    """
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)


_ACTIVE_LOCK = threading.Lock()


class _SinkBar:
    """A bar that forwards its counts to a sink when it is the outermost one open."""

    def __init__(self, sink, total, desc):
        self.sink, self.total, self.desc, self.done, self.live = sink, total, desc, 0, False

    def __enter__(self):
        with _ACTIVE_LOCK:  # the sink's slot is shared by threads (threading-backend workers)
            if getattr(self.sink, "_imlkit_active_bar", None) is None:
                self.sink._imlkit_active_bar = self
                self.live = True
        if self.live:
            self.sink.units(self.desc, 0, self.total)
        return self

    def update(self, n=1):
        if self.live:
            self.done += n
            self.sink.units(self.desc, self.done, self.total)

    def close(self):
        if self.live:
            self.live = False
            with _ACTIVE_LOCK:
                self.sink._imlkit_active_bar = None
            self.sink.units_end()

    def __exit__(self, *exc):
        self.close()
        return False


class _NoBar:
    def update(self, n=1):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def parallel_map(fn, tasks, *, n_jobs=None, progress=False, desc="imlkit"):
    """``[fn(*task) for task in tasks]`` over joblib, results in task order.

    Parameters
    ----------
    fn : callable
        Must be picklable for process backends (a module-level function).
    tasks : sequence of tuples
        The arguments of each call; give each task its own SeedSequence child.
    n_jobs : int or None
        joblib's meaning (None: 1 unless inside ``joblib.parallel_config``; -1: all cores).
    progress : bool
        Show one tqdm bar over all tasks.
    """
    tasks = list(tasks)
    if n_jobs is not None:
        check_n_jobs(n_jobs)
    with progress_bar(len(tasks), desc, progress) as bar:
        if n_jobs == 1 or len(tasks) <= 1:
            # Plain loop: no joblib overhead, and errors keep their original traceback.
            out = []
            for t in tasks:
                out.append(fn(*t))
                bar.update(1)
            return out
        # n_jobs=None defers to an enclosing joblib.parallel_config (e.g. backend="dask").
        threads = thread_budget(n_jobs)
        parent = os.getpid()
        out = []
        # Threading workers live in this process: limit its pools for the whole map.
        with limit_threads(threads):
            for r in Parallel(n_jobs=n_jobs, return_as="generator")(
                    delayed(_in_worker)(fn, threads, parent, *t) for t in tasks):
                out.append(r)
                bar.update(1)
        return out


def _in_worker(fn, threads, parent, *args):
    """Run one task; inside a Dask worker keep the task's own joblib calls in the worker.

    A Dask worker runs tasks under joblib's Dask backend, so a learner's nested joblib call
    (the trees of a forest, even with n_jobs=1) would go back to the scheduler as hundreds of
    tiny tasks, costing more than the work. Threads inside the worker are what the learner's
    ``n_jobs`` means there.
    """
    if not _inside_dask_worker():
        if os.getpid() == parent:
            # A thread of the caller: BLAS pools are process-wide and already limited there,
            # but OpenMP's thread count is a per-thread setting, so set it in this thread.
            with limit_threads(threads, user_api="openmp"):
                return fn(*args)  # outside the except clause: no stray __context__ on the task's errors
        # A process worker runs one task at a time, so a per-task limit is safe.
        with limit_threads(threads):
            return fn(*args)
    from joblib import parallel_config

    with parallel_config(backend="threading"):
        return fn(*args)


def _inside_dask_worker():
    # a Dask worker has imported distributed: without it nothing needs importing (0.23 s of every report)
    if "distributed" not in sys.modules:
        return False
    try:
        from distributed import get_worker

        get_worker()
    except (ImportError, ValueError):
        return False
    return True
