"""GAM.plot and GLM.plot: what is drawn, and the kind of object returned (as other imlkit plots)."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.container import ErrorbarContainer  # noqa: E402
from numpy.testing import assert_allclose  # noqa: E402

from imlkit._validation import ValidationError  # noqa: E402
from imlkit.datasets import make_coffee  # noqa: E402
from imlkit.models import GAM, GLM  # noqa: E402
from imlkit.plotting import plot_glm  # noqa: E402


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def gam_data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.uniform(0, 1, n), "b": rng.uniform(-1, 1, n),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], n))})
    y = np.sin(2 * np.pi * X.a) + X.b ** 2 + 0.5 * (X.c == "v") + rng.normal(0, 0.2, n)
    return X, y


def test_gam_plot_one_term_is_an_axes_several_a_flat_array():
    X, y = gam_data()
    gam = GAM().fit(X, y)
    ax = gam.plot("a")
    assert isinstance(ax, Axes)
    assert ax.figure.get_layout_engine() is not None  # constrained layout
    eff = gam.partial_effect("a")
    # the curve (first line) is the partial effect on its grid; the band is one filled polygon
    line = ax.get_lines()[0]
    assert_allclose(line.get_xdata(), eff.grid)
    assert_allclose(line.get_ydata(), eff.average)
    assert len(ax.collections) == 1
    # ... whose edges are the term's pointwise interval at every grid point
    verts = ax.collections[0].get_paths()[0].vertices
    at = [verts[np.isclose(verts[:, 0], g), 1] for g in eff.grid]
    assert_allclose([v.min() for v in at], eff.ci_low)
    assert_allclose([v.max() for v in at], eff.ci_high)
    assert np.all(eff.ci_high - eff.ci_low > 0)
    assert ax.get_xlabel() == "a" and ax.get_ylabel() == "f(a)"
    assert ax.get_title() == f"a (edf {gam.edf_['a']:.1f})"
    # a rug of the 300 training values of a, and the reference line f = 0
    rug = next(ln for ln in ax.get_lines() if ln.get_marker() == "|")
    assert_allclose(np.sort(rug.get_xdata()), np.sort(X["a"]))
    zero = next(ln for ln in ax.get_lines() if ln.get_linestyle() == ":")
    assert_allclose(zero.get_ydata(), [0, 0])
    axes = gam.plot()
    assert isinstance(axes, np.ndarray) and axes.shape == (3,)
    assert all(isinstance(a, Axes) for a in axes)
    assert [a.get_xlabel() for a in axes] == ["a", "b", "c"]
    # the factor panel: one marker per level (reference level at 0)
    fac = axes[2].get_lines()[0]
    assert_allclose(fac.get_ydata(), gam.partial_effect("c").average)
    assert [t.get_text() for t in axes[2].get_xticklabels()] == ["u", "v", "w"]
    # ... with error bars spanning its interval (none at the reference level), and no edf in its title
    c = gam.partial_effect("c")
    eb = next(ct for ct in axes[2].containers if isinstance(ct, ErrorbarContainer))
    segs = np.array(eb.lines[2][0].get_segments())
    assert_allclose(segs[:, 0, 1], c.ci_low)
    assert_allclose(segs[:, 1, 1], c.ci_high)
    assert c.ci_low[0] == c.ci_high[0] == 0 and np.all(c.ci_high[1:] > c.ci_low[1:])
    assert [a.get_title() for a in axes] == [f"a (edf {gam.edf_['a']:.1f})", f"b (edf {gam.edf_['b']:.1f})", "c"]
    # 4 panels in a 3-column grid: 2 hidden, only the 4 drawn returned
    fig, grid = plt.subplots(2, 2)
    drawn = gam.plot(["a", "b"], ax=grid)
    assert drawn.shape == (2,) and drawn[1] is grid[0, 1]
    with pytest.raises(ValidationError, match="'ax' must hold at least 3 Axes"):
        gam.plot(ax=grid[0])


def test_glm_plot_is_a_forest_of_exp_weights_with_their_intervals():
    X, y = make_coffee(300, random_state=0)
    glm = GLM(family="poisson").fit(X, y)
    tab = glm.summary().drop(index="(Intercept)")
    ax = glm.plot()
    assert isinstance(ax, Axes)
    assert ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.get_yticklabels()] == list(tab.index)
    points = [ln for ln in ax.get_lines() if ln.get_marker() == "o"][0]
    assert_allclose(points.get_xdata(), tab["exp_weight"])  # first term on top
    assert_allclose(points.get_ydata(), [2, 1, 0])
    # the interval bars span exp(ci_low)..exp(ci_high)
    segs = ax.collections[0].get_segments()
    assert_allclose([s[0][0] for s in segs], tab["exp_ci_low"])
    assert_allclose([s[1][0] for s in segs], tab["exp_ci_high"])
    assert "exp(weight) with 95% Wald interval" == ax.get_xlabel()
    ref = [ln for ln in ax.get_lines() if ln.get_linestyle() == ":"][0]
    assert_allclose(ref.get_xdata(), [1, 1])
    # the identity link: weights, a linear axis, reference 0
    ax2 = GLM().fit(X, y.astype(float)).plot(intercept=True)
    assert ax2.get_xscale() == "linear" and len(ax2.get_yticklabels()) == 4
    with pytest.raises(ValidationError, match="exp=True needs a log or logit link"):
        GLM().fit(X, y.astype(float)).plot(exp=True)


@pytest.mark.filterwarnings("ignore::Warning")
def test_glm_plot_marks_non_estimable_terms_without_an_interval():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=80), "b": rng.normal(size=80)})
    X["c"] = X["a"] + X["b"]  # collinear: a, b, c not estimable
    X["d"] = rng.normal(size=80)
    y = (X.d + rng.normal(size=80) > 0).astype(int)
    glm = GLM(family="binomial").fit(X, y)
    ax = plot_glm(glm.summary())
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["a (not estimable)", "b (not estimable)", "c (not estimable)", "d"]
    crosses = [ln for ln in ax.get_lines() if ln.get_marker() == "x"][0]
    assert len(crosses.get_xdata()) == 3
    assert len(ax.collections[0].get_segments()) == 1  # only d has a bar
