"""joblib map with one SeedSequence child per task.

Reproducibility rule: the random numbers of task ``i`` come only from child ``i`` of the one
SeedSequence made from ``random_state`` at the public entry point. Which worker runs a task,
and in which order, therefore cannot change a result: the same ``random_state`` gives the same
numbers for ``n_jobs=1``, ``n_jobs=2`` and any joblib backend (loky, threading, Dask via
``joblib.parallel_config(backend="dask")``).
"""
from __future__ import annotations

import numpy as np
from joblib import Parallel, delayed

from ._validation import check_n_jobs

__all__ = ["spawn", "parallel_map", "progress_bar"]


def spawn(seed_sequence, n):
    """``n`` independent child SeedSequences, one per task."""
    return seed_sequence.spawn(n)


def rng_of(seed):
    """A Generator for one task's SeedSequence."""
    return np.random.default_rng(seed)


def progress_bar(total, desc, enabled):
    """A tqdm bar when ``enabled`` (imported lazily), else a do-nothing stand-in."""
    if not enabled:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, leave=False)


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
        out = []
        for r in Parallel(n_jobs=n_jobs, return_as="generator")(delayed(_in_worker)(fn, *t) for t in tasks):
            out.append(r)
            bar.update(1)
        return out


def _in_worker(fn, *args):
    """Run one task; inside a Dask worker keep the task's own joblib calls in the worker.

    A Dask worker runs tasks under joblib's Dask backend, so a learner's nested joblib call
    (the trees of a forest, even with n_jobs=1) would go back to the scheduler as hundreds of
    tiny tasks, costing more than the work. Threads inside the worker are what the learner's
    ``n_jobs`` means there.
    """
    if not _inside_dask_worker():
        return fn(*args)  # outside the except clause: no stray __context__ on the task's errors
    from joblib import parallel_config

    with parallel_config(backend="threading"):
        return fn(*args)


def _inside_dask_worker():
    try:
        from distributed import get_worker

        get_worker()
    except (ImportError, ValueError):
        return False
    return True
