"""explain() of the effect results, truth review r3: positions printed exactly, the order of unordered levels and
an ALE band checked against their noise, REPID's γ read as the bar of one split.

Every test reads the numbers of the sentence back and compares them with the result's own arrays.
"""
import re

import numpy as np
import pandas as pd
from numpy.testing import assert_allclose
from test_explain_effects import NUM, parse  # the numbers a sentence gives, as the first round's tests read them

import imlkit as ik
from imlkit.effects._explain import ROUNDING, SETTLED_Z


def years(n=700, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"year": np.tile(np.arange(2003, 2010), n // 7).astype(float),
                         "x2": rng.uniform(-1, 1, n)})


def peak_2006(Z):
    Z = np.asarray(Z, dtype=float)
    return -(Z[:, 0] - 2006.0) ** 2 + 0.5 * (Z[:, 0] - 2003.0) + Z[:, 1] * Z[:, 0] / 1000


# ------------------------------------------------------------------------------------- F1: positions, not magnitudes

def test_integer_grid_positions_are_printed_exactly_and_inside_the_data():
    X = years()
    for r in (ik.ice(peak_2006, X, "year"), ik.ale(peak_2006, X, "year")):
        text = r.explain()
        grid = np.asarray(r.grid, dtype=float)
        first, last = parse(r"from " + NUM + r" to " + NUM, text)
        assert_allclose([first, last], [grid[0], grid[-1]], rtol=0, atol=0)
        assert (first, last) == (2003, 2009)
        assert "2,010" not in text and "2010" not in text and "2,000" not in text
        at_max = parse(r"to " + NUM + r" at year = " + NUM, text)[1]
        assert at_max == grid[int(np.argmax(np.asarray(r.average)))] == 2006
        assert parse(r"inside the grid, at year = " + NUM, text) == 2006


def test_non_integer_positions_are_distinct_and_within_the_grid():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"income": rng.uniform(35_000, 35_900, 500) + 0.03, "x2": rng.normal(size=500)})
    r = ik.partial_dependence(lambda Z: np.sin(np.asarray(Z, dtype=float)[:, 0] / 50), X, "income")
    text = r.explain()
    grid = np.asarray(r.grid, dtype=float)
    first, last = parse(r"from " + NUM + r" to " + NUM, text)
    assert grid[0] <= first < grid[1] and grid[-2] < last <= grid[-1]
    lo_at, hi_at = parse(r"ranges from " + NUM + r" at income = " + NUM + r" to " + NUM + r" at income = " + NUM,
                         text)[1::2]
    avg = np.asarray(r.average)
    # each printed position is nearer its own grid value than any other grid value
    for printed, k in ((lo_at, int(np.argmin(avg))), (hi_at, int(np.argmax(avg)))):
        assert int(np.argmin(np.abs(grid - printed))) == k


# -------------------------------------------------------------------------- F2: order of two levels, checked for noise

def levels(shift):
    n = 600
    x1 = np.linspace(-1, 1, n) + 0.01
    return pd.DataFrame({"x1": x1, "g": pd.Categorical(np.where(np.arange(n) % 2 == 0, "a", "b"))}), shift


def level_model(shift):
    def f(Z):
        b = np.asarray(Z["g"]).astype(str) == "b"
        x1 = np.asarray(Z["x1"], dtype=float)
        return np.where(b, x1 + shift, -x1)
    return f


def test_order_of_levels_within_noise_is_not_settled_ice():
    X, _ = levels(0.0)
    r = ik.ice(level_model(0.0), X, "g")
    text = r.explain()
    ind = np.asarray(r.individual, dtype=float)
    grid = list(r.grid)
    d = ind[:, grid.index("b")] - ind[:, grid.index("a")]
    diff, se = parse(r"not settled by these rows: they differ by " + NUM + r", within 2 standard errors \(SE "
                     + NUM, text)
    assert_allclose(diff, abs(d.mean()), rtol=5e-3)
    assert_allclose(se, d.std(ddof=1) / np.sqrt(len(d)), rtol=5e-3)
    assert abs(d.mean()) <= SETTLED_Z * se


def test_order_of_levels_far_outside_noise_is_stated_without_the_caveat():
    X, _ = levels(1.0)
    for r in (ik.ice(level_model(1.0), X, "g"), ik.ale(level_model(1.0), X, "g")):
        assert "not settled" not in r.explain()


def test_order_of_levels_within_the_ale_band_is_not_settled():
    X, _ = levels(0.0)
    r = ik.ale(level_model(0.0), X, "g")
    text = r.explain()
    diff, width = parse(r"they differ by " + NUM + r", within the pointwise 95% band's half-width at these levels \("
                        + NUM, text)
    half = (np.asarray(r.ci_high) - np.asarray(r.ci_low)) / 2
    avg = np.asarray(r.average)
    assert_allclose(diff, np.ptp(avg), rtol=5e-3)
    assert_allclose(width, half[[np.argmin(avg), np.argmax(avg)]].max(), rtol=5e-3)
    assert diff <= width


def test_pd_of_levels_says_it_holds_no_sampling_error():
    X, _ = levels(0.0)
    text = ik.partial_dependence(level_model(0.0), X, "g").explain()
    assert "not tested here: a PD holds no sampling error" in text


# ------------------------------------------------------------------------------ F3: REPID's γ is a bar for one split

def test_repid_gamma_is_met_by_a_single_split_never_by_a_sum():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.uniform(-1, 1, (800, 4)), columns=["x1", "x2", "x3", "x4"])

    def f(Z):
        Z = np.asarray(Z, dtype=float)
        return Z[:, 0] * (Z[:, 1] > 0) + 0.5 * Z[:, 0] * (Z[:, 2] > 0) + 0.3 * Z[:, 0] * (Z[:, 3] > 0.3)

    g = ik.repid(f, X, "x1", max_depth=3, min_improvement=0.1, random_state=0)
    text = g.explain()
    splits = [nd for nd in g.tree if not nd.is_leaf]
    best = {c: max(nd.int_imp for nd in splits if nd.feature == c) for c in g.split_features}
    total = {c: sum(nd.int_imp for nd in splits if nd.feature == c) for c in g.split_features}
    # the case of the finding: x3's splits sum to γ or more, none of them alone reaches it
    assert total["x3"] >= 0.1 > best["x3"]
    inter = next(s for s in text.splitlines() if s.startswith("Interaction:"))
    below = next(s for s in text.splitlines() if s.startswith("Splits below the root"))
    assert "x3" not in inter and "x3 (its largest single split removes" in below
    got_best, got_total = parse(r"x3 \(its largest single split removes " + NUM + r"%; its \d+ splits, in different "
                                r"regions, remove " + NUM + "%", below)
    assert_allclose([got_best, got_total], [100 * best["x3"], 100 * total["x3"]], rtol=0.05)
    assert "no single split on them removes γ = 10%" in below and "shape the regions" in below
    assert_allclose(parse(r"x2 \(its split removes " + NUM + "%", inter), 100 * best["x2"], rtol=0.01)
    assert best["x2"] >= 0.1


# ------------------------------------------------------------------------------- F4: an ALE band at rounding is 0

def test_ale_band_at_rounding_is_width_zero_and_says_what_it_covers():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(600, 2)) * 3.7, columns=["a", "b"])
    r = ik.ale(lambda Z: 2.0 * np.asarray(Z)[:, 0] + np.asarray(Z)[:, 1], X, "a")
    text = r.explain()
    half = (np.asarray(r.ci_high) - np.asarray(r.ci_low)) / 2
    assert 0 < half.max() <= ROUNDING * np.max(np.abs(r.average))   # the band is rounding, not exactly 0
    assert "times that half-width" not in text
    assert "band has width 0 up to rounding at every grid point" in text
    assert_allclose(parse(r"at most ±" + NUM + ", floating-point rounding", text), half.max(), rtol=5e-3)
    assert "not how the model would change if refitted" in text


def test_ale_band_of_a_noisy_curve_keeps_its_width_and_says_what_it_covers():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(-1, 1, size=(600, 2)), columns=["a", "b"])
    r = ik.ale(lambda Z: np.asarray(Z)[:, 0] * (1 + np.asarray(Z)[:, 1]), X, "a")
    text = r.explain()
    half = (np.asarray(r.ci_high) - np.asarray(r.ci_low)) / 2
    assert_allclose(parse(r"is at most ±" + NUM + " wide", text), half.max(), rtol=5e-3)
    assert "for this fitted model only" in text


# --------------------------------------------------------------------------- F10: an ALE of a two-valued numeric

def test_ale_of_a_two_valued_numeric_names_its_one_interval():
    from sklearn.datasets import load_diabetes

    X = load_diabetes(as_frame=True).data
    r = ik.ale(lambda Z: np.asarray(Z, dtype=float) @ np.arange(1.0, 11.0), X, "sex")
    text = r.explain()
    grid = np.asarray(r.grid, dtype=float)
    assert len(grid) == 2 and "between 2 edges" not in text and " to 442 of" not in text
    n = parse(r"Interval: one, from sex = " + NUM + " to " + NUM + ", holding " + NUM + " of the", text)
    assert_allclose(n[2], np.sum(r.extra["bin_count"]), rtol=0, atol=0)
    assert n[2] == len(X)
    lo, hi = n[:2]
    assert grid[0] <= lo < hi <= grid[-1]


# ----------------------------------------------------------------- F5: direction changes counted on settled steps only

def test_ale_direction_changes_count_only_steps_outside_their_noise():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x1": rng.uniform(-1, 1, 600), "x2": rng.normal(size=600)})
    r = ik.ale(lambda Z: 0.5 * np.sin(3 * np.pi * np.asarray(Z)[:, 0]) + 3 * np.asarray(Z)[:, 0] * np.asarray(Z)[:, 1],
               X, "x1")
    text = r.explain()
    d = np.diff(np.asarray(r.average, dtype=float))
    assert_allclose(d, r.extra["bin_effect"], atol=1e-12)
    se = r.extra["bin_std"] / np.sqrt(r.extra["bin_count"])
    tol = 0.01 * np.ptp(r.average)
    big = np.abs(d) > tol
    settled = big & (np.abs(d) > SETTLED_Z * se)
    s = np.sign(d[settled])
    expected = int(np.sum(s[1:] != s[:-1]))
    changes, noisy, larger = parse(r"change direction " + NUM + r" times? \(.*?ignored; " + NUM + " of the " + NUM
                                   + r" larger steps are within 2 standard errors", text)
    assert (changes, noisy, larger) == (expected, int(np.sum(big & ~settled)), int(big.sum()))
    assert noisy > 0


# ------------------------------------------------------------------ F6: no share of a range smaller than the spread

def test_ice_spread_larger_than_the_pd_range_is_not_a_percentage_of_it():
    X, _ = levels(0.0)
    r = ik.ice(level_model(0.0), X, "g")
    text = r.explain()
    line = next(s for s in text.splitlines() if s.startswith("Heterogeneity:"))
    assert "% of the PD's range" not in line
    assert_allclose(parse(r"larger than the PD's range \(" + NUM, line), np.ptp(r.average), rtol=5e-3)
    ind = np.asarray(r.individual, dtype=float)
    C = ind - ind.mean(axis=1, keepdims=True)
    rms = np.sqrt(np.mean((C - C.mean(axis=0)) ** 2))
    assert_allclose(parse(r"differ from their mean by " + NUM, line), rms, rtol=5e-3)
    assert rms > np.ptp(r.average)


# ------------------------------------------------------------ F7, F8: H² pairs chosen by rounding; unstable ratios

def test_pairs_chosen_among_rounding_level_overall_h2_are_called_arbitrary():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(-1, 1, (200, 4)), columns=["a", "b", "c", "d"])
    h = ik.h_statistic(lambda Z: np.asarray(Z) @ np.array([1.0, 2, 3, 4]), X, n_top=2, n_samples=200,
                       random_state=0)
    text = h.explain()
    H = np.asarray(h.overall, dtype=float)
    assert np.all(np.abs(H) <= ROUNDING)
    got = parse(r"every overall H² is 0 up to rounding \(at most " + NUM + r"\), so which 2 features these are was "
                r"decided by rounding noise: the pairs are arbitrary", text)
    assert_allclose(got, np.abs(H).max(), rtol=5e-3)


def test_unstable_ratio_caveat_only_for_a_large_h2():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.uniform(-1, 1, (300, 3)), columns=["x1", "x2", "x3"])
    tiny = ik.h_statistic(lambda Z: 10 * np.asarray(Z)[:, 0] + 0.3 * np.asarray(Z)[:, 1] + 0.3 * np.asarray(Z)[:, 2]
                          + 0.01 * np.asarray(Z)[:, 1] * np.asarray(Z)[:, 2], X, pairs="all", n_samples=300,
                          random_state=0)
    pw = tiny.pairwise
    assert 0 < pw["h2"].max() < 1e-3
    # the pair's joint PD is small against the prediction (the old caveat's condition), but its H² is tiny
    row = pw.iloc[int(np.argmax(pw["h2"]))]
    pred_rms = np.sqrt(tiny.overall_unnormalized[1] ** 2 / tiny.overall[1])
    assert np.sqrt(row["h_unnormalized"] ** 2 / row["h2"]) < 0.1 * pred_rms
    assert "Unstable ratios" not in tiny.explain()
    large = ik.h_statistic(lambda Z: 10 * np.asarray(Z)[:, 0] + np.asarray(Z)[:, 1] * np.asarray(Z)[:, 2], X,
                           pairs="all", n_samples=300, random_state=0)
    text = large.explain()
    row = large.pairwise.iloc[int(np.argmax(large.pairwise["h2"]))]
    h2, joint = parse(r"x2 × x3 \(H² " + NUM + "; joint PD " + NUM, text)
    assert_allclose(h2, row["h2"], rtol=5e-3)
    assert_allclose(joint, np.sqrt(row["h_unnormalized"] ** 2 / row["h2"]), rtol=5e-3)


# ------------------------------------------------------------------------- F9: REPID rules, one interval per feature

def test_repid_rules_merge_repeated_splits_on_a_feature_into_one_interval():
    rng = np.random.default_rng(1)
    X = pd.DataFrame(rng.uniform(-1, 1, (800, 3)) * [1, 40000, 1], columns=["x1", "inc", "x3"])
    X["inc"] += 50000

    def f(Z):
        Z = np.asarray(Z, dtype=float)
        return Z[:, 0] * ((Z[:, 1] > 50000) + 0.6 * (Z[:, 1] > 70000) + 0.3 * (Z[:, 1] > 30000))

    g = ik.repid(f, X, "x1", max_depth=3, min_improvement=0.01, random_state=0)
    text = g.explain()
    assert any(r.rule.count("inc") > 1 for r in g.regions)          # the raw rules repeat the feature
    regions = [s for s in text.splitlines() if s.startswith("- ") and ": " in s and "rows, heterogeneity" in s]
    assert len(regions) == len(g.regions)
    thresholds = sorted(nd.threshold for nd in g.tree if not nd.is_leaf)
    for line, r in zip(regions, g.regions):
        rule = line[2:line.index(":")]
        assert rule.count("inc") == 1 and "e+" not in rule
        lo, hi = -np.inf, np.inf
        m = re.fullmatch(NUM + r" < inc <= " + NUM, rule)
        if m:
            lo, hi = (float(v.replace(",", "")) for v in m.groups())
        elif rule.startswith("inc <= "):
            hi = parse(r"inc <= " + NUM, rule)
        else:
            lo = parse(r"inc > " + NUM, rule)
        # each printed bound is one of the tree's thresholds (to the printed digits), and the region's rows lie
        # within the bounds of the exact thresholds they stand for
        exact = [min(thresholds, key=lambda t: abs(t - b)) for b in (lo, hi) if np.isfinite(b)]
        for b, t in zip([b for b in (lo, hi) if np.isfinite(b)], exact):
            assert_allclose(b, t, rtol=1e-3)
        inc = X["inc"].to_numpy()
        lo_t = exact[0] if np.isfinite(lo) else -np.inf
        hi_t = exact[-1] if np.isfinite(hi) else np.inf
        assert int(np.sum((inc > lo_t) & (inc <= hi_t))) == r.n
