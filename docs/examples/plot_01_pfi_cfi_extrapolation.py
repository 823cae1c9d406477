"""
PFI extrapolates, CFI does not
==============================

The course's extrapolation example (:func:`imlkit.datasets.make_extrapolation`):
``x2 = x1 + e2`` with a tiny ``e2``, ``x3`` and ``x4`` independent, and ``y = x3 + e``.
A linear model gives ``x1`` and ``x2`` weights of equal size and opposite sign: on the data
the two nearly identical features cancel.

Permuting ``x1`` breaks its dependence on ``x2``; the model is then evaluated on points far
from the data, where the two terms no longer cancel, and PFI calls ``x1`` and ``x2``
important. CFI draws ``x1`` from its distribution *given* the other features, stays on the
data, and gives both about 0. ``tests/importance/test_pfi.py`` checks these numbers.
"""
import matplotlib.pyplot as plt
from sklearn.linear_model import LinearRegression

import imlkit as ik

X, y = ik.datasets.make_extrapolation(n=2000, random_state=3)
model = LinearRegression().fit(X, y)
print("weights:", model.coef_.round(2))

# %%
# PFI: the intervals of x1 and x2 lie clearly above 0 (and far above the unused x4), although
# on the data the model's prediction does not depend on them; x3 gets 2·β²·Var(x3) ≈ 2.
p = ik.pfi(model, X, y, n_repeats=10, random_state=0)
print(p.to_frame(sort=False)[["importance", "ci_low", "ci_high"]].round(3))

# %%
# CFI with the default distribution-free subgroup sampler: x1 and x2 are 0 to three decimals.
c = ik.cfi(model, X, y, n_repeats=10, random_state=0)
print(c.to_frame(sort=False)[["importance", "ci_low", "ci_high"]].round(3))

fig, axes = plt.subplots(1, 2, figsize=(9, 3.2), sharex=True, layout="constrained")
p.plot(ax=axes[0])
axes[0].set_title("PFI (marginal permutation)")
c.plot(ax=axes[1])
axes[1].set_title("CFI (conditional sampling)")

# %%
# Why: permuting x1 moves the pairs (x1, x2) off the diagonal they live on. The course's
# before/after hexbin of x1 against its strongest correlate:
ik.plotting.plot_extrapolation(X, "x1", random_state=0)

# %%
# Each result says which question it answers (see :doc:`/user_guide/importance`).
print(c.explain())
