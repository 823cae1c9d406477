"""Review rev8 r2, finding 3, the report's side: spector (GLM, 10 test rows) -- "at every grid point the centred ICE
curves stay within 0.0364 of their region's curve (... 8.3% of the effect's range 0.438 ...), below the 10% that would
matter: the effect of PSI is about the same for every row", while the per-row effects P(PSI=1) − P(PSI=0) ranged from
0.32 to 0.53 (sd 17% of the mean effect). The report and RegionalResult.explain() now read one rule
(``row_effect_words``) on the rows' own effects, and a REPID that could not search says "no evidence either way".
"""
import numpy as np
import pandas as pd
from scipy.special import expit

import imlkit as ik
from imlkit.effects._explain import row_effect_words
from imlkit.report._sec_effects import MATERIAL_REGIONAL_SHARE, regional_difference, regional_words, spread_by_point


def _logit(Z):
    Z = np.asarray(Z, dtype=float)
    return expit(-9 + 2.1 * Z[:, 0] + 2.36 * Z[:, 2])


def _rows(n, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"gpa": rng.uniform(2.9, 3.5, n), "tuce": rng.normal(20, 4, n),
                         "psi": rng.integers(0, 2, n).astype(float)})


def _deltas(X):
    a, b = X.copy(), X.copy()
    a["psi"], b["psi"] = 0.0, 1.0
    return _logit(b) - _logit(a)


def test_per_row_effects_varying_by_more_than_the_share_are_not_about_the_same():
    """Enough rows to search (300, min_node_size 40), no split on the noise feature: the spread at a grid point is
    below 10% of the range (the old rule's "about the same"), the rows' own effects are not."""
    X = _rows(300)
    d = _deltas(X)
    g = ik.repid(_logit, X, "psi", split_features=["tuce"], min_node_size=40, max_depth=2)
    _, _, span = regional_difference(g)
    assert spread_by_point(g)[0].max() < MATERIAL_REGIONAL_SHARE * span < d.std()
    said = regional_words(g, "psi", 2, 0.1, min_node_size=40)
    assert "about the same" not in said
    assert "the effect of psi is not the same for every row" in said
    assert f"{d.std() / span:.1%} of the effect's range" in said


def test_a_repid_that_could_not_search_says_no_evidence_either_way_as_explain_does():
    """10 rows, min_node_size 40: never "about the same for every row"; the report's words are the API's."""
    for seed, lo_hi in ((0, (2.9, 3.5)), (1, (3.9, 3.95))):
        rng = np.random.default_rng(seed)
        X = pd.DataFrame({"gpa": rng.uniform(*lo_hi, 10), "tuce": rng.normal(20, 4, 10),
                          "psi": rng.integers(0, 2, 10).astype(float)})
        g = ik.repid(_logit, X, "psi", split_features=["tuce", "gpa"], min_node_size=40, max_depth=2)
        said = regional_words(g, "psi", 2, 0.1, min_node_size=40)
        assert said.startswith("REPID could not split the 10 rows")
        assert "about the same" not in said
        kind, words = row_effect_words(g, "psi", 40)
        assert kind == "unsearched" and words in said and words in g.explain()
        assert "no evidence either way" in said


def test_an_effect_the_same_for_every_row_is_still_said_so_on_the_rows_effects():
    """f = x1² (1 + 0.02 x2): the rows' own effects differ by about 2% of the range: "about the same for every row",
    with the numbers of the rows' effects."""
    rng = np.random.default_rng(1)
    X = pd.DataFrame({"x1": rng.uniform(0, 1, 400), "x2": rng.normal(size=400)})

    def f(Z):
        Z = np.asarray(Z, dtype=float)
        return Z[:, 0] ** 2 * (1 + 0.02 * Z[:, 1])

    g = ik.repid(f, X, "x1", split_features=["x2"], grid=15, max_depth=2, min_node_size=40, min_improvement=0.5)
    b = 1 + 0.02 * X["x2"].to_numpy()
    # around the overall curve, against the global PD's range (the regions' ranges differ from it by their mean b)
    np.testing.assert_allclose(g.extra["row_effect_total"] / np.ptp(g.average), b.std() / b.mean(), rtol=1e-9)
    said = regional_words(g, "x1", 2, 0.5, min_node_size=40)
    assert said.endswith("the effect of x1 is about the same for every row.")
