"""Progress within a step: the methods' unit counts reach the report's bar and its periodic lines."""
from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from imlkit._parallel import parallel_map, progress_bar, progress_sink
from imlkit.report._progress import Progress, progress_interval

RUNNING = re.compile(r"^\[\s*(\d+\.\d) s\] (.+) \.\.\. running(, (\S+) (\d+)/(\d+))?(, about .+ left)?"
                     r" \((\d+\.\d) s\)$")


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class Recorder:
    """A sink that records what it hears."""

    def __init__(self):
        self.calls = []

    def units(self, desc, done, total):
        self.calls.append((desc, done, total))

    def units_end(self):
        self.calls.append("end")


def _square(x):
    return x * x


def test_a_step_with_many_units_prints_lines_with_counts_at_most_one_per_interval():
    clock, stream = FakeClock(), io.StringIO()
    p = Progress("lines", stream=stream, interval=10, clock=clock, heartbeat=False)
    p.start("LOCO")
    with progress_sink(p):
        with progress_bar(40, "refits", False) as bar:
            for _ in range(40):
                clock.now += 1.0
                with progress_bar(5, "predict", True) as inner:  # nested: silent, the outer count stays
                    inner.update(5)
                bar.update(1)
                clock.now += 0.5
                p.tick()  # the heartbeat's call between units
    p.done("LOCO", clock.now)
    lines = stream.getvalue().splitlines()
    running = [RUNNING.match(ln) for ln in lines[:-1]]
    assert all(running), lines
    assert lines[-1] == f"[{clock.now:7.1f} s] LOCO ({clock.now:.1f} s)"
    times = [float(m.group(1)) for m in running]
    # 60 s of step at one line per 10 s: 5 or 6 lines, never two within 10 s
    assert 5 <= len(times) <= 6
    assert np.all(np.diff(times) >= 10 - 1e-9)
    counts = [(m.group(4), int(m.group(5)), int(m.group(6))) for m in running]
    assert all(desc == "refits" and total == 40 for desc, _, total in counts)
    done = [d for _, d, _ in counts]
    assert done == sorted(done) and done[0] >= 6 and done[-1] <= 40
    # the first line at 10 s of 1.5 s per unit: 7 units done (6 after the tick at 9 s), 33 left ~ 47 s
    assert counts[0][1] == 7 and "about 47 s left" in lines[0]


def test_a_step_without_counted_units_still_prints_lines_and_a_failed_step_prints_none():
    clock, stream = FakeClock(), io.StringIO()
    p = Progress("lines", stream=stream, interval=15, clock=clock, heartbeat=False)
    p.start("dependence overview")
    for _ in range(100):  # 50 s without any unit count
        clock.now += 0.5
        p.tick()
    p.done("dependence overview", 50.0, failed=True)
    lines = stream.getvalue().splitlines()
    assert [float(RUNNING.match(ln).group(8)) for ln in lines] == [15.0, 30.0, 45.0]
    assert all("dependence overview ... running (" in ln for ln in lines)
    # work between two steps is not silent either: one line per interval, naming the last step
    for _ in range(40):  # 20 s
        clock.now += 0.5
        p.tick()
    after = stream.getvalue().splitlines()[3:]
    assert after == [f"[{65.0:7.1f} s] after dependence overview ... running (15.0 s)"]
    p.close()
    clock.now += 100
    assert p.tick() is None  # closed: nothing to say
    fresh = Progress("lines", stream=io.StringIO(), interval=1, clock=clock, heartbeat=False)
    clock.now += 10
    assert fresh.tick() is None  # before the first step: nothing to say


def test_the_heartbeat_thread_prints_during_a_silent_step():
    stream = io.StringIO()
    p = Progress("lines", stream=stream, interval=0.05)
    try:
        p.start("one long fit")
        time.sleep(0.4)
        p.done("one long fit", 0.4)
    finally:
        p.close()
    lines = stream.getvalue().splitlines()
    running = [ln for ln in lines if RUNNING.match(ln)]
    assert len(running) >= 2 and lines[-1].endswith("one long fit (0.4 s)")
    times = [float(RUNNING.match(ln).group(8)) for ln in running]
    assert np.all(np.diff(times) >= 0.05 - 0.05)  # printed at 0.1 s resolution: non-decreasing


def test_the_heartbeat_thread_ends_on_close_and_with_an_unclosed_progress():
    import gc

    closed = Progress("lines", stream=io.StringIO(), interval=0.04)
    closed.close()
    closed._thread.join(timeout=2)
    assert not closed._thread.is_alive()
    forgotten = Progress("lines", stream=io.StringIO(), interval=0.04)
    thread = forgotten._thread
    del forgotten
    gc.collect()
    thread.join(timeout=2)
    assert not thread.is_alive()


def test_names_in_the_lines_are_terminal_safe():
    clock, stream = FakeClock(), io.StringIO()
    p = Progress("lines", stream=stream, interval=1, clock=clock, heartbeat=False)
    p.start("ALE: \x1b]0;owned\x07x")
    p.units("H \x1b[31mpairs", 1, 4)
    clock.now = 2
    line = p.tick()
    assert line is not None and "\x1b" not in line and "\x07" not in line and "1/4" in line


def test_the_terminal_bar_moves_within_a_step():
    stream = io.StringIO()
    p = Progress("bar", total=3, stream=stream)
    p.start("PFI")
    with progress_sink(p):
        parallel_map(_square, [(i,) for i in range(20)], n_jobs=1, progress=False, desc="PFI")
        assert 0.9 <= p._bar.n < 1  # 20/20 units, the step itself not yet done
    p.done("PFI", 1.0)
    assert p._bar.n == 1
    p.close()
    assert "PFI 20/20" in stream.getvalue()


def test_every_method_bar_feeds_the_sink_whatever_its_progress_flag():
    from sklearn.linear_model import LinearRegression

    from imlkit.importance import pfi, sage

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(80, 4)), columns=list("abcd"))
    y = X["a"] * 2 + rng.normal(size=80)
    model = LinearRegression().fit(X, y)
    rec = Recorder()
    with progress_sink(rec):
        pfi(model, X, y, n_repeats=2, random_state=0)
        sage(model, X, y, random_state=0, max_rows=40)
    counted = [c for c in rec.calls if c != "end"]
    assert counted and rec.calls[-1] == "end"
    finals = {}
    for desc, done, total in counted:
        finals[desc] = (done, total)
    assert finals["SAGE"][0] == 100 and finals["SAGE"][1] == 100
    assert any(d == t and t >= 1 for d, t in finals.values() if t)
    rec2 = Recorder()
    pfi(model, X, y, n_repeats=2, random_state=0)  # outside the sink: nothing heard
    assert rec2.calls == []


def test_interval_setting_is_validated(monkeypatch):
    monkeypatch.setenv("IMLKIT_PROGRESS_INTERVAL", "0.2")
    assert progress_interval() == 0.2
    monkeypatch.setenv("IMLKIT_PROGRESS_INTERVAL", "soon")
    with pytest.raises(ValueError, match="IMLKIT_PROGRESS_INTERVAL must be a number of seconds > 0; got 'soon'"):
        progress_interval()
    monkeypatch.delenv("IMLKIT_PROGRESS_INTERVAL")
    assert progress_interval() == 15.0
    with pytest.raises(ValueError, match="'interval' must be a number of seconds > 0; got 0"):
        Progress("lines", interval=0)


def test_cli_with_stderr_piped_prints_lines_within_a_slow_step(tmp_path):
    rng = np.random.default_rng(3)
    n = 300
    frame = pd.DataFrame(rng.normal(size=(n, 5)), columns=[f"x{i}" for i in range(5)])
    frame["y"] = frame["x0"] * 2 + frame["x1"] ** 2 + rng.normal(scale=0.3, size=n)
    data = tmp_path / "d.csv"
    frame.to_csv(data, index=False)
    src = Path(__file__).resolve().parents[2] / "src"
    env = dict(os.environ, IMLKIT_PROGRESS_INTERVAL="0.2", PYTHONPATH=str(src))
    cmd = [sys.executable, "-c", "import sys; from imlkit.cli import main; sys.exit(main())", "report", "--quick",
           "--data", str(data), "--target", "y", "--methods", "pfi,loco", "--out", str(tmp_path / "r")]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    running = [RUNNING.match(ln) for ln in lines if " ... running" in ln]
    assert running and all(running), run.stderr
    with_counts = [m for m in running if m.group(5)]
    assert with_counts, run.stderr
    assert all(int(m.group(5)) <= int(m.group(6)) for m in with_counts)
    # lines of one step at most one per interval (0.2 s; printed at 0.1 s resolution)
    by_step = {}
    for m in running:
        by_step.setdefault(m.group(2), []).append(float(m.group(8)))
    for secs in by_step.values():
        assert np.all(np.diff(secs) >= 0.2 - 0.1 - 1e-9)
