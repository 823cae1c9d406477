"""Model-agnostic SHAP: ``ik.shap``'s permutation estimator vs ``shap`` 0.51's ``PermutationExplainer``.

A model without trees (scikit-learn's ``MLPRegressor`` on the standardised bike features, the
categoricals as integer codes), ``N_ROWS`` explained test rows, ``N_BACKGROUND`` background
test rows shared by both libraries. The referee is exact enumeration of all 2^12 coalitions
through the model's ``predict`` (``ik.shap(..., exact=True)``). Reported per library: the time
(one thread, warm, median of ``RUNS`` interleaved runs) and the error against the referee,
max |φ − φ_exact| / max |φ_exact| and the root mean square error over the same scale.

imlkit runs with its defaults (antithetic orderings, SAGE's stopping rule at tolerance 0.05,
at most 512 orderings per row) and with tolerance 0.02; shap with its default ``max_evals``
(500: 10 antithetic orderings for 12 features) and with 2,000 evaluations.

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/shap_agnostic.py   (writes bench/results/shap_agnostic.md)
"""
from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")

import statistics  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.neural_network import MLPRegressor  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

import imlkit as ik  # noqa: E402

N_ROWS = 20
N_BACKGROUND = 50
RUNS = 3


def median_time(fn, runs=RUNS):
    times, out = [], None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main():
    import shap

    X, y = ik.datasets.load_bike()
    X = X.copy()
    for c in X.columns:
        if isinstance(X[c].dtype, pd.CategoricalDtype):
            X[c] = X[c].cat.codes.astype(float)
    X = X.astype(float)
    X_tr, X_te, y_tr, _ = train_test_split(X, np.asarray(y, dtype=float), test_size=0.3, random_state=0)
    rows, bg = X_te.iloc[:N_ROWS], X_te.iloc[N_ROWS:N_ROWS + N_BACKGROUND]
    out = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mlp = MLPRegressor(hidden_layer_sizes=(64, 32), max_iter=300, random_state=0)
        model = make_pipeline(StandardScaler(), mlp).fit(X_tr, y_tr)
        t_ref, ref = median_time(lambda: ik.shap(model, rows, background=bg, exact=True), runs=1)
        scale = float(np.max(np.abs(ref.values)))

        def score(values):
            err = np.asarray(values) - ref.values
            return float(np.max(np.abs(err))) / scale, float(np.sqrt(np.mean(err ** 2))) / scale

        masker = shap.maskers.Independent(bg, max_samples=N_BACKGROUND)
        runs = {
            "imlkit, tolerance 0.05 (default)": lambda: ik.shap(model, rows, background=bg, exact=False,
                                                                 random_state=0).values,
            "imlkit, tolerance 0.02": lambda: ik.shap(model, rows, background=bg, exact=False, tolerance=0.02,
                                                       random_state=0).values,
            "shap PermutationExplainer, max_evals=500 (default)":
                lambda: shap.PermutationExplainer(model.predict, masker, seed=0)(rows, silent=True).values,
            "shap PermutationExplainer, max_evals=2000":
                lambda: shap.PermutationExplainer(model.predict, masker, seed=0)(rows, max_evals=2000,
                                                                                 silent=True).values,
        }
        for name, fn in runs.items():
            fn()  # warm
            t, values = median_time(fn)
            mx, rms = score(values)
            out.append(dict(method=name, seconds=t, max_err=mx, rms_err=rms))
            print(out[-1], flush=True)
    out.append(dict(method="exact enumeration (referee, 4,096 coalitions per row)", seconds=t_ref, max_err=0.0,
                    rms_err=0.0))
    frame = pd.DataFrame(out)
    lines = ["# Model-agnostic SHAP: imlkit's permutation estimator vs shap's PermutationExplainer", "",
             f"MLPRegressor on the bike data (12 features), {N_ROWS} explained test rows x {N_BACKGROUND} background "
             f"test rows (the same for both); one thread; warm; median of {RUNS} runs. Errors are relative to the "
             "largest exact |φ| (exact enumeration through the model's predict).", "",
             _markdown(frame), "", "Command: `OMP_NUM_THREADS=1 .venv/bin/python bench/shap_agnostic.py`", ""]
    path = Path(__file__).parent / "results" / "shap_agnostic.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    print(path)


def _markdown(frame):
    def cell(v):
        return f"{v:.4g}" if isinstance(v, float) else str(v)
    head = "| " + " | ".join(frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    return "\n".join([head, rule] + ["| " + " | ".join(cell(v) for v in r) + " |"
                                     for r in frame.itertuples(index=False)])


if __name__ == "__main__":
    main()
