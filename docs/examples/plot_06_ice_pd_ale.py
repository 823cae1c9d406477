"""
ICE, PD and ALE on the bike data
================================

The course's running example: hourly bike rentals (Capital Bikeshare 2011, shipped as
:func:`imlkit.datasets.load_bike`). ICE curves show the prediction of single rows as one
feature moves over a grid; their mean is the partial dependence (PD). Centred ICE curves
(``center="first"``) show how much the shape varies between rows. ALE accumulates local
differences within intervals of the feature, so it never evaluates the model on combinations
the data do not contain.
"""
import matplotlib.pyplot as plt
from sklearn.ensemble import HistGradientBoostingRegressor

import imlkit as ik

X, y = ik.datasets.load_bike()
model = HistGradientBoostingRegressor(categorical_features="from_dtype", max_iter=50,
                                      random_state=0).fit(X, y)
rows = X.sample(200, random_state=0)  # ICE curves of 200 rows (kept small: the build is fast)

# %%
# ICE and PD of the temperature, then the centred ICE curves.
fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), layout="constrained")
e = ik.ice(model, rows, "temp", grid=20)
e.plot(ax=axes[0])
ik.ice(model, rows, "temp", grid=20, center="first").plot(ax=axes[1])
axes[1].set_title("centred ICE (c-ICE)")
pd_temp = ik.partial_dependence(model, rows, "temp", grid=20)
print("the mean of the ICE curves is the PD:",
      bool(abs(e.individual.mean(axis=0) - pd_temp.average).max() < 1e-9))

# %%
# ALE of the temperature and of the hour of the day.
fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), layout="constrained")
sample = X.sample(3000, random_state=1)
ik.ale(model, sample, "temp", bins=20).plot(ax=axes[0])
ik.ale(model, sample, "hr", bins=23).plot(ax=axes[1])

# %%
# A 2-D partial dependence of a pair.
ik.partial_dependence(model, rows, ("hr", "temp"), grid=12).plot()
