"""A feature named like a method of the samplers' Draws ('frame') is a feature like any other: PFI's replacement
frame has a .frame attribute then (its column), which the conversion of Draws into a frame must not call."""
import numpy as np
import pandas as pd
from numpy.testing import assert_allclose
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression

import imlkit
from imlkit.samplers import MarginalSampler, replacement_frame


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"frame": rng.normal(size=n), "b": rng.normal(size=n)})
    return X, 2 * X["frame"] + X["b"]


def test_pfi_of_a_feature_named_frame_is_its_renamed_twins():
    X, y = _data()
    renamed = X.rename(columns={"frame": "a"})
    for model in (LinearRegression(), RandomForestRegressor(n_estimators=10, max_depth=4, random_state=0)):
        got = imlkit.pfi(model.fit(X, y), X, y, random_state=0).to_frame()
        twin = imlkit.pfi(model.fit(renamed, y), renamed, y, random_state=0).to_frame()
        assert sorted(got.index) == ["b", "frame"]
        got = got.rename(index={"frame": "a"}).loc[twin.index]
        assert_allclose(got.to_numpy(dtype=float), twin.to_numpy(dtype=float), rtol=1e-12)


def test_replacement_frame_builds_draws_and_passes_a_frame_on():
    X, _ = _data(n=50)
    draws = MarginalSampler().fit(X).sample_rows(X, ["frame"], n_samples=2, rng=np.random.default_rng(0))
    built = replacement_frame(draws)
    assert_allclose(built["frame"].to_numpy(), X["frame"].to_numpy()[draws.rows.ravel()])
    assert replacement_frame(X) is X
