"""
SAGE splits an interaction fairly
=================================

The course's SAGE example (:func:`imlkit.datasets.make_interaction`): ``x1 .. x4`` uniform on
{-1, 1} and ``y = x1·x2 + x3 + e``. With the true model ``f = x1·x2 + x3`` the value function
of marginal SAGE is ``v({3}) = Var(x3) = 1``, ``v({1, 2}) = Var(x1·x2) = 1`` and
``v({1}) = v({2}) = 0``, so the Shapley values are φ = (1/2, 1/2, 1, 0): the interaction's
credit is shared by ``x1`` and ``x2``. PFI, by contrast, gives ``x1``, ``x2`` and ``x3`` the
same importance (2·Var = 2 each). ``tests/importance/test_sage.py`` checks both.
"""
import matplotlib.pyplot as plt

import imlkit as ik

X, y = ik.datasets.make_interaction(n=1000, random_state=0)


def f(A):
    return A["x1"].to_numpy() * A["x2"].to_numpy() + A["x3"].to_numpy()


# %%
# Exact Shapley values over all 2^4 coalitions (feasible for four features).
s = ik.sage(f, X, y, exact=True, n_background=128, random_state=0)
print(s.to_frame(sort=False)[["importance"]].round(3))
print("sum of φ:", s.importance.sum().round(3), "= v(all):", round(s.extra["v_all"], 3))

# %%
# PFI on the same model.
p = ik.pfi(f, X, y, n_repeats=5, random_state=0)
print(p.to_frame(sort=False)[["importance"]].round(3))

fig, axes = plt.subplots(1, 2, figsize=(9, 3), sharey=True, layout="constrained")
s.plot(ax=axes[0])
axes[0].set_title("marginal SAGE")
p.plot(ax=axes[1])
axes[1].set_title("PFI")
