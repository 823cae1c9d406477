"""Round 7 (truth review r2, finding 3): section 1's extrapolation figure says "little extrapolation" only from a grid
fine enough to see a gap; a 2 × 2 grid on 21 rows cannot, and the caption says the rows are too few to judge."""
import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy.spatial import Delaunay
from scipy.stats import multivariate_normal, norm

from imlkit.report._sec_data import MIN_GRID_BINS, UNSUPPORTED_FRACTION, _extrapolation_blocks


def _caption(X, feature):
    blocks = _extrapolation_blocks(X, feature, seed=0)
    assert len(blocks) == 1
    return blocks[0]["caption"]


def _population_share(r, k):
    """The share of permuted pairs the k × k quantile grid flags for a normal pair with correlation r (n -> inf)."""
    q = norm.ppf(np.linspace(0, 1, k + 1))
    q[0], q[-1] = -12.0, 12.0
    F = multivariate_normal([0, 0], [[1, r], [r, 1]]).cdf
    P = np.array([[F([q[i + 1], q[j + 1]]) - F([q[i], q[j + 1]]) - F([q[i + 1], q[j]]) + F([q[i], q[j]])
                   for j in range(k)] for i in range(k)])
    return float((P < UNSUPPORTED_FRACTION / k ** 2).sum() / k ** 2)


def test_the_threshold_is_the_coarsest_grid_that_sees_the_flagged_dependence():
    r = np.sqrt(0.5)                        # the R² at which section 1 draws the figure
    assert _population_share(0.9, 2) == 0.0 and _population_share(0.78, 3) == 0.0
    assert _population_share(r, MIN_GRID_BINS) >= 0.1


def test_stackloss_is_too_few_rows_to_judge_not_little_extrapolation():
    d = sm.datasets.stackloss.load_pandas().data
    X = d.drop(columns="STACKLOSS")
    x, z = X["AIRFLOW"].to_numpy(), X["WATERTEMP"].to_numpy()
    # the permuted pairs do leave the data: a large share falls outside its convex hull
    hull = Delaunay(np.c_[x, z])
    outside = np.mean([(hull.find_simplex(np.c_[np.random.default_rng(s).permutation(x), z]) < 0).mean()
                       for s in range(50)])
    assert outside > 0.3
    cap = _caption(X, "AIRFLOW")
    assert "AIRFLOW against WATERTEMP" in cap and "(21 rows)" in cap
    assert "little extrapolation" not in cap
    assert "2 × 2 cells" in cap and "too few rows to judge" in cap and "at least 80 rows" in cap


def test_small_categorical_partner_says_too_few_rows():
    rng = np.random.default_rng(4)
    n = 30
    g = np.repeat(["a", "b", "c"], 10)
    x = np.where(g == "a", 0.0, np.where(g == "b", 1.0, 2.0)) + rng.normal(0, 0.6, n)
    X = pd.DataFrame({"x": x, "g": pd.Categorical(g)})
    cap = _caption(X, "x")
    assert "little extrapolation" not in cap and "judge the model there" not in cap
    assert "2 bins of x per level of g" in cap and "too few rows to judge" in cap and "at least 60 rows" in cap


def test_a_coarse_grid_still_reports_an_empty_quadrant():
    # x a near-function of z: the 2 × 2 grid's off-diagonal quadrants are empty, and that is evidence
    rng = np.random.default_rng(5)
    z = rng.normal(size=21)
    X = pd.DataFrame({"x": z + 0.01 * rng.normal(size=21), "z": z})
    cap = _caption(X, "x")
    assert "PFI and marginal SAGE judge the model there" in cap and "too few rows" not in cap


def test_large_n_keeps_its_verdict():
    rng = np.random.default_rng(6)
    n = 1500
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    X["c"] = 0.15 * X["a"] + rng.normal(size=n)
    cap = _caption(X, "c")
    assert "little extrapolation against a" in cap and "too few rows" not in cap
