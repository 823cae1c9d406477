"""numba's ``njit`` with an on-disk cache that works wherever imlkit is installed.

``@numba.njit(cache=True)`` picks the cache directory when the function is *decorated* (at
import), from numba's locators in order: ``NUMBA_CACHE_DIR`` if set, the ``__pycache__`` next to
the source file, then the user-wide cache directory (``~/.cache/numba``). When none of them is
writable -- a read-only site-packages in a container whose HOME is not writable -- numba raises
"cannot cache function ...: no locator available" and the import of the module fails (CFI and
SAGE could not run at all).

:func:`njit` here is ``numba.njit`` whose ``cache=True`` means "cache if possible". The first
function decorated from a source directory decides, with numba's own locators
(``numba.core.caching.FunctionCache``), whether caching works there:

1. a locator works: numba caches as usual;
2. none works and the user set no ``NUMBA_CACHE_DIR``: a private directory under the system temp
   directory (``<tmp>/imlkit-numba-cache-<uid>``, mode 0700 and owned by this user -- a cache
   holds compiled code, so a directory someone else could have planted is never used; else a
   fresh ``mkdtemp`` removed at exit) becomes ``NUMBA_CACHE_DIR`` before the function is
   decorated, so numba's own user-provided locator caches there (and worker processes inherit it);
3. otherwise (a ``NUMBA_CACHE_DIR`` the user chose is not writable, or no temp directory is):
   the functions are compiled without a cache -- correct, only slower to start.

:func:`cache_status` tells which of these happened, per source directory.
"""
from __future__ import annotations

import atexit
import inspect
import os
import shutil
import stat
import tempfile
import threading

import numba
from numba.core import config as _config

__all__ = ["njit", "cache_status"]

_lock = threading.Lock()
#: source directory -> "numba" (numba's own locator), "temp" (the fallback directory) or "off"
_decisions: dict[str, str] = {}
#: the fallback cache directory, once one was set up
_fallback: list[str] = []


def njit(*args, **kwargs):
    """``numba.njit`` whose ``cache=True`` caches only where a cache can be written (see the module)."""
    if len(args) == 1 and callable(args[0]) and not kwargs:   # bare @njit: numba's default, no cache
        return numba.njit(args[0])

    def decorate(py_func):
        options = dict(kwargs)
        if options.get("cache"):
            options["cache"] = can_cache(py_func)
        return numba.njit(*args, **options)(py_func)

    return decorate


def cache_status():
    """``{source directory: "numba" | "temp" | "off"}`` for the directories decided so far."""
    with _lock:
        return dict(_decisions)


def can_cache(py_func):
    """Whether numba can cache ``py_func``, setting up the temp-directory fallback if needed (once per directory)."""
    directory = os.path.dirname(os.path.abspath(inspect.getfile(py_func)))
    with _lock:
        if directory not in _decisions:
            _decisions[directory] = _decide(py_func)
        return _decisions[directory] != "off"


def _numba_can_cache(py_func):
    """numba's own answer: does any of its locators find a writable cache directory for ``py_func``?"""
    from numba.core.caching import FunctionCache

    try:
        FunctionCache(py_func)
    except Exception:  # RuntimeError("cannot cache function ...: no locator available ...")
        return False
    return True


def _decide(py_func):
    if _numba_can_cache(py_func):
        # numba's user-provided locator comes first: with the fallback set, it is where this goes
        return "temp" if _fallback and _config.CACHE_DIR == _fallback[0] else "numba"
    if _config.CACHE_DIR:
        # The user chose the cache directory (NUMBA_CACHE_DIR) and it is not writable: compiling
        # without a cache respects that choice; caching elsewhere would not.
        return "off"
    path = _private_temp_dir()
    if path is None:
        return "off"
    _config.CACHE_DIR = path
    os.environ["NUMBA_CACHE_DIR"] = path   # numba re-reads the environment before compiling
    if _numba_can_cache(py_func):
        _fallback.append(path)
        return "temp"
    _config.CACHE_DIR = ""
    os.environ.pop("NUMBA_CACHE_DIR", None)
    return "off"


def _private_temp_dir():
    """A cache directory only this user can write: the persistent per-user one, else a fresh one."""
    base = tempfile.gettempdir()
    getuid = getattr(os, "getuid", None)
    if getuid is not None:
        uid = getuid()
        path = os.path.join(base, f"imlkit-numba-cache-{uid}")
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except OSError:
            path = None
        if path is not None:
            try:
                st = os.lstat(path)
            except OSError:
                st = None
            if (st is not None and stat.S_ISDIR(st.st_mode) and st.st_uid == uid
                    and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)):
                return path
    try:
        path = tempfile.mkdtemp(prefix="imlkit-numba-cache-")
    except OSError:
        return None
    atexit.register(shutil.rmtree, path, True)
    return path
