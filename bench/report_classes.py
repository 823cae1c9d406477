"""The report on many classes (issue 22 item 4): time, CPU and peak memory of ``imlkit report --quick``.

A synthetic classification table is written to CSV for each number of classes K at a fixed
number of rows: 8 numeric features, of which x1..x4 carry the class (each class has its own
centre in those four dimensions, drawn once; x5, x6 are noise correlated with x1, x2; x7, x8
pure noise) and one 6-level categorical ``g`` that shifts the class centre. Class sizes are
either Zipf-like (class k has weight 1/k, as product categories or species counts are: a few
large classes and a long tail) or balanced.

Each run is a subprocess with one BLAS/OpenMP thread; the child's wall time, user+sys CPU
time and peak RSS are read from ``os.wait4``. The report's own step table ("How it was made")
is parsed from the written HTML for the per-step wall seconds; the child also records each step's
CPU seconds (``time.process_time``, this process only: the refits run in it unless ``--n-jobs``
is given). Each printed step is (name, wall s, CPU s). Run::

    PYTHONPATH=src python bench/report_classes.py --classes 2 10 100 1000 --rows 3000 --sizes zipf
    PYTHONPATH=src python bench/report_classes.py --data digits.csv --target target   # a table of one's own

The results are recorded by hand in ``bench/results/report_classes.md``; ``--json`` appends the raw rows to a file.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results", "report_classes.md")
THREADS = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
                            "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}


def class_weights(k, sizes):
    """Class shares: ``"zipf"`` (share of class j proportional to 1/j) or ``"balanced"``."""
    if sizes == "balanced":
        return np.full(k, 1.0 / k)
    w = 1.0 / np.arange(1, k + 1)
    return w / w.sum()


def make_table(n, k, sizes="zipf", seed=0):
    """n rows, k classes (labels "c0001", ... by decreasing share), features informative of the class."""
    rng = np.random.default_rng([seed, k])
    w = class_weights(k, sizes)
    y = rng.choice(k, size=n, p=w)
    centres = rng.normal(scale=1.5, size=(k, 4))
    g = rng.integers(0, 6, size=n)
    X = rng.normal(size=(n, 8))
    X[:, :4] += centres[y] + 0.5 * (g[:, None] - 2.5) / 2.5
    X[:, 4] = 0.7 * X[:, 0] + 0.7 * X[:, 4]
    X[:, 5] = 0.7 * X[:, 1] + 0.7 * X[:, 5]
    df = pd.DataFrame(X.round(4), columns=[f"x{i}" for i in range(1, 9)])
    df["g"] = np.array([f"g{j}" for j in range(6)])[g]
    width = len(str(k))
    df["y"] = [f"c{j + 1:0{width}d}" for j in y]
    return df


#: The child: ``imlkit report`` in a process that also records each step's CPU seconds (process_time) to a JSON
#: file -- on the shared machine the report's own step table (wall seconds) is inflated by the other jobs.
_CHILD = """
import contextlib, json, sys, time
from imlkit.report import _context
from imlkit.cli import main

_step = _context.ReportContext.step
cpu = []


@contextlib.contextmanager
def step(self, name, **parameters):
    t = time.process_time()
    try:
        with _step(self, name, **parameters) as entry:
            yield entry
    finally:
        cpu.append([name, time.process_time() - t])


_context.ReportContext.step = step
code = main(sys.argv[2:])
with open(sys.argv[1], "w") as fh:
    json.dump(cpu, fh)
sys.exit(code)
"""


def timed(cmd, cwd):
    """Wall seconds, CPU seconds (user + sys), peak RSS (MB) of the child alone, and its stderr."""
    env = dict(os.environ, **THREADS, PYTHONPATH=os.path.join(ROOT, "src"))
    t = time.perf_counter()
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fo, stderr=fe)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        code = os.waitstatus_to_exitcode(status)
        fe.seek(0)
        err = fe.read().decode()
    if code != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({code}): {err[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, err


#: The report's own step table ("How it was made"): found by its caption, so that no other table's cell (the
#: versions table's "3.11.7") is read as seconds.
_STEP_TABLE = re.compile(r"<table><caption>Every step, its parameters and its run time</caption>(?P<body>.*?)</table>",
                         re.S)
_ROW = re.compile(r"<tr>(?P<cells>.*?)</tr>", re.S)
_CELL = re.compile(r"<td[^>]*>(?P<text>.*?)</td>", re.S)


def step_seconds(html):
    """The report's own step table as {step: seconds}, its "total" row included (the slowest steps are printed)."""
    found = _STEP_TABLE.search(html)
    if found is None:
        raise ValueError("the report has no step table ('Every step, its parameters and its run time')")
    out = {}
    for row in _ROW.finditer(found.group("body")):
        cells = [c.group("text") for c in _CELL.finditer(row.group("cells"))]
        if len(cells) < 2:  # the header row (<th> cells)
            continue
        step, sec = cells[0].strip(), cells[-1].replace(",", "").strip()
        if sec:
            out[step] = out.get(step, 0.0) + float(sec)
    return out


def run_one(csv, target, tmp, tag, top):
    """One ``imlkit report --quick`` of ``csv``: its row of the results (wall, CPU, peak RSS, slowest steps)."""
    out = os.path.join(tmp, f"rep_{tag}")
    cpu_json = os.path.join(tmp, f"cpu_{tag}.json")
    cmd = [sys.executable, "-c", _CHILD, cpu_json, "report", "--data", csv, "--target", target, "--quick",
           "--quiet", "--out", out]
    wall, cpu, rss, err = timed(cmd, tmp)
    with open(os.path.join(out, "report.html"), encoding="utf-8") as fh:
        steps = step_seconds(fh.read())
    step_cpu = {}
    with open(cpu_json, encoding="utf-8") as fh:
        for name, sec in json.load(fh):
            step_cpu[name] = step_cpu.get(name, 0.0) + sec
    total = next((v for s, v in steps.items() if s.startswith("total")), None)
    slow = sorted(((s, round(v, 2), round(step_cpu.get(s, float("nan")), 2)) for s, v in steps.items()
                   if not s.startswith("total")), key=lambda kv: -kv[1])[:top]
    return dict(wall=round(wall, 1), cpu=round(cpu, 1), peak_mb=round(rss), report_total=total,
                failed=err.count("failed"), slowest_wall_cpu=slow)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--classes", type=int, nargs="+", default=[2, 10, 100, 1000])
    ap.add_argument("--rows", type=int, default=3000)
    ap.add_argument("--sizes", nargs="+", default=["zipf"], choices=["zipf", "balanced"])
    ap.add_argument("--top", type=int, default=6, help="slowest steps printed per run")
    ap.add_argument("--data", default=None, help="a CSV of one's own instead of the synthetic tables "
                                                 "(e.g. scikit-learn's digits written to CSV), with --target")
    ap.add_argument("--target", default="y", help="the target column of --data")
    ap.add_argument("--json", default=None, help="also append raw rows to this JSON-lines file")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.data:
            runs = [(os.path.abspath(args.data), args.target, "data", dict(data=os.path.basename(args.data)))]
        else:
            runs = []
            for sizes in args.sizes:
                for k in args.classes:
                    csv = os.path.join(tmp, f"classes_{k}_{sizes}.csv")
                    make_table(args.rows, k, sizes).to_csv(csv, index=False)
                    runs.append((csv, "y", f"{k}_{sizes}", dict(classes=k, rows=args.rows, sizes=sizes)))
        for csv, target, tag, head in runs:
            row = dict(head, **run_one(csv, target, tmp, tag, args.top))
            rows.append(row)
            print(json.dumps(row), flush=True)
            if args.json:
                with open(args.json, "a") as fh:
                    fh.write(json.dumps(row) + "\n")
    return rows


if __name__ == "__main__":
    main()
