"""
Friedman's H-statistic
======================

On the pure interaction of :func:`imlkit.datasets.make_interaction` (``y = x1·x2 + x3 + e``),
the whole effect of ``x1`` and ``x2`` in the true model is their interaction. The overall
``H²_j`` (the share of the variance of ``f`` that the interactions of ``x_j`` with all other
features explain) is about ``Var(x1·x2) / Var(f) = 1/2`` for both, 0 for the additive ``x3`` and the
unused ``x4``; the pairwise ``H²_jk`` of (``x1``, ``x2``) is about 1: their joint partial
dependence is pure interaction. (The sample of 200 rows moves the estimates by a few hundredths.)
"""
import imlkit as ik

X, y = ik.datasets.make_interaction(n=400, random_state=0)


def f(A):
    return A["x1"].to_numpy() * A["x2"].to_numpy() + A["x3"].to_numpy()


h = ik.h_statistic(f, X, n_samples=200, random_state=0)
print(h.to_frame().round(3))
print(h.to_frame(kind="pairwise").round(3))

# %%
h.plot()
