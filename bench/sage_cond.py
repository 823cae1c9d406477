"""Conditional SAGE vs marginal SAGE at an equal number of orderings (issue 14's target: <= 4x).

Bike data, HistGradientBoostingRegressor (the report's default learner) fitted on 70% of the
rows; SAGE on 512 held-out rows (the report's SAGE sample), 32 background rows (marginal) vs
32 conditional draws per prediction (conditional, default sampler ``"auto"``: the subgroup
tree), so both predict the same number of hybrid rows; both run exactly ``ORDERINGS``
orderings (``max_permutations=ORDERINGS``, a tolerance that cannot be met). One thread
(threadpoolctl), n_jobs=1, the two runs interleaved in one process, ``REPEATS`` times with
different seeds; the ratio is taken per repeat and summarised by its median.

Conditional SAGE fits one subgroup tree per distinct coalition it meets; with few orderings
nearly every coalition is new, so the ratio is reported for a small and a report-sized
budget.

Run: PYTHONPATH=src .venv/bin/python bench/sage_cond.py [--profile]   (writes bench/results/sage_cond.md)
"""
from __future__ import annotations

import cProfile
import io
import pstats
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

import imlkit as ik

N_EVAL = 512
N_BACKGROUND = 32
ORDERINGS = (128, 384)
REPEATS = 3


def setup(full=False):
    X, y = ik.datasets.load_bike()
    X_tr, X_te, y_tr, y_te = train_test_split(X, np.asarray(y, dtype=float), test_size=0.3, random_state=0)
    model = HistGradientBoostingRegressor(random_state=0, categorical_features="from_dtype").fit(X_tr, y_tr)
    idx = np.random.default_rng(0).choice(len(X_te), N_EVAL, replace=False)
    out = (model, X_te.iloc[idx].reset_index(drop=True), y_te[idx])
    return out + (X_te.reset_index(drop=True), y_te) if full else out


def run(model, X, y, removal, orderings, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "did not converge": the budget is the point here
        # Marginal on the predict path: the tree engine answers marginal SAGE without predicting
        # hybrid rows, and the target compares the two removals on equal work.
        engine = {"engine": "predict"} if removal == "marginal" else {}
        return ik.sage(model, X, y, loss="squared_error", removal=removal, n_background=N_BACKGROUND,
                       max_permutations=orderings, tolerance=1e-9, batch_size=128, n_jobs=1,
                       random_state=seed, **engine)


def timed(fn):
    """Wall and CPU seconds of fn() (CPU time is less disturbed by other processes on a shared machine)."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return (time.perf_counter() - t0, time.process_time() - c0), out


def main():
    profile = "--profile" in sys.argv
    model, X, y, X_full, y_full = setup(full=True)
    lines = ["# Conditional vs marginal SAGE at equal orderings", "",
             (f"Bike data, HistGradientBoostingRegressor, {N_EVAL} evaluation rows, {N_BACKGROUND} background "
              "rows / conditional draws (marginal with `engine=\"predict\"`), one thread, n_jobs=1, marginal "
              "and conditional interleaved in one "
              f"process, {REPEATS} repeats (seeds 0..{REPEATS - 1}). Sampler: the default (`\"auto\"`, "
              "subgroup tree)."), "",
             ("| orderings | marginal s (median) | conditional s (median) | wall ratio per repeat | median wall ratio "
              "| median CPU ratio |"),
             "|---|---|---|---|---|---|"]
    with threadpool_limits(1):
        run(model, X, y, "marginal", 16, 99)  # warm-up: imports, numba compilation/cache load
        run(model, X, y, "conditional", 16, 99)
        for k in ORDERINGS:
            tm, tc, ratios, cpu = [], [], [], []
            for seed in range(REPEATS):
                a, ma = timed(lambda k=k, seed=seed: run(model, X, y, "marginal", k, seed))
                b, co = timed(lambda k=k, seed=seed: run(model, X, y, "conditional", k, seed))
                assert ma.extra["n_permutations"] == co.extra["n_permutations"] == k
                tm.append(a[0])
                tc.append(b[0])
                ratios.append(b[0] / a[0])
                cpu.append(b[1] / a[1])
            row = (f"| {k} | {np.median(tm):.2f} | {np.median(tc):.2f} | "
                   f"{', '.join(f'{r:.1f}' for r in ratios)} | **{np.median(ratios):.1f}x** | {np.median(cpu):.1f}x |")
            print(row, flush=True)
            lines.append(row)
        # CFI with the default sampler: numba trees vs scikit-learn's trees (the only change
        # on CFI's path), interleaved; the sampler is fitted inside each call, as users run it.
        from imlkit.samplers import SubgroupSampler

        X_cfi, y_cfi = X_full, y_full
        tn, ts = [], []
        for seed in range(REPEATS):
            old = SubgroupSampler()
            old._numba_tree = False
            a, rn = timed(lambda seed=seed: ik.cfi(model, X_cfi, y_cfi, n_repeats=5, n_jobs=1, random_state=seed))
            b, rs = timed(lambda seed=seed, old=old: ik.cfi(model, X_cfi, y_cfi, sampler=old, n_repeats=5, n_jobs=1,
                                                            random_state=seed))
            tn.append(a[0])
            ts.append(b[0])
        diff = np.max(np.abs(rn.importance - rs.importance)) / np.max(np.abs(rs.importance))
        lines += ["", (f"CFI (default sampler, {len(X_cfi)} rows, 12 features, n_repeats=5): numba trees "
                       f"{np.median(tn):.2f} s vs scikit-learn trees {np.median(ts):.2f} s (median of {REPEATS}); "
                       f"ratio {np.median(tn) / np.median(ts):.2f}. Largest difference of the importances "
                       f"(last seed): {diff:.1e} of the largest.")]
        print(lines[-1], flush=True)
        if profile:
            pr = cProfile.Profile()
            pr.enable()
            run(model, X, y, "conditional", ORDERINGS[-1], 123)
            pr.disable()
            s = io.StringIO()
            pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(25)
            print(s.getvalue())
    lines += ["", "Command: `PYTHONPATH=src /work/main/.venv/bin/python bench/sage_cond.py`", ""]
    out = Path(__file__).resolve().parent / "results" / "sage_cond.md"
    if "--no-write" not in sys.argv:
        out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
