"""PIMP takes an offered full fit (the report's model) for its model on the real target instead of refitting it.

The offer (``_refit.reuse_full_fit``) is taken only when the refit would repeat the model's fit: the
same learner type and parameters with fixed random states, the very training objects. The result must
then be the one of the run that refits (same seeds for the observed PFI and every null refit).
"""
import numpy as np
from numpy.testing import assert_allclose
from sklearn.tree import DecisionTreeRegressor

import imlkit as ik
from imlkit.importance._refit import reuse_full_fit


class _CountingTree(DecisionTreeRegressor):
    """A tree that counts its fits (class-level, so clones count too)."""

    fits = 0

    def fit(self, X, y, **kw):
        type(self).fits += 1
        return super().fit(X, y, **kw)


def _data(seed=0, n=300):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = 2.0 * X[:, 0] + X[:, 1] + 0.5 * rng.normal(size=n)
    return X[:200], y[:200], X[200:], y[200:]


def _run(learner, Xtr, ytr, Xte, yte):
    return ik.pimp(learner, Xtr, ytr, Xte, yte, n_null=12, n_repeats=2, distribution="empirical",
                   p_adjust=None, random_state=3)


def test_offered_full_fit_gives_the_refit_result_with_one_fit_less():
    Xtr, ytr, Xte, yte = _data()
    learner = _CountingTree(max_depth=4, random_state=0)
    _CountingTree.fits = 0
    plain = _run(learner, Xtr, ytr, Xte, yte)
    fits_plain = _CountingTree.fits
    model = _CountingTree(max_depth=4, random_state=0).fit(Xtr, ytr)
    _CountingTree.fits = 0
    with reuse_full_fit(model, Xtr, ytr) as record:
        given = _run(learner, Xtr, ytr, Xte, yte)
    assert record["used"] == 1
    assert fits_plain == 13 and _CountingTree.fits == 12   # 1 + 12 null refits, then the 12 null refits only
    assert_allclose(given.importance, plain.importance, rtol=0, atol=0)
    assert_allclose(given.extra["null"], plain.extra["null"], rtol=0, atol=0)
    assert_allclose(given.p_value, plain.p_value, rtol=0, atol=0)


def test_offer_not_taken_when_the_refit_would_differ():
    Xtr, ytr, Xte, yte = _data()
    model = _CountingTree(max_depth=4, random_state=0).fit(Xtr, ytr)
    # another depth (different parameters), a free random_state, or other training objects: refitted
    for learner, X_, y_ in ((_CountingTree(max_depth=3, random_state=0), Xtr, ytr),
                            (_CountingTree(max_depth=4), Xtr, ytr),
                            (_CountingTree(max_depth=4, random_state=0), Xtr.copy(), ytr)):
        _CountingTree.fits = 0
        with reuse_full_fit(model, Xtr, ytr) as record:
            _run(learner, X_, y_, Xte, yte)
        assert record["used"] == 0 and _CountingTree.fits == 13
