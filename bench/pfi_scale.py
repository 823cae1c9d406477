"""PFI of HGB on 1e5 synthetic rows (10 numeric + 2 categorical) vs scikit-learn, and memory at 1e6 rows.

1. Time: ``ik.pfi`` (tree engine) vs ``sklearn.inspection.permutation_importance``, one thread
   (``threadpool_limits(1)``; run with ``OMP_NUM_THREADS=1``), n_repeats=5, numba warm, calls
   interleaved (imlkit, scikit-learn, imlkit, ...), the median of each. The engine's hit rate
   (the share of (feature, tree) walks skipped because the tree never splits on the feature) is
   read from the engine (``TreeEngine.skipped_share``). The importances are compared with
   ``engine="predict"`` (same seed, so they must agree to float rounding).
2. Memory (``--memory``): peak traced memory (tracemalloc) above the start of the call, at
   1e6 rows, of ``ik.partial_dependence`` (20 points, every row) and of ``ik.pfi`` vs
   ``permutation_importance`` (n_repeats=5).

Run: OMP_NUM_THREADS=1 python bench/pfi_scale.py [--check]    (timing; writes bench/results/pfi_scale.md)
     OMP_NUM_THREADS=1 python bench/pfi_scale.py --memory [--rows 1e6] [--only pd,pfi,sklearn]   (appends)
"""
from __future__ import annotations

import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.inspection import permutation_importance
from threadpoolctl import threadpool_limits

import imlkit as ik

N_REPEATS = 5
RUNS = 3


def synthetic(n, seed=0):
    """n rows: 10 numeric features (x0..x9) and 2 categoricals (c0: 4 levels, c1: 12 levels); y depends on most."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 10)), columns=[f"x{k}" for k in range(10)])
    c0 = rng.integers(0, 4, n)
    c1 = rng.integers(0, 12, n)
    X["c0"] = pd.Categorical.from_codes(c0, [f"a{k}" for k in range(4)])
    X["c1"] = pd.Categorical.from_codes(c1, [f"b{k}" for k in range(12)])
    y = (X["x0"] * 2 + np.sin(3 * X["x1"]) + X["x2"] * X["x3"] + 0.5 * X["x4"] ** 2 + 0.3 * X["x5"]
         + np.array([0.0, 1.0, -1.0, 0.5])[c0] + 0.2 * np.sin(c1) + rng.normal(scale=0.5, size=n))
    return X, y.to_numpy()


def fit(n_train=20_000):
    X, y = synthetic(n_train, seed=1)
    return HistGradientBoostingRegressor(categorical_features="from_dtype", random_state=0).fit(X, y)


def timing(n=100_000):
    model = fit()
    X, y = synthetic(n)
    kw = dict(n_repeats=N_REPEATS, random_state=0)
    ours = lambda: ik.pfi(model, X, y, loss="squared_error", n_jobs=1, **kw)  # noqa: E731
    theirs = lambda: permutation_importance(model, X, y, scoring="neg_mean_squared_error", n_jobs=1, **kw)  # noqa: E731
    ours()  # numba warm (cached kernels loaded)
    t_ik, t_sk, r_ik = [], [], None
    for _ in range(RUNS):
        t0 = time.perf_counter()
        r_ik = ours()
        t_ik.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        r_sk = theirs()
        t_sk.append(time.perf_counter() - t0)
        print(f"imlkit {t_ik[-1]:.2f} s, scikit-learn {t_sk[-1]:.2f} s", flush=True)
    rel = np.nan
    if "--check" in sys.argv:  # the same importances by predicting every copy (slow; the tests check it too)
        r_pr = ik.pfi(model, X, y, loss="squared_error", n_jobs=1, engine="predict", **kw)
        rel = float(np.max(np.abs(r_ik.importance - r_pr.importance)) / np.max(np.abs(r_pr.importance)))
    ratios = np.array(t_ik) / np.array(t_sk)
    return dict(n=n, imlkit_median_s=float(np.median(t_ik)), sklearn_median_s=float(np.median(t_sk)),
                ratio_of_medians=float(np.median(t_ik) / np.median(t_sk)),
                pair_ratios=", ".join(f"{r:.3f}" for r in ratios),
                skipped=skipped_share(model, X), engine=r_ik.info["engine"],
                rel_diff_vs_predict=rel, rel_diff_vs_sklearn=float(
                    np.max(np.abs(r_ik.importance - r_sk.importances_mean)) / np.max(np.abs(r_sk.importances_mean))))


def skipped_share(model, X):
    """Share of the (feature, tree) walks the engine skips in PFI of every feature, and per feature."""
    from imlkit._model import Predictor

    p = Predictor(model)
    p.use_engine(X.iloc[:2000])
    per = {c: p._trees.skipped_share(X, [c]) for c in X.columns}
    each = ", ".join(f"{c} {v:.2f}" for c, v in per.items())
    return f"{p._trees.skipped_share(X, list(X.columns)):.3f} ({each})"


def peak(fn):
    """Peak traced memory (MB) above the start of ``fn()``."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    start = tracemalloc.get_traced_memory()[0]
    fn()
    out = (tracemalloc.get_traced_memory()[1] - start) / 1e6
    tracemalloc.stop()
    return out


def memory(n=1_000_000, what=("pd", "pfi", "sklearn")):
    model = fit()
    X, y = synthetic(n)
    small = X.iloc[:2000]
    ik.partial_dependence(model, small, "x0")  # warm
    ik.pfi(model, small, y[:2000], loss="squared_error", n_repeats=2, n_jobs=1)
    calls = [("1-D PD of x0, 20 points, 1e6 rows (n_samples=1e6), imlkit",
              lambda: ik.partial_dependence(model, X, "x0", n_samples=n)),
             (f"PFI, n_repeats={N_REPEATS}, 1e6 rows, imlkit",
              lambda: ik.pfi(model, X, y, loss="squared_error", n_repeats=N_REPEATS, n_jobs=1, random_state=0)),
             (f"permutation_importance, n_repeats={N_REPEATS}, 1e6 rows, scikit-learn",
              lambda: permutation_importance(model, X, y, scoring="neg_mean_squared_error", n_repeats=N_REPEATS,
                                             n_jobs=1, random_state=0))]
    rows = []
    for (label, fn), key in zip(calls, ("pd", "pfi", "sklearn")):
        if key not in what:
            continue
        label = label.replace("1e6", f"{n:.0e}")
        t0 = time.perf_counter()
        rows.append(dict(what=label, peak_mb=peak(fn), seconds=time.perf_counter() - t0))
        print(rows[-1], flush=True)
    return rows


def main():
    warnings.filterwarnings("ignore", category=UserWarning)
    out = Path(__file__).with_name("results") / "pfi_scale.md"
    with threadpool_limits(1):
        if "--memory" in sys.argv:
            n = int(float(sys.argv[sys.argv.index("--rows") + 1])) if "--rows" in sys.argv else 1_000_000
            keys = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else \
                ("pd", "pfi", "sklearn")
            rows = memory(n, keys)
            print(pd.DataFrame(rows).to_string(), flush=True)
            text = f"\n## Memory at {n:.0e} rows (tracemalloc peak above the call's start)\n\n" + "\n".join(
                f"- {r['what']}: {r['peak_mb']:.0f} MB ({r['seconds']:.0f} s traced)" for r in rows) + "\n"
            with out.open("a") as fh:
                fh.write(text)
            return
        r = timing()
    print(r, flush=True)
    out.write_text(
        "# PFI of HGB at scale (bench/pfi_scale.py)\n\n"
        f"Synthetic data, {r['n']:,} rows (10 normal features, 2 categoricals with 4 and 12 levels), "
        "HistGradientBoostingRegressor (native categoricals, fitted on 20,000 other rows), "
        f"n_repeats={N_REPEATS}, squared error, one thread (threadpool_limits(1), OMP_NUM_THREADS=1), "
        f"numba warm, {RUNS} interleaved pairs, medians.\n\n"
        f"- imlkit `pfi`: {r['imlkit_median_s']:.2f} s; scikit-learn `permutation_importance`: "
        f"{r['sklearn_median_s']:.2f} s; ratio {r['ratio_of_medians']:.3f} (per pair: {r['pair_ratios']})\n"
        f"- engine: {r['engine']}; (feature, tree) walks skipped (the tree never splits on the feature): "
        f"{r['skipped']}\n"
        f"- importances vs engine='predict' (same seed): max relative difference {r['rel_diff_vs_predict']:.2e}; "
        f"vs scikit-learn (other permutations): {r['rel_diff_vs_sklearn']:.3f} of the largest\n")


if __name__ == "__main__":
    main()
