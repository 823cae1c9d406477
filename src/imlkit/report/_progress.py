"""Progress of a report run: a bar on a terminal, lines elsewhere, also within a long step.

A report takes from seconds to minutes; a user must see that it runs. On a terminal a tqdm
bar with a total and an ETA; when stderr is not a terminal (CI, nohup, a notebook's
``!imlkit``) one line per finished step, ``[  12.3 s] PFI (4.1 s)``: the elapsed time, the
step and its own seconds. ``mode="off"`` (``--quiet``) prints nothing.

Within a step: the methods count their units (refits, features, permutations, prediction
chunks) through :func:`imlkit._parallel.progress_bar`, the one bar behind every ``progress=``.
While a step runs, :meth:`ReportContext.step` makes this object the sink of those counts
(:func:`imlkit._parallel.progress_sink`): the terminal bar moves within the step and shows
``PFI 12/40``; without a terminal a line is printed at least every ``interval`` seconds
(default 15, environment variable ``IMLKIT_PROGRESS_INTERVAL``) while a step runs, and never
more often: ``[  45.2 s] SAGE ... running, SAGE 30/100, about 35 s left (30.1 s)`` -- the step,
the units done of the total where the method knows it, a rough ETA of those units, and the
step's seconds so far. A step with no counted units (one long fit) still gets its line, and so
does work between two timed steps (``after PFI ... running (16.0 s)``).

Step names hold column names ("ALE: <name>"): their control characters are escaped and long
names shortened (:mod:`imlkit._names`), so a name cannot retitle or recolour the user's terminal.
"""
from __future__ import annotations

import os
import sys
import threading
import time
import weakref

__all__ = ["Progress", "resolve_mode", "progress_interval"]

MODES = ("off", "bar", "lines")

#: Seconds between two lines of a running step when stderr is not a terminal.
DEFAULT_INTERVAL = 15.0
INTERVAL_ENV = "IMLKIT_PROGRESS_INTERVAL"


def progress_interval(value=None):
    """The seconds between two progress lines of a running step: ``value``, else the environment
    variable ``IMLKIT_PROGRESS_INTERVAL``, else 15.

    Examples
    --------
    >>> progress_interval(0.5)
    0.5
    """
    where = "'interval'"
    if value is None:
        value = os.environ.get(INTERVAL_ENV, "").strip() or DEFAULT_INTERVAL
        where = f"the environment variable {INTERVAL_ENV}"
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"{where} must be a number of seconds > 0; got {value!r}.")
    return seconds


def _duration(seconds):
    """A rough duration for an ETA: "40 s", "3 min", "1.5 h"."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


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
    """Reports the start and end of each step of a report run, and the units within a step.

    Parameters
    ----------
    mode : {"off", "bar", "lines"}
    total : int, optional -- the number of steps expected (the bar's total; raised if exceeded)
    stream : file-like, default sys.stderr
    interval : float, optional -- seconds between two lines of a running step in "lines" mode
        (default :func:`progress_interval`: 15, or ``IMLKIT_PROGRESS_INTERVAL``)
    clock : callable () -> float, default time.perf_counter -- injectable for tests
    heartbeat : bool, default True -- in "lines" mode a daemon thread calls :meth:`tick` so a step
        whose method counts nothing (or whose one unit is long) still prints its lines; tests
        with a fake clock switch it off and call :meth:`tick` themselves.

    Notes
    -----
    The sink protocol of :func:`imlkit._parallel.progress_sink`: :meth:`units` and :meth:`units_end`.
    """

    def __init__(self, mode="off", total=None, stream=None, interval=None, clock=time.perf_counter,
                 heartbeat=True):
        if mode not in MODES:
            raise ValueError(f"'mode' must be one of {', '.join(MODES)}; got {mode!r}.")
        self.mode = mode
        self.stream = stream
        self.interval = progress_interval(interval)
        self._clock = clock
        self.start_time = clock()
        self.finished = 0
        self._lock = threading.RLock()
        self._steps = []          # the running steps, innermost last: [name, start, fraction]
        self._units = None        # the outermost counted loop: [desc, done, total, start]
        self._last_line = None    # when the last line of the running step was printed
        self._after = None        # (the last finished step, when): for lines between two steps
        self._last_draw = 0.0
        self._imlkit_active_bar = None  # set by imlkit._parallel's bars (the outermost one open)
        self._stop = self._thread = None
        self._bar = None
        if mode == "bar":
            from tqdm.auto import tqdm

            self._bar = tqdm(total=total, desc="imlkit report", unit="step", file=self._stream(), leave=False,
                             dynamic_ncols=True,
                             bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]")
        elif mode == "lines" and heartbeat:
            self._stop = threading.Event()
            # the thread holds a weak reference: a Progress nobody closed still goes away (and its thread ends)
            self._thread = threading.Thread(target=_beat, name="imlkit-progress", daemon=True,
                                            args=(weakref.ref(self), self._stop, min(1.0, self.interval / 4)))
            self._thread.start()

    def _stream(self):
        return sys.stderr if self.stream is None else self.stream

    def _write(self, line):
        stream = self._stream()
        stream.write(line + "\n")  # one write: a line from the heartbeat thread is never cut by another
        stream.flush()

    def set_total(self, total):
        """The number of steps now expected (the bar's ETA is based on it)."""
        if self._bar is not None:
            self._bar.total = max(int(total), self.finished + 1)
            self._bar.refresh()

    def start(self, name):
        name = _safe(name)
        with self._lock:
            now = self._clock()
            self._steps.append([name, now, 0.0])
            self._units = None
            self._last_line = now
        if self._bar is not None:
            self._bar.set_description_str(f"imlkit report: {name}"[:60])
            self._bar.set_postfix_str("", refresh=True)

    def units(self, desc, done, total):
        """``done`` of ``total`` units of the running step's outermost counted loop (sink protocol)."""
        with self._lock:
            if not self._steps:
                return
            now = self._clock()
            if self._units is None or self._units[0] != desc or done < self._units[1]:
                self._units = [desc, done, total, now]
            else:
                self._units[1], self._units[2] = done, total
            if total:
                step = self._steps[-1]
                step[2] = max(step[2], min(0.99, done / total))
        if self._bar is not None:
            if now - self._last_draw >= 0.1 or (total and done >= total):
                self._last_draw = now
                self._draw()
        elif self.mode == "lines":
            self.tick(now)

    def units_end(self):
        """The counted loop closed (sink protocol): its counts no longer describe the step."""
        with self._lock:
            self._units = None

    def _draw(self):
        with self._lock:
            fraction = self._steps[-1][2] if self._steps else 0.0
            u = self._units
        target = self.finished + fraction
        if self._bar.total is not None and target >= self._bar.total:
            self._bar.total = self.finished + 1
        if target > self._bar.n:
            self._bar.update(target - self._bar.n)
        if u is not None:
            self._bar.set_postfix_str(f"{_safe(u[0])} {_count(u[1], u[2])}", refresh=True)

    def tick(self, now=None):
        """Print the running step's line if ``interval`` seconds passed since the last line ("lines" mode);
        between two steps, a line naming the last finished one.

        Returns the line printed, or None.
        """
        if self.mode != "lines":
            return None
        with self._lock:
            if not self._steps and self._after is None:
                return None  # before the first step
            now = self._clock() if now is None else now
            if now - self._last_line < self.interval:
                return None
            self._last_line = now
            if self._steps:
                name, start, _ = self._steps[-1]
                line = (f"[{now - self.start_time:7.1f} s] {name} ... running{self._unit_text(now)} "
                        f"({now - start:.1f} s)")
            else:  # work between two timed steps (a section's text, a figure): not silent either
                name, start = self._after
                line = f"[{now - self.start_time:7.1f} s] after {name} ... running ({now - start:.1f} s)"
        self._write(line)
        return line

    def _unit_text(self, now):
        u = self._units
        if u is None:
            return ""
        desc, done, total, began = u
        text = f", {_safe(desc)} {_count(done, total)}"
        if total and 0 < done < total:
            left = (now - began) * (total - done) / done
            text += f", about {_duration(left)} left"
        return text

    def done(self, name, seconds, failed=False):
        name = _safe(name)
        with self._lock:
            if self._steps:
                self._steps.pop()
            self._units = None
            self._last_line = self._clock()
            self._after = (name, self._last_line)
            self.finished += 1
        if self.mode == "lines":
            if failed:  # the guard (or the command's error) prints the failure's own line
                return
            elapsed = self._clock() - self.start_time
            self._write(f"[{elapsed:7.1f} s] {name} ({seconds:.1f} s)")
        elif self._bar is not None:
            if self._bar.total is not None and self.finished >= self._bar.total:
                self._bar.total = self.finished + 1
            self._bar.update(max(0.0, self.finished - self._bar.n))
            self._bar.set_postfix_str("", refresh=True)

    def close(self):
        with self._lock:
            self._after = None
        if self._stop is not None:
            self._stop.set()
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _beat(ref, stop, wait):
    """The heartbeat: every ``wait`` seconds, let the Progress print its running step's line if due."""
    while not stop.wait(wait):
        progress = ref()
        if progress is None:
            return
        progress.tick()
        del progress


def _count(done, total):
    done = int(done) if float(done).is_integer() else done
    return f"{done}/{total}" if total else f"{done}"
