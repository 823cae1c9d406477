"""Seventh round (lead, claims7): a marginal-SAGE value entirely below 0 is not explained by credit sharing, and a
feature the fitted model does not use is not kept in the reading's list on another method's noise."""
import numpy as np
import pandas as pd
from sklearn.linear_model import LinearRegression

import imlkit as ik
from imlkit._dependence import dependence_r2
from imlkit.importance import ImportanceResult
from imlkit.report import _claims as cl
from imlkit.report._reading import disagreements


def _suppressor(n=800, seed=0):
    """x1 and x2 nearly copies (r ~ 0.96); y = 3 x2 - 2 x1: the model's effect of x1 given x2 (-2) runs against x1's
    own association with y (+1), as ISLP Credit's Income against Limit."""
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x2 = x1 + 0.3 * rng.normal(size=n)
    x3 = rng.normal(size=n)
    y = 3 * x2 - 2 * x1 + 0.5 * rng.normal(size=n)
    X = pd.DataFrame({"x1": x1, "x2": x2, "x3": x3})
    return X.iloc[:500], y[:500], X.iloc[500:].reset_index(drop=True), y[500:]


def test_a_marginal_sage_value_below_0_is_explained_by_how_the_others_are_removed():
    Xtr, ytr, Xte, yte = _suppressor()
    model = LinearRegression().fit(Xtr, ytr)
    pfi = ik.pfi(model, Xte, yte, n_repeats=10, random_state=0)
    sage = ik.sage(model, Xte, yte, removal="marginal", n_background=64, random_state=0)
    j = list(Xte.columns).index("x1")
    # the known answers behind the sentence: PFI of a linear model is 2 b^2 Var(x1) ~ 8 (> 0); marginal SAGE of x1 is
    # below 0 because in the coalition {x1} the model's -2 x1 (x2 drawn independently) runs against y's +1 x1
    assert pfi.ci_low[j] > 0
    assert sage.ci_high[j] < 0
    r2 = dependence_r2(Xte)
    assert r2["x1"] >= cl.R2_STRONG
    found = [d for d in disagreements({"pfi": pfi, "sage_marginal": sage}, r2=r2.to_dict(), X=Xte, y=yte)
             if d["feature"] == "x1"]
    assert found, "x1: important for PFI, entirely below 0 for marginal SAGE"
    text = found[0]["reason"]
    # the removal of the *others* is named as the cause, with SAGE's value and interval; credit sharing is not
    assert "how a method removes x1 itself does not explain this difference" in text
    assert "keeps them at their values" in text and "drawn without regard to x1 as well (x2 among them)" in text
    assert f"SAGE (marginal)'s value, {cl.num(sage.importance[j])} [" in text
    assert "cannot do (sharing only shrinks a positive value toward 0)" in text
    assert "what differs is what they measure it against" not in text


def test_the_dependence_claim_checks_its_below_0_numbers():
    c = cl.Claim("dependence", ("x1",), numbers=dict(high=("pfi",), low=("sage_marginal",), r2=0.9,
                                                      threshold=cl.R2_STRONG, below=(("sage_marginal", -1.0, -2.0,
                                                                                       0.5),)))
    assert cl.check(c) and "called entirely below 0" in cl.check(c)[0]


def _res(method, values, low, high, names):
    v = np.asarray(values, float)
    return ImportanceResult(method=method, feature_names=tuple(names), importance=v, std=0 * v,
                            ci_low=np.asarray(low, float), ci_high=np.asarray(high, float), loss="log_loss",
                            params={}, baseline_loss=0.69, extra={"v_all": 0.6, "converged": True})


def test_a_feature_the_model_does_not_use_is_not_filled_in_on_conditional_sage_noise():
    """ISLP Weekly with Today: Year 0 [0, 0] for PFI, CFI and marginal SAGE (the trees never use it), conditional SAGE
    0.0255 [-0.0345, 0.0854]: it was listed as "a positive estimate, not negligible" and read in sections 5 and 6."""
    names = ("Today", "Year", "Lag1")
    y = np.tile([0, 1], 50)
    zero_year = dict(values=[0.6, 0.0, 0.01], low=[0.55, 0.0, -0.02], high=[0.65, 0.0, 0.04])
    res = {m: _res(m, names=names, **zero_year) for m in ("pfi", "cfi", "sage_marginal")}
    res["sage_conditional"] = _res("sage_conditional", [0.6, 0.0255, 0.01], [0.55, -0.0345, -0.02],
                                   [0.65, 0.0854, 0.04], names)
    ranked = cl.ranked_features(res, y_of=lambda m: y, fill=True)
    assert "Year" not in [r.feature for r in ranked]
    # Lag1 is used by the model (PFI's interval reaches 0.04 = 6.7% of the largest): kept, and worded by its interval
    lag = next(r for r in ranked if r.feature == "Lag1")
    assert lag.n_important == 0 and set(lag.uncertain_for) == set(lag.open_for)
    words = cl.ranking_words(ranked)
    assert "not negligible" not in words
    assert "Lag1 (important for none of 4; a positive estimate whose intervals include 0 but reach too high to " \
           "call it negligible, for " in words
    # the same feature with PFI itself clearly above 0 but small keeps "not negligible" for that method
    res["pfi"] = _res("pfi", [0.6, 0.0, 0.04], [0.55, 0.0, 0.035], [0.65, 0.0, 0.045], names)
    words = cl.ranking_words(cl.ranked_features(res, y_of=lambda m: y, fill=True))
    assert "a positive estimate, not negligible, for PFI" in words
