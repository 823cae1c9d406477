"""The report on wide tables (issue 22): time, CPU and peak memory of ``imlkit report --quick`` as p grows.

A synthetic regression table with n rows (default 500) and p numeric features (four of them carry
the signal, with an interaction; the others are noise, a few correlated with the signal) is written
to CSV for each p. Each report runs as its own subprocess with one BLAS/OpenMP thread; the script
records its wall time, its CPU time (user + sys of the child, from ``os.wait4``) and its peak RSS,
and fits the exponent b of time ~ p^b between the smallest and the largest p up to 1,000 (the
issue's target: b <= 1.2) and over every p.

Real wide tables (not shipped; pass the files): ``--table NAME=PATH:TARGET`` adds a row per table,
e.g. the ISLP Khan genes (63 x 2,308, 4 classes), their first 300 columns, and Caravan (5,822 x 86)::

    PYTHONPATH=src python bench/report_wide.py --p 10 100 1000 2300 \\
        --table khan=khan.csv:y --table khan300=khan300.csv:y --table caravan=Caravan.csv:Purchase

or ``--islp DIR``, a directory holding the ISLP data files as the ISLP package ships them: the script
builds those tables itself in its temporary directory -- ``khan`` (``Khan_xtrain.csv`` with
``Khan_ytrain.csv`` as the column ``y``), ``khan300`` (its first 300 genes), ``caravan``
(``Caravan.csv``, target ``Purchase``) and ``nci60`` (``NCI60data.npy``, 64 cell lines x 6,830 genes,
with ``NCI60labs.csv`` as the column ``label``: 14 cancer types, five of them a single line) -- for
each file present::

    PYTHONPATH=src python bench/report_wide.py --p 10 100 1000 --islp DIR --out OUT.md

Results are written to ``bench/results/report_wide.md``.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results", "report_wide.md")
THREADS = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
                            "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")}


def make_table(n, p, seed=0):
    """n rows, p >= 4 numeric features x0..x{p-1}; y from x0..x3 (with an interaction) plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    k = min(p - 4, 4)
    if k > 0:  # a few noise features correlated with the signal
        X[:, 4:4 + k] = 0.7 * X[:, :k] + 0.7 * X[:, 4:4 + k]
    y = np.sin(X[:, 0]) + X[:, 1] + 0.5 * X[:, 2] * X[:, 3] + 0.3 * rng.normal(size=n)
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(p)])
    df["y"] = y
    return df


def islp_tables(directory, tmp, names=("khan", "khan300", "caravan", "nci60")):
    """``[(name, csv path, target)]`` of the ISLP tables built from the files in ``directory`` (those present)."""
    out = []

    def have(*files):
        return all(os.path.exists(os.path.join(directory, f)) for f in files)

    if have("Khan_xtrain.csv", "Khan_ytrain.csv") and ({"khan", "khan300"} & set(names)):
        X = pd.read_csv(os.path.join(directory, "Khan_xtrain.csv"))
        y = pd.read_csv(os.path.join(directory, "Khan_ytrain.csv")).iloc[:, 0].to_numpy()
        for name, frame in (("khan", X), ("khan300", X.iloc[:, :300])):
            if name in names:
                path = os.path.join(tmp, f"{name}.csv")
                pd.concat([frame, pd.Series(y, name="y", index=frame.index)], axis=1).to_csv(path, index=False)
                out.append((name, path, "y"))
    if have("Caravan.csv") and "caravan" in names:
        out.append(("caravan", os.path.join(directory, "Caravan.csv"), "Purchase"))
    if have("NCI60data.npy", "NCI60labs.csv") and "nci60" in names:
        genes = np.load(os.path.join(directory, "NCI60data.npy"))
        labels = pd.read_csv(os.path.join(directory, "NCI60labs.csv")).iloc[:, 0].to_numpy()
        frame = pd.DataFrame(genes, columns=[f"g{j + 1}" for j in range(genes.shape[1])])
        path = os.path.join(tmp, "nci60.csv")
        pd.concat([frame, pd.Series(labels, name="label")], axis=1).to_csv(path, index=False)
        out.append(("nci60", path, "label"))
    return out


def run_report(path, target, out, extra=(), timeout=None):
    """(wall s, cpu s, peak RSS MB, return code) of one ``imlkit report --quick`` in its own process.

    ``timeout``: wall seconds after which the report is killed (return code -9).
    """
    cmd = [sys.executable, "-c", "from imlkit.cli import main; main()", "report", "--data", path, "--target", target,
           "--quick", "--out", out, "--quiet", *extra]
    env = {**os.environ, **THREADS, "PYTHONPATH": os.path.join(ROOT, "src")}
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    timer = threading.Timer(timeout, proc.kill) if timeout else None
    if timer is not None:
        timer.start()
    _, status, usage = os.wait4(proc.pid, 0)
    if timer is not None:
        timer.cancel()
    wall = time.perf_counter() - t
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        print(err[-2000:], file=sys.stderr)
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, code


def exponent(ps, ts):
    """Least-squares slope of log t on log p."""
    return float(np.polyfit(np.log(ps), np.log(ts), 1)[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--p", type=int, nargs="*", default=[10, 100, 1000, 2300],
                    help="synthetic widths (none: only the real tables)")
    ap.add_argument("--table", action="append", default=[], help="NAME=PATH:TARGET (a real table)")
    ap.add_argument("--islp", metavar="DIR", help="a directory with the ISLP data files: adds the tables khan, "
                                                   "khan300, caravan and nci60 (those whose files are there)")
    ap.add_argument("--only", nargs="+", default=None, metavar="NAME",
                    help="with --islp: only these of its tables (e.g. --only nci60)")
    ap.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                    help="stop a report after this many wall seconds (its row then shows exit -9)")
    ap.add_argument("--out", default=RESULTS)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for p in args.p:
            path = os.path.join(tmp, f"wide_{p}.csv")
            make_table(args.n, p).to_csv(path, index=False)
            wall, cpu, rss, code = run_report(path, "y", os.path.join(tmp, f"rep_{p}"), timeout=args.timeout)
            rows.append(("synthetic", args.n, p, wall, cpu, rss, code, f"imlkit report --data wide_{p}.csv --target y "
                                                                         f"--quick"))
            print(rows[-1], flush=True)
        tables = []
        for spec in args.table:
            name, rest = spec.split("=", 1)
            path, target = rest.rsplit(":", 1)
            tables.append((name, path, target))
        if args.islp:
            tables += islp_tables(args.islp, tmp, names=tuple(args.only or ("khan", "khan300", "caravan", "nci60")))
        for name, path, target in tables:
            shape = pd.read_csv(path, nrows=0).shape[1] - 1
            n = sum(1 for _ in open(path)) - 1
            wall, cpu, rss, code = run_report(path, target, os.path.join(tmp, f"rep_{name}"), timeout=args.timeout)
            rows.append((name, n, shape, wall, cpu, rss, code, f"imlkit report --data {os.path.basename(path)} "
                                                               f"--target {target} --quick"))
            print(rows[-1], flush=True)
    syn = [r for r in rows if r[0] == "synthetic" and r[6] == 0]
    lines = ["# `imlkit report --quick` on wide tables (issue 22)", "",
             f"One BLAS/OpenMP thread, each report in its own process (`{os.path.basename(__file__)}`); CPU = user + "
             f"sys of the child; peak = its max RSS. The machine was shared, so wall times are inflated by the "
             f"other processes: CPU time is the load-independent number.", "",
             "| table | rows | features | wall (s) | CPU (s) | peak RSS (MB) | exit | command |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, n, p, wall, cpu, rss, code, cmd in rows:
        lines.append(f"| {name} | {n:,} | {p:,} | {wall:.1f} | {cpu:.1f} | {rss:.0f} | {code} | `{cmd}` |")
    if len(syn) >= 2:
        small = [r for r in syn if r[2] <= 1000]
        lines.append("")
        for label, sel in (("p from 10 to 1,000", small), ("every p", syn)):
            if len(sel) >= 2:
                ps = [r[2] for r in sel]
                wall_b, cpu_b = exponent(ps, [r[3] for r in sel]), exponent(ps, [r[4] for r in sel])
                lines.append(f"- Exponent b of time ~ p^b, {label} (n = {args.n}): wall {wall_b:.2f}, CPU {cpu_b:.2f}.")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
