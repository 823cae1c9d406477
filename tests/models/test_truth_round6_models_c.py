"""Round 6 (models): a GLM feature of which another feature is an exact function (ccard: INCOMESQ = INCOME²) is not
read "per unit, all other features fixed" -- holding INCOMESQ fixed while INCOME changes is impossible; the slope of
the two weights together is given at INCOME's quartiles, with the intervals of that combination."""
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from imlkit.models import GLM


def _ccard():
    sm = pytest.importorskip("statsmodels.api")
    d = sm.datasets.ccard.load_pandas().data
    return d.drop(columns="AVGEXP"), d["AVGEXP"]


def _numbers(text):
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?", text)]


def test_exact_square_reads_the_combined_slope_at_the_quartiles():
    sm = pytest.importorskip("statsmodels.api")
    X, y = _ccard()
    assert_allclose(X["INCOMESQ"], X["INCOME"] ** 2, rtol=1e-12)  # the premise
    m = GLM().fit(X, y)
    (s,) = [t for t in m.interpret("INCOME") if "INCOME" in t]
    assert s.startswith("INCOMESQ = INCOME² exactly in these data, so INCOME cannot change while INCOMESQ stays fixed")
    assert "Increasing INCOME by one unit changes" not in s
    # known answer: statsmodels' gaussian GLM, slope b_INCOME + 2 b_INCOMESQ x with its Wald interval
    ref = sm.GLM(y, sm.add_constant(X), family=sm.families.Gaussian()).fit()
    b, V = ref.params, ref.cov_params()
    z = stats.t.ppf(0.975, ref.df_resid)  # the dispersion is estimated: Student's t (R's summary.glm)
    alone = b["INCOME"], b["INCOME"] - z * ref.bse["INCOME"], b["INCOME"] + z * ref.bse["INCOME"]
    head = s.split("is no effect of INCOME")[0]
    assert_allclose(_numbers(head.split("weight alone,")[1])[:3], alone, rtol=5e-3)
    for q, name in zip(np.quantile(X["INCOME"], [0.25, 0.5, 0.75]), ["25% quantile", "median", "75% quantile"]):
        c = pd.Series(0.0, index=b.index)
        c["INCOME"], c["INCOMESQ"] = 1.0, 2 * q
        est, se = float(c @ b), float(np.sqrt(c @ V @ c))
        part = re.search(r"(-?[\d.]+ \[-?[\d.]+, -?[\d.]+\])[^\[]*? at INCOME = [\d.]+ \(its " + name, s).group(1)
        assert_allclose(_numbers(part), [est, est - z * se, est + z * se], rtol=5e-3, atol=0.05)
    # INCOMESQ's own sentence says it cannot move alone, and where the two are read together
    (t,) = [x for x in m.interpret("INCOMESQ") if x.startswith("Increasing INCOMESQ")]
    assert ("but INCOMESQ = INCOME² exactly in these data, so INCOMESQ cannot change while INCOME stays fixed" in t
            and "(the sentences on INCOME read the two weights together)" in t)
    assert "collinear with" not in t


def test_exact_nonpolynomial_function_is_named_before_the_linear_collinearity():
    """z = exp(x): linear R² 0.9 or more says only "collinear"; the spline / rank says it is a function of x."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 2, size=300)
    X = pd.DataFrame({"x": x, "z": np.exp(x), "w": rng.normal(size=300)})
    y = pd.Series(X["x"] + 0.2 * X["z"] + X["w"] + rng.normal(size=300), name="y")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = GLM().fit(X, y)
    r2 = m.collinearity_.loc["z", "r_squared"]
    assert r2 >= 0.9 and m.collinearity_.loc["z", "function_r2"] >= 0.999
    (t,) = [s for s in m.interpret("z") if s.startswith("Increasing z")]
    assert "collinear with" not in t
    assert f"(linear R² {r2:.2f} from the other columns)" in t
    assert "z (almost) cannot change while x stays fixed" in t
    # no polynomial of x is exact, so x keeps its per-unit sentence (with the functional clause)
    (u,) = [s for s in m.interpret("x") if "x" in s.split(" ")[:3]]
    assert u.startswith("Increasing x by one unit")
