"""sage_value plays the game sage() sums: the same f_∅ (SageGame.choose_empty), so v(N) equals the sum of the SAGE
values for conditional removal and for one feature (their f_∅ is the rows' mean prediction, sage7)."""
import numpy as np
import pandas as pd
from numpy.testing import assert_allclose
from sklearn.linear_model import LinearRegression

import imlkit as ik
from imlkit.importance._sage_value import sage_value


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    y = 2 * X["a"] - X["b"] + 0.5 * rng.normal(size=n)
    return X, y.to_numpy()


def test_sage_value_of_every_feature_is_the_sum_of_conditional_sage():
    X, y = _data()
    model = LinearRegression().fit(X, y)
    r = ik.sage(model, X, y, removal="conditional", n_background=16, max_permutations=32, random_state=0)
    v_all = sage_value(model, X, y, list(X.columns), removal="conditional", n_background=16, random_state=0)
    # each ordering telescopes to v(N) = R(f_∅) - R(f), so the values sum to it to rounding
    assert_allclose(r.importance.sum(), v_all, rtol=1e-10)
    # and f_∅ is the rows' mean prediction: v(N) is the loss of that mean minus the model's
    pred = model.predict(X)
    assert_allclose(v_all, np.mean((y - pred.mean()) ** 2) - np.mean((y - pred) ** 2), rtol=1e-10)


def test_sage_value_of_one_feature_is_exact():
    X, y = _data()
    Xa = X[["a"]]
    model = LinearRegression().fit(Xa, y)
    pred = model.predict(Xa)
    v = sage_value(model, Xa, y, ["a"], n_background=8, random_state=3)
    assert_allclose(v, np.mean((y - pred.mean()) ** 2) - np.mean((y - pred) ** 2), rtol=1e-10)
    assert_allclose(ik.sage(model, Xa, y, n_background=8, random_state=3).importance[0], v, rtol=1e-10)
