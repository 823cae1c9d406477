"""LOFO: imlkit's ``lofo`` vs the ``lofo-importance`` package on the bike data.

Same learner (RandomForestRegressor, 10 trees, random_state=0), same 4-fold CV
(``KFold(4)``, unshuffled, as lofo-importance's default ``cv=4``), squared error. Both
refit (12 features + 1) x 4 folds = 52 forests; with the learner's random_state fixed and
one refit, both fit the very same forests (imlkit gets lofo-importance's column order), so the
importance vectors agree to round-off.
Timed at n_jobs=1 (the headline ratio) and at n_jobs=2 (lofo-importance's multiprocessing
vs imlkit's joblib, whose worker pool is warmed up by one untimed call).

Run: .venv/bin/python bench/lofo.py   (writes bench/results/lofo.md)
"""
from __future__ import annotations

import io
import os
import sys
import time
import warnings
from contextlib import redirect_stderr
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import KFold

import imlkit as ik

RUNS = 3

# This file is named lofo.py: drop its folder from the path so `import lofo` finds the package.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]


def main():
    from lofo import Dataset, LOFOImportance

    X, y = ik.datasets.load_bike()
    # Both libraries hand the learner numeric columns: ordinal codes for the two categoricals.
    X = X.assign(mnth=X["mnth"].cat.codes, weathersit=X["weathersit"].cat.codes)
    features = list(X.columns)
    # lofo-importance orders the columns through a set; give imlkit the same order so that both
    # fit identical forests (a tree's tie-breaking between features depends on column order).
    order = [f for f in Dataset(df=X.assign(bikers=np.asarray(y)), target="bikers", features=features).feature_names]
    X = X[order]
    learner = RandomForestRegressor(n_estimators=10, min_samples_leaf=5, random_state=0, n_jobs=1)
    cv = KFold(n_splits=4)
    df = X.assign(bikers=np.asarray(y))

    def run_peer(n_jobs):
        with warnings.catch_warnings(), redirect_stderr(io.StringIO()):  # its tqdm bar and n_jobs warning
            warnings.simplefilter("ignore")
            ds = Dataset(df=df, target="bikers", features=features)
            return LOFOImportance(ds, scoring="neg_mean_squared_error", model=learner, cv=cv,
                                  n_jobs=n_jobs).get_importance()

    def run_ours(n_jobs):
        return ik.lofo(learner, X, y, cv=cv, loss="squared_error", n_jobs=n_jobs, random_state=0)

    rows = []
    for n_jobs in (1, 2):
        if n_jobs > 1:
            # joblib's loky pool is started once per process and reused by every later call; one
            # untimed call starts it (lofo-importance forks a new Pool in every call, cheap on Linux).
            run_ours(n_jobs)
        # Interleaved runs, best of each: the machine is shared, so load drifts between runs.
        t_peer = t_ours = np.inf
        for _ in range(RUNS):
            t0 = time.perf_counter()
            peer = run_peer(None if n_jobs == 1 else n_jobs)
            t_peer = min(t_peer, time.perf_counter() - t0)
            t0 = time.perf_counter()
            ours = run_ours(n_jobs)
            t_ours = min(t_ours, time.perf_counter() - t0)
        rows.append(dict(n_jobs=n_jobs, imlkit_s=round(t_ours, 2), lofo_importance_s=round(t_peer, 2),
                         ratio=round(t_ours / t_peer, 3)))
        print(f"n_jobs={n_jobs}: imlkit {t_ours:.2f}s, lofo-importance {t_peer:.2f}s -> ratio {t_ours / t_peer:.3f}")
    peer_imp = peer.set_index("feature")["importance_mean"]
    table = pd.DataFrame({"imlkit": pd.Series(ours.importance, index=list(ours.feature_names)),
                          "lofo_importance": peer_imp}).sort_values("imlkit", ascending=False)
    table["rel_diff"] = (table["imlkit"] - table["lofo_importance"]).abs() / table["lofo_importance"].abs().max()
    print(table.round(3).to_string())

    out = Path(__file__).parent / "results" / "lofo.md"
    out.parent.mkdir(exist_ok=True)
    times = pd.DataFrame(rows)
    lines = ["# LOFO: imlkit vs lofo-importance", "",
             "Bike data (8645 rows, 12 features), RandomForestRegressor(10 trees, min_samples_leaf=5, "
             "random_state=0), KFold(4), squared error; best of "
             f"{RUNS} interleaved runs; at n_jobs=2 imlkit's joblib (loky) worker pool is started by one untimed "
             "call first, as it is reused by every later call. Target: ratio <= 1.0.", "",
             f"Load average when measured: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (shared machine).", "",
             times.to_markdown(index=False), "",
             "Importance (mean over folds of MSE without the feature minus MSE with all):", "",
             table.round(4).to_markdown(), ""]
    out.write_text("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
