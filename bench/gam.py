"""GAM fit time: imlkit vs pyGAM on 100,000 rows with 5 spline terms (gaussian).

1. fixed smoothing parameter (λ = 1 for every term, 20 B-splines each): imlkit
   ``GAM(smoothing=1.0)`` vs pyGAM ``LinearGAM(s(0)+...+s(4), lam=1)``; target ≤ 0.3x.
2. automatic smoothing: imlkit ``GAM(smoothing="gcv")`` (per-term λ by GCV) vs pyGAM
   ``LinearGAM.gridsearch`` (its default grid of 11 λ values shared by all terms); target ≤ 0.2x.

Both fit the same cubic P-spline basis with a second-order difference penalty, so at the
same λ the fitted values agree (printed). Deviances (residual sums of squares) side by side.

Run: ``cd /work/main && .venv/bin/python bench/gam.py``; writes ``bench/results/gam.md``.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from _timing import best_of

from imlkit.models import GAM

N, P, N_SPLINES, LAM = 100_000, 5, 20, 1.0


def make_data(n=N, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, P))
    f = (np.sin(np.pi * X[:, 0]) + X[:, 1] ** 2 + 0.5 * X[:, 2] + np.exp(X[:, 3]) / 2
         + np.cos(3 * X[:, 4]))
    y = f + rng.normal(0, 0.5, n)
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(P)]), y



def main():
    from pygam import LinearGAM, s

    X, y = make_data()
    Xa = X.to_numpy()
    def pygam_fixed():
        t = s(0, n_splines=N_SPLINES, lam=LAM)
        for j in range(1, P):
            t = t + s(j, n_splines=N_SPLINES, lam=LAM)
        return LinearGAM(t).fit(Xa, y)

    def pygam_grid():
        t = s(0, n_splines=N_SPLINES)
        for j in range(1, P):
            t = t + s(j, n_splines=N_SPLINES)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return LinearGAM(t).gridsearch(Xa, y, progress=False)

    ik_fixed = lambda: GAM(smoothing=LAM, n_splines=N_SPLINES).fit(X, y)  # noqa: E731
    ik_gcv = lambda: GAM(smoothing="gcv", n_splines=N_SPLINES).fit(X, y)  # noqa: E731
    ik_reml = lambda: GAM(smoothing="reml", n_splines=N_SPLINES).fit(X, y)  # noqa: E731

    t_pf, m_pf = best_of(pygam_fixed, 3)
    t_if, m_if = best_of(ik_fixed, 3)
    t_pg, m_pg = best_of(pygam_grid, 1)  # 11 full fits already; one run is enough
    t_ig, m_ig = best_of(ik_gcv, 3)
    t_ir, m_ir = best_of(ik_reml, 3)

    pred_pf, pred_if = m_pf.predict(Xa), m_if.predict(X)
    corr = float(np.corrcoef(pred_pf, pred_if)[0, 1])
    rss = lambda pred: float(np.sum((y - pred) ** 2))  # noqa: E731
    rows = [
        ("fixed λ = 1", "pyGAM LinearGAM.fit", t_pf, rss(pred_pf), float(m_pf.statistics_["edof"]), ""),
        ("fixed λ = 1", "imlkit GAM(smoothing=1.0)", t_if, m_if.deviance_, m_if.edf_total_ + 0,
         f"{t_if / t_pf:.3f}x (target ≤ 0.3x)"),
        ("automatic", "pyGAM LinearGAM.gridsearch (11 λ)", t_pg, rss(m_pg.predict(Xa)),
         float(m_pg.statistics_["edof"]), ""),
        ("automatic", "imlkit GAM(smoothing='gcv')", t_ig, m_ig.deviance_, m_ig.edf_total_,
         f"{t_ig / t_pg:.3f}x (target ≤ 0.2x)"),
        ("automatic", "imlkit GAM(smoothing='reml')", t_ir, m_ir.deviance_, m_ir.edf_total_,
         f"{t_ir / t_pg:.3f}x"),
    ]
    table = pd.DataFrame(rows, columns=["setting", "fit", "seconds", "deviance (RSS)", "edf", "ratio vs pyGAM"])
    print(table.to_string(index=False))
    print(f"fixed λ: correlation of fitted values imlkit vs pyGAM = {corr:.10f}, "
          f"max |diff| = {np.max(np.abs(pred_pf - pred_if)):.2e}")
    lines = [
        "# GAM fit time: imlkit vs pyGAM",
        "",
        f"{N:,} rows, {P} cubic P-spline terms with {N_SPLINES} basis functions each, gaussian; "
        "best of 3 runs (pyGAM gridsearch: 1 run of its 11 fits). Same machine, same process.",
        "",
        "| setting | fit | seconds | deviance (RSS) | edf | ratio vs pyGAM |",
        "|---|---|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]} | {r[2]:.3f} | {r[3]:.1f} | {r[4]:.2f} | {r[5]} |")
    lines += ["", f"Fixed λ: correlation of fitted values {corr:.10f} "
                  f"(max abs difference {np.max(np.abs(pred_pf - pred_if)):.2e}).", ""]
    out = Path(__file__).resolve().parent / "results" / "gam.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
