"""Review r3 (rev8), finding 4: section 1 said "ALE and the conditional methods (CFI, conditional SAGE) stay within the
data" of features that are exact linear functions of several other columns (make_classification's redundant columns,
R² = 1.00), where the exact CFI is 0 and CFI's default subgroup sampler moves the feature off the relation (CFI 0.207
for x9 on cls100, 0.0000 with the Gaussian sampler). Synthetic data."""
import numpy as np
import pandas as pd
from numpy.testing import assert_allclose
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier

from imlkit.importance import cfi
from imlkit.report import ReportConfig
from imlkit.report._build import prepare_context
from imlkit.report._sec_data import section_data


def _exact_table():
    # 4 informative columns, 2 redundant (linear combinations of them): the 6 lie in a 4-dimensional subspace, so
    # each is an exact linear function of the 5 others; x3 and x4 are noise
    X, y = make_classification(n_samples=600, n_features=8, n_informative=4, n_redundant=2, n_classes=3,
                               shuffle=False, random_state=0)
    return pd.DataFrame(X, columns=[f"x{i}" for i in range(8)]), y


def _texts(X, y):
    ctx = prepare_context(ReportConfig(data=X.assign(y=y), target="y", model="gbm", quick=True, methods=("pfi",)))
    return [b.get("text") or b.get("caption") or "" for b in section_data(ctx)["blocks"]]


def test_the_sentence_rests_on_the_exact_cfi_being_0():
    X, y = _exact_table()
    tr, te = slice(0, 400), slice(400, None)
    model = HistGradientBoostingClassifier(max_iter=30, random_state=0).fit(X.iloc[tr], y[tr])
    feats = ["x0", "x5"]
    gauss = cfi(model, X.iloc[te], y[te], sampler="gaussian", loss="log_loss", features=feats, n_repeats=3,
                random_state=0)
    default = cfi(model, X.iloc[te], y[te], loss="log_loss", features=feats, n_repeats=3, random_state=0)
    # a point mass given the others: the Gaussian sampler (exact for a linear relation) gives the value back
    assert_allclose(gauss.importance, 0.0, atol=1e-6)
    # the default sampler cannot follow it: a CFI far from 0, either side (here -0.17 and -0.047: the model judged
    # off the relation, which can lower the loss as well as raise it)
    assert np.all(np.abs(default.importance) > 0.03)


def test_exact_relation_is_not_said_to_stay_within_the_data():
    X, y = _exact_table()
    texts = _texts(X, y)
    warn = next(t for t in texts if t.startswith("Marginal methods will extrapolate"))
    assert ("stay within the data (CFI's default sampler not for the 6 features named next)" in warn)
    assert "are (nearly) exact linear functions of several other columns together (R² >= 0.999" in warn
    assert "its exact CFI is 0 for an exact relation" in warn
    assert "cfi(..., sampler='gaussian')" in warn
    for f in ("x0", "x1", "x2", "x3", "x4", "x5"):
        assert f"{f} (R² = 1.0000; " in warn
    assert "x6 (R² = 1.0000" not in warn and "x7 (R² = 1.0000" not in warn
    cap = next(t for t in texts if "the single column most associated with it" in t)
    assert "a two-column view cannot show" in cap
    assert cap.count("The dependence is joint") == 1


def test_a_dependence_short_of_exact_keeps_the_old_words():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(600, 4)), columns=["a", "b", "c", "d"])
    X["e"] = X["a"] + X["b"] + X["c"] + 0.3 * rng.normal(size=600)  # R² about 0.97 from the others
    y = (X["a"] + X["e"] + rng.normal(size=600) > 0).astype(int)
    warn = next(t for t in _texts(X, y) if t.startswith("Marginal methods will extrapolate"))
    assert "ALE and the conditional methods (CFI, conditional SAGE) stay within the data, and LOCO" in warn
    assert "exact CFI" not in warn
