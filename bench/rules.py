"""Rule learners: imlkit RIPPER vs wittgenstein RIPPER, imlkit RuleFit vs imodels RuleFitClassifier.

Bike data (8,645 hourly rows, 12 features): the binary task "bikers above the median",
70/30 random split (seed 0). Each learner is fitted on the same training rows in this one
process; the time is the best of a few fits (time.perf_counter); test accuracy and the
number of rules are printed and written to bench/results/rules.md.

Targets (issue 7): RIPPER >= 10x faster than wittgenstein with accuracy no worse than 1 point
below; RuleFit <= 0.5x imodels' time with accuracy no worse than 1 point below.

Run: .venv/bin/python bench/rules.py
"""
from __future__ import annotations

import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _timing import best_of

import imlkit as ik
from imlkit.models import RIPPER, RuleFit

RUNS_FAST = 3
RUNS_SLOW = 2



def load():
    X, y = ik.datasets.load_bike()
    yb = (np.asarray(y) > np.median(y)).astype(int)
    idx = np.random.default_rng(0).permutation(len(yb))
    k = int(0.7 * len(yb))
    return X, yb, idx[:k], idx[k:]


def import_imodels():
    # imodels 2.x imports `six` (only for six.string_types) which is not installed here
    if "six" not in sys.modules:
        try:
            import six  # noqa: F401
        except ImportError:
            stub = types.ModuleType("six")
            stub.string_types = (str,)
            sys.modules["six"] = stub
    from imodels import RuleFitClassifier
    return RuleFitClassifier


def main():
    warnings.filterwarnings("ignore")
    X, y, tr, te = load()
    Xtr, Xte, ytr, yte = X.iloc[tr], X.iloc[te], y[tr], y[te]
    rows = []

    # ---------------------------------------------------------------- RIPPER
    t_ik, rip = best_of(lambda: RIPPER(random_state=0).fit(Xtr, ytr), RUNS_FAST)
    acc_ik = float(np.mean(rip.predict(Xte) == yte))
    import wittgenstein as lw
    wtr = Xtr.assign(y=ytr)

    def fit_w():
        m = lw.RIPPER(random_state=0)
        m.fit(wtr, class_feat="y", pos_class=1)
        return m
    t_w, wit = best_of(fit_w, RUNS_SLOW)
    acc_w = float(np.mean(np.asarray(wit.predict(Xte)).astype(int) == yte))
    n_w = len(wit.ruleset_.rules)
    rows.append(("RIPPER", "wittgenstein RIPPER", t_ik, t_w, acc_ik, acc_w, len(rip.rules_), n_w))

    # ---------------------------------------------------------------- RuleFit
    t_rf, rf = best_of(lambda: RuleFit(random_state=0, task="classification").fit(Xtr, ytr), RUNS_SLOW)
    acc_rf = float(np.mean(rf.predict(Xte) == yte))
    RuleFitClassifier = import_imodels()
    D = pd.get_dummies(X, dtype=float)  # imodels needs a numeric matrix
    Dtr, Dte = D.iloc[tr].to_numpy(), D.iloc[te].to_numpy()
    t_im, im = best_of(lambda: RuleFitClassifier(random_state=0).fit(Dtr, ytr, feature_names=list(D.columns)),
                       RUNS_SLOW)
    acc_im = float(np.mean(im.predict(Dte) == yte))
    n_im = len(im.rules_)  # imodels keeps only the rules with a nonzero coefficient
    rows.append(("RuleFit", "imodels RuleFitClassifier", t_rf, t_im, acc_rf, acc_im,
                 int((rf.rules_.type == "rule").sum()), n_im))
    # the same with 3 instead of 5 cross-validation folds for λ (imodels: 5 folds on a short path)
    t_rf3, rf3 = best_of(lambda: RuleFit(random_state=0, task="classification", cv=3).fit(Xtr, ytr), RUNS_SLOW)
    rows.append(("RuleFit cv=3", "imodels RuleFitClassifier", t_rf3, t_im, float(np.mean(rf3.predict(Xte) == yte)),
                 acc_im, int((rf3.rules_.type == "rule").sum()), n_im))

    lines = ["# Rule learners: imlkit vs peers (bike, bikers > median, 70/30 split)", "",
             f"n_train={len(tr)}, n_test={len(te)}; best of {RUNS_FAST} (imlkit RIPPER) / {RUNS_SLOW} fits.", "",
             "| method | peer | imlkit s | peer s | speed-up (peer/imlkit) | imlkit acc | peer acc | "
             "imlkit rules | peer rules |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, peer, ti, tp, ai, ap, ni, npr in rows:
        lines.append(f"| {name} | {peer} | {ti:.3f} | {tp:.3f} | {tp / ti:.1f}x | {ai:.4f} | {ap:.4f} | {ni} | {npr} |")
        print(f"{name:8s} imlkit {ti:7.3f}s acc {ai:.4f} rules {ni:4d} | {peer} {tp:7.3f}s acc {ap:.4f} "
              f"rules {npr:4d} | speed-up {tp / ti:.1f}x, time ratio {ti / tp:.2f}")
    lines += ["", "Targets: RIPPER speed-up >= 10x and accuracy >= peer - 0.01; "
              "RuleFit time ratio <= 0.5 and accuracy >= peer - 0.01.",
              "imodels counts rules with a nonzero coefficient; imlkit RuleFit counts nonzero rule terms "
              "(linear terms excluded)."]
    out = Path(__file__).parent / "results" / "rules.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
