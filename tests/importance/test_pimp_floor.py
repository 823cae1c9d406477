"""PIMP knows its resolution: the smallest adjusted p-value each feature's null could give, and the refits it needs.

The p-value arithmetic is checked against imlkit's own correction (``adjust_pvalues``) by
brute force; the PIMP runs use a cheap importance (absolute coefficients of a linear model),
so each refit costs one least-squares fit.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from sklearn.linear_model import LinearRegression

import imlkit as ik
from imlkit.importance._inference import adjust_pvalues
from imlkit.importance._pimp import MIN_PARAMETRIC_NULL, resolution

M = 11
ALPHA = 0.05


def abs_coefficients(model, X, y, random_state):
    return np.abs(model.coef_)


@pytest.mark.parametrize("B", [10, 60])
@pytest.mark.parametrize("p_adjust", ["holm", "bonferroni", None])
def test_empirical_floor_by_method(B, p_adjust):
    # Eleven features on the empirical null, none at its floor yet (p = 0.5): the floor is
    # 1/(B+1) uncorrected and min(1, 11/(B+1)) after Holm or Bonferroni.
    floor, needed = resolution(np.full(M, 0.5), ["empirical"] * M, B, p_adjust, ALPHA)
    expected = 1 / (B + 1) if p_adjust is None else min(1.0, M / (B + 1))
    assert_allclose(floor, expected, rtol=1e-12)
    # n_null_needed: the smallest B' with c/(B'+1) <= alpha, c = 1 or m: 19 and 219.
    assert_allclose(needed, 19 if p_adjust is None else 219)


@pytest.mark.parametrize("p_adjust", ["holm", "bonferroni", None])
def test_floor_is_the_adjusted_value_at_the_raw_floor_and_nothing_goes_below(p_adjust):
    # Mixed nulls: three features with a fitted tail (floor 0), eight on the empirical one.
    rng = np.random.default_rng(0)
    B = 60
    fams = ["normal"] * 3 + ["empirical"] * 8
    p = np.r_[[1e-9, 3e-4, 0.2], (rng.integers(0, B + 1, size=8) + 1) / (B + 1)]
    floor, _ = resolution(p, fams, B, p_adjust, ALPHA)
    for j, fam in enumerate(fams):
        raw = 0.0 if fam == "normal" else 1 / (B + 1)
        at = p.copy()
        at[j] = raw
        assert_allclose(floor[j], adjust_pvalues(at, method=p_adjust)[j], rtol=1e-12, atol=0)
        # every p-value the feature's null can give adjusts to at least its floor
        reachable = (np.arange(B + 1) + 1) / (B + 1) if fam == "empirical" else np.r_[0.0, np.geomspace(1e-12, 1, 30)]
        for v in reachable:
            at[j] = v
            assert adjust_pvalues(at, method=p_adjust)[j] >= floor[j] - 1e-15
    if p_adjust == "holm":
        # The two fitted features below 1/61 come first in Holm's order: the empirical floor is 9/61, not 11/61.
        assert_allclose(floor[3:], 9 / 61, rtol=1e-12)
    if p_adjust == "bonferroni":
        assert_allclose(floor[3:], 11 / 61, rtol=1e-12)
        assert_allclose(floor[:3], 0.0)


@pytest.mark.parametrize("p_adjust", ["holm", "bonferroni", None])
def test_n_null_needed_is_the_smallest_sufficient_number_of_refits(p_adjust):
    rng = np.random.default_rng(1)
    fams = ["normal", "normal"] + ["empirical"] * 9
    p = np.r_[[1e-6, 0.004], rng.uniform(0.01, 0.9, size=9)]
    floor, needed = resolution(p, fams, 60, p_adjust, ALPHA)

    def floor_with(j, b):  # the feature's adjusted p-value at the empirical floor of b refits, others fixed
        at = p.copy()
        at[j] = 1 / (b + 1)
        return adjust_pvalues(at, method=p_adjust)[j]

    for j in range(2, 11):
        n = int(needed[j])
        assert floor_with(j, n) <= ALPHA and all(floor_with(j, b) > ALPHA for b in range(1, n))
    # A fitted tail has floor 0 from MIN_PARAMETRIC_NULL refits on: it never needs more than that.
    assert_allclose(floor[:2], 0.0)
    assert np.all(needed[:2] <= MIN_PARAMETRIC_NULL)
    assert np.all(needed <= np.ceil(M / ALPHA) - 1)


@pytest.fixture(scope="module")
def strong_and_noise():
    rng = np.random.default_rng(3)
    n = 240
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=["strong", "n1", "n2", "n3"])
    y = 4 * X["strong"].to_numpy() + rng.normal(size=n)
    return X[:160], y[:160], X[160:], y[160:]


def test_few_refits_never_fit_a_tail(strong_and_noise):
    # 10 refits: "strong" lies far beyond every null value. A normal tail would give p ~ 1e-100;
    # with fewer than 30 refits PIMP uses the empirical null, whose floor says what 10 refits can see.
    Xtr, ytr, Xte, yte = strong_and_noise
    with pytest.warns(UserWarning, match=r"distribution='normal' needs at least 30 null refits"):
        r = ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, importance=abs_coefficients, n_null=10,
                    distribution="normal", random_state=0)
    assert r.extra["distribution"] == ("empirical",) * 4
    f = r.to_frame(sort=False)
    assert list(f.columns[-2:]) == ["p_floor", "n_null_needed"]
    assert f.loc["strong", "p_value"] == pytest.approx(1 / 11)
    assert_allclose(f["p_floor"], 4 / 11, rtol=1e-12)  # Holm over 4 features: nothing is below 1/11
    assert_allclose(f["n_null_needed"], 79)             # 4/80 = 0.05
    assert f.loc["strong", "p_adjusted"] == pytest.approx(f.loc["strong", "p_floor"])
    assert r.params["n_null"] == 10 and r.params["alpha"] == 0.05 and r.params["p_adjust"] == "holm"
    # The explanation says what the run cannot tell, never that there is no evidence.
    text = r.explain()
    assert ("- strong: cannot tell with 10 null refits (at least 79 needed): its observed importance exceeds all 10 "
            "null values") in text
    assert "no feature can be significant at alpha=0.05" in text and r.rejects_nothing()
    assert list(r.cannot_tell()) == [f for f in r.feature_names if f in r.cannot_tell()]
    # only features beyond all their null values are "cannot tell"; the others are merely unrejectable
    at_floor = [f for j, f in enumerate(r.feature_names) if np.all(r.extra["null"][j] < r.importance[j])]
    assert list(r.cannot_tell()) == at_floor and "strong" in at_floor
    assert "no evidence" not in text.lower()
    # auto with 10 refits: the empirical null as well, no warning about the family
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        auto = ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, importance=abs_coefficients, n_null=10,
                       random_state=0)
    assert auto.extra["distribution"] == ("empirical",) * 4
    assert not any("needs at least 30" in str(w.message) for w in caught)


def test_thirty_refits_fit_the_tail_and_resolve(strong_and_noise):
    Xtr, ytr, Xte, yte = strong_and_noise
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, importance=abs_coefficients, n_null=30,
                    distribution="normal", random_state=0)
    f = r.to_frame(sort=False)
    assert f.loc["strong", "p_adjusted"] < 1e-6 and f.loc["strong", "significant"]
    assert_allclose(f["p_floor"], 0.0)
    assert np.all(f["n_null_needed"] <= MIN_PARAMETRIC_NULL)
    assert "cannot tell" not in r.explain()


def test_report_says_cannot_tell_for_a_feature_at_the_floor(strong_and_noise):
    from imlkit.report._sec_importance import _pimp_blocks

    Xtr, ytr, Xte, yte = strong_and_noise
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = ik.pimp(LinearRegression(), Xtr, ytr, Xte, yte, importance=abs_coefficients, n_null=10, random_state=0)
    blocks = _pimp_blocks(r)
    said = " ".join(b.get("text", "") for b in blocks)
    assert ("With 10 null refits and the holm correction over 4 features, PIMP cannot reject any feature at level "
            "0.05, however large its importance") in said
    assert "At least 79 null refits are needed (rerun with --n-null 79)." in said
    assert r.cannot_tell() == {"strong": 79}  # the noise features lie inside their null (p = 8/11, 10/11, 1)
    assert ("strong lies beyond all 10 of its null values: PIMP cannot tell with 10 null refits whether it matters, "
            "and an adjusted p-value above 0.05 here is not evidence that it does not.") in said
    assert "no evidence" not in said.lower()
    tab = blocks[0]
    assert "smallest reachable p" in tab["columns"]
    col = tab["columns"].index("smallest reachable p")
    assert_allclose([float(row[col]) for row in tab["rows"]], 4 / 11, rtol=1e-3)  # cells are formatted text



def test_n_null_option_reaches_pimp(tmp_path, capsys):
    from imlkit._validation import ValidationError
    from imlkit.cli import main
    from imlkit.report import ReportConfig, method_params
    from imlkit.report._build import prepare_context

    assert method_params(False).pimp.n_null == 60 and method_params(True).pimp.n_null == 10
    assert method_params(True, n_null=200).pimp.n_null == 200
    for bad in (0, True, 2.5, "100"):
        with pytest.raises(ValidationError, match=r"'n_null' must be an int >= 1; got "):
            method_params(False, n_null=bad)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "y"])
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    ctx = prepare_context(ReportConfig(data=str(path), target="y", model="glm", quick=True, n_null=250))
    assert ctx.params.pimp.n_null == 250
    code = main(["report", "--data", str(path), "--target", "y", "--n-null", "0", "--out", str(tmp_path / "o")])
    assert code == 2 and "'--n-null' must be an int >= 1; got 0." in capsys.readouterr().err


def test_one_feature_at_the_floor_among_resolved_ones():
    # Credit-like: two features with a fitted tail far in it, one beyond all 60 null values on the
    # empirical null (p = 1/61; Holm puts it third: 8/61 > 0.05), seven noise features.
    from imlkit.importance._pimp import PimpResult
    from imlkit.report._sec_importance import _pimp_blocks

    rng = np.random.default_rng(5)
    names = ("Limit", "Income", "Student") + tuple(f"noise{j}" for j in range(7))
    B = 60
    null = rng.normal(size=(10, B))
    observed = np.r_[50.0, 20.0, null[2].max() + 1.0, rng.normal(size=7)]
    p = np.r_[1e-4, 2e-3, 1 / 61, rng.uniform(0.2, 0.9, size=7)]
    fams = ("lognormal", "gamma") + ("empirical",) * 8
    floor, needed = resolution(p, fams, B, "holm", ALPHA)
    nan = np.full(10, np.nan)
    r = PimpResult(method="pimp", feature_names=names, importance=observed, std=nan, ci_low=nan, ci_high=nan,
                   loss="squared_error", p_value=p, p_adjusted=adjust_pvalues(p, method="holm"),
                   params={"n_null": B, "alpha": ALPHA, "p_adjust": "holm", "importance": "pfi",
                           "distribution": "auto"},
                   extra={"null": null, "distribution": fams, "p_floor": floor, "n_null_needed": needed})
    f = r.to_frame(sort=False)
    assert_allclose(f.loc["Student", ["p_adjusted", "p_floor"]].to_numpy(float), 8 / 61, rtol=1e-12)
    assert f.loc["Student", "n_null_needed"] == 159  # 8/160 = 0.05 with Limit and Income still first
    assert f.loc["Limit", "p_floor"] == 0 and f.loc["Limit", "significant"]
    assert f.loc["noise0", "p_floor"] == pytest.approx(8 / 61)
    assert r.cannot_tell() == {"Student": 159} and not r.rejects_nothing()
    assert ("- Student: cannot tell with 60 null refits (at least 159 needed): its observed importance exceeds all 60 "
            "null values") in r.explain()
    said = " ".join(b.get("text", "") for b in _pimp_blocks(r))
    assert ("PIMP cannot tell with 60 null refits whether Student matters: its observed importance exceeds all 60 null "
            "values, but after the holm correction the smallest adjusted p-value it could reach is above 0.05. At "
            "least 159 null refits are needed (rerun with --n-null 159)") in said
    assert "cannot reject any" not in said and "no evidence" not in said.lower()


def test_n_null_needed_matches_a_plain_scan_with_ties_and_missing_values():
    # Empirical p-values on a grid of 61 values tie often; a NaN p-value is left out of m.
    from imlkit.importance._pimp import _fewest_refits

    rng = np.random.default_rng(7)
    for _ in range(15):
        m = int(rng.integers(2, 14))
        p = (rng.integers(0, 61, size=m) + 1) / 61
        p[: m // 3] = rng.uniform(0, 2e-3, size=m // 3)  # some far in a fitted tail
        if rng.uniform() < 0.3:
            p[-1] = np.nan
        top = int(np.ceil(np.isfinite(p).sum() / ALPHA - 1e-9)) - 1
        for p_adjust in ("holm", "bonferroni", None):
            for j in np.flatnonzero(np.isfinite(p)):
                scan = next(b for b in range(1, top + 1)
                            if adjust_pvalues(np.where(np.arange(m) == j, 1 / (b + 1), p), method=p_adjust)[j]
                            <= ALPHA)
                assert _fewest_refits(p, j, p_adjust, ALPHA, top) == scan
