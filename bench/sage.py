"""SAGE: imlkit vs sage-importance (Covert et al.'s reference implementation).

Bike data, HistGradientBoostingRegressor fitted on 70% of the rows, 1000 evaluation rows
from the rest, the same 128 background rows for both, marginal removal, squared error,
n_jobs=1 (one thread: run with OMP_NUM_THREADS=1).

Part 1, equal orderings: both run exactly ORDERINGS orderings (the peer one batch of 512 with
``detect_convergence=False``; imlkit ``max_permutations=512`` and a tolerance it cannot reach),
imlkit once with ``engine="predict"`` (every coalition's 128 hybrid rows predicted, as before
the tree engine) and once with ``engine="auto"`` (f_S from the trees). The two imlkit runs use
the same seed, hence the same orderings: their values must agree to rounding. Interleaved runs,
median wall and CPU time. The same again for a HistGradientBoostingClassifier (cnt above its
median) with log loss (the peer's "cross entropy" on ``predict_proba``).

Part 2, at convergence: both stop at the same convergence threshold: largest standard error <=
THRESH x (max value - min value).

sage-importance: ``PermutationEstimator(MarginalImputer(model, background), "mse")`` called
with ``thresh=THRESH`` and its default batch of 512 orderings. imlkit: ``ik.sage`` with
``tolerance=THRESH`` (control variate on, its default) and, for reference, without the
control variate. Both value vectors are printed with their standard errors.

Run: OMP_NUM_THREADS=1 .venv/bin/python bench/sage.py   (writes bench/results/sage.md)
"""
from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.model_selection import train_test_split

import imlkit as ik

THRESH = 0.05
N_EVAL = 1000
N_BACKGROUND = 128
RUNS = 3
ORDERINGS = 512


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def timed_cpu(fn):
    """(wall s, CPU s, result): one thread, so CPU time is the load-independent cost."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def markdown(frame):
    """A pipe table without tabulate (not installed here): floats to 3 decimals."""
    def cell(v):
        return f"{v:.3f}" if isinstance(v, (float, np.floating)) else str(v)
    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * frame.shape[1]]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def _import_peer():
    # This script is itself named sage.py and its folder is first on sys.path: drop it so
    # that ``import sage`` finds sage-importance.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    sys.modules.pop("sage", None)
    import sage

    return sage


def equal_orderings(sage, model, X_ev, y_ev, bg, peer_predict, peer_loss, loss):
    """sage-importance, imlkit engine='predict' and engine='auto', ORDERINGS orderings each, interleaved.

    Returns the table of median times and ratios, and the largest relative difference between
    imlkit's two engines (same seed, same orderings).
    """
    def peer_fixed(seed):
        imputer = sage.MarginalImputer(peer_predict, bg)
        est = sage.PermutationEstimator(imputer, peer_loss, random_state=seed)
        return est(X_ev, y_ev, n_permutations=ORDERINGS, detect_convergence=False, batch_size=ORDERINGS, bar=False)

    def ik_fixed(seed, engine):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tolerance 1e-9 is not reached: exactly ORDERINGS orderings
            return ik.sage(model, X_ev, y_ev, loss=loss, background=bg, tolerance=1e-9,
                           max_permutations=ORDERINGS, n_jobs=1, random_state=seed, engine=engine)

    ik_fixed(0, "auto")  # numba kernels loaded, the engine's model read: warm
    fixed = {k: {"wall": [], "cpu": []} for k in ("peer", "predict", "trees")}
    diffs = []
    for seed in range(RUNS):
        for key, fn in (("peer", lambda: peer_fixed(seed)), ("predict", lambda: ik_fixed(seed, "predict")),
                        ("trees", lambda: ik_fixed(seed, "auto"))):
            w, c, out = timed_cpu(fn)
            fixed[key]["wall"].append(w)
            fixed[key]["cpu"].append(c)
            if key == "predict":
                r_pred = out
            elif key == "trees":
                assert out.info["engine"] == "trees", out.info
                assert out.extra["n_permutations"] == r_pred.extra["n_permutations"] == ORDERINGS
                diffs.append(float(np.max(np.abs(out.importance - r_pred.importance))
                                   / np.max(np.abs(r_pred.importance))))
        print(f"equal orderings, {type(model).__name__}, run {seed}: " + ", ".join(
            f"{k} {fixed[k]['wall'][-1]:.2f}s wall / {fixed[k]['cpu'][-1]:.2f}s CPU" for k in fixed))
    fmed = {k: {m: float(np.median(v[m])) for m in v} for k, v in fixed.items()}
    rows = []
    for key, label in (("peer", "sage-importance PermutationEstimator(MarginalImputer)"),
                       ("predict", "imlkit sage, engine='predict' (before: every coalition row predicted)"),
                       ("trees", "imlkit sage, engine='auto' (f_S from the trees)")):
        rows.append(dict(implementation=label, median_wall_s=fmed[key]["wall"], median_cpu_s=fmed[key]["cpu"],
                         ratio_wall=fmed[key]["wall"] / fmed["peer"]["wall"],
                         ratio_cpu=fmed[key]["cpu"] / fmed["peer"]["cpu"]))
    return pd.DataFrame(rows), max(diffs)


def main():
    sage = _import_peer()

    X, y = ik.datasets.load_bike()
    # sage-importance works on numpy arrays: ordinal codes for the two categoricals.
    X = X.assign(mnth=X["mnth"].cat.codes, weathersit=X["weathersit"].cat.codes).astype(float)
    names = list(X.columns)
    X_tr, X_te, y_tr, y_te = train_test_split(X.to_numpy(), np.asarray(y, dtype=float), test_size=0.3,
                                              random_state=0)
    model = HistGradientBoostingRegressor(random_state=0).fit(X_tr, y_tr)
    idx = np.random.default_rng(0).choice(len(X_te), N_EVAL, replace=False)
    X_ev, y_ev = X_te[idx], y_te[idx]
    bg = X_tr[np.random.default_rng(1).choice(len(X_tr), N_BACKGROUND, replace=False)]

    predicted = [0]

    def counted_predict(x):  # the peer's own conversion would call model.predict the same way
        predicted[0] += len(x)
        return model.predict(x)

    def run_peer(seed):
        imputer = sage.MarginalImputer(counted_predict, bg)
        est = sage.PermutationEstimator(imputer, "mse", random_state=seed)
        return est(X_ev, y_ev, thresh=THRESH, bar=False)

    def run_ik(seed, cv=True):
        return ik.sage(model, X_ev, y_ev, loss="squared_error", background=bg, tolerance=THRESH,
                       control_variate=cv, n_jobs=1, random_state=seed)

    # ---- part 1: equal orderings (the regressor; a classifier on the same rows, cnt above its median)
    fixed_table, fixed_diff = equal_orderings(sage, model, X_ev, y_ev, bg, model.predict, "mse", "squared_error")
    print(fixed_table.round(3).to_string(index=False))
    print(f"trees vs predict, same orderings: max |difference| / max |value| = {fixed_diff:.2e}")
    cut = np.median(y_tr)
    clf = HistGradientBoostingClassifier(random_state=0).fit(X_tr, (y_tr > cut).astype(int))
    clf_table, clf_diff = equal_orderings(sage, clf, X_ev, (y_ev > cut).astype(int), bg, clf.predict_proba,
                                          "cross entropy", "log_loss")
    print(clf_table.round(3).to_string(index=False))
    print(f"classifier, trees vs predict: max |difference| / max |value| = {clf_diff:.2e}")

    # ---- part 2: at convergence

    # The machine is shared: interleave the runs so that all three see the same load, and keep
    # the best time of each (a different seed per run, so the orderings needed vary too).
    times = {"peer": [], "ik": [], "plain": []}
    n_ik, n_plain, n_peer = [], [], []
    for seed in range(RUNS):
        predicted[0] = 0
        t, r_peer = timed(lambda: run_peer(seed))
        times["peer"].append(t)
        # Each ordering costs the peer m + 1 imputer calls of N_BACKGROUND rows (plus one check batch).
        n_peer.append(int(predicted[0] // ((len(names) + 1) * N_BACKGROUND)))
        t, r_ik = timed(lambda: run_ik(seed))
        times["ik"].append(t)
        n_ik.append(r_ik.extra["n_permutations"])
        t, r_plain = timed(lambda: run_ik(seed, cv=False))
        times["plain"].append(t)
        n_plain.append(r_plain.extra["n_permutations"])
        print(f"run {seed}: peer {times['peer'][-1]:.2f}s (~{n_peer[-1]} orderings), "
              f"imlkit {times['ik'][-1]:.2f}s ({n_ik[-1]} orderings), "
              f"imlkit plain {times['plain'][-1]:.2f}s ({n_plain[-1]} orderings)")
    t_peer, t_ik, t_plain = (min(times[k]) for k in ("peer", "ik", "plain"))
    # The orderings needed vary with the seed (convergence is checked at batch ends), so the
    # median over the runs is reported next to the best.
    med = {k: float(np.median(v)) for k, v in times.items()}

    se_pair = np.sqrt(r_peer.std ** 2 + r_ik.std ** 2)
    z = (r_ik.importance - r_peer.values) / se_pair
    table = pd.DataFrame({
        "feature": names,
        "sage_importance": r_peer.values, "sage_importance_se": r_peer.std,
        "imlkit": r_ik.importance, "imlkit_se": r_ik.std,
        "imlkit_no_cv": r_plain.importance, "imlkit_no_cv_se": r_plain.std,
        "z_imlkit_vs_peer": z,
    })
    print(table.round(3).to_string(index=False))
    print(f"best of {RUNS}: sage-importance {t_peer:.2f}s | imlkit {t_ik:.2f}s -> ratio {t_ik / t_peer:.2f} | "
          f"imlkit without control variate {t_plain:.2f}s -> ratio {t_plain / t_peer:.2f}")
    print(f"median: sage-importance {med['peer']:.2f}s | imlkit {med['ik']:.2f}s "
          f"-> ratio {med['ik'] / med['peer']:.2f} | "
          f"imlkit without control variate {med['plain']:.2f}s -> ratio {med['plain'] / med['peer']:.2f}")
    print(f"max |z| imlkit vs peer: {np.max(np.abs(z)):.2f} (within 3 SE: {bool(np.all(np.abs(z) <= 3))})")
    print(f"sum phi: imlkit {r_ik.importance.sum():.1f}, v(N) {r_ik.extra['v_all']:.1f}, "
          f"peer {r_peer.values.sum():.1f}")

    summary = pd.DataFrame([
        dict(implementation="sage-importance PermutationEstimator", best_s=t_peer, median_s=med["peer"],
             orderings=", ".join(f"~{k}" for k in n_peer), ratio_best=1.0, ratio_median=1.0),
        dict(implementation="imlkit sage (control variate, default)", best_s=t_ik, median_s=med["ik"],
             orderings=", ".join(map(str, n_ik)), ratio_best=t_ik / t_peer, ratio_median=med["ik"] / med["peer"]),
        dict(implementation="imlkit sage (control_variate=False, plain Welford)", best_s=t_plain,
             median_s=med["plain"], orderings=", ".join(map(str, n_plain)), ratio_best=t_plain / t_peer,
             ratio_median=med["plain"] / med["peer"]),
    ])
    out = Path(__file__).with_name("results") / "sage.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text(
        "# SAGE benchmark (bench/sage.py)\n\n"
        "Command: `OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 PYTHONPATH=src "
        ".venv/bin/python bench/sage.py` (one thread, the runs of each part interleaved).\n\n"
        f"## Equal orderings\n\n{ORDERINGS} orderings for every implementation, {N_EVAL} evaluation rows, "
        f"{N_BACKGROUND} background rows (the same for all), marginal removal, squared error, "
        f"HistGradientBoostingRegressor on the bike data; median of {RUNS} interleaved runs after a warm-up "
        "(numba kernels loaded). CPU time is the one-thread cost independent of the machine's load. "
        "Target (issue 25): imlkit <= 0.3x sage-importance.\n\n"
        + markdown(fixed_table) + "\n\n"
        f"engine='auto' and engine='predict' with the same seed (the same orderings): max |difference| / "
        f"max |value| = {fixed_diff:.1e} over the {RUNS} runs.\n\n"
        "The same for HistGradientBoostingClassifier (cnt above its training median), log loss (the peer's "
        "'cross entropy' on predict_proba): a boosted classifier's probability is not affine in its raw score, "
        "so the kernel keeps each background row's raw score and averages the probabilities.\n\n"
        + markdown(clf_table) + "\n\n"
        f"engine='auto' vs engine='predict': max |difference| / max |value| = {clf_diff:.1e}.\n\n"
        "## At convergence\n\n"
        f"Bike data, HistGradientBoostingRegressor, {N_EVAL} evaluation rows, {N_BACKGROUND} background rows "
        f"(the same for both), marginal removal, squared error, n_jobs=1, convergence threshold {THRESH} "
        f"(max SE <= {THRESH} x range of the values), best and median of {RUNS} interleaved runs (seeds 0..{RUNS - 1}; "
        "'orderings' lists each run's count; the peer checks convergence every 512 orderings, imlkit every 256). "
        "Target: imlkit <= 0.5x sage-importance, values within 3 standard errors.\n\n"
        + markdown(summary) + "\n\n"
        "Values of the last run (z = difference / sqrt(SE_imlkit^2 + SE_peer^2)):\n\n"
        + markdown(table) + "\n")


if __name__ == "__main__":
    main()
