"""PFI: imlkit vs scikit-learn's permutation_importance, and vs the floor.

Bike data, 30% test rows, all 12 features, n_repeats=10, n_jobs=1, for a
HistGradientBoostingRegressor and a RandomForestRegressor(100 trees). The floor is one
predict call over all the stacked permuted rows (12 features x 10 repeats x n_test, each
feature's column permuted in its block, built before timing), the least any
perturbation method must spend on predictions.

Run: .venv/bin/python bench/pfi.py   (writes bench/results/pfi.md)
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from _timing import best_of
from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor
from sklearn.inspection import permutation_importance
from sklearn.model_selection import train_test_split

import imlkit as ik
from imlkit._model import stack_frame

N_REPEATS = 10



def main():
    X, y = ik.datasets.load_bike()
    # scikit-learn's models need numeric input: ordinal codes for the two categoricals.
    X = X.assign(mnth=X["mnth"].cat.codes, weathersit=X["weathersit"].cat.codes)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
    models = {
        "HistGradientBoostingRegressor": HistGradientBoostingRegressor(random_state=0),
        "RandomForestRegressor(100)": RandomForestRegressor(n_estimators=100, random_state=0, n_jobs=1),
    }
    rows = []
    for name, model in models.items():
        model.fit(X_tr, y_tr)
        t_ik, r_ik = best_of(lambda: ik.pfi(model, X_te, y_te, loss="squared_error", n_repeats=N_REPEATS,
                                            n_jobs=1, random_state=0))
        t_sk, r_sk = best_of(lambda: permutation_importance(model, X_te, y_te, scoring="neg_mean_squared_error",
                                                            n_repeats=N_REPEATS, n_jobs=1, random_state=0))
        # Permuted rows, not copies of X: identical copies traverse a forest's trees along
        # the same cached paths and predict about twice as fast as the rows PFI must predict.
        rng = np.random.default_rng(0)
        stacked = pd.concat([stack_frame(X_te, N_REPEATS, pd.DataFrame(
            {c: np.concatenate([X_te[c].to_numpy()[rng.permutation(len(X_te))] for _ in range(N_REPEATS)])}))
            for c in X_te.columns], ignore_index=True)
        t_floor, _ = best_of(lambda: model.predict(stacked))
        rel = np.abs(r_ik.importance - r_sk.importances_mean) / np.abs(r_sk.importances_mean).max()
        rows.append(dict(model=name, imlkit_s=t_ik, sklearn_s=t_sk, floor_s=t_floor,
                         ratio_vs_sklearn=t_ik / t_sk, ratio_vs_floor=t_ik / t_floor,
                         max_rel_diff_importance=rel.max()))
        print(f"{name}: imlkit {t_ik:.3f}s, sklearn {t_sk:.3f}s, floor {t_floor:.3f}s -> "
              f"{t_ik / t_sk:.2f}x sklearn, {t_ik / t_floor:.2f}x floor; "
              f"importances agree within {rel.max():.3f} of the largest")
    table = pd.DataFrame(rows)
    out = Path(__file__).with_name("results") / "pfi.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text("# PFI benchmark (bench/pfi.py)\n\nBike data, 2,594 test rows, 12 features, n_repeats=10, "
                   "n_jobs=1, best of 3. Targets: <= 0.35x scikit-learn, <= 1.25x floor.\n\n"
                   + table.to_markdown(index=False, floatfmt=".3f") + "\n")
    table.to_csv(out.with_suffix(".csv"), index=False)


if __name__ == "__main__":
    main()
