"""LOFO's "add a permuted version of the variable and relearn" variant (Molnar, LOFO chapter):
known answers from the chapter's statements, the engine's permutation, seeds and n_jobs."""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

import imlkit as ik
from imlkit.importance._refit import permute_columns


@pytest.fixture(scope="module")
def copy_data():
    """y = 3·temp + hum + N(0, 1); temp_copy is an exact copy of temp; wind is noise."""
    rng = np.random.default_rng(0)
    n = 600
    X = pd.DataFrame(rng.normal(size=(n, 3)), columns=["temp", "hum", "wind"])
    X["temp_copy"] = X["temp"]
    y = (3 * X["temp"] + X["hum"] + rng.normal(size=n)).to_numpy()
    return X.iloc[:400], y[:400], X.iloc[400:], y[400:]


def _imp(r):
    return dict(zip(r.feature_names, r.importance))


def test_exact_copy_is_near_zero_in_both_variants(copy_data):
    """The chapter: a perfect copy makes both copies' LOFO ≈ 0, because the learner relies on the
    other copy; permuting one copy instead of dropping it leaves the other copy too."""
    Xtr, ytr, Xte, yte = copy_data
    shared = {}
    for variant in ("drop", "permuted_copy"):
        imp = _imp(ik.lofo(LinearRegression(), Xtr, ytr, Xte, yte, variant=variant, random_state=0))
        group = ik.lofo(LinearRegression(), Xtr, ytr, Xte, yte, variant=variant, random_state=0,
                        features={"temp": ["temp", "temp_copy"]})
        shared[variant] = group.importance[0]
        # the shared importance is beta² Var(temp) = 9 (within sampling error of 200 test rows)
        assert_allclose(shared[variant], 9.0, rtol=0.2)
        # each copy alone: at most 1% of the shared importance (drop: exactly the same column
        # space; permuted: the refit puts a weight of order 1/sqrt(n_train) on the permuted copy)
        assert abs(imp["temp"]) < 0.01 * shared[variant]
        assert abs(imp["temp_copy"]) < 0.01 * shared[variant]
    # the group permuted together removes the same information as the group dropped
    assert_allclose(shared["permuted_copy"], shared["drop"], rtol=0.02)


def test_linear_model_independent_features_variants_agree(copy_data):
    """For OLS with independent features the permuted column gets a weight β̃ ~ N(0, σ_-j²/(n Var x)),
    σ_-j² the error variance of the model without x_j, so the permuted variant exceeds the drop
    variant by about β̃² Var(x) ~ σ_-j²/n_train · χ²_1: below 10.8·σ_-j²/n_train with probability
    0.999. The bound used is 12·e_j/n_train, e_j the drop variant's reduced test loss."""
    Xtr, ytr, Xte, yte = copy_data
    cols = ["temp", "hum", "wind"]
    for seed in (0, 1):
        d = ik.lofo(LinearRegression(), Xtr[cols], ytr, Xte[cols], yte, variant="drop", random_state=seed)
        p = ik.lofo(LinearRegression(), Xtr[cols], ytr, Xte[cols], yte, variant="permuted_copy",
                    random_state=seed)
        bound = 12 * (d.baseline_loss + d.importance) / len(Xtr)
        assert np.all(np.abs(p.importance - d.importance) <= bound), (p.importance, d.importance, bound)
        assert p.importance[0] > 7 and p.importance[1] > 0.5  # temp (β²=9) and hum (β²=1) stay important
    assert p.params["variant"] == "permuted_copy" and d.params["variant"] == "drop"
    assert "permuted copy" in p.explain() and "permuted copy" not in d.explain()


def test_the_permutation_is_another_source_of_randomness(copy_data):
    """The chapter: the variant "introduces another source of uncertainty (the permutation itself
    is random)". A deterministic learner refitted three times gives three identical drop-LOFOs
    but three different permuted-copy LOFOs; the same random_state repeats them exactly."""
    Xtr, ytr, Xte, yte = copy_data
    cols = ["temp", "hum", "wind"]
    d = ik.lofo(LinearRegression(), Xtr[cols], ytr, Xte[cols], yte, n_refits=3, random_state=0)
    p = ik.lofo(LinearRegression(), Xtr[cols], ytr, Xte[cols], yte, n_refits=3, random_state=0,
                variant="permuted_copy")
    assert_allclose(d.repeats, d.repeats[:, :1] * np.ones((1, 3)), rtol=1e-12, atol=1e-12)
    assert np.all(np.ptp(p.repeats, axis=1) > 1e-6)
    again = ik.lofo(LinearRegression(), Xtr[cols], ytr, Xte[cols], yte, n_refits=3, random_state=0,
                    variant="permuted_copy")
    assert_array_equal(again.repeats, p.repeats)
    other = ik.lofo(LinearRegression(), Xtr[cols], ytr, Xte[cols], yte, n_refits=3, random_state=1,
                    variant="permuted_copy")
    assert not np.allclose(other.repeats, p.repeats)
    assert not any("permutation" in w for w in p.warnings)  # n_refits > 1: no one-draw warning
    one = ik.lofo(LinearRegression(), Xtr[cols], ytr, Xte[cols], yte, variant="permuted_copy")
    assert any("one permutation" in w and "n_refits" in w for w in one.warnings)


@pytest.mark.slow
def test_n_jobs_and_cv_do_not_change_the_numbers(copy_data):
    Xtr, ytr, _, _ = copy_data
    kw = dict(variant="permuted_copy", cv=3, n_refits=2, random_state=4)
    a = ik.lofo(LinearRegression(), Xtr, ytr, n_jobs=1, **kw)
    b = ik.lofo(LinearRegression(), Xtr, ytr, n_jobs=2, **kw)
    assert_array_equal(a.importance, b.importance)
    assert_array_equal(a.repeats, b.repeats)


def test_pipeline_that_names_its_columns(copy_data):
    """A ColumnTransformer listing its columns cannot be refitted without one; permuting keeps
    every column, and the numbers match the neutralised drop for a linear model (bound as above)."""
    Xtr, ytr, Xte, yte = copy_data
    cols = ["temp", "hum", "wind"]

    def learner():
        return Pipeline([("prep", ColumnTransformer([("num", StandardScaler(), cols)])),
                         ("fit", LinearRegression())])

    d = ik.lofo(learner, Xtr[cols], ytr, Xte[cols], yte, random_state=0)
    p = ik.lofo(learner, Xtr[cols], ytr, Xte[cols], yte, variant="permuted_copy", random_state=0)
    bound = 12 * (d.baseline_loss + d.importance) / len(Xtr)
    assert np.all(np.abs(p.importance - d.importance) <= bound), (p.importance, d.importance, bound)


def test_permute_columns_permutes_rows_of_a_group_together():
    rng = np.random.default_rng(0)
    tr = pd.DataFrame({"a": np.arange(50.0), "b": np.arange(50.0) * 10, "c": rng.normal(size=50)},
                      index=np.arange(100, 150))
    te = tr.iloc[:20].copy()
    seed = np.random.SeedSequence(7)
    p_tr, p_te = permute_columns(tr, te, ["a", "b"], seed)
    for src, out in ((tr, p_tr), (te, p_te)):
        assert_array_equal(np.sort(out["a"]), np.sort(src["a"]))  # a permutation of the values
        assert not np.array_equal(out["a"].to_numpy(), src["a"].to_numpy())
        assert_array_equal(out["b"], out["a"] * 10)                  # the group moved together
        assert_array_equal(out["c"], src["c"])                       # other columns untouched
        assert_array_equal(out.index, src.index)
    assert_array_equal(tr["a"], np.arange(50.0))  # inputs not modified
    # the seed is not consumed: the same SeedSequence gives the same permutation again
    again, _ = permute_columns(tr, te, ["a", "b"], seed)
    assert_array_equal(again["a"], p_tr["a"])


def test_variant_is_checked(copy_data):
    Xtr, ytr, Xte, yte = copy_data
    with pytest.raises(ik.ValidationError, match="'variant' must be one of"):
        ik.lofo(LinearRegression(), Xtr, ytr, Xte, yte, variant="permute")
