"""Review r2 (rev8), finding 2: a conditional sampler fitted on a handful of rows (CFI, conditional SAGE).

With 10 rows the default subgroup sampler's leaves hold 2 rows (at most a quarter of the fitted rows): its draws are
nearly the original values and CFI of a feature independent of the others shrinks far below its PFI. The known
answer: for a feature independent of the others the conditional is the marginal, so CFI = PFI in expectation; for
f linear and y = f(X), replacing x_j by a draw x~ from the marginal of the fitted rows costs
E L = beta_j^2 (mean_i (x_ij - mu_j)^2 + sigma_j^2) (mu, sigma^2 of those rows), whatever the sampler's leaves are.
"""
import warnings

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose

import imlkit as ik
from imlkit.samplers import MIN_LEAF_ROWS, SubgroupSampler

BETA = np.array([1.0, 2.0, -1.5])


def _f(A):
    return np.asarray(A, dtype=float) @ BETA


def _data(n, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["a", "b", "c"])
    return X, _f(X)


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def test_cfi_of_independent_features_with_the_sampler_fitted_on_other_rows_is_the_marginal_answer():
    """Fitted on 200 other rows, the sampler's draws for the 10 rows are honest (their own values chose no split and
    are not in the pool): by the law of total variance, E (x_i - x~)^2 = (x_i - mu)^2 + sigma^2 whatever the leaves."""
    X, y = _data(10, 0)
    fit, _ = _data(200, 1)
    r = _quiet(ik.cfi, _f, X, y, X_fit=fit, loss="squared_error", n_repeats=2000, random_state=0)
    A, F = X.to_numpy(), fit.to_numpy()
    truth = BETA ** 2 * (((A - F.mean(axis=0)) ** 2).mean(axis=0) + F.var(axis=0))
    # 2,000 repeats of 10 rows: Monte-Carlo error of about 2-3% of each value; the leaves' own spread (15 rows,
    # the tree's choice of which rows share a leaf) the rest
    assert_allclose(r.importance, truth, rtol=0.12)
    assert r.extra["sampler_rows"] == 200 and r.extra["sampler_leaf_rows"] == 15
    assert not any("fewer than" in w for w in r.warnings)
    # the same rows' PFI: CFI = PFI in expectation for independent features (PFI permutes the 10 rows themselves)
    p = ik.pfi(_f, X, y, loss="squared_error", n_repeats=400, random_state=0)
    assert np.all(r.importance >= 0.5 * p.importance)


def test_other_rows_do_not_warn_even_with_small_leaves_but_the_rows_explained_among_them_do():
    X, y = _data(10, 0)
    other, _ = _data(30, 1)           # leaves of 7 rows, but honest draws for X's rows
    r = _quiet(ik.cfi, _f, X, y, X_fit=other, loss="squared_error", n_repeats=20, random_state=0)
    assert r.extra["sampler_leaf_rows"] == 7 and not any("fewer than" in w for w in r.warnings)
    both = pd.concat([X, other], ignore_index=True)   # 40 rows: leaves of 10, no warning either
    r = _quiet(ik.cfi, _f, X, y, X_fit=both.iloc[:35], loss="squared_error", n_repeats=20, random_state=0)
    assert r.extra["sampler_leaf_rows"] == 8 and any("fitted on 35 rows, the rows CFI explains among them" in w
                                                     for w in r.warnings)


def test_cfi_on_ten_rows_alone_warns_that_its_two_row_leaves_shrink_it():
    X, y = _data(10, 0)
    with pytest.warns(UserWarning, match="leaves it draws from hold 2 rows"):
        r = ik.cfi(_f, X, y, loss="squared_error", n_repeats=50, random_state=0)
    note = [w for w in r.warnings if "fewer than 10" in w]
    assert len(note) == 1 and "1/2 = 50%" in note[0] and "no evidence" in note[0]
    assert r.extra["sampler_leaf_rows"] == 2 and r.extra["sampler_rows"] == 10 and r.extra["sampler_shrinks"]
    # and the shrinkage it warns of is real here: CFI of these independent features far below PFI
    p = ik.pfi(_f, X, y, loss="squared_error", n_repeats=50, random_state=0)
    assert r.importance.sum() < 0.5 * p.importance.sum()


def test_the_leaf_rule_and_its_threshold():
    s = SubgroupSampler().fit(_data(39, 0)[0])
    assert s.leaf_rows() == 9 and s.small_leaves_note() is not None
    s = SubgroupSampler().fit(_data(40, 0)[0])
    assert s.leaf_rows() == MIN_LEAF_ROWS and s.small_leaves_note() is None
    # conditional SAGE's cross-fitted trees are grown on halves: 40 rows give halves of 20, leaves of 5
    assert s.leaf_rows(cross_fitted=True) == 5
    # a leaf size asked for is judged the same way, and the sentence says where it came from
    note = SubgroupSampler(min_samples_leaf=3).fit(_data(400, 0)[0]).small_leaves_note()
    assert "hold 3 rows (min_samples_leaf)" in note


def test_conditional_sage_warns_on_small_leaves_and_not_with_a_sampler_fitted_on_more_rows():
    X, y = _data(10, 0)
    with pytest.warns(UserWarning, match="fitted on 10 rows, the rows conditional SAGE explains among them"):
        r = ik.sage(_f, X, y, removal="conditional", exact=True, n_background=16, random_state=0)
    assert any("fewer than 10" in w for w in r.warnings) and r.extra["sampler_leaf_rows"] == 2
    more, _ = _data(200, 1)
    s = SubgroupSampler().fit(pd.concat([X, more], ignore_index=True))
    r = _quiet(ik.sage, _f, X, y, removal="conditional", sampler=s, exact=True, n_background=16, random_state=0)
    assert not any("fewer than" in w for w in r.warnings)
    assert r.extra["sampler_rows"] == 210 and r.extra["sampler_leaf_rows"] == 15   # halves of 105: 26 >= 15
    # 30 rows of which X's 10: cross-fitted (from 20 rows on), so no warning although the halves' leaves hold 3 rows
    s = SubgroupSampler().fit(pd.concat([X, more.iloc[:20]], ignore_index=True))
    r = _quiet(ik.sage, _f, X, y, removal="conditional", sampler=s, exact=True, n_background=16, random_state=0)
    assert r.extra["sampler_leaf_rows"] == 3 and not any("fewer than" in w for w in r.warnings)


def test_conditional_sage_with_x_first_in_the_samplers_data_draws_as_the_frame_path_does():
    """X's rows first in the sampler's data: the game draws them by index (the lean path) -- the same draws, hence the
    same values, as the frame path that looks each row up among the fitted rows (forced here by a copy of X that
    is not the head: the rows reversed)."""
    X, y = _data(30, 0)
    more, _ = _data(120, 1)
    s = SubgroupSampler().fit(pd.concat([X, more], ignore_index=True))
    lean = _quiet(ik.sage, _f, X, y, removal="conditional", sampler=s, max_permutations=64, n_background=8,
                  random_state=0)
    from imlkit.importance._sage_game import _rows_after
    assert _rows_after(s, X) is not None and _rows_after(s, X.iloc[::-1].reset_index(drop=True)) is None
    from imlkit.importance import _sage_game
    orig = _sage_game._rows_after
    try:
        _sage_game._rows_after = lambda sampler, X: None
        frames = _quiet(ik.sage, _f, X, y, removal="conditional", sampler=s, max_permutations=64, n_background=8,
                        random_state=0)
    finally:
        _sage_game._rows_after = orig
    assert_allclose(lean.importance, frames.importance, rtol=1e-10, atol=1e-12)
