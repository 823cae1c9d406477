"""
Regional effects with REPID
===========================

The course's REPID example (:func:`imlkit.datasets.make_regional`):
``y = 0.2·x1 − 8·x2 + 8·x2·1(x1 > 0) + 16·x2·1(x3 = 0) + e``. The effect of ``x2`` is
heterogeneous: its slope is 16, 8, 0 or −8 depending on ``x3`` and on the sign of ``x1``.
The global PD of ``x2`` shows only their average, 4. REPID splits the data by the other
features so that the centred ICE curves within each region are as alike as possible, and draws
one PD curve per region. A random forest fitted to the noisy data finds ``x3`` and then ``x1``
near 0 (``tests/effects/test_repid.py``).
"""
from sklearn.ensemble import RandomForestRegressor

import imlkit as ik

X, y = ik.datasets.make_regional(n=1000, random_state=5)
rf = RandomForestRegressor(n_estimators=30, min_samples_leaf=5, random_state=0).fit(X, y)

g = ik.repid(rf, X, "x2", max_depth=2, grid=10)
print(g.tree_text())
print(g.to_frame().round(3))
print("interaction scores:", g.interaction_scores.round(3).to_dict())

# %%
g.plot()

# %%
# Which feature to explain regionally? The c-ICE heterogeneity ranking (the spread of the
# centred ICE curves) puts x2 first.
print(ik.ice_heterogeneity(rf, X.iloc[:300], grid=10).to_frame().round(3))
