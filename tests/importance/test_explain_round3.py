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
