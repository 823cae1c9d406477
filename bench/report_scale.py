"""The report at scale (issue 16): wall time and peak memory of ``imlkit report`` as n grows.

A synthetic regression table (8 numeric features, one 8-level categorical, a non-linear target
with an interaction) is written to CSV at each size. For each size the script runs, as
subprocesses with one BLAS/OpenMP thread:

- ``imlkit report --quick`` and the default ``imlkit report`` (wall time, peak RSS of the child),
- one fit of the report's model (``HistGradientBoostingRegressor(categorical_features="from_dtype")``)
  on the same training rows (the report's 70 % split, seed 0), timed inside its own process
  (reading the CSV not included).

The ratio report time / one fit is what the issue's targets are about (``--quick`` on 1e6 rows
<= 10x one fit and <= 2.5 GB peak; default <= 25x). Run::

    PYTHONPATH=src python bench/report_scale.py --sizes 10000 100000 1000000 --modes quick default

Results are appended to (or written into) ``bench/results/report_scale.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results", "report_scale.md")
THREADS = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
                            "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}

_FIT = r"""
import json, sys, time
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import train_test_split
df = pd.read_csv(sys.argv[1])
df["g"] = df["g"].astype("category")
X, y = df.drop(columns="y"), df["y"]
Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
t = time.perf_counter()
HistGradientBoostingRegressor(categorical_features="from_dtype", random_state=0).fit(Xtr, ytr)
print(json.dumps({"fit_seconds": time.perf_counter() - t, "train_rows": len(Xtr)}))
"""


def make_table(n, seed=0):
    """n rows: x1..x8 ~ N(0, 1) (x2 correlated with x1), g with 8 levels, y non-linear + noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    X[:, 1] = 0.6 * X[:, 0] + 0.8 * X[:, 1]
    g = rng.integers(0, 8, size=n)
    effect = np.linspace(-1, 1, 8)[g]
    y = (np.sin(X[:, 0]) + 0.5 * X[:, 2] ** 2 + X[:, 3] * X[:, 4] + 0.3 * X[:, 5] + effect
         + rng.normal(scale=0.5, size=n))
    df = pd.DataFrame(X.round(5), columns=[f"x{i}" for i in range(1, 9)])
    df["g"] = np.array([f"level_{k}" for k in range(8)])[g]
    df["y"] = y.round(5)
    return df


def timed(cmd, cwd):
    """Wall seconds, peak RSS (MB) of the child alone (``os.wait4``'s rusage), stdout and stderr."""
    env = dict(os.environ, **THREADS, PYTHONPATH=os.path.join(ROOT, "src"))
    t = time.perf_counter()
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fo, stderr=fe)
        _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage (peak RSS in KB on Linux)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        fo.seek(0)
        fe.seek(0)
        out, err = fo.read().decode(), fe.read().decode()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {err[-2000:]}")
    return wall, usage.ru_maxrss / 1024.0, out, err


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--modes", nargs="+", default=["quick", "default"], choices=["quick", "default"])
    ap.add_argument("--out", default=RESULTS)
    ap.add_argument("--json", default=None, help="also append raw rows to this JSON-lines file")
    args = ap.parse_args(argv)
    py = sys.executable
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            csv = os.path.join(tmp, f"scale_{n}.csv")
            make_table(n).to_csv(csv, index=False)
            mb = os.path.getsize(csv) / 2**20
            wall_fit, rss_fit, out, _ = timed([py, "-c", _FIT, csv], tmp)
            fit = json.loads(out.strip().splitlines()[-1])
            print(f"n={n:,}: CSV {mb:.0f} MB; one fit {fit['fit_seconds']:.1f} s on {fit['train_rows']:,} rows "
                  f"(process {wall_fit:.1f} s, {rss_fit:.0f} MB)", flush=True)
            for mode in args.modes:
                cmd = [py, "-m", "imlkit.cli", "report", "--data", csv, "--target", "y", "--quiet",
                       "--out", os.path.join(tmp, f"rep_{n}_{mode}")] + (["--quick"] if mode == "quick" else [])
                wall, rss, _, _ = timed(cmd, tmp)
                row = dict(n=n, mode=mode, seconds=wall, peak_mb=rss, fit_seconds=fit["fit_seconds"],
                           fit_process_mb=rss_fit, ratio=wall / fit["fit_seconds"], csv_mb=mb)
                rows.append(row)
                print(f"  {mode}: {wall:.1f} s = {row['ratio']:.1f}x one fit; peak {rss:.0f} MB", flush=True)
                if args.json:
                    with open(args.json, "a") as fh:
                        fh.write(json.dumps(row) + "\n")
    if args.json:  # every row measured so far (several invocations append to the same file)
        with open(args.json) as fh:
            rows = [json.loads(line) for line in fh if line.strip()]
    write_results(sorted(rows, key=lambda r: (r["mode"] != "quick", r["n"])), args.out)
    return rows


def targets(rows):
    """The issue's targets, each as measured: met or missed (or not measured)."""
    by = {(r["mode"], r["n"]): r for r in rows}
    out = []
    big = by.get(("quick", 1_000_000))
    if big:
        ok = big["ratio"] <= 10 and big["peak_mb"] <= 2.5 * 1024
        out.append(f"- `--quick` on 1,000,000 rows: {big['ratio']:.1f}x one fit (target <= 10x), peak "
                   f"{big['peak_mb'] / 1024:.2f} GB (target <= 2.5 GB): {'met' if ok else 'missed'}.")
    else:
        out.append("- `--quick` on 1,000,000 rows: not measured in this run.")
    big = by.get(("default", 1_000_000))
    if big:
        out.append(f"- default on 1,000,000 rows: {big['ratio']:.1f}x one fit (target <= 25x): "
                   f"{'met' if big['ratio'] <= 25 else 'missed'}; peak {big['peak_mb'] / 1024:.2f} GB.")
    else:
        out.append("- default on 1,000,000 rows: not measured in this run.")
    for mode in ("quick", "default"):
        sizes = sorted(n for m, n in by if m == mode)
        if len(sizes) >= 2:
            lo, hi = by[(mode, sizes[0])], by[(mode, sizes[-1])]
            growth = hi["seconds"] / lo["seconds"]
            out.append(f"- {mode}: {sizes[0]:,} -> {sizes[-1]:,} rows ({sizes[-1] / sizes[0]:.0f}x the rows) took "
                       f"{growth:.2f}x the time ({'sub-linear' if growth < sizes[-1] / sizes[0] else 'not sub-linear'})"
                       f"; peak memory {hi['peak_mb'] / lo['peak_mb']:.2f}x.")
    return out


def write_results(rows, path):
    lines = ["# The report at scale (bench/report_scale.py)", "",
             "Synthetic regression table: 8 numeric features, one 8-level categorical; CSV read by the report.",
             "Every run is a subprocess with one BLAS/OpenMP thread on a shared 2-core machine; 'one fit' is "
             "HistGradientBoostingRegressor(categorical_features='from_dtype') fitted once on the same 70 % "
             "training rows (timed in its own process, without reading the CSV).", "",
             "| rows | mode | report seconds | one fit (s) | report / fit | peak RSS (MB) | CSV (MB) |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['n']:,} | {r['mode']} | {r['seconds']:.1f} | {r['fit_seconds']:.2f} | {r['ratio']:.1f} | "
                     f"{r['peak_mb']:.0f} | {r['csv_mb']:.0f} |")
    lines += ["", "## Against the issue's targets", ""] + targets(rows)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
