"""Review r2 (rev8), findings 1 and 5: the GLM's intervals and p-values with an estimated dispersion, and its
collinearity words on few fitted rows.

1. A gaussian GLM on the 22 training rows of scotland read "Increasing COUTAX by one unit changes the expected YES by
   -0.157 [-0.306, -0.00815]" (normal quantile, p 0.039) while statsmodels OLS on the same rows gives the t(14)
   interval [-0.320, 0.0059], p 0.058, and the closing line itself said the intervals cover 93.0%, not 95%. With an
   estimated dispersion the intervals and p-values now use Student's t on the residual df (R's summary.glm,
   statsmodels OLS / GLM(use_t=True)); a known dispersion (binomial, poisson) and HC3 keep the normal (statsmodels'
   defaults).
5. On committee's 10 training rows (4 regressors) the reading said "SUBS depends on the other columns (R² 0.83 from
   them) ... 41% of its standard deviation", an R² the project's rule (fewer than 5 rows per regressor) calls
   uninformative, and the data section's 0.663 on all 20 rows contradicted. Below that rule the reading now judges no
   column's dependence and says why once; above it, it names the rows the R² comes from.

Known answers: statsmodels OLS and GLM on the same design; the t quantile.
"""
import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from imlkit._dependence import MIN_ROWS_PER_REGRESSOR
from imlkit.models import GLM

sm = pytest.importorskip("statsmodels.api")


def _closing(m):
    return [s for s in m.interpret() if s.startswith("Intervals in brackets")][0]


def _scotland_train():
    from sklearn.model_selection import train_test_split

    d = sm.datasets.scotland.load_pandas().data
    X, y = d.drop(columns="YES"), d["YES"]
    Xtr, _, ytr, _ = train_test_split(X, y, test_size=0.3, random_state=0)
    return Xtr, ytr


def _committee_train():
    from sklearn.model_selection import train_test_split

    d = sm.datasets.committee.load_pandas().data
    X, y = d.drop(columns="BILLS104"), d["BILLS104"]
    Xtr, _, ytr, _ = train_test_split(X, y, test_size=0.5, random_state=0)
    return Xtr, ytr


# ----------------------------------------------------------------------------- finding 1: t with an estimated scale
@pytest.mark.parametrize("rows", [slice(0, 25), slice(0, 13)])
def test_gaussian_glm_equals_ols_intervals_and_p_values(rows):
    """copper (statsmodels), 25 and 13 rows: the gaussian GLM's summary is OLS's to 1e-8."""
    d = sm.datasets.copper.load_pandas().data.iloc[rows]
    X, y = d.drop(columns="WORLDCONSUMPTION"), d["WORLDCONSUMPTION"]
    m = GLM(covariance="model").fit(X, y)
    ols = sm.OLS(y, sm.add_constant(X)).fit()
    s = m.summary()
    assert_allclose(s["weight"], ols.params, rtol=1e-8)
    assert_allclose(s["std_error"], ols.bse, rtol=1e-8)
    assert_allclose(s[["ci_low", "ci_high"]].to_numpy(), ols.conf_int().to_numpy(), rtol=1e-8)
    assert_allclose(s["statistic"], ols.tvalues, rtol=1e-8)
    assert_allclose(s["p_value"], ols.pvalues, rtol=1e-8)
    assert s.attrs["reference"] == "t" and s.attrs["df"] == ols.df_resid
    # the intervals cover at their level (t), so nothing is said of a shortfall
    assert_allclose(m.wald_coverage_, 0.95, rtol=1e-12)
    assert m.coverage_words() == ""
    # contrast: the same t quantile (the prediction at the column means, OLS's get_prediction)
    c = np.r_[1.0, X.mean().to_numpy()]
    est, se, lo, hi = m.contrast(c)
    pred = ols.get_prediction(c[None, :]).summary_frame(alpha=0.05)
    assert_allclose([est, lo, hi], pred[["mean", "mean_ci_lower", "mean_ci_upper"]].to_numpy().ravel(), rtol=1e-8)


def test_scotland_coutax_reads_the_t_interval_that_holds_zero():
    """The finding's sentence: COUTAX on scotland's 22 training rows, OLS t(14) [-0.320, 0.0059], p 0.058."""
    Xtr, ytr = _scotland_train()
    m = GLM().fit(Xtr, ytr)
    assert m.covariance_ == "model"  # Breusch–Pagan does not reject here: the model's covariance
    ols = sm.OLS(ytr, sm.add_constant(Xtr)).fit()
    lo, hi = ols.conf_int().loc["COUTAX"]
    assert lo < 0 < hi
    assert_allclose(m.summary().loc["COUTAX", ["ci_low", "ci_high", "p_value"]].to_numpy(dtype=float),
                    [lo, hi, ols.pvalues["COUTAX"]], rtol=1e-8)
    said = [s for s in m.interpret() if s.startswith("Increasing COUTAX by one unit")][0]
    assert "(not distinguishable from 0" in said
    last = _closing(m)
    assert "coverage" not in last
    assert last.startswith("Intervals in brackets are 95% Wald intervals from Student's t on 14 residual df, as the "
                           "dispersion is estimated")


@pytest.mark.filterwarnings("ignore:The InversePower link")
def test_gamma_glm_equals_statsmodels_use_t():
    """scotland (statsmodels' gamma example), all 32 rows: intervals and p-values of GLM(Gamma).fit(use_t=True)."""
    d = sm.datasets.scotland.load_pandas().data
    X, y = d.drop(columns="YES"), d["YES"]
    for link, sm_link in [("log", sm.families.links.Log()), ("inverse", sm.families.links.InversePower())]:
        m = GLM(family="gamma", link=link, covariance="model").fit(X, y)
        ref = sm.GLM(y, sm.add_constant(X), family=sm.families.Gamma(sm_link)).fit(use_t=True)
        s = m.summary()
        assert_allclose(s["weight"], ref.params, rtol=1e-6)
        assert_allclose(s["std_error"], ref.bse, rtol=1e-5)
        assert_allclose(s[["ci_low", "ci_high"]].to_numpy(), ref.conf_int().to_numpy(), rtol=1e-5)
        assert_allclose(s["p_value"], ref.pvalues, rtol=1e-4)
        assert s.attrs["reference"] == "t" and s.attrs["df"] == ref.df_resid == 32 - 8


def test_known_dispersion_keeps_normal_and_pearson_dispersion_uses_t():
    """binomial (spector) and poisson keep statsmodels' default normal inference; dispersion='pearson' (quasi-poisson)
    estimates it, so t on the residual df (R's quasipoisson summary; statsmodels fit(scale='X2', use_t=True))."""
    d = sm.datasets.spector.load_pandas().data
    X, y = d.drop(columns="GRADE"), d["GRADE"]
    m = GLM(family="binomial").fit(X, y)
    ref = sm.GLM(y, sm.add_constant(X), family=sm.families.Binomial()).fit()
    s = m.summary()
    assert s.attrs["reference"] == "normal" and np.isnan(s.attrs["df"])
    assert_allclose(s[["ci_low", "ci_high"]].to_numpy(), ref.conf_int().to_numpy(), rtol=1e-6)
    assert_allclose(s["p_value"], ref.pvalues, rtol=1e-5)
    assert "Student's t" not in _closing(m)

    rng = np.random.default_rng(3)
    Xp = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40)})
    yp = rng.negative_binomial(2, 2 / (2 + np.exp(1 + 0.4 * Xp["a"])))
    for disp, kw in [("family", {}), ("pearson", {"scale": "X2", "use_t": True})]:
        mp = GLM(family="poisson", dispersion=disp).fit(Xp, yp)
        refp = sm.GLM(yp, sm.add_constant(Xp), family=sm.families.Poisson()).fit(**kw)
        sp = mp.summary()
        assert_allclose(sp[["ci_low", "ci_high"]].to_numpy(), refp.conf_int().to_numpy(), rtol=1e-6)
        assert_allclose(sp["p_value"], refp.pvalues, rtol=1e-5)
        assert sp.attrs["reference"] == ("t" if disp == "pearson" else "normal")
    assert "from Student's t on 37 residual df with the dispersion estimated from the Pearson" in _closing(mp)


def test_hc3_keeps_the_normal_as_statsmodels_ols_default():
    """covariance='HC3' on a gaussian GLM: OLS(...).fit(cov_type='HC3') (use_t False by default: normal)."""
    d = sm.datasets.copper.load_pandas().data.iloc[:20]
    X, y = d.drop(columns="WORLDCONSUMPTION"), d["WORLDCONSUMPTION"]
    m = GLM(covariance="HC3").fit(X, y)
    hc3 = sm.OLS(y, sm.add_constant(X)).fit(cov_type="HC3")
    assert not hc3.use_t
    s = m.summary()
    assert s.attrs["reference"] == "normal"
    assert_allclose(s[["ci_low", "ci_high"]].to_numpy(), hc3.conf_int().to_numpy(), rtol=1e-7)
    assert_allclose(s["p_value"], hc3.pvalues, rtol=1e-6)
    assert "Student's t" not in _closing(m)


def test_product_term_p_value_is_the_t_one():
    """The product-term sentence's p-value and verdict use the same t as the table (OLS's for a:b)."""
    rng = np.random.default_rng(0)
    n = 24
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    y = 1 + X["a"] + 0.5 * X["b"] + 0.45 * X["a"] * X["b"] + rng.normal(size=n)
    m = GLM(interactions=[("a", "b")], covariance="model").fit(X, y)
    D = sm.add_constant(X.assign(ab=X["a"] * X["b"]))
    ols = sm.OLS(y, D).fit()
    s = m.summary()
    assert_allclose(s.loc["a:b", "p_value"], ols.pvalues["ab"], rtol=1e-8)
    said = [x for x in m.interpret() if x.startswith("The product term a:b")][0]
    from imlkit._display import p_is

    assert f"(p {p_is(ols.pvalues['ab'])})" in said
    lo, hi = ols.conf_int().loc["ab"]
    assert ("not distinguishable from 0" in said) == (lo <= 0 <= hi)


# ----------------------------------------------------------------------------- finding 5: undersized collinearity
def test_committee_reading_does_not_judge_dependence_on_ten_rows():
    Xtr, ytr = _committee_train()
    m = GLM().fit(Xtr, ytr)
    tab = m.collinearity_
    assert tab.attrs["n_rows"] == 10 and tab.attrs["n_regressors"] == 4
    assert 10 < MIN_ROWS_PER_REGRESSOR * 4 and not tab.attrs["judged"]
    # the R² is still in the table (0.833 on these rows: statsmodels OLS of SUBS on the other four)
    others = Xtr.drop(columns="SUBS")
    want = sm.OLS(Xtr["SUBS"], sm.add_constant(others)).fit().rsquared
    assert_allclose(tab.loc["SUBS", "r_squared"], want, rtol=1e-8)
    text = m.interpret()
    assert not any("depends on the other columns" in s or "is collinear with" in s for s in text)
    last = _closing(m)
    assert ("the dependence between the columns is not judged: 10 fitted rows for 4 regressors (fewer than "
            f"{MIN_ROWS_PER_REGRESSOR} rows per regressor)") in last
    assert f"d / (n − 1) = {4 / 9:.2f}" in last
    # the PRESTIGE interval is the t(4) one, holding 0 (OLS: [-346.2, 29.4], p 0.079)
    said = [s for s in text if s.startswith("Increasing PRESTIGE by one unit")][0]
    assert "[-346.2, 29.4] (not distinguishable from 0" in said


def test_enough_rows_name_the_rows_of_the_r2():
    """With 5 rows per regressor or more the dependence clause stays, and says which rows its R² is from."""
    rng = np.random.default_rng(1)
    n = 60
    a = rng.normal(size=n)
    X = pd.DataFrame({"a": a, "b": a + 0.6 * rng.normal(size=n), "c": rng.normal(size=n)})
    y = X.sum(axis=1) + rng.normal(size=n)
    m = GLM().fit(X, y)
    assert m.collinearity_.attrs["judged"]
    r2 = m.collinearity_.loc["b", "r_squared"]
    assert 0.5 <= r2 < 0.9
    s = [x for x in m.interpret() if x.startswith("Increasing b by one unit")][0]
    assert f"b depends on the other columns (R² {r2:.2f} from them on the {n} fitted rows)" in s
    assert "not judged" not in _closing(m)


def test_undersized_note_only_when_a_clause_was_withheld():
    """Few rows but no column near the clause's R²: nothing withheld, nothing said."""
    rng = np.random.default_rng(2)
    n = 12
    Z = rng.normal(size=(n, 4))
    Z -= Z.mean(axis=0)
    X = pd.DataFrame(np.linalg.qr(Z)[0] * 5, columns=["a", "b", "c", "e"])  # centred, orthogonal: R² 0
    y = X.sum(axis=1) + rng.normal(size=n)
    m = GLM().fit(X, y)
    tab = m.collinearity_
    assert tab.attrs["n_regressors"] == 3 and not tab.attrs["judged"]
    assert_allclose(tab["r_squared"].iloc[1:], 0, atol=1e-10)
    assert "not judged" not in _closing(m)
    s = m.summary()
    assert s.attrs["df"] == n - 5
    assert_allclose(s["ci_high"] - s["weight"], stats.t.ppf(0.975, n - 5) * s["std_error"], rtol=1e-12)
    # the same columns made dependent: the note appears, and no clause
    X["e"] = X["a"] + 0.3 * X["e"]
    m = GLM().fit(X, y)
    assert m.collinearity_.loc["e", "r_squared"] >= 0.5
    assert "the dependence between the columns is not judged: 12 fitted rows for 3 regressors" in _closing(m)
    assert not any("depends on the other columns" in x for x in m.interpret())
