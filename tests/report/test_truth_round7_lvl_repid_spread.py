"""Round 7 (lvl7), finding 2: REPID's "about the same for every row" rested on a root mean square over a quantile
grid whose points mostly sit where the effect is flat.

Default (balance, 4 income regions): the RMS of the centred ICE curves around their region's curve was 4% of the
effect's range, "about the same for every row"; at the grid points where the effect happens the rows spread by up to
21%. The rule now reads the spread at each grid point and prints its largest value and where it is.
"""
import numpy as np
import pandas as pd
from numpy.testing import assert_allclose

import imlkit as ik
from imlkit.report._sec_effects import MATERIAL_REGIONAL_SHARE, regional_difference, regional_words, spread_by_point


def _threshold(n=600, seed=0):
    """x1's effect is 0 below 0.85 and a slope of 10 (rows with x2 = 0) or 15 (x2 = 1) above: the whole effect in the
    last 2-3 points of a 15-point quantile grid, and there the rows differ by half the slope."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x1": rng.uniform(0, 1, n), "x2": rng.integers(0, 2, n).astype(float), "x3": rng.normal(size=n)})

    def f(X):
        X = np.asarray(X, dtype=float)
        return 10 * np.maximum(X[:, 0] - 0.85, 0) * (1 + 0.5 * X[:, 1])

    return f, X


def _grid_rms(by_point):
    return float(np.sqrt(np.mean(np.square(by_point))))


def test_spread_at_each_grid_point_is_the_known_answer():
    """One region (x3, the only split feature, is noise): row i's centred curve is a_i (h(x_k) - mean_k h) with
    a_i = 1 + 0.5 x2_i, so its spread at grid point k is |h(x_k) - mean_k h| times the (population) sd of a_i."""
    f, X = _threshold()
    g = ik.repid(f, X, "x1", split_features=["x3"], grid=15, max_depth=2, min_node_size=40, min_improvement=0.1)
    assert len(g.regions) == 1
    h = 10 * np.maximum(np.asarray(g.grid, dtype=float) - 0.85, 0)
    a = 1 + 0.5 * X["x2"].to_numpy()
    within, between, total = spread_by_point(g)
    assert_allclose(within, np.abs(h - h.mean()) * a.std(), rtol=1e-9, atol=1e-12)
    assert_allclose(total, within, rtol=1e-9, atol=1e-12)
    assert_allclose(between, 0, atol=1e-6)
    # the grid's root mean square is the number the sentence used alone (sqrt(R / (n m)))
    m = len(g.grid)
    assert_allclose(_grid_rms(within), np.sqrt(g.regions[0].risk / (g.regions[0].n * m)), rtol=1e-9)


def test_same_for_every_row_is_judged_at_every_grid_point():
    f, X = _threshold()
    g = ik.repid(f, X, "x1", split_features=["x3"], grid=15, max_depth=2, min_node_size=40, min_improvement=0.1)
    _, _, span = regional_difference(g)
    within = spread_by_point(g)[0]
    k = int(np.argmax(within))
    # the situation of the finding: below the share on the grid's average, above it where the effect happens
    assert _grid_rms(within) < MATERIAL_REGIONAL_SHARE * span < within[k]
    said = regional_words(g, "x1", 2, 0.1, min_node_size=40)
    assert "about the same for every row" not in said
    assert "not evidence that the effect of x1 is the same for every row" in said
    assert (f"by up to {within[k]:.3g} (root mean square over the rows at x1 = {g.grid[k]:.4g}, "
            f"{within[k] / span:.1%} of the effect's range {span:.3g}; {_grid_rms(within):.3g} in root mean square "
            f"over the grid)") in said
    assert g.grid[k] > 0.85  # where the effect is


def test_regions_apart_only_where_the_effect_happens_differ():
    """x2 offered as a split: REPID separates the two slopes (the curves within each region coincide), and the
    regions' curves differ from the overall one by more than the share at the top of the grid though less on the
    grid's average: the material branch (the regions, and the curves around the overall curve) reads the largest
    point too, so "the regions do not differ materially ... about the same for every row" is not said."""
    f, X = _threshold()
    g = ik.repid(f, X, "x1", split_features=["x2", "x3"], grid=15, max_depth=2, min_node_size=40, min_improvement=0.1)
    share, spread, span = regional_difference(g)
    within, between, total = spread_by_point(g)
    assert share > 0.99 and within.max() < 1e-9 * span
    assert spread < MATERIAL_REGIONAL_SHARE * span < between.max()  # the grid's average alone would call it small
    said = regional_words(g, "x1", 2, 0.1, min_node_size=40)
    assert said.startswith("The effect of x1 differs between the regions")
    k = int(np.argmax(between))
    assert f"by up to {between[k]:.3g} (root mean square over the rows at x1 = {g.grid[k]:.4g}; {spread:.3g}" in said
    assert "about the same for every row" not in said


def test_an_effect_the_same_for_every_row_is_still_said_so():
    """A slope that barely depends on x2 everywhere: every grid point below the share, so "about the same"."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x1": rng.uniform(0, 1, 400), "x2": rng.normal(size=400)})

    def f(X):
        X = np.asarray(X, dtype=float)
        return X[:, 0] ** 2 * (1 + 0.02 * X[:, 1])

    g = ik.repid(f, X, "x1", split_features=["x2"], grid=15, max_depth=2, min_node_size=40, min_improvement=0.5)
    _, _, span = regional_difference(g)
    within = spread_by_point(g)[0]
    assert within.max() < MATERIAL_REGIONAL_SHARE * span
    said = regional_words(g, "x1", 2, 0.5, min_node_size=40)
    assert said.endswith("the effect of x1 is about the same for every row.")
    assert f"at every grid point the centred ICE curves stay within {within.max():.3g} of their region's curve" in said


def test_where_is_named_by_the_level_for_a_categorical_feature():
    """A categorical feature's grid is its levels: the largest point is named by the level's text."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"c": pd.Categorical(rng.choice(["u", "v", "w"], 300)), "x2": rng.normal(size=300)})

    def f(X):
        c = np.asarray(X["c"].astype(str))
        return np.where(c == "w", 1.0, 0.0) * (1 + 0.5 * (X["x2"].to_numpy() > 0))

    g = ik.repid(f, X, "c", grid=3, max_depth=1, min_node_size=40, min_improvement=0.99)
    between = spread_by_point(g)[1]
    assert list(g.grid)[int(np.argmax(between))] == "w"
    said = regional_words(g, "c", 1, 0.99, min_node_size=40)
    assert f"by up to {between.max():.3g} (root mean square over the rows at c = 'w';" in said
