"""
LOCO with correlated features
=============================

The course's LOCO example (:func:`imlkit.datasets.make_correlated_loco`): ``x1, x3 ~ N(0, 5)``,
``x2 = x1 + N(0, 0.1)`` and ``y = x2 + x3 + N(0, 2)``, split 70/30.

LOCO refits the learner without each feature and compares the absolute test errors row by row
(the median of the differences, with a sign test). Without ``x1`` the refitted model uses
``x2`` in its place and the other way round, so both get about 0; without ``x3`` the residual
standard deviation grows from 2 to about 5.4 (``tests/importance/test_loco.py``).
"""
from sklearn.linear_model import LinearRegression

import imlkit as ik

X, y = ik.datasets.make_correlated_loco(n=1000, random_state=7)
X_tr, y_tr, X_te, y_te = X[:700], y[:700], X[700:], y[700:]

r = ik.loco(LinearRegression(), X_tr, y_tr, X_te, y_te, random_state=0)
print(r.to_frame()[["importance", "ci_low", "ci_high", "p_adjusted", "significant"]].round(4))

# %%
# The plot shows the median difference with its (simultaneous, Bonferroni-adjusted) interval.
r.plot()

# %%
# LOCO answers the question of the *learner*: does it need ``x_j`` to reach its performance?
print(r.explain().splitlines()[0])
