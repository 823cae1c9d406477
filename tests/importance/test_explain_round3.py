"""Round 3 of the truth review: PIMP's resolution and the importance results' explain()."""
import warnings

import numpy as np
import pytest

from imlkit.importance._inference import adjust_pvalues
from imlkit.importance._pimp import resolution


def _brute_needed(p, j, p_adjust, alpha, top=5000):
    """The smallest B whose empirical floor 1/(B + 1), put in place of p_j, adjusts to <= alpha (a plain scan)."""
    for B in range(1, top):
        q = p.copy()
        q[j] = 1.0 / (B + 1)
        if adjust_pvalues(q, method=p_adjust)[j] <= alpha:
            return B
    return top


@pytest.mark.parametrize("p_adjust", ["holm", "bonferroni", None])
def test_resolution_with_p_values_of_exactly_zero_warns_nothing_and_matches_the_scan(p_adjust):
    """Bikeshare's default report: "Warning raised while computing PIMP: RuntimeWarning: divide by zero encountered
    in divide". Two features' normal tails underflowed to p = 0 (observed PFI ~2.6e4 against nulls of ~10), and
    _fewest_refits divided 1 by the next p-value (0) for the Holm positions below it. Those positions admit no B
    (no floor 1/(B + 1) > 0 lies at or below 0), so the number was right -- but a warning that says nothing to the
    reader sat in the Notes, and a silent inf is one step from a wrong number."""
    p = np.array([0.0, 0.0, 0.00488 / 8, 0.3, 0.02, 0.05])
    fams = ["normal", "normal", "gamma", "empirical", "empirical", "empirical"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            floor, needed = resolution(p, fams, 60, p_adjust, 0.05)
    for j, fam in enumerate(fams):
        want = _brute_needed(p, j, p_adjust, 0.05)
        assert needed[j] == (want if fam == "empirical" else min(want, 30)), j
    # the empirical floor of 0.3 with three p-values below 1/61 ahead of it in Holm's order: (6 - 3)/61
    if p_adjust == "holm":
        assert floor[3] == pytest.approx(3 / 61, rel=1e-12)


@pytest.fixture(scope="module")
def overwhelming():
    """One feature hundreds of null SDs away (its normal tail underflows to p = 0), one weak, one noise."""
    import pandas as pd
    from sklearn.linear_model import LinearRegression

    from imlkit import importance as imp

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"big": rng.normal(size=400), "weak": rng.normal(size=400), "noise": rng.normal(size=400)})
    y = 100 * X["big"] + 0.3 * X["weak"] + rng.normal(size=400)
    return imp.pimp(LinearRegression(), X[:250], y[:250], X[250:], y[250:], n_null=30, distribution="normal",
                    n_repeats=3, random_state=0)


def test_pimp_explain_says_which_p_values_only_a_fitted_tail_resolves(overwhelming):
    """explain() printed the method's questions and nothing about p_value = 0.0 for 'big' in to_frame(): a normal
    tail fitted to 30 null importances, far beyond all of them. The refits alone resolve p down to 1/31."""
    r = overwhelming
    j = list(r.feature_names).index("big")
    assert r.p_value[j] < 1e-16
    said = r.explain()
    assert ("- big: p < 1e-16 comes from a normal tail fitted to its 30 null importances: the refits alone resolve p "
            "down to 1/31 = 0.0323") in said
    # a feature inside its null (noise) gets no such line
    k = list(r.feature_names).index("noise")
    assert r.p_value[k] > 1 / 31 and "- noise:" not in said


def test_notebook_table_never_shows_a_p_value_of_zero(overwhelming):
    html = overwhelming._repr_html_()
    cells = [c.split("</td>")[0] for c in html.split("<th>big</th>", 1)[1].split("</tr>", 1)[0].split("<td>")[1:]]
    frame = overwhelming.to_frame()
    cols = list(frame.columns)
    assert frame.loc["big", "p_value"] < 1e-16   # the API keeps the number the tail gave
    assert cells[cols.index("p_value")] == "&lt; 1e-16" and cells[cols.index("p_adjusted")] == "&lt; 1e-16"
    assert cells[cols.index("p_floor")] == "0"    # a fitted tail's floor is 0 by definition, not a p-value


def test_resolution_warning_says_cannot_tell_only_of_features_beyond_their_null():
    """Caravan (default PIMP): "the smallest adjusted p-value feature(s) ['PWALAND', 'PPERSONG', ...] can reach is
    29/61 = 0.475 > alpha=0.05: nothing there can be significant, however large its importance (PIMP cannot tell with
    60 null refits). Use n_null >= 599" -- PPERSONG lay above only 10 of its 60 null values."""
    from imlkit.importance._pimp import _resolution_warnings

    names = ["PWALAND", "PPERSONG", "MHKOOP"]
    floor, needed = np.full(3, 29 / 61), np.full(3, 599.0)
    (w,) = _resolution_warnings(names, floor, needed, 60, "holm", 0.05, np.array([True, False, False]))
    assert ("however large its importance (PIMP cannot tell with 60 null refits for ['PWALAND'], whose observed "
            "importance exceeds every null value; the others lie inside their null values). Use n_null >= 599") in w
    (w,) = _resolution_warnings(names, floor, needed, 60, "holm", 0.05, np.array([False] * 3))
    assert "cannot tell" not in w and "(each of them lies inside its null values)" in w
    (w,) = _resolution_warnings(names, floor, needed, 60, "holm", 0.05, np.array([True] * 3))
    assert "however large its importance (PIMP cannot tell with 60 null refits). Use" in w


def test_resolution_warning_advises_refits_only_for_features_at_the_floor():
    # anes96 PID: logpopul's observed PFI was 0 (inside its null), yet the warning said "Use n_null >= 159"; more
    # refits lower the floor, not a feature's own p-value inside its null
    from imlkit.importance._pimp import _resolution_warnings

    names = ["logpopul", "age"]
    floor, needed = np.array([0.131, 0.131]), np.array([159.0, 79.0])
    (w,) = _resolution_warnings(names, floor, needed, 60, "holm", 0.05, np.array([False, False]))
    assert "Use n_null" not in w and "(each of them lies inside its null values)." in w
    (w,) = _resolution_warnings(names, floor, needed, 60, "holm", 0.05, np.array([False, True]))
    assert "Use n_null >= 79," in w      # the refits the feature at the floor needs, not the other's 159
