"""Interventional SHAP: ``ik.shap`` vs ``shap`` 0.51's ``TreeExplainer(feature_perturbation="interventional")``.

Bike data (the 12 features, ``mnth``/``weathersit`` as their integer codes so that every
library reads the same numbers), 70/30 split (random_state=0). Explained: the first ``N_ROWS``
test rows; background: ``N_BACKGROUND`` other test rows, the same frame for both libraries.
One thread for everything: ``OMP_NUM_THREADS=1`` before any import, ``threadpool_limits(1)``,
``n_jobs=1`` in every model. Both libraries are warmed up (imlkit's kernel compiled or loaded
from numba's cache, shap's tree conversion done once) before timing; each timing is the median
of ``RUNS`` interleaved calls in this one process.

1. Targets: LightGBM (200 trees) and RandomForest (100 trees), 1,000 rows x 100 background:
   imlkit time / shap time <= 0.5.
2. Equality on the same rows for RandomForest, HistGradientBoosting, XGBoost and LightGBM:
   the largest |imlkit − shap| over the largest |shap value| (target 1e-6; XGBoost, whose
   trees hold float32 thresholds and leaves, 1e-4), and each library's efficiency error
   max_i |Σ_j φ_ij − (f(x_i) − mean_b f(b))|.

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/shap_vs_imlkit.py   (writes bench/results/shap.md)
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import imlkit as ik  # noqa: E402

N_ROWS = int(os.environ.get("SHAP_BENCH_ROWS", 1000))
N_BACKGROUND = 100
RUNS = int(os.environ.get("SHAP_BENCH_RUNS", 3))
#: Rows also explained by exact enumeration through ``predict`` (4,096 coalitions x 100 background rows each).
N_ENUM = 3


def interleaved(fa, fb, runs=RUNS):
    """Median time of each of two functions, alternating calls; and their last results."""
    ta, tb, ra, rb = [], [], None, None
    for _ in range(runs):
        t0 = time.perf_counter()
        ra = fa()
        ta.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        rb = fb()
        tb.append(time.perf_counter() - t0)
    return statistics.median(ta), statistics.median(tb), ra, rb


def bike():
    X, y = ik.datasets.load_bike()
    X = X.copy()
    for c in X.columns:
        if isinstance(X[c].dtype, pd.CategoricalDtype):
            X[c] = X[c].cat.codes.astype(float)
    X = X.astype(float)
    X_tr, X_te, y_tr, y_te = train_test_split(X, np.asarray(y, dtype=float), test_size=0.3, random_state=0)
    return X_tr.reset_index(drop=True), X_te.reset_index(drop=True), y_tr, y_te


def models():
    import lightgbm as lgb
    import xgboost as xgb

    return {
        "LightGBM (200 trees)": (lgb.LGBMRegressor(n_estimators=200, n_jobs=1, verbose=-1, random_state=0), 1e-6),
        "RandomForest (100 trees)": (RandomForestRegressor(100, min_samples_leaf=5, n_jobs=1, random_state=0), 1e-6),
        "HistGradientBoosting (100 iterations)": (HistGradientBoostingRegressor(random_state=0), 1e-6),
        "XGBoost (200 trees, depth 6)": (xgb.XGBRegressor(n_estimators=200, max_depth=6, n_jobs=1, random_state=0),
                                         1e-4),
    }


def main():
    import shap

    X_tr, X_te, y_tr, y_te = bike()
    X = X_te.iloc[:N_ROWS]
    bg = X_te.iloc[N_ROWS:N_ROWS + N_BACKGROUND]
    rows = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (model, tol) in models().items():
            model.fit(X_tr, y_tr)
            explainer = shap.TreeExplainer(model, data=bg, feature_perturbation="interventional")
            ik.shap(model, X.iloc[:5], background=bg, n_jobs=1)  # warm: kernel compiled / loaded
            explainer.shap_values(X.iloc[:5], check_additivity=False)
            timed = name.split(" ")[0] in ("LightGBM", "RandomForest")
            runs = RUNS if timed else 1
            t_ik, t_sh, r_ik, r_sh = interleaved(
                lambda: ik.shap(model, X, background=bg, n_jobs=1),
                lambda: explainer.shap_values(X, check_additivity=False), runs=runs)
            r_sh = np.asarray(r_sh)
            target = model.predict(X) - model.predict(bg).mean()
            scale = float(np.max(np.abs(r_sh)))
            diff = float(np.max(np.abs(r_ik.values - r_sh))) / scale
            # The referee: exact enumeration of all 2^12 coalitions through the model's own predict.
            ref = ik.shap(model, X.iloc[:N_ENUM], background=bg, engine="predict", exact=True).values
            enum_ik = float(np.max(np.abs(r_ik.values[:N_ENUM] - ref))) / scale
            enum_sh = float(np.max(np.abs(r_sh[:N_ENUM] - ref))) / scale
            rows.append(dict(model=name, engine=r_ik.extra["engine"], imlkit_s=t_ik, shap_s=t_sh,
                             ratio=t_ik / t_sh, target="<= 0.5" if timed else "",
                             rel_max_diff=diff, diff_target=f"<= {tol:g}",
                             imlkit_efficiency=float(np.max(np.abs(r_ik.values.sum(1) - target))),
                             shap_efficiency=float(np.max(np.abs(r_sh.sum(1) - target))),
                             imlkit_vs_enumeration=enum_ik, shap_vs_enumeration=enum_sh))
            print(rows[-1], flush=True)
    write(rows)


def write(rows):
    frame = pd.DataFrame(rows)
    out = Path(__file__).parent / "results" / "shap.md"
    lines = ["# Interventional SHAP: imlkit vs shap " + _version("shap"), "",
             f"Bike data (integer-coded categoricals), {N_ROWS:,} explained test rows x {N_BACKGROUND} background "
             f"test rows; one thread; warm; median of {RUNS} interleaved runs for the two timed targets "
             "(one run for the others). `rel_max_diff` = max |imlkit − shap| / max |shap|; the efficiency "
             "columns are max_i |Σ_j φ_ij − (f(x_i) − mean_b f(b))| in the target's units (count of rentals).",
             "", f"Python {sys.version.split()[0]}, numpy {np.__version__}, imlkit {ik.__version__}.", "",
             _markdown(frame), "",
             f"`*_vs_enumeration`: max |φ − φ_exact| / max |shap| over the first {N_ENUM} rows, φ_exact from "
             "`ik.shap(..., engine=\"predict\", exact=True)` -- all 4,096 coalitions predicted by the model itself. "
             "Where shap and imlkit differ, this referee and the efficiency columns say which one is off.", "",
             "Command: `OMP_NUM_THREADS=1 .venv/bin/python bench/shap_vs_imlkit.py`", ""]
    out.write_text("\n".join(lines), encoding="utf-8")
    print(out)


def _markdown(frame):
    """A pipe table (no tabulate needed)."""
    def cell(v):
        return f"{v:.4g}" if isinstance(v, float) else str(v)
    head = "| " + " | ".join(frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([head, rule] + body)


def _version(name):
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:
        return "?"


if __name__ == "__main__":
    main()
