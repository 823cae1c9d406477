"""
Conditional sampling on a mixture
=================================

The course's conditional-permutation illustration: ``X2 ~ U(0, 1)``; ``X1 ~ N(0, 1)`` if
``X2 < 0.5``, else ``N(4, 4)``; ``y`` depends on ``X2`` only. The model below uses ``X1`` as a
proxy for the jump of ``y`` at ``X2 = 0.5``.

Because ``y ⊥ X1 | X2``, the exact CFI of ``X1`` is 0 for any model. The default sampler of
:func:`imlkit.cfi` (``"subgroup"``: permute ``X1`` within the leaves of a tree that predicts
``X1`` from ``X2``) draws only observed values and gets about 0; the Gaussian sampler assumes
a normal conditional distribution and is wrong on a mixture
(``tests/importance/test_pfi.py``).
"""
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import imlkit as ik

rng = np.random.default_rng(0)
n = 2000
x2 = rng.uniform(size=n)
x1 = np.where(x2 < 0.5, rng.normal(0, 1, n), rng.normal(4, 2, n))
y = 4 * (x2 >= 0.5) + x2 + rng.normal(0, 0.5, n)
X = pd.DataFrame({"x1": x1, "x2": x2})


def model(Z):
    return Z["x2"].to_numpy() + 4 * (Z["x1"].to_numpy() > 2)


runs = {
    "PFI": ik.pfi(model, X, y, features=["x1"], n_repeats=10, random_state=0),
    "CFI, subgroup sampler": ik.cfi(model, X, y, features=["x1"], n_repeats=10, random_state=0),
    "CFI, Gaussian sampler": ik.cfi(model, X, y, features=["x1"], sampler="gaussian", n_repeats=10,
                                    random_state=0),
}
for name, r in runs.items():
    print(f"{name:24s} importance of x1 = {r.importance[0]:7.3f}")

fig, ax = plt.subplots(figsize=(6, 2.6), layout="constrained")
ax.barh(list(runs), [r.importance[0] for r in runs.values()],
        xerr=[[r.importance[0] - r.ci_low[0] for r in runs.values()],
              [r.ci_high[0] - r.importance[0] for r in runs.values()]], color="tab:blue")
ax.set_xlabel("importance of x1 (increase in squared error)")
ax.invert_yaxis()
