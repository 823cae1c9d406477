"""PFI of HGB at 1e5 and 1e6 synthetic rows (10 numeric + 2 categorical) vs scikit-learn: time, memory, hit rate.

1. Time (default): ``ik.pfi`` (tree engine) vs ``sklearn.inspection.permutation_importance`` of the
   same model, n_repeats=5, squared error, one thread (``threadpool_limits(1)``; run with
   ``OMP_NUM_THREADS=1``), numba warm, calls interleaved (imlkit, scikit-learn, imlkit, ...). Each
   call's CPU time (``time.process_time``: one thread, so it is the call's work whatever else
   runs on the machine) and wall time; the ratio of the medians of each. The engine's hit rate
   (share of (feature, tree) walks skipped because the tree never splits on the feature) is
   read from the result's ``info["engine_skipped"]`` / ``["engine_skipped_by_feature"]``.
   ``--check`` also runs ``engine="predict"`` (same seed: the importances must agree to float
   rounding).
2. Memory (``--memory``): the peak resident set size above the call's start (Linux: the
   high-water mark ``VmHWM`` reset through ``/proc/self/clear_refs`` just before the call,
   minus ``VmRSS`` then; it sees numba's and numpy's allocations alike), one library per
   process (``--only imlkit`` or ``--only sklearn``), the data and the model built first.
   ``--tracemalloc`` measures the peak traced memory above the start instead (numpy's
   allocations, not those made inside numba kernels).

Run: OMP_NUM_THREADS=1 python bench/pfi_scale.py --rows 1e5 [--runs 3] [--check]
     OMP_NUM_THREADS=1 python bench/pfi_scale.py --memory --rows 1e6 --only imlkit|sklearn [--tracemalloc]
"""
from __future__ import annotations

import sys
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.inspection import permutation_importance
from threadpoolctl import threadpool_limits

import imlkit as ik

N_REPEATS = 5


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


def calls(model, X, y):
    kw = dict(n_repeats=N_REPEATS, random_state=0, n_jobs=1)
    return {"imlkit": lambda: ik.pfi(model, X, y, loss="squared_error", **kw),
            "sklearn": lambda: permutation_importance(model, X, y, scoring="neg_mean_squared_error", **kw)}


def warm(model):
    X, y = synthetic(2000, seed=2)
    ik.pfi(model, X, y, loss="squared_error", n_repeats=2, n_jobs=1)  # numba's cached kernels loaded


def timing(n, runs):
    model = fit()
    X, y = synthetic(n)
    warm(model)
    fns = calls(model, X, y)
    cpu = {k: [] for k in fns}
    wall = {k: [] for k in fns}
    res = {}
    for _ in range(runs):
        for k, fn in fns.items():
            t0, c0 = time.perf_counter(), time.process_time()
            res[k] = fn()
            cpu[k].append(time.process_time() - c0)
            wall[k].append(time.perf_counter() - t0)
        print(", ".join(f"{k} {cpu[k][-1]:.1f} s CPU ({wall[k][-1]:.1f} s wall)" for k in fns), flush=True)
    r_ik, r_sk = res["imlkit"], res["sklearn"]
    out = dict(n=n, runs=runs, engine=r_ik.info["engine"],
               cpu=", ".join(f"{k} {np.median(v):.2f} s" for k, v in cpu.items()),
               cpu_ratio=np.median(cpu["imlkit"]) / np.median(cpu["sklearn"]),
               wall_ratio=np.median(wall["imlkit"]) / np.median(wall["sklearn"]),
               pair_cpu_ratios=", ".join(f"{a / b:.3f}" for a, b in zip(cpu["imlkit"], cpu["sklearn"])),
               skipped=r_ik.info.get("engine_skipped", np.nan),
               skipped_by_feature=", ".join(f"{c} {v:.2f}" for c, v in
                                            r_ik.info.get("engine_skipped_by_feature", {}).items()),
               rel_diff_vs_sklearn=float(np.max(np.abs(r_ik.importance - r_sk.importances_mean))
                                         / np.max(np.abs(r_sk.importances_mean))))
    if "--check" in sys.argv:  # the same importances by predicting every copy (same seed)
        r_pr = ik.pfi(model, X, y, loss="squared_error", n_jobs=1, engine="predict", n_repeats=N_REPEATS,
                      random_state=0)
        out["rel_diff_vs_predict"] = float(np.max(np.abs(r_ik.repeats - r_pr.repeats))
                                           / np.max(np.abs(r_pr.repeats)))
    return out


def _status(key):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024  # kB
    raise RuntimeError(key)


def rss_peak(fn):
    """Peak RSS (MB) above the RSS at the start of ``fn()`` (Linux)."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # reset VmHWM to the current RSS
    start = _status("VmRSS")
    c0 = time.process_time()
    fn()
    return (_status("VmHWM") - start) / 1e6, time.process_time() - c0


def traced_peak(fn):
    """Peak traced memory (MB) above the start of ``fn()``."""
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    c0 = time.process_time()
    fn()
    out = (tracemalloc.get_traced_memory()[1] - start) / 1e6
    tracemalloc.stop()
    return out, time.process_time() - c0


def memory(n, who):
    model = fit()
    X, y = synthetic(n)
    warm(model)
    fn = calls(model, X, y)[who]
    how = "tracemalloc" if "--tracemalloc" in sys.argv else "RSS"
    peak, cpu = (traced_peak if how == "tracemalloc" else rss_peak)(fn)
    return dict(n=n, who=who, how=how, peak_mb=peak, cpu_s=cpu)


def _arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main():
    warnings.filterwarnings("ignore", category=UserWarning)
    n = int(float(_arg("--rows", "1e5")))
    with threadpool_limits(1):
        if "--memory" in sys.argv:
            r = memory(n, _arg("--only", "imlkit"))
            print(f"- {r['who']}, {n:.0e} rows: peak above start {r['peak_mb']:.0f} MB ({r['how']}), "
                  f"{r['cpu_s']:.0f} s CPU", flush=True)
            return
        r = timing(n, int(_arg("--runs", "3")))
    print(f"- {n:.0e} rows, {r['runs']} interleaved pairs: CPU medians {r['cpu']}: ratio **{r['cpu_ratio']:.3f}** "
          f"(per pair {r['pair_cpu_ratios']}; wall ratio {r['wall_ratio']:.3f}); engine {r['engine']}; "
          f"walks skipped {r['skipped']:.3f} ({r['skipped_by_feature']}); importances vs scikit-learn's "
          f"(other permutations) within {r['rel_diff_vs_sklearn']:.3f} of the largest"
          + (f"; repeats vs engine='predict' (same seed): max relative difference {r['rel_diff_vs_predict']:.1e}"
             if "rel_diff_vs_predict" in r else ""), flush=True)


if __name__ == "__main__":
    main()
