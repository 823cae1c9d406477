"""What the plots draw: bars, lines, whisker ends, labels and titles; and that nothing is clipped.

Each test reads the numbers back from the matplotlib artists and compares them with the result
(or with a value computed here from the result's raw arrays), so a plot that draws the wrong
thing fails, not only one that raises.
"""
import io
from dataclasses import replace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import LineCollection  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402
from numpy.testing import assert_allclose  # noqa: E402
from sklearn.linear_model import LinearRegression, LogisticRegression  # noqa: E402

import imlkit as ik  # noqa: E402
from imlkit._validation import ValidationError  # noqa: E402

BETA = np.array([3.0, 2.0, 1.0, 0.0])
LONG = "a rather long feature name that needs room (units)"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def linear():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 4)), columns=["a", "b", "c", "d"])
    y = X.to_numpy() @ BETA + rng.normal(scale=0.5, size=200)
    return X, y


def _linear_model(Z):
    return np.asarray(Z, dtype=float) @ BETA


def _bars(ax):
    return next(c for c in ax.containers if isinstance(c, BarContainer))


def _whiskers(ax):
    """(low ends, high ends, y positions) of the error bars, ordered by position."""
    eb = next(c for c in ax.containers if isinstance(c, ErrorbarContainer))
    segs = np.array(eb.lines[2][0].get_segments())           # (k, 2, 2): [[x_lo, y], [x_hi, y]]
    order = np.argsort(segs[:, 0, 1])
    return segs[order, 0, 0], segs[order, 1, 0], segs[order, 0, 1]


def _vertical_whiskers(ax):
    """(low ends, high ends, x positions) of vertical error bars, ordered by position."""
    eb = next(c for c in ax.containers if isinstance(c, ErrorbarContainer))
    segs = np.array(eb.lines[2][0].get_segments())           # (k, 2, 2): [[x, y_lo], [x, y_hi]]
    order = np.argsort(segs[:, 0, 0])
    return segs[order, 0, 1], segs[order, 1, 1], segs[order, 0, 0]


def _band(collection, x):
    """(lower, upper) edge of a fill_between polygon at each of the points ``x``."""
    verts = np.concatenate([p.vertices for p in collection.get_paths()])
    at = [verts[np.isclose(verts[:, 0], xi), 1] for xi in x]
    assert all(len(v) for v in at), "the band has no vertex at some grid point"
    return np.array([v.min() for v in at]), np.array([v.max() for v in at])


def _ticks(labels):
    return [t.get_text() for t in labels]


# ---------------------------------------------------------------- importance bars ----------

def test_pfi_bar_draws_the_5_95_spread_of_the_permutations(linear):
    X, y = linear
    r = ik.pfi(_linear_model, X, y, n_repeats=20, random_state=0)
    ax = r.plot()
    frame = r.to_frame(sort=False)
    order = np.argsort(-r.importance, kind="stable")[::-1]          # largest on top
    names = [r.feature_names[i] for i in order]
    bars = _bars(ax)
    assert len(bars) == 4
    assert_allclose([b.get_width() for b in bars], r.importance[order])
    assert _ticks(ax.get_yticklabels()) == names
    low, high, ypos = _whiskers(ax)
    assert_allclose(ypos, np.arange(4))
    assert_allclose(low, frame["q05"].to_numpy()[order])
    assert_allclose(high, frame["q95"].to_numpy()[order])
    # ... which are the quantiles of the per-permutation importances themselves
    assert_allclose(low, np.quantile(r.repeats[order], 0.05, axis=1))
    assert_allclose(high, np.quantile(r.repeats[order], 0.95, axis=1))
    legend = _ticks(ax.get_legend().get_texts())
    assert legend == ["mean over 20 permutations", "5%–95% of the 20 permutations"]
    assert "PFI" in ax.get_title() and "squared_error" in ax.get_title()
    assert ax.get_xlabel() == "importance"


def test_pfi_bar_ci_option(linear):
    X, y = linear
    r = ik.pfi(_linear_model, X, y, n_repeats=20, random_state=0, confidence_level=0.9)
    ax = r.plot(kind="bar", interval="ci")
    order = np.argsort(-r.importance, kind="stable")[::-1]
    low, high, _ = _whiskers(ax)
    assert_allclose(low, r.ci_low[order])
    assert_allclose(high, r.ci_high[order])
    assert _ticks(ax.get_legend().get_texts())[1] == "90% confidence interval"


def test_spread_does_not_shrink_with_repeats_but_the_ci_does(linear):
    # The 5%/95% quantiles estimate a fixed spread of the permutation distribution; the CI of
    # the mean shrinks like 1/sqrt(r): 8x the repeats -> about 1/2.83 the width.
    X, y = linear
    few = ik.pfi(_linear_model, X, y, n_repeats=50, random_state=1)
    many = ik.pfi(_linear_model, X, y, n_repeats=400, random_state=2)
    widths = {}
    for name, r in (("few", few), ("many", many)):
        for interval in ("quantile", "ci"):
            low, high, _ = _whiskers(r.plot(interval=interval))
            widths[name, interval] = (high - low)[1:]                 # the three informative features
    assert_allclose(widths["many", "quantile"] / widths["few", "quantile"], 1.0, rtol=0.4)
    assert_allclose(widths["few", "ci"] / widths["many", "ci"], np.sqrt(8), rtol=0.3)


def test_loco_bar_defaults_to_its_test_interval(linear):
    X, y = linear
    r = ik.loco(LinearRegression(), X[:120], y[:120], X[120:], y[120:], random_state=0)
    ax = r.plot()
    order = np.argsort(-r.importance, kind="stable")[::-1]
    low, high, _ = _whiskers(ax)
    assert_allclose(low, r.ci_low[order])
    assert_allclose(high, r.ci_high[order])
    assert _ticks(ax.get_legend().get_texts()) == ["median of the loss differences", "95% confidence interval"]
    # one refit: no spread of refits to draw, so asking for it falls back to the interval
    assert_allclose(_whiskers(r.plot(interval="quantile"))[0], r.ci_low[order])


def test_bar_max_features_and_ratio_relation(linear):
    X, y = linear
    r = ik.pfi(_linear_model, X, y, n_repeats=5, random_state=0, relation="ratio")
    ax = r.plot(max_features=2)
    top2 = np.argsort(-r.importance, kind="stable")[:2][::-1]
    assert len(_bars(ax)) == 2 and _ticks(ax.get_yticklabels()) == [r.feature_names[i] for i in top2]
    assert_allclose([b.get_width() for b in _bars(ax)], r.importance[top2])
    assert ax.get_xlabel() == "importance (ratio)"
    # the reference line marks "no change": a ratio of 1, not a difference of 0
    assert_allclose(ax.lines[-1].get_xdata(), [1, 1])


def test_bar_without_any_interval_draws_bars_only():
    r = ik.ImportanceResult(method="sage_marginal", feature_names=("u", "v"), importance=np.array([2.0, 1.0]),
                            std=np.zeros(2), ci_low=np.full(2, np.nan), ci_high=np.full(2, np.nan), loss="mse")
    ax = r.plot()
    assert not any(isinstance(c, ErrorbarContainer) for c in ax.containers)
    assert _ticks(ax.get_yticklabels()) == ["v", "u"]
    assert ax.get_title() == "SAGE (marginal) (mse)"


@pytest.mark.parametrize("kwargs, match", [
    (dict(interval="sd"), "'interval' must be one of 'quantile', 'ci'; got 'sd'"),
    (dict(kind="box", interval="ci"), "'interval' applies to kind='bar' only"),
    (dict(kind="pie"), "'kind' must be one of 'bar', 'box', 'null', 'convergence'; got 'pie'"),
])
def test_bar_options_are_checked(linear, kwargs, match):
    X, y = linear
    r = ik.pfi(_linear_model, X[:50], y[:50], n_repeats=2, random_state=0)
    with pytest.raises(ValidationError, match=match):
        r.plot(**kwargs)


def test_box_draws_one_box_per_feature(linear):
    X, y = linear
    r = ik.pfi(_linear_model, X, y, n_repeats=7, random_state=0)
    ax = r.plot(kind="box", max_features=3)
    order = np.argsort(-r.importance, kind="stable")[:3][::-1]
    assert _ticks(ax.get_yticklabels()) == [r.feature_names[i] for i in order]
    # boxplot draws each box's median as a vertical line in the colour C1, bottom box first
    medians = [line for line in ax.lines if line.get_color() == "C1"]
    assert len(medians) == 3
    assert_allclose([line.get_xdata()[0] for line in medians], np.median(r.repeats[order], axis=1))
    assert ax.get_xlabel() == "importance per permutation"


def test_pimp_null_panels():
    X, y = ik.datasets.make_extrapolation(150, random_state=3)
    r = ik.pimp(LinearRegression(), X[:100], y[:100], X[100:], y[100:], n_null=15, n_repeats=2, random_state=0)
    axes = r.plot(kind="null", bins=7)
    order = np.argsort(-r.importance, kind="stable")
    assert len(axes) == 4
    for a, j in zip(axes, order):
        assert a.get_title().startswith(r.feature_names[j])
        assert f"p_adj = {r.p_adjusted[j]:.3g}" in a.get_title()
        assert len(a.patches) == 7                                 # the bins of the null histogram
        assert_allclose(sum(p.get_height() for p in a.patches), 15)
        assert_allclose(a.lines[0].get_xdata(), r.importance[j])   # the observed importance


def test_sage_convergence_lines():
    X = pd.DataFrame(np.random.default_rng(1).normal(size=(150, 3)), columns=["p", "q", "s"])
    y = X["p"] * 2 + X["q"]
    r = ik.sage(lambda Z: np.asarray(Z) @ [2.0, 1.0, 0.0], X, y, n_background=8, batch_size=32,
                random_state=0)
    ax = r.plot(kind="convergence")
    assert [line.get_label() for line in ax.lines[:3]] == [r.feature_names[i] for i in np.argsort(-r.importance)]
    for line, j in zip(ax.lines[:3], np.argsort(-r.importance)):
        assert_allclose(line.get_ydata()[-1], r.importance[j])
    assert ax.get_xlabel() == "orderings"
    assert ax.get_ylabel() == f"running SAGE value ({r.loss})"
    status = "converged" if r.extra["converged"] else "not converged"
    assert ax.get_title() == f"SAGE (marginal): {r.extra['n_permutations']} orderings, {status}"
    assert _ticks(ax.get_legend().get_texts()) == [r.feature_names[i] for i in np.argsort(-r.importance)]
    # each band is the running value ± one standard error, at every checkpoint
    n = np.asarray(r.extra["trace_n"])
    trace, se = np.asarray(r.extra["trace"]), np.asarray(r.extra["trace_se"])
    for band, j in zip(ax.collections, np.argsort(-r.importance)):
        ok = np.isfinite(se[:, j])
        low, high = _band(band, n[ok])
        assert_allclose(low, (trace[:, j] - se[:, j])[ok])
        assert_allclose(high, (trace[:, j] + se[:, j])[ok])


def test_sage_convergence_max_features():
    X = pd.DataFrame(np.random.default_rng(1).normal(size=(150, 3)), columns=["p", "q", "s"])
    r = ik.sage(lambda Z: np.asarray(Z) @ [2.0, 1.0, 0.0], X, X["p"] * 2 + X["q"], n_background=8, batch_size=32,
                random_state=0)
    ax = r.plot(kind="convergence", max_features=2)
    assert _ticks(ax.get_legend().get_texts()) == [r.feature_names[i] for i in np.argsort(-r.importance)[:2]]


# ---------------------------------------------------------------- effects ------------------

def test_ice_lines_pd_and_rug():
    X = pd.DataFrame(np.random.default_rng(2).uniform(-1, 1, size=(40, 2)), columns=["x0", "x1"])
    e = ik.ice(lambda Z: Z["x0"] * Z["x1"], X, "x0", grid=6)
    ax = e.plot()
    ice = next(c for c in ax.collections if isinstance(c, LineCollection))
    segs = ice.get_segments()
    assert len(segs) == 40
    assert_allclose(np.array(segs)[:, :, 1], e.individual)
    pd_line = next(line for line in ax.lines if line.get_label() == "PD")
    assert_allclose(pd_line.get_xdata(), e.grid)
    assert_allclose(pd_line.get_ydata(), e.average)
    rug = next(line for line in ax.lines if line.get_marker() == "|")
    assert_allclose(np.sort(rug.get_xdata()), np.sort(X["x0"]))
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("ICE of x0", "x0", "prediction")
    assert _ticks(ax.get_legend().get_texts()) == ["ICE", "PD"]
    # a subsample draws one curve per sampled row, and the PD is their mean
    sub = ik.ice(lambda Z: Z["x0"] * Z["x1"], X, "x0", grid=6, n_samples=15, random_state=0)
    ax = sub.plot()
    segs = np.array(next(c for c in ax.collections if isinstance(c, LineCollection)).get_segments())
    assert segs.shape == (15, 6, 2)
    assert_allclose(segs[:, :, 1].mean(axis=0), next(ln for ln in ax.lines if ln.get_label() == "PD").get_ydata())


def test_categorical_ice_points_and_pd_markers():
    levels = ["low", "medium", "high"]
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"g": pd.Categorical(rng.choice(levels, 60), categories=levels, ordered=True),
                      "z": rng.normal(size=60)})
    effect = {"low": 1.0, "medium": 4.0, "high": 2.0}
    e = ik.ice(lambda Z: Z["g"].astype(str).map(effect).to_numpy() * (1 + Z["z"].to_numpy()), X, "g")
    ax = e.plot()
    points, pd_marks = ax.collections                                  # ICE points, then the PD markers
    # one point per row and level, at the row's prediction, jittered around the level's position
    xy = points.get_offsets()
    assert xy.shape == (60 * 3, 2)
    assert_allclose(np.asarray(xy[:, 1]), e.individual.ravel())
    assert_allclose(np.round(np.asarray(xy[:, 0])), np.tile(np.arange(3), 60))
    assert_allclose(np.asarray(pd_marks.get_offsets()), np.c_[np.arange(3), e.average])
    assert_allclose([b.get_height() for b in _bars(ax)], e.average)
    assert _ticks(ax.get_xticklabels()) == levels and _ticks(ax.get_legend().get_texts()) == ["ICE", "PD"]


def test_ale_band_and_label():
    X = pd.DataFrame(np.random.default_rng(3).normal(size=(300, 2)), columns=["u", "v"])
    # u·v: the local effects of u differ between rows, so the band has a width to check
    e = ik.ale(lambda Z: np.asarray(Z)[:, 0] ** 2 + np.asarray(Z)[:, 0] * np.asarray(Z)[:, 1], X, "u", bins=8)
    assert np.sum(e.ci_high - e.ci_low > 0.1) >= 5
    ax = e.plot()
    line = next(line for line in ax.lines if line.get_label() == "ALE")
    assert_allclose(line.get_xdata(), e.grid)
    assert_allclose(line.get_ydata(), e.average)
    low, high = _band(ax.collections[0], e.grid)
    assert_allclose(low, e.ci_low)
    assert_allclose(high, e.ci_high)
    assert (ax.get_title(), ax.get_ylabel()) == ("ALE of u", "ALE of prediction")
    assert _ticks(ax.get_legend().get_texts()) == ["band", "ALE"]


def test_categorical_ale_error_bars_are_its_interval():
    levels = ["low", "medium", "high"]
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"g": pd.Categorical(rng.choice(levels, 60), categories=levels, ordered=True),
                      "z": rng.normal(size=60)})
    effect = {"low": 1.0, "medium": 4.0, "high": 2.0}
    e = ik.ale(lambda Z: Z["g"].astype(str).map(effect).to_numpy() * (1 + Z["z"].to_numpy()), X, "g")
    ax = e.plot()
    assert_allclose([b.get_height() for b in _bars(ax)], e.average)
    low, high, xpos = _vertical_whiskers(ax)
    assert_allclose(xpos, np.arange(3))
    assert_allclose(low, e.ci_low)
    assert_allclose(high, e.ci_high)
    assert _ticks(ax.get_xticklabels()) == levels


def test_categorical_bars_have_the_levels_as_ticks():
    levels = ["low", "medium", "high"]
    X = pd.DataFrame({"g": pd.Categorical(np.tile(levels, 10), categories=levels, ordered=True),
                      "z": np.arange(30.0)})
    effect = {"low": 1.0, "medium": 4.0, "high": 2.0}
    e = ik.partial_dependence(lambda Z: Z["g"].astype(str).map(effect).to_numpy() + 0 * Z["z"], X, "g")
    ax = e.plot()
    assert_allclose([b.get_height() for b in _bars(ax)], [1.0, 4.0, 2.0])
    assert _ticks(ax.get_xticklabels()) == levels
    assert ax.get_xticklabels()[0].get_rotation() == 0                 # short labels stay level


def test_per_class_lines():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 2))
    y = np.digitize(X[:, 0], [-0.5, 0.5])
    clf = LogisticRegression().fit(X, y)
    e = ik.partial_dependence(clf, X, 0, grid=5)
    ax = e.plot()
    assert len(ax.lines) == 3
    for c, line in enumerate(ax.lines):
        assert_allclose(line.get_ydata(), e.average[:, c])
    assert _ticks(ax.get_legend().get_texts()) == ["0", "1", "2"]
    assert ax.get_legend().get_title().get_text() == "class"
    assert ax.get_ylabel() == "P(class)" and ax.get_title() == "PD of x0"


def test_per_class_bars_of_a_categorical_feature():
    from sklearn.compose import make_column_transformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder

    rng = np.random.default_rng(4)
    levels = ["a", "b", "c", "d"]
    X = pd.DataFrame({"g": pd.Categorical(rng.choice(levels, 200)), "x": rng.normal(size=200)})
    y = np.digitize(X["x"], [-0.5, 0.5])
    clf = make_pipeline(make_column_transformer((OneHotEncoder(), ["g"]), remainder="passthrough"),
                        LogisticRegression()).fit(X, y)
    e = ik.partial_dependence(clf, X, "g")
    ax = e.plot()
    # one bar per level and class, grouped by level; class c's bars hold column c of the average
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(bars) == 3 and all(len(b) == 4 for b in bars)
    for c, group in enumerate(bars):
        assert_allclose([b.get_height() for b in group], e.average[:, c])
    assert _ticks(ax.get_xticklabels()) == levels
    assert _ticks(ax.get_legend().get_texts()) == ["0", "1", "2"]


def test_two_feature_heatmap():
    X = pd.DataFrame(np.random.default_rng(5).uniform(size=(60, 2)), columns=["s", "t"])
    e = ik.partial_dependence(lambda Z: Z["s"] + 2 * Z["t"], X, ("s", "t"), grid=(4, 3))
    ax = e.plot()
    mesh = ax.collections[0]
    assert_allclose(np.asarray(mesh.get_array()).reshape(3, 4), np.asarray(e.average).T)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("s", "t")
    assert ax.get_title() == "PD of s and t"
    colorbar = [a for a in ax.figure.axes if a is not ax]
    assert len(colorbar) == 1 and colorbar[0].get_ylabel() == "prediction"


# ---------------------------------------------------------------- H and REPID --------------

@pytest.fixture(scope="module")
def interaction_X():
    return pd.DataFrame(np.random.default_rng(6).uniform(-1, 1, size=(300, 3)), columns=["x1", "x2", "x3"])


def _interaction(Z):
    Z = np.asarray(Z, dtype=float)
    return Z[:, 0] * Z[:, 1] + Z[:, 2]


def test_h_statistic_bars(interaction_X):
    h = ik.h_statistic(_interaction, interaction_X, n_samples=60, random_state=0)
    ax = h.plot()
    order = np.argsort(-h.overall, kind="stable")[::-1]
    assert_allclose([b.get_width() for b in _bars(ax)], h.overall[order])
    assert _ticks(ax.get_yticklabels()) == [h.feature_names[i] for i in order]
    assert ax.get_xlabel() == "H²" and "Overall" in ax.get_title()
    ax = h.plot("pairwise")
    top = h.pairwise.iloc[0]
    assert _ticks(ax.get_yticklabels())[-1] == f"{top.feature_1} × {top.feature_2}"
    assert_allclose(_bars(ax)[-1].get_width(), top.h2)
    assert len(_bars(ax)) == len(h.pairwise) == 3 and ax.get_xlabel() == "H²" and "Pairwise" in ax.get_title()
    assert_allclose(sorted(b.get_width() for b in _bars(ax)), np.sort(h.pairwise["h2"]))
    ax = h.plot(max_features=2)
    assert _ticks(ax.get_yticklabels()) == [h.feature_names[i] for i in order[-2:]]


def test_regional_lines_legend_and_tree(interaction_X):
    r = ik.repid(_interaction, interaction_X, "x1", max_depth=1, min_node_size=20)
    ax = r.plot()
    assert len(r.regions) == 2
    lines = ax.lines
    assert len(lines) == 3                                             # two regions and the global PD
    for reg, line in zip(r.regions, lines):
        assert_allclose(line.get_ydata(), reg.average)
    assert_allclose(lines[-1].get_ydata(), r.average)
    labels = _ticks(ax.figure.legends[0].get_texts())
    assert labels == [f"{reg.rule} (n={reg.n})" for reg in r.regions] + ["global PD"]
    assert [t.get_text() for t in ax.texts] == [r.tree_text()]
    assert ax.get_title() == "Regional effects of x1 (REPID)"
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x1", "prediction")
    # each region's band is its PD ± the sd of its centred ICE curves
    assert len(ax.collections) == len(r.regions)
    for reg, band in zip(r.regions, ax.collections):
        low, high = _band(band, r.grid)
        assert_allclose(low, reg.average - reg.centered_std)
        assert_allclose(high, reg.average + reg.centered_std)


# ---------------------------------------------------------------- nothing clipped ----------

def _drawn_tick_labels(axis):
    """The tick labels matplotlib draws: those of ticks inside the view limits."""
    lo, hi = sorted(axis.get_view_interval())
    eps = 1e-9 * max(1.0, hi - lo)
    out = []
    for tick in axis.get_major_ticks():
        if lo - eps <= tick.get_loc() <= hi + eps:
            out += [t for t in (tick.label1, tick.label2) if t.get_visible() and t.get_text()]
    return out


def _outside(fig):
    """Texts (tick labels, axis labels, titles, legends, free texts) reaching out of the figure."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches=None)
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    texts = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        texts += _drawn_tick_labels(ax.xaxis) + _drawn_tick_labels(ax.yaxis)
        texts += [ax.xaxis.label, ax.yaxis.label, ax.title] + list(ax.texts)
        if ax.get_legend() is not None:
            texts += list(ax.get_legend().get_texts())
    for leg in fig.legends:
        texts += list(leg.get_texts())
    bad = []
    for t in texts:
        if not t.get_text():
            continue
        e = t.get_window_extent(renderer)
        if e.x0 < box.x0 - 0.5 or e.y0 < box.y0 - 0.5 or e.x1 > box.x1 + 0.5 or e.y1 > box.y1 + 0.5:
            bad.append(t.get_text()[:40])
    return bad


@pytest.fixture(scope="module")
def long_named():
    rng = np.random.default_rng(7)
    names = [LONG, "b", "another feature with a long label", "d"]
    X = pd.DataFrame(rng.normal(size=(200, 4)), columns=names)
    X["level"] = pd.Categorical(rng.choice(["first category", "second category with words",
                                            "third category, the longest of them all"], size=200))
    return X


def _long_model(Z):
    shift = (Z["level"].cat.codes.to_numpy() - 1.0)
    return Z.iloc[:, 0].to_numpy() * (1 + shift) + Z.iloc[:, 2].to_numpy() + shift


@pytest.mark.parametrize("draw", ["pfi", "box", "null", "pd_cat", "heatmap", "h_pairs", "repid"])
def test_no_label_leaves_the_figure(long_named, draw):
    X = long_named
    y = _long_model(X)
    if draw in ("pfi", "box"):
        ax = ik.pfi(_long_model, X, y, n_repeats=3, random_state=0).plot(kind="bar" if draw == "pfi" else "box")
    elif draw == "null":
        r = ik.ImportanceResult(method="pimp", feature_names=tuple(X.columns), importance=np.arange(5.0),
                                std=np.zeros(5), ci_low=np.zeros(5), ci_high=np.zeros(5), loss="mse",
                                p_value=np.full(5, 0.5), extra={"null": np.random.default_rng(0).normal(size=(5, 20))})
        ax = r.plot(kind="null")[0]
    elif draw == "pd_cat":
        ax = ik.partial_dependence(_long_model, X, "level").plot()
    elif draw == "heatmap":
        ax = ik.partial_dependence(_long_model, X, ("level", LONG), grid=(3, 5)).plot()
    elif draw == "h_pairs":
        ax = ik.h_statistic(_long_model, X, n_samples=40, random_state=0).plot("pairwise")
    else:
        ax = ik.repid(_long_model, X, LONG, max_depth=2, min_node_size=20).plot()
        assert len(ax.texts) == 1
    assert _outside(ax.figure) == []


def test_the_check_sees_clipping():
    # Without constrained layout a long tick label runs off the left edge: the check must say so.
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.barh([0, 1], [1, 2])
    ax.set_yticks([0, 1])
    ax.set_yticklabels(["x", LONG])
    assert _outside(fig) == [LONG[:40]]


def test_pimp_null_panel_never_shows_p_zero():
    # a fitted normal tail far beyond the null gives 2.5e-20 here (on the bike data it underflows to
    # exactly 0, which ".3g" printed as "p_adj = 0"); the panel shows "< 1e-16" as the report's tables
    # do: no digit that far into a tail fitted to 30 refits is resolved
    X, y = ik.datasets.make_extrapolation(150, random_state=3)
    r = ik.pimp(LinearRegression(), X[:100], y[:100], X[100:], y[100:], n_null=30, n_repeats=2,
                distribution="normal", random_state=0)
    zero = [j for j in range(len(r.feature_names)) if r.p_adjusted[j] < 1e-16]
    assert zero, "the premise: some feature's normal tail is below 1e-16"
    axes = r.plot(kind="null")
    titles = {a.get_title().split("\n")[0]: a.get_title() for a in axes}
    for j in zero:
        title = titles[r.feature_names[j]]
        assert "p_adj < 1e-16" in title and "e-20" not in title
    r0 = replace(r, p_adjusted=np.where(r.p_adjusted < 1e-16, 0.0, r.p_adjusted))   # an underflowed tail
    for a in r0.plot(kind="null"):
        assert "p_adj = 0\n" not in a.get_title() + "\n"
