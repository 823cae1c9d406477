"""Sequential PIMP: the stopped run takes the decisions the full run takes, and says where and why it stopped.

Most runs use a cheap importance (absolute coefficients of a linear model), so a refit costs one
least-squares fit and a full run of 59 null refits takes milliseconds; one run uses PFI.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.linear_model import LinearRegression

import imlkit as ik
from imlkit.importance._pimp import SEQUENTIAL_BLOCK

ALPHA = 0.05


def abs_coefficients(model, X, y, random_state):
    return np.abs(model.coef_)


def table(kind, seed, n=80, p=3):
    """``clear``: x0 carries y; ``noise``: nothing does; ``borderline``: x0 weakly, at the edge of the test."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, p)), columns=[f"x{j}" for j in range(p)])
    beta = {"clear": 2.0, "noise": 0.0, "borderline": 0.25}[kind]
    y = beta * X["x0"].to_numpy() + rng.normal(size=n)
    return X.iloc[:n // 2], y[:n // 2], X.iloc[n // 2:], y[n // 2:]


def run(data, *, sequential, n_null=59, p_adjust="holm", seed=0, n_jobs=1, importance=abs_coefficients,
        distribution="empirical", **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ik.pimp(LinearRegression(), *data, importance=importance, n_null=n_null, distribution=distribution,
                       p_adjust=p_adjust, alpha=ALPHA, sequential=sequential, random_state=seed, n_jobs=n_jobs, **kw)


def decisions(r):
    """What the report reads: rejected, floor <= alpha, and 'cannot tell' (at the floor, floor above alpha)."""
    frame = r.to_frame(sort=False)
    return (tuple(frame["p_adjusted"] <= ALPHA), tuple(frame["p_floor"] <= ALPHA), tuple(sorted(r.cannot_tell())))


CASES = [(kind, seed, p, p_adjust, n_null)
         for kind in ("clear", "noise", "borderline") for seed in (0, 1, 2)
         for p, p_adjust, n_null in ((3, "holm", 59), (3, "bonferroni", 59), (2, None, 25), (12, "holm", 20))]


@pytest.mark.parametrize("kind, seed, p, p_adjust, n_null", CASES)
def test_same_decisions_as_the_full_run(kind, seed, p, p_adjust, n_null):
    data = table(kind, seed, p=p)
    full = run(data, sequential=False, n_null=n_null, p_adjust=p_adjust, seed=seed)
    seq = run(data, sequential=True, n_null=n_null, p_adjust=p_adjust, seed=seed)
    assert decisions(seq) == decisions(full)
    info = seq.extra["sequential"]
    k = info["n_null_run"]
    assert info["n_null_planned"] == n_null == seq.params["n_null"]
    assert info["stopped"] == (k < n_null)
    assert k == n_null or k % SEQUENTIAL_BLOCK == 0
    # null refit b keeps its seed whether or not the run stops: the stopped run is a prefix of the full one
    assert seq.extra["null"].shape == (p, k)
    assert_allclose(seq.extra["null"], full.extra["null"][:, :k], rtol=0, atol=0)
    assert_allclose(seq.importance, full.importance, rtol=0, atol=0)
    # the bounds hold the full run's p-value, and the reported one lies inside them
    lo, hi = seq.extra["p_bounds"].T
    assert np.all((lo <= full.p_value + 1e-12) & (full.p_value <= hi + 1e-12))
    assert np.all((lo <= seq.p_value + 1e-12) & (seq.p_value <= hi + 1e-12))
    if not info["stopped"]:
        assert_allclose(seq.p_value, full.p_value, rtol=0, atol=0)
        assert_allclose(lo, hi, rtol=0, atol=0)
    else:
        h = np.sum(seq.extra["null"] >= seq.importance[:, None], axis=1)
        assert_allclose(seq.p_value, (h + 1) / (k + 1), rtol=1e-12)
        assert "settled" in info["reason"]


def test_the_stop_happens_where_it_can_and_not_where_it_cannot():
    # Pure noise with 3 features: no feature can be rejected once each has a few null values above
    # it, so the run stops at an early look; a clear signal is only settled by the last refit.
    noise = run(table("noise", 0), sequential=True)
    assert noise.extra["sequential"]["stopped"]
    assert noise.extra["sequential"]["n_null_run"] <= 2 * SEQUENTIAL_BLOCK
    clear = run(table("clear", 0), sequential=True)
    assert not clear.extra["sequential"]["stopped"]
    assert clear.extra["sequential"]["n_null_run"] == 59
    assert clear.to_frame(sort=False)["p_adjusted"].iloc[0] <= ALPHA
    # Twelve features and 20 refits: nothing can be significant (floor 12/21); the run stops as soon
    # as no feature is at its floor, which is what 'cannot tell' is said of.
    wide = run(table("noise", 3, p=12), sequential=True, n_null=20)
    full = run(table("noise", 3, p=12), sequential=False, n_null=20)
    assert wide.rejects_nothing() and full.rejects_nothing()
    assert wide.extra["sequential"]["n_null_run"] <= 20


def test_a_fitted_tail_is_never_cut_short():
    r = run(table("noise", 0), sequential=True, n_null=40, distribution="auto")
    info = r.extra["sequential"]
    assert info["n_null_run"] == 40 and not info["stopped"]
    assert "fitted tail" in info["reason"]
    full = run(table("noise", 0), sequential=False, n_null=40, distribution="auto")
    assert_allclose(r.p_value, full.p_value, rtol=0, atol=0)


def test_the_full_run_records_itself():
    r = run(table("noise", 0), sequential=False)
    assert r.extra["sequential"] == dict(enabled=False, n_null_run=59, n_null_planned=59, stopped=False,
                                         reason="full run (sequential=False)")
    assert r.params["sequential"] is False


@pytest.mark.parametrize("importance", [abs_coefficients, "pfi"])
def test_same_numbers_for_any_n_jobs(importance):
    data = table("borderline", 4, n=60)
    one = run(data, sequential=True, n_null=25, importance=importance, n_repeats=2)
    two = run(data, sequential=True, n_null=25, importance=importance, n_repeats=2, n_jobs=2)
    assert one.extra["sequential"] == two.extra["sequential"]
    assert_array_equal(one.extra["null"], two.extra["null"])
    assert_array_equal(one.p_value, two.p_value)
    assert_array_equal(one.importance, two.importance)


def test_sequential_is_checked():
    with pytest.raises(TypeError, match="'sequential' must be True or False; got 'yes'"):
        run(table("noise", 0), sequential="yes")


def test_the_report_says_where_the_refits_stopped():
    from imlkit.report import _claims as cl
    from imlkit.report._reading import _pimp_claims
    from imlkit.report._sec_importance import _pimp_blocks

    r = run(table("noise", 0), sequential=True)
    k = r.extra["sequential"]["n_null_run"]
    assert k < 59
    said = " ".join(b["text"] for b in _pimp_blocks(r) if b.get("kind") == "text")
    assert f"Sequential PIMP stopped after {k} of 59 null refits" in said
    claims = _pimp_claims(r)
    assert claims and all(cl.check(c) == [] for c in claims)
    # "observed above k of 59 null values" would count refits never run: not said
    assert all(set(c.numbers["n_below"]) == {-1} for c in claims)
    full = _pimp_claims(run(table("noise", 0), sequential=False))
    assert [(c.kind, c.features) for c in claims] == [(c.kind, c.features) for c in full]


def test_the_null_pfis_use_the_tree_engine_checked_once(monkeypatch):
    from sklearn.ensemble import HistGradientBoostingRegressor

    from imlkit import _trees
    from imlkit.importance import _perturbation

    engines, checks = [], []
    real, real_choose = _perturbation._perturbation_importance, _trees.choose

    def recording(*args, **kwargs):
        res = real(*args, **kwargs)
        engines.append((res.info.get("engine"), kwargs.get("refit_of") is not None))
        return res

    def counting(*args, **kwargs):
        checks.append(1)
        return real_choose(*args, **kwargs)

    monkeypatch.setattr(_perturbation, "_perturbation_importance", recording)
    monkeypatch.setattr(_trees, "choose", counting)
    data = table("clear", 0, n=120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ik.pimp(HistGradientBoostingRegressor(max_iter=5, random_state=0), *data, n_null=4, n_repeats=1,
                sequential=True, random_state=0, n_jobs=1)
    # the observed fit (checked), then the four null refits on the engine its check chose
    assert engines == [("trees", False)] + [("trees", True)] * 4
    assert len(checks) == 1


@pytest.mark.parametrize("importance", ["pfi", "cfi"])
def test_null_refits_without_the_engine_check_give_the_checked_numbers(monkeypatch, importance):
    """The null refits skip the engine's check (done once, on the observed model): the same null values."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    from imlkit._model import Predictor

    data = table("clear", 0, n=150)
    learner = HistGradientBoostingRegressor(max_iter=8, random_state=0)
    kw = dict(importance=importance, n_null=5, n_repeats=2, random_state=3, n_jobs=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = ik.pimp(learner, *data, **kw)
        # every null refit checked again, as a PFI/CFI of its own would be
        monkeypatch.setattr(Predictor, "reuse_engine", lambda self, X, record: self.use_engine(X))
        checked = ik.pimp(learner, *data, **kw)
    np.testing.assert_array_equal(fast.extra["null"], checked.extra["null"])
    np.testing.assert_array_equal(fast.importance, checked.importance)


def test_cfi_sampler_fitted_once_for_all_refits(monkeypatch):
    """PIMP with CFI fits its sampler on the test rows once: the same null values as one fit per refit."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    from imlkit import samplers
    from imlkit.importance import _pimp

    data = table("clear", 0, n=150)
    learner = HistGradientBoostingRegressor(max_iter=8, random_state=0)
    kw = dict(importance="cfi", n_null=4, n_repeats=2, random_state=5, n_jobs=1)
    fits = []
    real_fit = samplers.SubgroupSampler.fit

    def counting(self, X):
        fits.append(1)
        return real_fit(self, X)

    monkeypatch.setattr(samplers.SubgroupSampler, "fit", counting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        once = ik.pimp(learner, *data, **kw)
        assert len(fits) == 1
        monkeypatch.setattr(_pimp, "make_sampler", lambda sampler, X: sampler)   # as before: one fit per refit
        each = ik.pimp(learner, *data, **kw)
    assert len(fits) == 1 + 5
    np.testing.assert_array_equal(once.extra["null"], each.extra["null"])
    np.testing.assert_array_equal(once.importance, each.importance)
