"""Shipped data and the course's simulated examples."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import imlkit as ik
from imlkit.datasets import _simulated


def test_load_bike():
    X, y = ik.datasets.load_bike()
    assert X.shape == (8645, 12) and y.name == "bikers"
    assert "casual" not in X and "registered" not in X
    assert X["weathersit"].cat.ordered and list(X["mnth"].cat.categories[:2]) == ["Jan", "Feb"]
    assert X["hr"].between(0, 23).all() and not X.isna().any().any()


def test_load_wage_and_penguins():
    X, y = ik.datasets.load_wage()
    assert X.shape == (3000, 9) and "logwage" not in X and y.name == "wage"
    assert X["education"].cat.ordered
    X, y = ik.datasets.load_penguins()
    assert X.shape == (333, 7) and set(y) == {"Adelie", "Chinstrap", "Gentoo"}
    assert len(ik.datasets.load_penguins(dropna=False)[0]) == 344
    assert set(ik.datasets.list_datasets().index) == {"bike", "wage", "penguins"}


@pytest.mark.parametrize("make", [ik.datasets.make_extrapolation, ik.datasets.make_interaction,
                                  ik.datasets.make_correlated_loco, ik.datasets.make_chain,
                                  ik.datasets.make_regional, ik.datasets.make_pure_noise,
                                  ik.datasets.make_coffee])
def test_generators_are_reproducible(make):
    a = make(n=50, random_state=3)
    b = make(n=50, random_state=3)
    pd.testing.assert_frame_equal(a[0], b[0])
    assert len(a[0]) == 50 and len(a[1]) == 50
    with pytest.raises(ValueError, match="'n' must be an int >= 1"):
        make(n=0)


def test_generator_processes():
    X, y = ik.datasets.make_correlated_loco(n=20_000, random_state=0)
    # x1 ~ N(0, 5) (sd 5), x2 = x1 + N(0, 0.1), noise sd 2; 3% covers the sampling error of an sd
    assert_allclose(X["x1"].std(), 5, rtol=0.03)
    assert_allclose((X["x2"] - X["x1"]).std(), 0.1, rtol=0.03)
    assert_allclose((y - X["x2"] - X["x3"]).std(), 2, rtol=0.03)
    X, y = ik.datasets.make_regional(n=2000, random_state=0)
    assert_allclose((y - _simulated.regional_function(X)).std(), 1.0, rtol=0.06)
    assert set(np.unique(X["x3"])) == {0.0, 1.0}
    X, y = ik.datasets.make_interaction(n=100, random_state=0)
    assert set(np.unique(X.to_numpy())) == {-1.0, 1.0}
