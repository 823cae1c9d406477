"""Round 6 (models): the GLM reading of a feature that depends on the others (R² from 0.5, which the report's data
section calls strongly dependent, below the 0.9 of 'collinear') says how little it varies with them fixed."""
import numpy as np
import pandas as pd
from numpy.testing import assert_allclose
from sklearn.linear_model import LinearRegression

from imlkit.models import GLM
from imlkit.models._glm import COLLINEAR_R2

DEPENDENT_R2 = 0.5  # "strongly dependent" in the report's data section


def test_dependent_feature_says_its_residual_spread():
    rng = np.random.default_rng(3)
    n = 400
    a = rng.normal(size=n)
    X = pd.DataFrame({"a": a, "b": 2 * a + rng.normal(scale=1.0, size=n), "c": rng.normal(size=n)})
    y = pd.Series(X["a"] + X["b"] + X["c"] + rng.normal(size=n), name="y")
    m = GLM().fit(X, y)
    others = X[["a", "c"]]
    lin = LinearRegression().fit(others, X["b"])
    r2 = lin.score(others, X["b"])
    assert DEPENDENT_R2 <= r2 < COLLINEAR_R2  # the premise: between the two rules
    resid_sd = float(np.std(X["b"] - lin.predict(others)))
    (s,) = [t for t in m.interpret("b") if t.startswith("Increasing b")]
    assert f"b depends on the other columns (R² {r2:.2f} from them on the {n} fitted rows): with them fixed it " \
           "varies by about " in s
    units = float(s.split("varies by about ")[1].split(" units")[0])
    assert_allclose(units, resid_sd, rtol=5e-3)
    share = float(s.split("units, ")[1].split("%")[0])
    assert_allclose(share, 100 * resid_sd / X["b"].std(ddof=0), atol=0.5)
    # an independent feature says nothing of the kind
    (t,) = [x for x in m.interpret("c") if x.startswith("Increasing c")]
    assert t.endswith("all other features fixed.")
