"""Sixth round (helper reading6): REPID's "interacts with" carries each split feature's share and REPID's own bar."""
import re

import numpy as np
import pandas as pd

import imlkit as ik
from imlkit.report._sec_effects import regional_difference, regional_words


def _planted(n=600, seed=0):
    """x1's slope: 2 where x2 > 0, 1.5 more where also x3 > 0, and x4 (not offered as a split feature) throughout --
    x3 interacts with x1 only in one half of the rows, so REPID's split on it (below the split on x2) removes a small
    share of the whole heterogeneity."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x1": rng.uniform(-1, 1, n), "x2": rng.uniform(-1, 1, n), "x3": rng.uniform(-1, 1, n),
                      "x4": rng.normal(size=n)})

    def f(X):
        X = np.asarray(X, dtype=float)
        return X[:, 0] * (2 * (X[:, 1] > 0) + 1.5 * (X[:, 2] > 0) * (X[:, 1] > 0) + X[:, 3])

    return f, X


def test_a_split_let_through_only_relative_to_its_parent_is_not_called_an_interaction():
    """Diabetes (--quick): "it interacts with bp, s5" was said of REPID's tree splitting on bp (25% of the
    heterogeneity) and, below it, s5 (9.4%): REPID lets a deeper split through when it removes γ times its parent
    split's share (2.5% there), a bar that shapes the tree, not one for an interaction. A split feature is now called
    an interaction only when its splits remove at least γ of the whole, REPID's bar for a first split; the others are
    named with their shares, and section 4's pairwise H² stands beside each."""
    f, X = _planted()
    gamma = 0.1
    g = ik.repid(f, X, "x1", split_features=["x2", "x3"], grid=10, max_depth=2, min_node_size=30,
                 min_improvement=gamma)
    scores = g.interaction_scores
    root = g.tree[0]
    assert root.feature == "x2"
    # the planted situation: x3's split passes REPID's relative rule but removes less than gamma of the whole
    assert gamma * root.int_imp <= scores["x3"] < gamma <= scores["x2"]
    share, spread, span = regional_difference(g)
    assert share >= gamma and spread >= 0.1 * span  # the regions differ materially: the interaction sentence is said

    h = ik.h_statistic(f, X, pairs="all", n_samples=300, random_state=0)
    h_pairs = {frozenset((a, b)): v for a, b, v in h.pairwise[["feature_1", "feature_2", "h2"]].itertuples(index=False)}
    said = regional_words(g, "x1", 2, gamma, h_pairs=h_pairs)
    assert "it interacts with x2, x3" not in said.lower()
    pct = lambda v: f"{100 * v:.0f}%" if v >= 0.1 else f"{100 * v:.2g}%"  # noqa: E731
    head = re.search(r"It interacts with (.*?): the splits by this feature remove at least the 10%", said)
    assert head and head.group(1).startswith(f"x2 ({pct(scores['x2'])}; section 4's pairwise H² of x1 × x2: "
                                             f"{h_pairs[frozenset(('x1', 'x2'))]:.3g})")
    assert (f"The split by x3 ({pct(scores['x3'])}; section 4's pairwise H² of x1 × x3: "
            f"{h_pairs[frozenset(('x1', 'x3'))]:.3g}") in said
    assert "removes less than 10%" in said
    assert f"(here {pct(gamma * root.int_imp)} after x2's {pct(root.int_imp)})" in said
    # without section 4's pairs the sentence keeps the shares
    plain = regional_words(g, "x1", 2, gamma)
    assert f"It interacts with x2 ({pct(scores['x2'])})" in plain and "H²" not in plain


def test_no_single_split_feature_reaching_gamma_calls_none_an_interaction():
    """Regions that differ materially through several small splits (each feature below γ): no feature is named as
    interacting, and the sentence says why, with the shares."""
    from types import SimpleNamespace

    grid = np.linspace(0, 0.8, 15)
    # root risk 100, leaves 85: the splits remove 0.08 + 0.07 = 15% together
    # 30 rows per leaf, each spread evenly over the 15 grid points (the sentences read the spread per grid point)
    regions = [SimpleNamespace(risk=r, n=30, centered_average=grid - grid.mean(), average=grid,
                               centered_std=np.full(15, np.sqrt(r / (30 * 15)))) for r in (30.0, 30.0, 25.0)]
    tree = [SimpleNamespace(id=0, risk=100.0, n=90, feature="a", parent=None, int_imp=0.08),
            SimpleNamespace(id=1, risk=40.0, n=45, feature="b", parent=0, int_imp=0.07)]
    g = SimpleNamespace(tree=tree, regions=regions, average=grid, grid=grid,
                        extra={"centered_std": np.full(15, np.sqrt(100.0 / (90 * 15)))},
                        interaction_scores=pd.Series({"a": 0.08, "b": 0.07}))
    share, spread, span = regional_difference(g)
    assert abs(share - 0.15) < 1e-12 and spread >= 0.1 * span
    said = regional_words(g, "x", 2, 0.1)
    assert "differs between the regions" in said and "It interacts with" not in said
    assert "No split feature removes on its own the 10% (min_improvement, γ)" in said
    assert "The splits by a (8%) and b (7%) remove less than 10%" in said
