"""SAGE's empty coalition and the constant model (truth review rev7/r2, findings 1 and 10).

f_∅ = E[f(X)], the model's mean prediction (Covert et al. 2020). Estimated by the mean over the B background
rows, a convex loss of it is biased upward (Jensen; engel, 16 rows: 64,700 for 51,232): conditional SAGE and
one feature's SAGE take it from every explained row instead, so their values sum, in every ordering, exactly
to the loss of the model's mean prediction minus the model's. Marginal SAGE of several features keeps the
background's mean, the one f_∅ under which a feature the model does not use is a null player exactly.
"""
import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from numpy.testing import assert_allclose
from sklearn.datasets import load_iris
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

import imlkit as ik
from imlkit.importance._sage import _sage_batch
from imlkit.importance._sage_value import GameOptions, build_game, players_of_features
from imlkit.report import _claims as cl
from imlkit.report._context import DataOutputs, EffectsOutputs, ImportanceOutputs, ModelCheck


def _engel():
    """statsmodels' engel (foodexp on income, 235 rows): a boosted model fitted on 164 rows, the other 71 explained."""
    d = sm.datasets.engel.load_pandas().data
    rng = np.random.default_rng(0)
    test = np.zeros(len(d), dtype=bool)
    test[rng.choice(len(d), 71, replace=False)] = True
    model = HistGradientBoostingRegressor(random_state=0).fit(d.loc[~test, ["income"]], d.loc[~test, "foodexp"])
    return model, d.loc[test, ["income"]].reset_index(drop=True), d.loc[test, "foodexp"].to_numpy()


def _squared_total(model, X, y):
    pred = model.predict(X)
    return np.mean((y - pred.mean()) ** 2) - np.mean((y - pred) ** 2)


def _iris():
    X, y = load_iris(return_X_y=True, as_frame=True)
    idx = np.random.default_rng(1).permutation(len(X))
    fit, ev = idx[:90], idx[90:]
    return X.iloc[fit], y.iloc[fit].to_numpy(), X.iloc[ev].reset_index(drop=True), y.iloc[ev].to_numpy()


def _log_total(model, X, y):
    P = model.predict_proba(X)
    labels = list(model.classes_)
    return log_loss(y, np.tile(P.mean(axis=0), (len(y), 1)), labels=labels) - log_loss(y, P, labels=labels)


@pytest.mark.parametrize("removal", ["marginal", "conditional"])
@pytest.mark.parametrize("exact", [False, True])
def test_one_feature_is_the_loss_of_the_mean_prediction_minus_the_models(removal, exact):
    # engel's one feature: SAGE's value is v(N) = R(mean prediction) - R(model) on these rows, whatever the
    # background draw (the report's 50,600 and 64,700 for one total of ~51,200 came from 32 and 16 rows' means)
    model, X, y = _engel()
    total = _squared_total(model, X, y)
    gaps = []
    for seed in range(4):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = ik.sage(model, X, y, loss="squared_error", removal=removal, n_background=16, exact=exact,
                        max_permutations=64, random_state=seed)
        assert r.extra["empty"] == "rows"
        assert_allclose(r.importance[0], total, rtol=1e-10)
        assert_allclose(r.extra["v_all"], total, rtol=1e-10)
        assert_allclose(r.ci_high[0] - r.ci_low[0], 0, atol=1e-10 * total)
        gaps.append(r.extra["loss_empty_background"] - r.extra["loss_empty_rows"])
    # the old estimate (the 16 background rows' mean prediction) moves with the draw: it fails the tests above
    assert max(np.abs(gaps)) > 0.01 * total, gaps


@pytest.mark.parametrize("removal", ["marginal", "conditional"])
def test_one_feature_log_loss_of_three_classes(removal):
    Xf, yf, X, y = _iris()
    model = LogisticRegression(max_iter=1000).fit(Xf[["petal length (cm)"]], yf)
    Xe = X[["petal length (cm)"]]
    total = _log_total(model, Xe, y)
    r = ik.sage(model, Xe, y, loss="log_loss", removal=removal, n_background=4, max_permutations=16, random_state=0)
    assert_allclose(r.importance[0], total, rtol=1e-10)
    assert_allclose(r.extra["loss_empty"], log_loss(y, np.tile(model.predict_proba(Xe).mean(axis=0), (len(y), 1))),
                    rtol=1e-10)
    # 4 background rows' mean probability vector: a larger loss (here by more than 10% of the total)
    assert r.extra["loss_empty_background"] - r.extra["loss_empty_rows"] > 0.1 * total


@pytest.mark.parametrize("loss", ["squared_error", "log_loss"])
def test_conditional_values_sum_to_the_total_in_every_ordering(loss):
    Xf, yf, X, y = _iris()
    if loss == "log_loss":
        model = LogisticRegression(max_iter=1000).fit(Xf, yf)
        total = _log_total(model, X, y)
    else:  # petal width from the other three measurements
        yf, y = Xf.pop("petal width (cm)").to_numpy(), X.pop("petal width (cm)").to_numpy()
        model = HistGradientBoostingRegressor(max_iter=30, random_state=0).fit(Xf, yf)
        total = _squared_total(model, X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = ik.sage(model, X, y, loss=loss, removal="conditional", n_background=8, max_permutations=64,
                      batch_size=32, random_state=0)
    ex = ik.sage(model, X, y, loss=loss, removal="conditional", n_background=8, exact=True, random_state=0)
    for r in (est, ex):
        assert_allclose(r.importance.sum(), total, rtol=1e-10)
        assert_allclose(r.extra["v_all"], total, rtol=1e-10)
    # every ordering's credits telescope to the row's own loss reduction against the mean prediction
    game, _ = build_game(model, X, y, players_of_features(None),
                         GameOptions(loss=loss, removal="conditional", sampler=None, n_background=8, background=None,
                                     max_rows=None), np.random.SeedSequence(0))
    game.empty_from_rows()
    z = _sage_batch(game, 40, False, np.random.SeedSequence(1))
    rows = np.arange(len(X))
    d = game.pointwise_loss(rows, np.broadcast_to(game.empty_pred, (len(X),) + game.empty_pred.shape)) \
        - game.pointwise_loss(rows, game.full_pred)
    assert_allclose(z[:, :-1].sum(axis=1), z[:, -1], rtol=1e-10, atol=1e-12)
    nearest = np.abs(z[:, -1][:, None] - d[None, :]).min(axis=1)
    assert nearest.max() <= 1e-12 * np.abs(d).max()
    assert_allclose(d.mean(), total, rtol=1e-10)


def test_marginal_of_several_features_keeps_an_unused_feature_at_exactly_0():
    # marginal removal of several players: f_∅ stays the background's mean (a feature the model does not use is
    # then a null player exactly); its values sum to that sample's total, recorded beside the rows' total
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["a", "b", "unused"])
    y = X["a"] + 0.5 * X["b"] ** 2 + 0.3 * rng.normal(size=300)

    def f(A):
        return A["a"].to_numpy() + 0.5 * A["b"].to_numpy() ** 2

    r = ik.sage(f, X, y, loss="squared_error", n_background=8, exact=True, random_state=0)
    assert r.extra["empty"] == "background"
    assert_allclose(r.importance[2], 0, atol=1e-12)
    assert_allclose(r.importance.sum(), r.extra["loss_empty_background"] - r.baseline_loss, rtol=1e-10)
    pred = f(X)
    rows_total = np.mean((y - pred.mean()) ** 2) - np.mean((y - pred) ** 2)
    assert_allclose(r.extra["loss_empty_rows"] - r.baseline_loss, rows_total, rtol=1e-10)
    # the report's yardstick is the rows' total, not the sample's
    assert_allclose(cl.sage_total(r.extra), rows_total, rtol=1e-10)
    assert_allclose(cl.explained_loss(r), rows_total, rtol=1e-10)


def test_peer_sage_importance_with_every_row_as_background_agrees():
    # Covert's sage-importance takes f_∅ from its imputer's background; with every explained row as that
    # background its empty coalition is the rows' mean prediction, and one feature's value is our total
    sage_lib = pytest.importorskip("sage")
    model, X, y = _engel()
    ours = ik.sage(model, X, y, loss="squared_error", n_background=16, random_state=0)
    imputer = sage_lib.MarginalImputer(lambda A: model.predict(pd.DataFrame(A, columns=["income"])), X.to_numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = sage_lib.PermutationEstimator(imputer, "mse", random_state=0)(
            X.to_numpy(), y, batch_size=256, detect_convergence=False, n_permutations=4096, bar=False)
    # their empty coalition with that background is our f_∅: the same loss to rounding
    empty = imputer(X.to_numpy(), np.zeros((len(X), 1), dtype=bool))
    assert_allclose(ours.extra["loss_empty"], np.mean((y - np.ravel(empty)) ** 2), rtol=1e-10)
    # theirs samples rows (with replacement): within 4 of its standard errors
    assert abs(theirs.values[0] - ours.importance[0]) <= 4 * theirs.std[0], (theirs.values, theirs.std, ours.importance)


def _stackloss_constant():
    """stackloss with a boosted model fitted on 14 rows: min_samples_leaf=20 allows no split, one prediction."""
    d = sm.datasets.stackloss.load_pandas().data
    X, y = d.drop(columns="STACKLOSS"), d["STACKLOSS"].to_numpy()
    model = HistGradientBoostingRegressor(random_state=0).fit(X.iloc[:14], y[:14])
    return model, X.iloc[14:].reset_index(drop=True), y[14:]


@pytest.mark.parametrize("removal", ["marginal", "conditional"])
@pytest.mark.parametrize("exact", [False, True])
def test_a_constant_model_stops_at_once_with_every_value_0(removal, exact):
    model, X, y = _stackloss_constant()
    assert np.ptp(model.predict(X)) == 0
    with pytest.warns(UserWarning, match="Every value is 0 and no ordering was sampled: the model is constant"):
        r = ik.sage(model, X, y, loss="squared_error", removal=removal, n_background=32, exact=exact,
                    max_permutations=1024, random_state=0)
    assert_allclose(r.importance, 0, atol=0)
    assert_allclose(r.std, 0, atol=0)
    assert r.extra["converged"] and r.extra["n_permutations"] == 0 and r.extra["v_all"] == 0
    assert_allclose(r.extra["constant_prediction"], model.predict(X)[0])
    assert "constant on these rows" in r.explain() and "42 coalitions" in r.explain()  # 7 rows x 6 coalitions
    assert not any("did not converge" in w for w in r.warnings)


def test_a_constant_classifier_stops_with_every_value_0():
    Xf, yf, X, y = _iris()
    model = DummyClassifier(strategy="prior").fit(Xf, yf)
    with pytest.warns(UserWarning, match="model is constant on these rows"):
        r = ik.sage(model, X, y, loss="log_loss", n_background=8, random_state=0)
    assert_allclose(r.importance, 0, atol=0)
    assert r.extra["n_permutations"] == 0


def test_a_label_model_that_always_says_one_class_stops_with_every_value_0():
    Xf, yf, X, y = _iris()
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    # 60 rows x 14 coalitions = 840 pairs > one batch's 256 x (4 - 1): that many are drawn
    with pytest.warns(UserWarning, match="predicts the label 'setosa' for each of the 60 rows and 768 of their"):
        r = ik.sage(lambda A: np.full(len(A), "setosa"), X, names, loss="zero_one", n_background=8, random_state=0)
    assert_allclose(r.importance, 0, atol=0)
    assert r.extra["n_permutations"] == 0


def test_a_model_constant_on_the_rows_but_not_on_their_coalitions_is_sampled():
    # x0 == x1 on every row: f = x0 - x1 predicts 0 on the rows, but not on the hybrid rows of its coalitions,
    # where marginal SAGE's values are not 0 (y = x0 + noise: v({x0}) ~ +1, v({x1}) ~ -3, so φ ~ (2, -2)) -- no
    # "constant" shortcut there
    rng = np.random.default_rng(0)
    a = rng.normal(size=200)
    X = pd.DataFrame({"x0": a, "x1": a})
    y = a + 0.1 * rng.normal(size=200)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = ik.sage(lambda A: A["x0"].to_numpy() - A["x1"].to_numpy(), X, y, loss="squared_error",
                    n_background=8, exact=True, random_state=0)
    assert not any("constant" in str(w.message) for w in caught)
    assert "constant_prediction" not in r.extra
    assert r.importance[0] > 1 and r.importance[1] < -1


# ---------------------------------------------------------------------- the report's sentences
def _ctx(results, y):
    return SimpleNamespace(importance=ImportanceOutputs(**results), effects=EffectsOutputs(h_overall=None),
                           data_outputs=DataOutputs(dependence_r2=None), model_check=ModelCheck(),
                           X_test=pd.DataFrame({"z": np.zeros(len(y))}), y_test=pd.Series(y))


def test_the_one_feature_reading_says_what_its_value_is(checked_reading):
    # engel: marginal (32 rows) and conditional (16 draws) SAGE of income are one number, the total; the reading
    # says which, and that no background row enters it
    model, X, y = _engel()
    total = _squared_total(model, X, y)
    results = {f"sage_{m}": ik.sage(model, X, y, loss="squared_error", removal=m, n_background=k,
                                    max_permutations=64, random_state=0)
               for m, k in (("marginal", 32), ("conditional", 16))}
    for r in results.values():
        assert_allclose(r.importance[0], total, rtol=1e-10)
    claims = checked_reading(_ctx(results, y))
    flat = next(c for c in claims if c.kind == "zero_width")
    text = flat.text()
    assert cl.num(total) in text  # both values shown are the total
    assert "exactly the loss of the model's mean prediction over these rows minus the model's" in text
    assert "no background row enters it" in text
    assert "exactly what the features explain together" not in text  # the old wording
    rules = next(c for c in claims if c.kind == "rules").text()
    assert "SAGE (conditional)'s values sum to it exactly" in rules
    assert ("SAGE (conditional)'s intervals cover the sampling of feature orderings and of its conditional draws, "
            "not that of the sampler's fit to these rows") in rules


def test_rules_say_marginal_sums_to_its_backgrounds_total_with_the_numbers():
    c = cl.Claim("rules", methods=("sage_marginal",), numbers=dict(
        important_share=cl.IMPORTANT_SHARE, negligible_share=cl.NEGLIGIBLE_SHARE, loss_share=cl.LOSS_SHARE,
        sage_totals={"sage_marginal": (2.37, 2.24, 32)}))
    text = c.text()
    assert "SAGE (marginal)'s values sum to it exactly for a single feature" in text
    assert "its values sum to the loss of that sample's mean prediction minus the model's" in text
    assert "(here 2.37 over 32 background rows against 2.24)" in text
    assert cl.check(c) == []


def test_rules_say_what_marginal_sums_to_with_a_background_per_ordering():
    """sage8: marginal SAGE draws a fresh background per ordering; its values sum to the mean over the orderings of
    their backgrounds' totals, corrected for squared error and Brier -- not "that sample's" total."""
    c = cl.Claim("rules", methods=("sage_marginal",), numbers=dict(
        important_share=cl.IMPORTANT_SHARE, negligible_share=cl.NEGLIGIBLE_SHARE, loss_share=cl.LOSS_SHARE,
        sage_totals={"sage_marginal": (2.31, 2.24, 32, "backgrounds", True)}))
    text = c.text()
    assert ("each ordering takes the prediction without any feature from its own 32 background rows, drawn afresh"
            in text)
    assert ("corrected for the variance of a 32-row mean so that it estimates this total without bias (here 2.31 "
            "against 2.24)") in text
    assert "that sample's mean prediction" not in text
    assert "SAGE (marginal)'s intervals cover the sampling of feature orderings and of the background rows" in text
    assert cl.check(c) == []


def test_marginal_sage_records_a_background_per_ordering_and_its_sum():
    model, X, y = _engel()
    X2 = X.assign(noise=np.random.default_rng(0).normal(size=len(X)))
    from sklearn.linear_model import LinearRegression

    m2 = LinearRegression().fit(X2, y)
    r = ik.sage(m2, X2, y, loss="squared_error", n_background=16, random_state=0)
    assert r.extra["empty"] == "backgrounds" and r.extra["background_per_ordering"]
    assert_allclose(r.importance.sum(), r.extra["v_all"], rtol=1e-9)


def test_an_explicit_background_one_feature_is_not_called_free_of_sampling():
    model, X, y = _engel()
    r = ik.sage(model, X, y, loss="squared_error", background=X.iloc[:8], random_state=0)
    assert r.extra["empty"] == "background"
    assert_allclose(r.importance[0], r.extra["loss_empty_background"] - r.baseline_loss, rtol=1e-10)
    e = cl.evidence(r, y)["income"]
    c = cl.Claim("zero_width", ("income",), methods=(r.method,), evidence=(e,), numbers=dict(why="one_feature"))
    assert "other background rows would give another value" in c.text()
    assert "nothing left to vary" not in c.text()
