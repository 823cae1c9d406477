"""Regional effects: imlkit's REPID vs effector's regional PDP (node-wise ``Best`` finder).

Bike data; RandomForestRegressor(100 trees, n_jobs=1) fitted on 70% of the rows; the regional
effect of ``hr`` on 2,000 of the held-out rows, 20 grid points, depth 2, every other feature a
candidate split. effector's PDP grid is its module constant ``NOF_INTERNAL_POINTS`` (30); it is
set to 20 here so both compute the same number of ICE points. Both timings include computing
the ICE curves (one model pass) and the split search.

What differs by design: imlkit scores every threshold of every split feature exactly (prefix
sums); effector scores ``numerical_features_grid_size=20`` equally spaced thresholds per
feature with a std-scale heterogeneity. The first splits are printed for comparison.

Target: imlkit <= 0.2x effector's time.

Run: .venv/bin/python bench/regional.py   (writes bench/results/regional.md)
"""
from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd
from _timing import best_of
from sklearn.ensemble import RandomForestRegressor
from sklearn.model_selection import train_test_split

import imlkit as ik

RUNS = 3
N_ROWS = 2000
GRID = 20
DEPTH = 2



def main():
    import effector
    import effector.helpers
    from effector import space_partitioning

    effector.helpers.NOF_INTERNAL_POINTS = GRID

    X, y = ik.datasets.load_bike()
    X = X.assign(mnth=X["mnth"].cat.codes, weathersit=X["weathersit"].cat.codes).astype(float)
    X_tr, X_te, y_tr, _ = train_test_split(X, y, test_size=0.3, random_state=0)
    model = RandomForestRegressor(n_estimators=100, random_state=0, n_jobs=1).fit(X_tr, y_tr)
    Xs = X_te.iloc[:N_ROWS].reset_index(drop=True)
    cols = list(Xs.columns)
    A = Xs.to_numpy()

    def predict_np(Z):
        # effector passes numpy arrays; give the forest its feature names, as imlkit does
        return model.predict(pd.DataFrame(Z, columns=cols))

    def run_effector():
        pdp = effector.PDP(A, predict_np, schema={"feature_names": cols}, nof_instances="all")
        finder = space_partitioning.Best(max_depth=DEPTH)
        return pdp.find_regions("hr", finder=finder)

    def run_imlkit():
        return ik.repid(model, Xs, "hr", grid=GRID, max_depth=DEPTH)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_eff, part = best_of(run_effector)
    t_ik, r = best_of(run_imlkit)
    ice_only, _ = best_of(lambda: ik.ice(model, Xs, "hr", grid=GRID))
    eff_tree = part.tree_lines()
    print(f"imlkit repid {t_ik:.3f}s (of which ICE {ice_only:.3f}s), effector regional PDP {t_eff:.3f}s "
          f"-> {t_ik / t_eff:.3f}x (target <= 0.2x)")
    print("imlkit tree:\n" + r.tree_text())
    print("effector tree:\n" + "\n".join(eff_tree))
    first_ik = f"{r.tree[0].condition('left')} / {r.tree[0].condition('right')}" if not r.tree[0].is_leaf else "none"
    first_eff = " / ".join(line.split("   n =")[0].strip("├└─ │") for line in eff_tree[1:]
                           if not line.startswith(("│", " ")))
    table = pd.DataFrame([dict(imlkit_s=t_ik, imlkit_ice_s=ice_only, effector_s=t_eff, ratio=t_ik / t_eff,
                               target="<= 0.2", imlkit_first_split=first_ik, effector_first_split=first_eff,
                               imlkit_regions=len(r.regions), effector_regions=len(part.leaves))])
    out = Path(__file__).with_name("results") / "regional.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text("# Regional effects benchmark (bench/regional.py)\n\nBike data, RandomForestRegressor(100 "
                   f"trees, n_jobs=1), regional effect of hr on {N_ROWS:,} held-out rows, grid {GRID}, depth "
                   f"{DEPTH}, best of {RUNS}. ``imlkit_ice_s`` is imlkit's ICE alone: the one model pass over "
                   f"{N_ROWS:,} x {GRID} rows that both libraries need, a floor for any implementation.\n\n"
                   + table.to_markdown(index=False, floatfmt=".3g")
                   + "\n\n## imlkit tree\n\n```\n" + r.tree_text() + "\n```\n\n## effector tree\n\n```\n"
                   + "\n".join(eff_tree) + "\n```\n")


if __name__ == "__main__":
    main()
