"""Tree engine: imlkit's engine="trees" vs brute-force predict, and vs scikit-learn.

Bike data, 70/30 split (random_state=0), 2,594 test rows, one thread for everything
(``threadpool_limits(1)``, ``n_jobs=1`` in every model). Timings are the best of 3, taken
side by side in this one process, each pair interleaved.

1. Targets (HistGradientBoostingRegressor with native categoricals ``mnth``/``weathersit``):
   - PD of ``temp`` on 20 points: ``ik.partial_dependence`` vs
     ``sklearn.inspection.partial_dependence(method="brute", custom_values=<same grid>)``;
     target <= 0.25x and equal within 1e-8.
   - PFI, all 12 features, n_repeats=10: ``ik.pfi`` vs
     ``sklearn.inspection.permutation_importance``; target <= 0.30x.
2. Every supported model class: ICE of ``temp`` (20 points, all rows) and PFI (12 features,
   n_repeats=10) with ``engine="trees"`` vs ``engine="predict"`` (the same method predicting
   the stacked rows), and the largest difference between the two results. XGBoost sums its
   trees in float32, so its differences are ~1e-6 relative, not ~1e-12.
3. ALE of HistGradientBoostingRegressor (native categoricals) on ``temp``, ``hr``, ``hum``, 20
   bins, every test row (and ``temp``, ``hr`` on the whole data stacked 3 times, 25,935 rows):
   ``ik.ale`` (engine "auto" = trees, and ``engine="predict"``) vs ``PyALE.ale(X, model, [f],
   grid_size=20, include_CI=True, plot=False)``; target <= 0.3x PyALE on the test rows. Median
   wall and CPU time of 7 interleaved rounds; ``check_s`` is the tree engine's check against the
   model's own predictions alone (``Predictor.use_engine``), part of every engine call; ``new_model``
   the same ik.ale on a new model object each round (the engine reads its trees first).
   Equality: imlkit on PyALE's edges (``bins=<PyALE's index>``) vs PyALE's ``eff``, and engine
   "trees" vs "predict" on those edges.
4. Two free features, every supported model class, ``engine="trees"`` vs ``engine="predict"``:
   - 2-D PD of (``temp``, ``hr``) on the 20 x 20 grid over 500 sampled rows (200,000
     modified rows for the brute force);
   - the H-statistic of ``temp``, ``hr``, ``hum`` with all 3 pairs, ``n_samples=300``: the
     whole call, and its pairwise part alone (the call minus the same call with
     ``pairs=None``, both timed in the same interleaved loop).

Run: .venv/bin/python bench/trees.py   (writes bench/results/trees.md)
     .venv/bin/python bench/trees.py --ale-only   (only part 3: rewrites its section of trees.md)
"""
from __future__ import annotations

import copy
import logging
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.inspection import partial_dependence, permutation_importance
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

import imlkit as ik
from imlkit._model import Predictor

N_REPEATS = 10
RUNS = 3


def interleaved(fa, fb, runs=RUNS):
    """Best time of each of two functions, alternating calls; and their last results."""
    ta, tb, ra, rb = [], [], None, None
    for _ in range(runs):
        t0 = time.perf_counter()
        ra = fa()
        ta.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        rb = fb()
        tb.append(time.perf_counter() - t0)
    return min(ta), min(tb), ra, rb


def targets(X_tr, X_te, y_tr, y_te):
    model = HistGradientBoostingRegressor(random_state=0).fit(X_tr, y_tr)
    grid = ik.partial_dependence(model, X_te, "temp", grid=20, engine="predict").grid
    ik.partial_dependence(model, X_te, "temp", grid=grid)  # compile / load the cached kernel
    t_ik, t_sk, r_ik, r_sk = interleaved(
        lambda: ik.partial_dependence(model, X_te, "temp", grid=grid),
        lambda: partial_dependence(model, X_te, ["temp"], method="brute", custom_values={"temp": grid}))
    pd_diff = float(np.max(np.abs(r_ik.average - r_sk["average"][0])))
    rows = [dict(what="PD of HGB, temp, 20 points", imlkit_s=t_ik, sklearn_s=t_sk, ratio=t_ik / t_sk,
                 target="<= 0.25", max_abs_diff=pd_diff, engine=r_ik.info["engine"])]
    t_ik, t_sk, r_ik, r_sk = interleaved(
        lambda: ik.pfi(model, X_te, y_te, loss="squared_error", n_repeats=N_REPEATS, n_jobs=1, random_state=0),
        lambda: permutation_importance(model, X_te, y_te, scoring="neg_mean_squared_error",
                                       n_repeats=N_REPEATS, n_jobs=1, random_state=0))
    rel = np.max(np.abs(r_ik.importance - r_sk.importances_mean)) / np.max(np.abs(r_sk.importances_mean))
    rows.append(dict(what="PFI of HGB (native categoricals), R=10", imlkit_s=t_ik, sklearn_s=t_sk,
                     ratio=t_ik / t_sk, target="<= 0.30", max_abs_diff=np.nan, engine=r_ik.info["engine"],
                     note=f"different permutations; importances within {rel:.3f} of the largest"))
    return pd.DataFrame(rows)


def interleaved_median(fns, runs=7):
    """Median wall and CPU (process) time of each function, called in turn ``runs`` times; and
    their last results."""
    wall, cpu, res = [[] for _ in fns], [[] for _ in fns], [None] * len(fns)
    for _ in range(runs):
        for k, f in enumerate(fns):
            t0, c0 = time.perf_counter(), time.process_time()
            res[k] = f()
            wall[k].append(time.perf_counter() - t0)
            cpu[k].append(time.process_time() - c0)
    return [float(np.median(t)) for t in wall], [float(np.median(t)) for t in cpu], res


ALE_FEATURES = ["temp", "hr", "hum"]
ALE_RUNS = 7


def ale_vs_pyale(X, X_tr, X_te, y_tr):
    """ALE of HGB (native categoricals), 20 bins, every row: imlkit (trees, predict) vs PyALE."""
    logging.getLogger("PyALE").setLevel(logging.WARNING)
    from PyALE import ale as pyale

    model = HistGradientBoostingRegressor(random_state=0).fit(X_tr, y_tr)
    big = pd.concat([X] * 3, ignore_index=True)
    # a deep forest (as bench/effects.py): every tree separates every bin, the engine walks them all
    num = dict(mnth=lambda d: d["mnth"].cat.codes, weathersit=lambda d: d["weathersit"].cat.codes)
    Xn_tr, Xn_te = X_tr.assign(**num).astype(float), X_te.assign(**num).astype(float)
    forest = RandomForestRegressor(100, random_state=0, n_jobs=1).fit(Xn_tr, y_tr)
    cases = ([("HGB", model, X_te, f) for f in ALE_FEATURES] + [("HGB", model, big, f) for f in ALE_FEATURES[:2]]
             + [("RF(100)", forest, Xn_te, f) for f in ALE_FEATURES[:2]])
    rows = []
    for name, model, data, f in cases:
        ik.ale(model, data, f, bins=20)  # compile / load the cached kernels

        def check(f=f, data=data, model=model):
            return Predictor(model, numeric=True).use_engine(data, "auto", [f])

        # a new model object per round: the engine reads its trees again (nothing cached for it)
        fresh = [copy.deepcopy(model) for _ in range(ALE_RUNS)]
        (t_tr, t_pr, t_py, t_ck, t_new), (c_tr, c_pr, c_py, c_ck, c_new), (a, _, ref, _, _) = interleaved_median([
            lambda f=f, data=data, model=model: ik.ale(model, data, f, bins=20),
            lambda f=f, data=data, model=model: ik.ale(model, data, f, bins=20, engine="predict"),
            lambda f=f, data=data, model=model: pyale(data, model, [f], grid_size=20, include_CI=True, plot=False),
            check,
            lambda f=f, data=data, fresh=fresh: ik.ale(fresh.pop(), data, f, bins=20)], runs=ALE_RUNS)
        edges = ref.index.to_numpy(dtype=float)
        on_edges = ik.ale(model, data, f, bins=edges)
        on_edges_pr = ik.ale(model, data, f, bins=edges, engine="predict")
        rows.append(dict(model=name, rows=len(data), feature=f, bins=len(a.grid) - 1, engine=a.info["engine"],
                         imlkit_s=t_tr, predict_s=t_pr, pyale_s=t_py, predict_cpu_s=c_pr,
                         check_s=t_ck, ratio=t_tr / t_py, ratio_predict=t_pr / t_py,
                         imlkit_cpu_s=c_tr, pyale_cpu_s=c_py, check_cpu_s=c_ck, cpu_ratio=c_tr / c_py,
                         cpu_ratio_after_check=(c_tr - c_ck) / c_py, new_model_cpu_s=c_new,
                         new_model_cpu_ratio=c_new / c_py,
                         target="<= 0.3" if data is X_te and name == "HGB" else "",
                         # stacked data: PyALE files the rows at the minimum under a bin of their own
                         # (its first size is 30 there, 0 on the test rows): not the same estimator
                         diff_vs_pyale=float(np.max(np.abs(on_edges.average - ref["eff"].to_numpy())))
                         if data is not big else np.nan,
                         diff_trees_vs_predict=float(np.max(np.abs(on_edges.average - on_edges_pr.average)))))
        print(rows[-1], flush=True)
    return pd.DataFrame(rows)


def models(X, Xn, y, yc):
    """(name, unfitted model, frame) for every supported class."""
    out = [
        ("HistGradientBoostingRegressor", HistGradientBoostingRegressor(random_state=0), X, y),
        ("HistGradientBoostingClassifier", HistGradientBoostingClassifier(random_state=0), X, yc),
        ("RandomForestRegressor(100)", RandomForestRegressor(100, random_state=0, n_jobs=1), Xn, y),
        ("RandomForestClassifier(100)", RandomForestClassifier(100, random_state=0, n_jobs=1), Xn, yc),
        ("ExtraTreesRegressor(100)", ExtraTreesRegressor(100, random_state=0, n_jobs=1), Xn, y),
        ("ExtraTreesClassifier(100)", ExtraTreesClassifier(100, random_state=0, n_jobs=1), Xn, yc),
        ("GradientBoostingRegressor(100, depth 3)", GradientBoostingRegressor(random_state=0), Xn, y),
        ("GradientBoostingClassifier(100, depth 3)", GradientBoostingClassifier(random_state=0), Xn, yc),
    ]
    try:
        import lightgbm as lgb

        out += [("LGBMRegressor", lgb.LGBMRegressor(n_jobs=1, verbose=-1, random_state=0), X, y),
                ("LGBMClassifier", lgb.LGBMClassifier(n_jobs=1, verbose=-1, random_state=0), X, yc)]
    except ImportError:
        pass
    try:
        import xgboost as xgb

        out += [("XGBRegressor", xgb.XGBRegressor(n_jobs=1, random_state=0), Xn, y),
                ("XGBClassifier", xgb.XGBClassifier(n_jobs=1, random_state=0), Xn, yc),
                ("XGBRegressor (native categoricals)",
                 xgb.XGBRegressor(n_jobs=1, random_state=0, enable_categorical=True, tree_method="hist",
                                  max_cat_to_onehot=1), X, y)]
    except ImportError:
        pass
    return out


def interleaved4(fns, runs=2):
    """Best time of each of several functions, called in turn; and their last results."""
    times, res = [[] for _ in fns], [None] * len(fns)
    for _ in range(runs):
        for k, f in enumerate(fns):
            t0 = time.perf_counter()
            res[k] = f()
            times[k].append(time.perf_counter() - t0)
    return [min(t) for t in times], res


H_KW = dict(features=["temp", "hr", "hum"], n_samples=300, random_state=0, n_jobs=1)


def two_features(name, model, X_te):
    """2-D PD and H-statistic (pairs) with engine='trees' vs 'predict'."""
    output = None if not hasattr(model, "predict_proba") else model.classes_[-1]
    pd2 = {e: (lambda e=e: ik.partial_dependence(model, X_te, ("temp", "hr"), grid=20, n_samples=500,
                                                 random_state=0, output=output, engine=e))
           for e in ("trees", "predict")}
    pd2["trees"]()
    t_tr, t_pr, a, b = interleaved(pd2["trees"], pd2["predict"], runs=2)
    h = [lambda e=e, p=p: ik.h_statistic(model, X_te, pairs=p, engine=e, **H_KW)
         for e in ("trees", "predict") for p in ("all", None)]
    h[0]()
    (h_tr, h0_tr, h_pr, h0_pr), (c, _, d, _) = interleaved4(h)
    return dict(model=name, pd2_trees_s=t_tr, pd2_predict_s=t_pr, pd2_speedup=t_pr / t_tr,
                pd2_max_abs_diff=float(np.max(np.abs(a.average - b.average))),
                h_trees_s=h_tr, h_predict_s=h_pr, h_speedup=h_pr / h_tr,
                h_pairs_trees_s=h_tr - h0_tr, h_pairs_predict_s=h_pr - h0_pr,
                h_pairs_speedup=(h_pr - h0_pr) / max(h_tr - h0_tr, 1e-9),
                h2_max_abs_diff=float(np.max(np.abs(c.pairwise["h2"].to_numpy(float) -
                                                    d.pairwise["h2"].to_numpy(float)))),
                engine=c.info["engine"])


def per_model(X, y):
    Xn = X.assign(mnth=X["mnth"].cat.codes, weathersit=X["weathersit"].cat.codes)
    yc = (y > np.median(y)).astype(int)
    rows, rows2 = [], []
    for name, model, frame, target in models(X, Xn, y, yc):
        X_tr, X_te, y_tr, y_te = train_test_split(frame, target, test_size=0.3, random_state=0)
        model.fit(X_tr, y_tr)
        loss = "log_loss" if hasattr(model, "predict_proba") else "squared_error"
        ice = {e: (lambda e=e: ik.ice(model, X_te, "temp", grid=20, engine=e)) for e in ("trees", "predict")}
        pfi = {e: (lambda e=e: ik.pfi(model, X_te, y_te, loss=loss, n_repeats=N_REPEATS, n_jobs=1,
                                      random_state=0, engine=e)) for e in ("trees", "predict")}
        ice["trees"]()
        t_tr, t_pr, a, b = interleaved(ice["trees"], ice["predict"])
        p_tr, p_pr, c, d = interleaved(pfi["trees"], pfi["predict"], runs=2)
        rows.append(dict(model=name, ice_trees_s=t_tr, ice_predict_s=t_pr, ice_speedup=t_pr / t_tr,
                         ice_max_abs_diff=float(np.max(np.abs(a.individual - b.individual))),
                         pfi_trees_s=p_tr, pfi_predict_s=p_pr, pfi_speedup=p_pr / p_tr,
                         pfi_max_abs_diff=float(np.max(np.abs(c.importance - d.importance)))))
        print(rows[-1], flush=True)
        rows2.append(two_features(name, model, X_te))
        print(rows2[-1], flush=True)
    return pd.DataFrame(rows), pd.DataFrame(rows2)


def markdown(frame):
    """A pipe table (without needing tabulate): numbers to 3 significant digits."""
    def cell(v):
        if isinstance(v, (float, np.floating)):
            return "" if np.isnan(v) else f"{v:.3g}"
        return str(v)
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * frame.shape[1]]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


ALE_TITLE = "## ALE of HGB (native categoricals) vs PyALE, 20 bins, every row"


def ale_section(a):
    return (ALE_TITLE + "\n\n"
            "Command: `.venv/bin/python bench/trees.py` (or `--ale-only` for this section alone). "
            "Median of 7 rounds, the five calls interleaved in each: `imlkit_s` ik.ale (tree engine), "
            "`predict_s` ik.ale(engine='predict'), `pyale_s` PyALE.ale(include_CI=True), `check_s` the "
            "tree engine's check against the model's own predictions alone (part of `imlkit_s`); "
            "`*_cpu_s` process CPU time of the same calls (the machine is shared: wall times are "
            "inflated, the CPU ratio is the one to read). The engine walks, per bin, only the trees "
            "with a node on the feature between the bin's edges, and in them only down to where no node "
            "below separates the edges (a bin's rows go down each tree together, partitioned at each "
            "node); the check is one call of the model's own predict on ~80 rows (HGB: ~4 ms of it its "
            "ColumnTransformer) and the engine on the same rows. `rows` 2,594: the test rows; 25,935: "
            "the whole data stacked 3 times. RF(100): RandomForestRegressor(100) on the numeric "
            "table (as bench/effects.py), whose every tree separates every bin: the engine walks the "
            "whole forest once, at about the cost of the model's two predicts. `cpu_ratio_after_check`: "
            "(imlkit - check) / PyALE, CPU. `new_model_cpu_s`: ik.ale on a new model object each round "
            "(a deep copy), whose trees the engine reads first (it keeps a model's reading, not its check, "
            "between calls); `new_model_cpu_ratio` that over PyALE. "
            "`ratio_predict`: what ik.ale cost before the engine (its only path then). `diff_vs_pyale`: "
            "imlkit on PyALE's edges vs PyALE's `eff`, on the test rows (on the stacked data PyALE files "
            "the 30 rows at the minimum of `temp` under a bin of their own at the first edge -- its "
            "table's first size is 30 there, 0 on the test rows -- so its curve is another estimator "
            "there); `diff_trees_vs_predict`: the two engines on PyALE's edges.\n\n"
            + markdown(a) + "\n\n")


def main_ale_only():
    """Part 3 alone: its section of trees.md is replaced (the others are kept)."""
    warnings.filterwarnings("ignore", category=UserWarning)
    X, y = ik.datasets.load_bike()
    X_tr, X_te, y_tr, _ = train_test_split(X, y, test_size=0.3, random_state=0)
    with threadpool_limits(1):
        a = ale_vs_pyale(X, X_tr, X_te, y_tr)
    out = Path(__file__).with_name("results") / "trees.md"
    text = out.read_text()
    if ALE_TITLE in text:
        head, rest = text.split(ALE_TITLE, 1)
        tail = rest[rest.index("\n## "):].lstrip("\n") if "\n## " in rest else ""
    else:
        marker = "## Every supported model class"
        head, tail = text.split(marker, 1)
        tail = marker + tail
    out.write_text(head + ale_section(a) + tail)
    a.to_csv(out.with_name("trees_ale.csv"), index=False)


def main():
    warnings.filterwarnings("ignore", category=UserWarning)
    X, y = ik.datasets.load_bike()
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
    with threadpool_limits(1):
        t = targets(X_tr, X_te, y_tr, y_te)
        print(t.to_string(), flush=True)
        a = ale_vs_pyale(X, X_tr, X_te, y_tr)
        m, m2 = per_model(X, np.asarray(y))
    out = Path(__file__).with_name("results") / "trees.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        "# Tree engine benchmark (bench/trees.py)\n\n"
        "Bike data, 70/30 split (random_state=0), 2,594 test rows, one thread (threadpool_limits(1), "
        "n_jobs=1), best of 3 (PFI per model: best of 2), each pair timed interleaved in one process.\n\n"
        "## Targets (HistGradientBoostingRegressor, native categoricals)\n\n"
        + markdown(t) + "\n\n"
        + ale_section(a)
        + "## Every supported model class: engine='trees' vs engine='predict' (brute force)\n\n"
        "ICE of `temp` (20 points, all test rows) and PFI (12 features, n_repeats=10, same seed, so "
        "the importances must agree). Classifiers: probability of the positive class (y > median), "
        "log loss. XGBoost sums its trees in float32: its differences are ~1e-6 relative.\n\n"
        + markdown(m) + "\n\n"
        "## Two free features: 2-D PD and the H-statistic's pairs, engine='trees' vs engine='predict'\n\n"
        "2-D PD of (`temp`, `hr`), 20 x 20 grid, 500 sampled test rows (200,000 modified rows brute "
        "force), best of 2. H-statistic of `temp`, `hr`, `hum`, all 3 pairs, n_samples=300: `h_*` is "
        "the whole call, `h_pairs_*` its pairwise part (the call minus the same call with pairs=None, "
        "timed in the same loop), best of 2. Classifiers: P(positive class) for the PD, H on the "
        "probabilities. A model whose link is affine (regressors with identity link, forests) "
        "averages its raw scores in one 2-D difference array; the others evaluate every row's "
        "grid, then average. XGBoost: float32 sums, so differences ~1e-6 relative.\n\n"
        + markdown(m2) + "\n")
    m.to_csv(out.with_suffix(".csv"), index=False)
    a.to_csv(out.with_name("trees_ale.csv"), index=False)
    m2.to_csv(out.with_name("trees_two_features.csv"), index=False)


if __name__ == "__main__":
    main_ale_only() if "--ale-only" in sys.argv[1:] else main()
