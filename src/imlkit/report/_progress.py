"""Progress of a report run: a bar on a terminal, one line per finished step elsewhere.

A report takes from seconds to minutes; a user must see that it runs. On a terminal a tqdm
bar with a total and an ETA; when stderr is not a terminal (CI, nohup, a notebook's
``!imlkit``) one line per finished step, ``[  12.3 s] PFI (4.1 s)``: the elapsed time, the
step and its own seconds. ``mode="off"`` (``--quiet``) prints nothing. Step names hold column
names ("ALE: <name>"): their control characters are escaped and long names shortened
(:mod:`imlkit._names`), so a name cannot retitle or recolour the user's terminal.
"""
from __future__ import annotations

import sys
import time

__all__ = ["Progress", "resolve_mode"]

MODES = ("off", "bar", "lines")


def resolve_mode(progress, stream=None):
    """``progress`` (False/None, True/"auto", "bar", "lines", "off") as one of :data:`MODES`.

    Examples
    --------
    >>> import io
    >>> resolve_mode(True, io.StringIO()), resolve_mode(False), resolve_mode("bar")
    ('lines', 'off', 'bar')
    """
    if progress in (None, False, "off"):
        return "off"
    if progress in ("bar", "lines"):
        return progress
    if progress is True or progress == "auto":
        stream = sys.stderr if stream is None else stream
        try:
            tty = bool(stream.isatty())
        except (AttributeError, ValueError):  # closed or unusual streams: plain lines
            tty = False
        return "bar" if tty else "lines"
    raise ValueError(f"'progress' must be True, False, 'auto', 'bar', 'lines' or 'off'; got {progress!r}.")


def _safe(name):
    """A step name for the terminal: one line, controls escaped, long names shortened."""
    from .._names import short_label, terminal_safe

    return terminal_safe(short_label(name, limit=120))


class Progress:
    """Reports the start and end of each step of a report run.

    Parameters
    ----------
    mode : {"off", "bar", "lines"}
    total : int, optional -- the number of steps expected (the bar's total; raised if exceeded)
    stream : file-like, default sys.stderr
    """

    def __init__(self, mode="off", total=None, stream=None):
        if mode not in MODES:
            raise ValueError(f"'mode' must be one of {', '.join(MODES)}; got {mode!r}.")
        self.mode = mode
        self.stream = stream
        self.start_time = time.perf_counter()
        self.finished = 0
        self._bar = None
        if mode == "bar":
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, desc="imlkit report", unit="step", file=self._stream(), leave=False,
                             dynamic_ncols=True)

    def _stream(self):
        return sys.stderr if self.stream is None else self.stream

    def set_total(self, total):
        """The number of steps now expected (the bar's ETA is based on it)."""
        if self._bar is not None:
            self._bar.total = max(int(total), self.finished + 1)
            self._bar.refresh()

    def start(self, name):
        name = _safe(name)
        if self._bar is not None:
            self._bar.set_description_str(f"imlkit report: {name}"[:60])

    def done(self, name, seconds, failed=False):
        name = _safe(name)
        self.finished += 1
        if self.mode == "lines":
            if failed:  # the guard (or the command's error) prints the failure's own line
                return
            elapsed = time.perf_counter() - self.start_time
            print(f"[{elapsed:7.1f} s] {name} ({seconds:.1f} s)", file=self._stream(), flush=True)
        elif self._bar is not None:
            if self._bar.total is not None and self.finished >= self._bar.total:
                self._bar.total = self.finished + 1
            self._bar.update(1)

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None
