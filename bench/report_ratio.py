"""The default ``imlkit report`` against scikit-learn's PFI of the same model (issue 14's target).

Both are timed in one process, interleaved: the report as a subprocess (``imlkit report`` on
the shipped bike data, the gradient-boosting model, every default method), scikit-learn's
``permutation_importance`` of the same HistGradientBoostingRegressor on the same test split
(n_repeats=10). BLAS/OpenMP threads are limited to one on both sides. Writes
``bench/results/report_ratio.md``.
"""
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent


def sklearn_pfi():
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.inspection import permutation_importance
    from sklearn.model_selection import train_test_split

    import imlkit as ik

    X, y = ik.datasets.load_bike()
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
    model = HistGradientBoostingRegressor(categorical_features="from_dtype", random_state=0).fit(X_tr, y_tr)
    t0 = time.perf_counter()
    permutation_importance(model, X_te, y_te, n_repeats=10, random_state=0, scoring="neg_mean_squared_error")
    return time.perf_counter() - t0


def report(quick):
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as out:
        cmd = [str(Path(sys.executable).with_name("imlkit")), "report", "--quiet", "--out", out]
        t0 = time.perf_counter()
        subprocess.run(cmd + (["--quick"] if quick else []), check=True, env=env)
        return time.perf_counter() - t0


def main(runs=2):
    rows = []
    with threadpool_limits(1):
        for _ in range(runs):
            pfi_t = sklearn_pfi()
            full_t = report(False)
            quick_t = report(True)
            rows.append((pfi_t, full_t, quick_t))
    pfi_t = min(r[0] for r in rows)
    full_t = min(r[1] for r in rows)
    quick_t = min(r[2] for r in rows)
    lines = ["# Default report vs scikit-learn's PFI of the same model", "",
             "Bike data, HistGradientBoostingRegressor, one BLAS/OpenMP thread, best of "
             f"{runs} interleaved runs (`python bench/report_ratio.py`).", "",
             "| what | seconds | ratio to sklearn PFI (n_repeats=10) | target |", "|---|---|---|---|",
             f"| sklearn `permutation_importance` | {pfi_t:.2f} | 1 | |",
             f"| `imlkit report` (default) | {full_t:.1f} | {full_t / pfi_t:.1f}× | ≤ 25× |",
             f"| `imlkit report --quick` | {quick_t:.1f} | {quick_t / pfi_t:.1f}× | |"]
    (HERE / "results" / "report_ratio.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
