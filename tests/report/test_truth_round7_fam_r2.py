"""Truth review rev7 r1, finding 8: R²'s bootstrap interval must cover its own estimate.

The mean baseline of a model scored on all rows of one table (Boston, a user's forest) was shown as
"R² 6.66e-16 [-0.00946, -1.52e-06]": each resample's R² used the resample's own mean, which fits the resample better
than any fixed prediction, so every resampled R² of the mean was <= 0. R² now takes every square about the mean of all
the scored rows (the same centre on every resample).
"""
import numpy as np
from numpy.testing import assert_allclose
from sklearn.datasets import load_diabetes
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split

from imlkit.report._scores import bootstrap_weights, score_intervals


def _outputs(**preds):
    return {k: {"pred": np.asarray(v, dtype=float), "proba": None} for k, v in preds.items()}


def _own_mean_r2(y, pred, seed, n_boot):
    """The old rule: each resample's R² about that resample's own mean (its percentile interval)."""
    W = bootstrap_weights(len(y), seed, n_boot)
    sse = W @ (y - pred) ** 2
    sst = W @ y ** 2 - (W @ y) ** 2 / len(y)
    return np.percentile(1 - sse / sst, [2.5, 97.5])


def test_mean_of_the_scored_rows_has_an_interval_that_covers_its_r2():
    X, y = load_diabetes(return_X_y=True)
    mean = np.full(len(y), float(np.mean(y)))
    res = score_intervals(_outputs(mean=mean), y, "regression", seed=0)
    value, lo, hi = res["scores"]["mean"]["R²"]
    assert_allclose(value, 0.0, atol=1e-12)
    assert lo <= value <= hi
    old_lo, old_hi = _own_mean_r2(y, mean, 0, res["n_boot"])
    assert old_hi < 0  # the old interval excluded the estimate (fails before the fix)


def test_training_mean_on_test_rows_is_covered():
    X, y = load_diabetes(return_X_y=True)
    _, _, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
    pred = np.full(len(y_te), y_tr.mean())
    value, lo, hi = score_intervals(_outputs(mean=pred), y_te, "regression", seed=1)["scores"]["mean"]["R²"]
    assert_allclose(value, r2_score(y_te, pred), rtol=1e-9, atol=1e-12)
    assert lo <= value <= hi


def test_interval_agrees_with_the_old_one_for_a_model_that_explains_the_target():
    """Where the old interval was fine (a fitted linear model, R² ~ 0.4), the two differ only by the resample mean's
    shrinkage of SST, about SST/n: the ends move by a few hundredths of the interval's width at n = 133."""
    X, y = load_diabetes(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.3, random_state=0)
    pred = LinearRegression().fit(X_tr, y_tr).predict(X_te)
    res = score_intervals(_outputs(lm=pred), y_te, "regression", seed=2)
    value, lo, hi = res["scores"]["lm"]["R²"]
    assert_allclose(value, r2_score(y_te, pred), rtol=1e-9, atol=1e-12)
    old = _own_mean_r2(y_te, pred, 2, res["n_boot"])
    width = old[1] - old[0]
    # the own-mean SST is smaller by (ȳ_b - ȳ)² n, of expectation SST/n: R² lower by about (1 - R²)/n
    assert_allclose([lo, hi], old, atol=0.1 * width)
    assert lo <= value <= hi
