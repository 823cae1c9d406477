"""explain() of the effect results: every sentence carries numbers read from the result's own arrays.

Known answers: a linear model's PD and ALE (size = slope × grid range, increasing), a product's H² (near 1) and its
heterogeneous ICE curves, an additive model's H² (0), a flat and a small feature (small with its numbers, never
"no effect"), REPID on x1·1[x2 > 0] (the split on x2 with the heterogeneity before and after).
"""
import re

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import imlkit as ik
from imlkit._display import ResultDisplay
from imlkit.effects._explain import MONOTONE_TOLERANCE, SMALL_EFFECT_SHARE, num, pct

NUM = r"(-?[\d,]*\.?\d+(?:e[-+]?\d+)?)"


def parse(pattern, text):
    """The number(s) a pattern with NUM groups finds in ``text`` (commas of thousands removed)."""
    m = re.search(pattern, text)
    assert m, f"{pattern!r} not in:\n{text}"
    vals = [float(g.replace(",", "")) for g in m.groups()]
    return vals[0] if len(vals) == 1 else vals


def uniform(n=600, p=2, seed=0, low=-1.0, high=1.0):
    X = np.random.default_rng(seed).uniform(low, high, size=(n, p))
    return pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(p)])


def linear(Z):
    return 2.0 * np.asarray(Z)[:, 0]


def product(Z):
    Z = np.asarray(Z)
    return Z[:, 0] * Z[:, 1]


def additive(Z):
    Z = np.asarray(Z)
    return Z[:, 0] + Z[:, 1] ** 2 + np.sin(3 * Z[:, 2])


def assert_no_absence_claim(text):
    low = text.lower()
    for phrase in ("no effect", "has no influence", "does not affect", "is not used", "irrelevant"):
        assert phrase not in low, f"{phrase!r} in:\n{text}"


# --------------------------------------------------------------------------------------------- PD, ICE and ALE

@pytest.mark.parametrize("method", ["pd", "ale", "ice"])
def test_linear_model_size_is_slope_times_grid_range_and_increasing(method):
    X = uniform()
    if method == "pd":
        r = ik.partial_dependence(linear, X, "x1")
    elif method == "ice":
        r = ik.ice(linear, X, "x1")
    else:
        r = ik.ale(linear, X, "x1", bins=10)
    text = r.explain()
    grid = np.asarray(r.grid, dtype=float)
    size = parse(rf"a range of {NUM} in the units of the prediction", text)
    # the known answer, 2 × (grid range), and the result's own curve, both within the 3 digits printed
    assert_allclose(size, 2 * (grid[-1] - grid[0]), rtol=5e-3)
    assert f"a range of {num(np.ptp(r.average))} " in text
    assert "Shape: increasing over its" in text and "every step is ≥ 0" in text
    lo, hi = parse(rf"ranges from {NUM} at x1 = \S+ to {NUM} at x1 =", text)
    assert_allclose([lo, hi], [np.min(r.average), np.max(r.average)], rtol=5e-3, atol=1e-12)
    assert f"at x1 = {num(grid[0])} to " in text and f"at x1 = {num(grid[-1])}:" in text
    tol = parse(rf"1% of the range, {NUM}", text)
    assert_allclose(tol, MONOTONE_TOLERANCE * np.ptp(r.average), rtol=5e-3)
    assert f"Grid: {len(grid)} points" in text or f"Intervals: {len(grid) - 1} between" in text


def test_linear_ice_curves_are_parallel_and_its_range_against_the_ice_spread():
    X = uniform()
    r = ik.ice(linear, X, "x1")
    text = r.explain()
    assert "parallel up to rounding" in text and "interacts" not in text
    share, sd = parse(rf"Its range is {NUM}% of the spread of the ICE values \(standard deviation {NUM}", text)
    assert_allclose(sd, np.std(r.individual), rtol=5e-3)
    assert_allclose(share / 100, np.ptp(r.average) / np.std(r.individual), rtol=5e-3)


def test_decreasing_and_non_monotone_shapes():
    X = uniform()
    dec = ik.partial_dependence(lambda Z: -3 * np.asarray(Z)[:, 0], X, "x1").explain()
    assert "Shape: decreasing over its" in dec
    r = ik.partial_dependence(lambda Z: np.asarray(Z)[:, 0] ** 2, X, "x1", grid=21, grid_type="uniform")
    text = r.explain()
    assert "Shape: not monotone" in text and "increasing" not in text and "decreasing" not in text
    d = np.diff(r.average)
    rise, fall = parse(rf"steps rise by {NUM} and fall by {NUM} in total", text)
    assert_allclose([rise, fall], [d[d > 0].sum(), -d[d < 0].sum()], rtol=5e-3)
    assert parse(rf"change direction {NUM} time", text) == 1
    # x² on a symmetric uniform grid: the minimum inside (at 0), the maximum at an end
    lo = int(np.argmin(r.average))
    assert f"the minimum inside the grid, at x1 = {num(r.grid[lo])}" in text


def test_a_step_within_the_tolerance_does_not_break_monotone():
    X = uniform()
    # a staircase whose one dip (0.5% of the range) is inside the 1% tolerance: increasing, with the dip said
    grid = np.linspace(-1, 1, 11)
    values = np.linspace(0, 10, 11)
    values[5] = values[4] - 0.05
    r = ik.partial_dependence(lambda Z: np.interp(np.asarray(Z)[:, 0], grid, values), X, "x1", grid=grid)
    text = r.explain()
    assert "Shape: increasing" in text
    assert_allclose(parse(rf"the largest step down is {NUM}", text), -np.diff(r.average).min(), rtol=5e-3)
    # a dip of 5% of the range is not within it: not monotone
    values[5] = values[4] - 0.5
    r2 = ik.partial_dependence(lambda Z: np.interp(np.asarray(Z)[:, 0], grid, values), X, "x1", grid=grid)
    assert "Shape: not monotone" in r2.explain()


def test_flat_feature_is_flat_with_its_numbers_never_no_effect():
    X = uniform()
    for r in (ik.partial_dependence(linear, X, "x2"), ik.ale(linear, X, "x2"), ik.ice(linear, X, "x2")):
        text = r.explain()
        assert "flat over the grid up to rounding: its range (max − min) is 0 " in text, text
        assert "not that the model ignores x2" in text
        assert "Shape:" not in text
        assert_no_absence_claim(text)


def test_small_feature_is_called_small_with_its_numbers():
    X = uniform()
    r = ik.ice(lambda Z: 2 * np.asarray(Z)[:, 0] + 0.01 * np.asarray(Z)[:, 1], X, "x2")
    text = r.explain()
    size, share, sd = parse(rf"The effect is small: its range {NUM} is {NUM}% of the spread of the ICE values "
                            rf"\(standard deviation {NUM}", text)
    assert_allclose(size, np.ptp(r.average), rtol=5e-3)
    assert_allclose(sd, np.std(r.individual), rtol=5e-3)
    assert_allclose(share / 100, np.ptp(r.average) / np.std(r.individual), rtol=5e-2)
    assert share / 100 < SMALL_EFFECT_SHARE
    assert "small is not none" in text
    assert_no_absence_claim(text)


def test_product_ice_curves_are_heterogeneous_with_numbers():
    X = uniform(seed=1)
    r = ik.ice(product, X, "x1", grid=11, grid_type="uniform")
    text = r.explain()
    M = np.asarray(r.individual)
    C = M - M.mean(axis=1, keepdims=True)
    rms = np.sqrt(np.mean((C - C.mean(axis=0)) ** 2))
    assert_allclose(parse(rf"the {len(M):,} ICE curves differ from their mean by {NUM}", text), rms, rtol=5e-3)
    assert "interacts with other features" in text
    # x1·x2 with x2 ~ U(-1, 1): the PD's slope is the sample mean of x2 (noise), half the curves rise and half fall
    assert "increasing" not in text and "decreasing" not in text
    ends = np.asarray(r.individual)[:, -1] - np.asarray(r.individual)[:, 0]
    change, se = parse(rf"the PD changes by {NUM}, within 2 standard errors of 0 \(SE {NUM}", text)
    assert_allclose([change, se], [r.average[-1] - r.average[0], ends.std(ddof=1) / np.sqrt(len(ends))], rtol=5e-3)
    ends = M[:, -1] - M[:, 0]
    lo, hi, sd = parse(rf"the rows' curves change by {NUM} to {NUM} \(standard deviation {NUM}\)", text)
    assert_allclose([lo, hi, sd], [ends.min(), ends.max(), ends.std()], rtol=5e-3)


def test_ice_share_of_curves_against_the_pd():
    X = uniform(seed=2)
    # f = x1·(x2 + 0.5): the PD rises (slope 0.5), the rows with x2 < -0.5 (about 25%) fall
    r = ik.ice(lambda Z: np.asarray(Z)[:, 0] * (np.asarray(Z)[:, 1] + 0.5), X, "x1", grid=11)
    text = r.explain()
    share = parse(rf"and {NUM}% of them go the other way", text)
    M = np.asarray(r.individual)
    ends = M[:, -1] - M[:, 0]
    tol = MONOTONE_TOLERANCE * max(np.ptp(r.average), np.max(np.ptp(M, axis=1)))
    expected = np.mean((ends < 0) & (np.abs(ends) > tol))
    assert f"{pct(expected)} of them go the other way" in text
    assert_allclose(share / 100, np.mean(X["x2"] < -0.5), atol=0.03)


def test_ale_band_and_bins():
    X = uniform()
    r = ik.ale(linear, X, "x1", bins=8)
    text = r.explain()
    cnt = r.extra["bin_count"]
    assert f"holding {cnt.min():,} to {cnt.max():,} of the {len(X):,} rows each" in text
    half = (r.ci_high - r.ci_low) / 2
    # a linear model's local differences are the same for every row: its band is floating-point rounding (r3 F4)
    assert half.max() <= 1e-9 * np.max(np.abs(r.average))
    assert f"width 0 up to rounding at every grid point (at most ±{num(half.max())}, floating-point rounding)" in text


def test_two_feature_pd_and_categorical_pd():
    X = uniform(seed=3)
    r = ik.partial_dependence(product, X, ("x1", "x2"), grid=5, grid_type="uniform")
    text = r.explain()
    P = np.asarray(r.average)
    assert f"a range of {num(np.ptp(P))} in the units" in text
    D = P - P.mean()
    resid = D - D.mean(axis=1, keepdims=True) - D.mean(axis=0, keepdims=True)
    # the product's joint PD is all interaction on a symmetric grid
    assert f"{pct(np.sum(resid ** 2) / np.sum(D ** 2))} is not the sum" in text
    assert_allclose(np.sum(resid ** 2) / np.sum(D ** 2), 1.0, atol=1e-3)

    Xc = X.assign(c=pd.Categorical(np.where(X["x1"] > 0, "a", "b")))
    model = lambda Z: np.where(Z["c"].astype(str) == "a", 3.0, 1.0) + Z["x2"].to_numpy()  # noqa: E731
    rc = ik.partial_dependence(model, Xc, "c")
    tc = rc.explain()
    assert "levels of c" in tc and "a range of 2 " in tc and "Shape:" not in tc


def test_multiclass_ice_explains_each_class():
    from sklearn.linear_model import LogisticRegression

    X = uniform(seed=4)
    y = np.digitize(X["x1"], [-0.3, 0.3])
    clf = LogisticRegression().fit(X, y)
    r = ik.ice(clf, X, "x1", grid=8)
    text = r.explain()
    for k, c in enumerate(clf.classes_):
        assert f"P(class={c}):" in text
        assert f"a range of {num(np.ptp(r.average[:, k]))} in the units of P(class={c})" in text


def test_cohort_and_repr_unaffected():
    X = uniform()
    r = ik.ice(product, X, "x1")
    assert type(r).__repr__ is ResultDisplay.__repr__
    assert repr(r) == ResultDisplay.__repr__(r) and "explain" not in repr(r)
    assert r._repr_html_() == ResultDisplay._repr_html_(r)
    sub = r[:50]
    assert "A cohort: 50 of the curves" in sub.explain()


# ---------------------------------------------------------------------------------------------------- H-statistic

def test_product_pair_h2_near_one_with_its_numbers():
    X = uniform(n=300, p=3, seed=5)
    h = ik.h_statistic(lambda Z: product(Z) + np.asarray(Z)[:, 2], X, n_samples=200, random_state=0)
    text = h.explain()
    row = h.pairwise.iloc[0]
    assert {row["feature_1"], row["feature_2"]} == {"x1", "x2"}
    h2, se = parse(rf"largest: {row['feature_1']} × {row['feature_2']} {NUM} \(SE {NUM}\)", text)
    assert_allclose(h2, 1.0, atol=0.05)
    assert_allclose([h2, se], [row["h2"], row["h2_se"]], rtol=5e-3)
    assert "computed on 200 rows" in text
    assert "Pairs not computed are not in the table" in text
    j = list(h.feature_names).index("x1")
    assert f"x1 {num(h.overall[j])} (SE {num(h.overall_se[j])})" in text


def test_additive_model_h2_is_zero_up_to_rounding():
    X = uniform(n=200, p=3, seed=6)
    h = ik.h_statistic(additive, X, n_samples=100, pairs="all", random_state=0)
    text = h.explain()
    assert_allclose(h.overall, 0, atol=1e-9)
    assert "H² is 0 up to rounding (|H²| ≤ 1e-09) for x1, x2, x3" in text
    assert "Largest overall H²" not in text
    assert "Pairwise H² (3 pairs: every pair of the features): every one is 0 up to rounding" in text
    assert_no_absence_claim(text)


def test_few_rows_and_unstable_ratio_are_said_with_their_numbers():
    X = uniform(n=60, p=3, seed=7)
    # a big additive x3 beside a tiny x1·x2: the pair's joint PD is tiny against the prediction
    h = ik.h_statistic(lambda Z: 0.01 * product(Z) + 10 * np.asarray(Z)[:, 2], X, n_samples=60,
                       pairs=[("x1", "x2")], random_state=0)
    text = h.explain()
    assert "With fewer than 100 rows H² is noisy" in text
    assert "Unstable ratios" in text
    j = list(h.feature_names).index("x3")
    var_f = None
    for k in range(3):
        if h.overall[k] > 1e-9:
            var_f = h.overall_unnormalized[k] ** 2 / h.overall[k]
            break
    row = h.pairwise.iloc[0]
    joint = np.sqrt(row["h_unnormalized"] ** 2 / row["h2"])
    assert f"joint PD {num(joint)} against {num(np.sqrt(var_f))}" in text
    assert joint < 0.1 * np.sqrt(var_f) and j >= 0


def test_classifier_h2_on_the_probability_scale_says_so():
    from sklearn.linear_model import LogisticRegression

    X = uniform(n=200, p=2, seed=8)
    y = (X["x1"] + X["x2"] > 0).astype(int)
    clf = LogisticRegression().fit(X, y)
    text = ik.h_statistic(clf, X, n_samples=100, random_state=0).explain()
    assert "on the probability P(class=1)" in text and "additive on the log-odds" in text
    reg = ik.h_statistic(additive, uniform(n=100, p=3), n_samples=50, random_state=0).explain()
    assert "log-odds" not in reg


def test_hstat_repr_unaffected():
    h = ik.h_statistic(product, uniform(n=80), n_samples=40, random_state=0)
    assert repr(h) == ResultDisplay.__repr__(h) and h._repr_html_() == ResultDisplay._repr_html_(h)


# ---------------------------------------------------------------------------------------------------------- REPID

def test_repid_names_the_split_on_x2_with_the_heterogeneity():
    X = uniform(n=800, p=3, seed=9)
    g = ik.repid(lambda Z: np.asarray(Z)[:, 0] * (np.asarray(Z)[:, 1] > 0), X, "x1", max_depth=2)
    text = g.explain()
    root = g.tree[0]
    assert root.feature == "x2" and abs(root.threshold) < 0.05
    assert f"{root.condition('left')} / {root.condition('right')}" in text
    m = np.size(g.regions[0].centered_average)
    before = parse(rf"Before any split: heterogeneity {NUM}", text)
    assert_allclose(before, root.risk / (root.n * m), rtol=5e-3)
    leaves = sum(r.risk for r in g.regions)
    after, kept, removed = parse(rf"After the splits: heterogeneity {NUM} \(root mean square \S+\), {NUM}% of the "
                                 rf"root's; the splits removed {NUM}%", text)
    assert_allclose(after, leaves / (root.n * m), rtol=5e-3, atol=1e-12)
    assert_allclose(removed / 100, 1 - leaves / root.risk, rtol=5e-3)
    # x1·1[x2 > 0]: the one split explains all of the heterogeneity
    assert_allclose(removed, 100, rtol=1e-3)
    assert f"removing {pct(root.int_imp)} of the root's heterogeneity" in text
    assert "depends on x2" in text
    for r in g.regions:
        assert f"- {r.rule}: {r.n:,} rows, heterogeneity {num(r.heterogeneity)}" in text


def test_repid_without_splits_says_which_rule_stopped_it():
    X = uniform(n=300, p=3, seed=10)
    additive_g = ik.repid(additive, X, "x1")
    t = additive_g.explain()
    assert "coincide up to rounding" in t and f"rounding floor {num(additive_g.extra['rounding_floor'])}" in t
    small = ik.repid(product, X.iloc[:50], "x1", min_node_size=30)
    ts = small.explain()
    assert "each region needs at least 30 rows (min_node_size), so a split needs 60 and there are 50" in ts
    strict = ik.repid(lambda Z: product(Z) + np.asarray(Z)[:, 0], X, "x1", min_improvement=1.01)
    tt = strict.explain()
    assert "No split met REPID's stopping rule" in tt and "γ = 1.01" in tt
    root = strict.tree[0]
    m = np.size(strict.regions[0].centered_average)
    assert f"root mean square {num(np.sqrt(root.risk / (root.n * m)))}" in tt
    assert "not evidence that the effect is the same for every row" in tt
    assert repr(strict) == ResultDisplay.__repr__(strict)


# ------------------------------------------------------------------------------------------- c-ICE heterogeneity

def test_heterogeneity_ranking_with_its_numbers():
    X = uniform(n=300, p=3, seed=11)
    h = ik.ice_heterogeneity(lambda Z: product(Z) + np.asarray(Z)[:, 2], X, grid=10)
    text = h.explain()
    for f, v in zip(h.feature_names, h.heterogeneity):
        assert f"{f} {num(v)} (root mean square {num(np.sqrt(v))}" in text
    assert f"Most heterogeneous: {h.top} ({num(h.to_series().iloc[0])})" in text
    assert "x3" in h.extra["at_rounding_floor"] and "Equal up to rounding" in text
    add = ik.ice_heterogeneity(additive, X, grid=10)
    assert "Every feature's centred curves are equal up to rounding" in add.explain()
    assert repr(h) == ResultDisplay.__repr__(h) and h._repr_html_() == ResultDisplay._repr_html_(h)


def test_explain_is_missing_before_this_change_is_the_only_entry():
    # every effect result explains itself (the reviewer's gap)
    for cls in (ik.effects.EffectResult, ik.effects.HStatisticResult, ik.effects.RegionalResult,
                ik.effects.HeterogeneityResult):
        assert callable(getattr(cls, "explain", None))


# ------------------------------------------------------------------------------------------------- more edge cases

def test_probability_scale_ice_and_undefined_h_and_zero_width_band():
    from sklearn.linear_model import LogisticRegression

    X = uniform(n=300, p=2, seed=12)
    y = (X["x1"] + X["x2"] > 0).astype(int)
    clf = LogisticRegression().fit(X, y)
    text = ik.ice(clf, X, "x1", grid=6).explain()
    # a logistic regression's curves are not parallel on the probability: said with the link's caveat
    assert "interacts with other features -- on the probability scale" in text

    h = ik.h_statistic(lambda Z: np.zeros(len(Z)), X, n_samples=30, random_state=0)
    th = h.explain()
    assert "H² is undefined (0/0" in th and "every one is undefined" in th
    assert "Largest" not in th

    # ALE of a level shift: every row's local difference is the same, so the band has width 0
    Xc = X.assign(g=pd.Categorical(np.random.default_rng(0).choice(list("xyz"), len(X))))
    r = ik.ale(lambda Z: Z["x1"].to_numpy() + (Z["g"].astype(str) == "y"), Xc, "g")
    tr = r.explain()
    assert "band has width 0 at every grid point" in tr
    assert f"a range of {num(np.ptp(r.average))} " in tr


def test_ale_within_its_band_claims_no_shape():
    X = uniform(n=200, seed=13)
    noise = np.random.default_rng(1).normal(size=len(X))
    lookup = dict(zip(np.round(X["x2"].to_numpy(), 12), noise))

    def model(Z):
        # a tiny slope in x1 under a large row-specific term that differs between a row's two bin edges
        Z = np.asarray(Z)
        return 0.001 * Z[:, 0] + 5 * np.sin(40 * Z[:, 0]) * np.array([lookup.get(round(v, 12), 0.0) for v in Z[:, 1]])

    r = ik.ale(model, X, "x1", bins=10)
    text = r.explain()
    half = np.max((r.ci_high - r.ci_low) / 2)
    assert np.ptp(r.average) <= half      # the set-up: the range lies within the band
    assert "Shape: not settled" in text and "increasing" not in text and "decreasing" not in text
    assert f"the ALE's range {num(np.ptp(r.average))} is within" in text
    assert f"largest half-width {num(half)}" in text
    # the same model without the row-specific term: a band of width 0 and a shape claimed
    assert "Shape: increasing" in ik.ale(lambda Z: 0.001 * np.asarray(Z)[:, 0], X, "x1", bins=10).explain()


def test_repid_split_on_a_small_heterogeneity_says_it_is_small():
    X = uniform(n=800, p=3, seed=14)
    # a large additive effect of x1 and a tiny x1 x 1[x2 > 0]: REPID splits on x2 (all of a tiny heterogeneity)
    g = ik.repid(lambda Z: 5 * np.asarray(Z)[:, 0] + 0.01 * np.asarray(Z)[:, 0] * (np.asarray(Z)[:, 1] > 0), X, "x1",
                 max_depth=1)
    text = g.explain()
    assert g.tree[0].feature == "x2" and "depends on x2" in text
    root = g.tree[0]
    m = np.size(g.regions[0].centered_average)
    rms = np.sqrt(root.risk / (root.n * m))
    span = np.ptp(g.average)
    assert rms < SMALL_EFFECT_SHARE * span
    said = f"all of the heterogeneity is small: root mean square {num(rms)}, {pct(rms / span)} of the PD's range"
    assert said in text


def test_h_two_largest_within_their_standard_errors_are_not_ranked():
    X = uniform(n=300, p=4, seed=15)
    # two equal products: x1 × x2 and x3 × x4 have the same H² up to sampling
    h = ik.h_statistic(lambda Z: product(Z) + np.asarray(Z)[:, 2] * np.asarray(Z)[:, 3], X, n_samples=80,
                       random_state=0)
    text = h.explain()
    order = np.argsort(-h.overall, kind="stable")
    a, b = order[:2]
    diff = h.overall[a] - h.overall[b]
    se = np.hypot(h.overall_se[a], h.overall_se[b])
    assert diff <= 2 * se
    assert (f"Which of {h.feature_names[a]} and {h.feature_names[b]} is larger is not settled at 80 rows: they "
            f"differ by {num(diff)}, within 2 standard errors of the difference ({num(se)}") in text
    # a clear first pair is ranked without that sentence (x1 × x2 ≈ 1 against x1 × x3 = 0)
    clear = ik.h_statistic(lambda Z: product(Z) + np.asarray(Z)[:, 2], X, n_samples=80, random_state=0,
                           pairs=[("x1", "x2"), ("x1", "x3")]).explain()
    assert "Which of x1 × x2 and" not in clear
    # and the two factors of one product tie by symmetry: their order is said to be unsettled
    assert "Which of x1 and x2 is larger is not settled" in clear or "Which of x2 and x1 is larger" in clear
