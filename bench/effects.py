"""Effects: imlkit ICE+PD vs scikit-learn's partial_dependence, imlkit ALE vs PyALE.

Bike data (30% test rows, 2,594), RandomForestRegressor(100 trees, n_jobs=1) fitted on the
rest; features ``temp`` and ``hr``; 20-point grids; all test rows.

- ICE+PD: ``ik.ice(model, X_te, f, grid=20)`` vs
  ``sklearn.inspection.partial_dependence(model, X_te, [f], kind="both", method="brute",
  custom_values={f: <imlkit's grid>})`` (the same grid, so the numbers must be equal).
- ALE: ``ik.ale(model, X_te, f, bins=20)`` vs ``PyALE.ale(X_te, model, [f], grid_size=20,
  include_CI=True, plot=False)``; the numbers are compared on PyALE's bin edges (its quantile
  code differs slightly from R's type 1, which imlkit uses).

Targets: ICE+PD <= 0.5x scikit-learn, ALE <= 0.5x PyALE. The floor is one predict call over
the rows every implementation must predict (n·m for ICE, 2n for ALE).

Run: .venv/bin/python bench/effects.py   (writes bench/results/effects.md)
"""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pandas as pd
from _timing import best_of
from sklearn.ensemble import RandomForestRegressor
from sklearn.inspection import partial_dependence
from sklearn.model_selection import train_test_split

import imlkit as ik
from imlkit._model import stack_frame
from imlkit.effects._ale import _bin_index

FEATURES = ["temp", "hr"]



def main():
    logging.getLogger("PyALE").setLevel(logging.WARNING)
    from PyALE import ale as pyale

    X, y = ik.datasets.load_bike()
    # scikit-learn's forest needs numeric input (ordinal codes for the two categoricals), and its
    # partial_dependence refuses integer columns: every column becomes float.
    X = X.assign(mnth=X["mnth"].cat.codes, weathersit=X["weathersit"].cat.codes).astype(float)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
    model = RandomForestRegressor(n_estimators=100, random_state=0, n_jobs=1).fit(X_tr, y_tr)
    rows = []
    for f in FEATURES:
        t_ik, e = best_of(lambda: ik.ice(model, X_te, f, grid=20))
        grid = np.asarray(e.grid, dtype=float)
        t_sk, sk = best_of(lambda: partial_dependence(model, X_te, [f], kind="both", method="brute",
                                                      custom_values={f: grid}))
        d_avg = float(np.max(np.abs(e.average - sk["average"][0])))
        d_ind = float(np.max(np.abs(e.individual - sk["individual"][0])))
        n = len(X_te)
        stacked = stack_frame(X_te, len(grid), pd.DataFrame({f: np.repeat(grid, n)}))
        t_floor, _ = best_of(lambda: model.predict(stacked))
        rows.append(dict(method="ICE+PD", feature=f, imlkit_s=t_ik, peer="sklearn partial_dependence",
                         peer_s=t_sk, ratio=t_ik / t_sk, target="<= 0.5", floor_s=t_floor,
                         ratio_vs_floor=t_ik / t_floor, max_abs_diff=max(d_avg, d_ind)))
        print(f"ICE+PD {f}: imlkit {t_ik:.3f}s, sklearn {t_sk:.3f}s, floor {t_floor:.3f}s -> {t_ik / t_sk:.2f}x "
              f"sklearn, {t_ik / t_floor:.2f}x floor; max |diff| PD {d_avg:.2e}, ICE {d_ind:.2e}")

        t_ale, a = best_of(lambda: ik.ale(model, X_te, f, bins=20))
        t_py, ref = best_of(lambda: pyale(X_te, model, [f], grid_size=20, include_CI=True, plot=False))
        same_edges = ik.ale(model, X_te, f, bins=ref.index.to_numpy(dtype=float))
        d_ale = float(np.max(np.abs(same_edges.average - ref["eff"].to_numpy())))
        edges = a.extra["edges"]
        k = _bin_index(X_te[f].to_numpy(), edges)
        stacked2 = stack_frame(X_te, 2, pd.DataFrame({f: np.r_[edges[k - 1], edges[k]]}))
        t_floor2, _ = best_of(lambda: model.predict(stacked2))
        rows.append(dict(method="ALE", feature=f, imlkit_s=t_ale, peer="PyALE ale", peer_s=t_py,
                         ratio=t_ale / t_py, target="<= 0.5", floor_s=t_floor2, ratio_vs_floor=t_ale / t_floor2,
                         max_abs_diff=d_ale))
        print(f"ALE {f}: imlkit {t_ale:.3f}s ({len(a.grid) - 1} bins), PyALE {t_py:.3f}s ({len(ref) - 1} bins), "
              f"floor {t_floor2:.3f}s -> {t_ale / t_py:.2f}x PyALE, {t_ale / t_floor2:.2f}x floor; "
              f"max |diff| on PyALE's edges {d_ale:.2e}")
    table = pd.DataFrame(rows)
    out = Path(__file__).with_name("results") / "effects.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text("# Effects benchmark (bench/effects.py)\n\nBike data, 2,594 test rows, RandomForestRegressor"
                   "(100 trees, n_jobs=1), 20-point grid / 20 bins, best of 3. ``max_abs_diff``: largest "
                   "absolute difference of the numbers (PD and ICE on the same grid; ALE on PyALE's edges). "
                   "``floor_s``: one predict call over the rows any implementation must predict "
                   "(n x m for ICE, 2n for ALE).\n\n"
                   + table.to_markdown(index=False, floatfmt=".3g") + "\n")


if __name__ == "__main__":
    main()
