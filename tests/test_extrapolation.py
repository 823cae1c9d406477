"""The course's before/after-permutation extrapolation diagnostic: the partner rule, the
permutation, and what the two hexbin panels draw."""
import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal

import imlkit as ik
from imlkit._extrapolation import permutation_extrapolation, strongest_correlate


@pytest.fixture(scope="module")
def course_X():
    """The course's example: x1 = ε1, x2 = x1 + ε2 (Var ε2 = 0.01), x3, x4 independent N(0, 1);
    a categorical column and a weaker correlate of x1 are added."""
    rng = np.random.default_rng(0)
    n = 800
    x1 = rng.normal(size=n)
    return pd.DataFrame({"x1": x1, "x3": rng.normal(size=n), "weak": x1 + rng.normal(0, 2, n),
                         "x2": x1 + rng.normal(0, 0.1, n), "x4": rng.normal(size=n),
                         "c": pd.Categorical(rng.choice(["a", "b"], n))})


def test_partner_is_the_largest_absolute_pearson_correlation(course_X):
    X = course_X
    numeric = ["x1", "x3", "weak", "x2", "x4"]
    for feat in numeric:
        r = X[numeric].corr()[feat].drop(feat)
        partner, value = strongest_correlate(X, feat)
        assert partner == r.abs().idxmax()
        assert_allclose(value, r[partner], rtol=1e-12)
    assert strongest_correlate(X, "x1")[0] == "x2"
    # a negative correlation counts by its size
    Y = X.assign(x2=-X["x2"])
    assert strongest_correlate(Y, "x1")[0] == "x2" and strongest_correlate(Y, "x1")[1] < -0.99


def test_permutation_keeps_the_values_and_breaks_the_dependence(course_X):
    d = permutation_extrapolation(course_X, "x1", random_state=1)
    assert d.partner == "x2" and d.params["partner_rule"] == "strongest |Pearson r|"
    assert_array_equal(d.x, course_X["x1"].to_numpy())
    assert_array_equal(d.partner_values, course_X["x2"].to_numpy())
    assert_array_equal(np.sort(d.x_permuted), np.sort(d.x))
    assert not np.array_equal(d.x_permuted, d.x)
    # r before: Cov/sd·sd = 1/sqrt(1.01) ≈ 0.995; after: independent, |r| of order 1/sqrt(n) (4 sd < 0.15)
    assert_allclose(d.r_before, 1 / np.sqrt(1.01), atol=0.01)
    assert abs(d.r_after) < 4 / np.sqrt(len(d.x))
    again = permutation_extrapolation(course_X, "x1", random_state=1)
    assert_array_equal(again.x_permuted, d.x_permuted)
    given = permutation_extrapolation(course_X, "x1", partner="x4", random_state=1)
    assert given.partner == "x4" and given.params["partner_rule"] == "given"


def test_missing_rows_are_left_out(course_X):
    X = course_X.copy()
    X.loc[:9, "x1"] = np.nan
    X.loc[5:14, "x2"] = np.nan
    d = permutation_extrapolation(X, "x1", random_state=0)
    assert d.n_dropped == 15 and len(d.x) == len(X) - 15
    assert np.isfinite(d.x_permuted).all()


def test_plot_draws_two_hexbins_of_the_rows(course_X):
    axes = ik.plotting.plot_extrapolation(course_X, "x1", random_state=3)
    assert isinstance(axes, np.ndarray) and axes.shape == (2,)
    before, after = (a.collections[0] for a in axes)
    n = len(course_X)
    assert before.get_array().sum() == n and after.get_array().sum() == n
    d = permutation_extrapolation(course_X, "x1", random_state=3)
    # the right panel is exactly the hexbin of the permuted feature against the partner,
    # the left one of the observed pairs, on the same cells
    import matplotlib.pyplot as plt

    _, ref = plt.subplots(1, 2)
    extent = (d.x.min(), d.x.max(), d.partner_values.min(), d.partner_values.max())
    for a, xv, drawn in zip(ref, (d.x, d.x_permuted), (before, after)):
        hb = a.hexbin(xv, d.partner_values, gridsize=30, extent=extent, mincnt=1)
        assert_array_equal(hb.get_array(), drawn.get_array())
        assert_allclose(hb.get_offsets(), drawn.get_offsets())
    # the course's point: the permuted pairs leave the diagonal and fill many more cells
    assert len(after.get_array()) > 3 * len(before.get_array())
    assert axes[0].get_xlabel() == "x1" and axes[0].get_ylabel() == "x2"
    assert "before permuting x1" in axes[0].get_title() and "after permuting x1" in axes[1].get_title()
    plt.close("all")


def test_plot_into_given_axes(course_X):
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(1, 2)
    out = ik.plotting.plot_extrapolation(course_X, "x3", partner="x4", ax=ax, random_state=0)
    assert out[0] is ax[0] and out[1] is ax[1]
    assert out[0].get_ylabel() == "x4"
    with pytest.raises(ik.ValidationError, match="'ax' must be two Axes"):
        ik.plotting.plot_extrapolation(course_X, "x3", ax=ax[:1])
    plt.close("all")


@pytest.mark.parametrize("kwargs, match", [
    (dict(feature="c"), "'feature' must be a numeric column"),
    (dict(feature="x1", partner="c"), "'partner' must be a numeric column"),
    (dict(feature="x1", partner="x1"), "'partner' must be another column"),
    (dict(feature="nope"), "nope"),
])
def test_errors_name_the_parameter(course_X, kwargs, match):
    with pytest.raises(ik.ValidationError, match=match):
        permutation_extrapolation(course_X, **kwargs)


def test_no_numeric_partner():
    X = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "c": pd.Categorical(list("abab"))})
    with pytest.raises(ik.ValidationError, match="no numeric partner"):
        permutation_extrapolation(X, "a")


def _report_ctx(tmp_path, frame):
    from sklearn.linear_model import LinearRegression

    from imlkit.report import ReportConfig, prepare_context

    # a fitted model: the data section never uses it, and nothing is fitted here
    model = LinearRegression().fit(frame[["x1", "x2", "x3"]], frame["y"])
    return prepare_context(ReportConfig(data=frame, target="y", model=model, quick=True, seed=3))


def test_report_data_section_shows_the_diagnostic_for_the_most_dependent_feature(tmp_path):
    from imlkit._dependence import dependence_r2
    from imlkit.report._sec_data import section_data

    rng = np.random.default_rng(1)
    n = 200
    x1 = rng.uniform(-1, 1, n)
    frame = pd.DataFrame({"x1": x1, "x2": x1 + rng.normal(scale=0.05, size=n), "x3": rng.uniform(-1, 1, n)})
    frame["y"] = 3 * frame["x1"] + frame["x3"] + rng.normal(scale=0.1, size=n)
    ctx = _report_ctx(tmp_path, frame)
    s = section_data(ctx)
    r2 = dependence_r2(ctx.data.X)
    top = r2.idxmax()
    partner = {"x1": "x2", "x2": "x1"}[top]
    images = [b for b in s["blocks"] if b["kind"] == "image" and "most associated with it" in (b["caption"] or "")]
    assert len(images) == 1 and not ctx.failures
    assert images[0]["caption"].startswith(f"{top} against {partner}, the single column most associated with it")
    # a near copy on 200 rows: most permuted pairs fall off the diagonal, and the caption says so
    assert "PFI and marginal SAGE judge the model there" in images[0]["caption"]
    assert images[0]["src"].startswith("data:image/png;base64,")

    # no feature above R² 0.5: no diagnostic
    frame2 = frame.assign(x2=rng.uniform(-1, 1, n))
    ctx2 = _report_ctx(tmp_path, frame2)
    s2 = section_data(ctx2)
    assert not [b for b in s2["blocks"] if b["kind"] == "image" and "most associated with it" in (b["caption"] or "")]
