"""
LOFO and a perfect copy
=======================

The LOFO chapter's point about correlated features: with an exact copy of ``temp`` in the
data, leaving out ``temp`` costs nothing -- the refitted learner uses ``temp_copy`` instead --
so each copy gets a LOFO importance of about 0, although ``temp`` drives ``y``. Leaving the two
out *together* (a group) gives the shared importance, ``β² Var(temp) = 9``
(``tests/importance/test_lofo_permuted.py``). PFI of the fitted model answers another
question: the least-squares fit puts the weight 1.5 on each copy, and permuting one copy costs
``2 · 1.5² · Var(temp) = 4.5``.
"""
import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression

import imlkit as ik

rng = np.random.default_rng(0)
n = 600
X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["temp", "hum", "wind"])
X["temp_copy"] = X["temp"]
y = 3 * X["temp"] + X["hum"] + rng.normal(size=n)
X_tr, y_tr, X_te, y_te = X.iloc[:400], y.iloc[:400], X.iloc[400:], y.iloc[400:]

single = ik.lofo(LinearRegression(), X_tr, y_tr, X_te, y_te, random_state=0)
print(single.to_frame(sort=False)[["importance"]].round(3))

# %%
# The two copies as one group.
group = ik.lofo(LinearRegression(), X_tr, y_tr, X_te, y_te, random_state=0,
                features={"temp (both copies)": ["temp", "temp_copy"], "hum": ["hum"], "wind": ["wind"]})
print(group.to_frame(sort=False)[["importance"]].round(3))
group.plot()

# %%
# "Add a permuted copy and relearn" (``variant="permuted_copy"``) keeps the number of columns
# the learner sees; on the copies it gives the same answer.
permuted = ik.lofo(LinearRegression(), X_tr, y_tr, X_te, y_te, variant="permuted_copy", random_state=0)
print(permuted.to_frame(sort=False)[["importance"]].round(3))

# %%
# PFI of the model fitted on the training rows: the fitted model does use both copies.
model = LinearRegression().fit(X_tr, y_tr)
print("weights:", pd.Series(model.coef_, index=X.columns).round(2).to_dict())
print(ik.pfi(model, X_te, y_te, n_repeats=10, random_state=0).to_frame(sort=False)[["importance"]].round(3))
