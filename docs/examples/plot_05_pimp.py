"""
PIMP: is an importance larger than by chance?
=============================================

PIMP refits the learner on permuted targets to get a null distribution of each feature's
importance, and turns the observed importance into a p-value (with Holm's correction over the
features). On the extrapolation example PFI calls ``x1`` and ``x2`` important, but their PFI is
no larger than under a target with no association at all; only ``x3`` is significant
(``tests/importance/test_pimp.py``).
"""
from sklearn.linear_model import LinearRegression

import imlkit as ik

X, y = ik.datasets.make_extrapolation(n=300, random_state=11)
X_tr, y_tr, X_te, y_te = X[:200], y[:200], X[200:], y[200:]

r = ik.pimp(LinearRegression(), X_tr, y_tr, X_te, y_te, n_null=99, n_repeats=3,
            distribution="empirical", random_state=0)
print(r.to_frame()[["importance", "p_value", "p_adjusted", "significant"]].round(4))

# %%
# The observed importance of each feature against its null distribution.
r.plot(kind="null")
