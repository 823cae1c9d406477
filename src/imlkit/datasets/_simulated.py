"""The course's simulated examples: each a generator ``(n, random_state) -> (X, y)``.

N(0, s) below always means a normal distribution with standard deviation s. Every function
returns ``X`` as a DataFrame with columns ``x1, x2, ...`` (or the course's names) and ``y``
as a Series, and draws all randomness from one ``numpy.random.Generator``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import as_seed_sequence, check_int

__all__ = [
    "make_extrapolation",
    "make_interaction",
    "make_correlated_loco",
    "make_chain",
    "make_regional",
    "make_pure_noise",
    "make_coffee",
    "regional_function",
]


def _rng(random_state):
    return np.random.default_rng(as_seed_sequence(random_state))


def _frame(cols, y):
    X = pd.DataFrame({f"x{j + 1}": c for j, c in enumerate(cols)})
    return X, pd.Series(y, name="y")


def make_extrapolation(n=1000, *, random_state=None):
    """PFI's extrapolation example: two nearly identical features that cancel in a linear fit.

    x1 = e1, x2 = x1 + e2, x3 and x4 independent, y = x3 + e, with e1, x3, x4 ~ N(0, 1),
    e2 ~ N(0, 0.01), e ~ N(0, 0.1). A linear model fits about 0.3·x1 − 0.3·x2 + x3: PFI
    calls x1 and x2 important (permuting breaks their dependence), CFI does not.
    """
    n = check_int("n", n, min_value=1)
    rng = _rng(random_state)
    x1 = rng.normal(0, 1, n)
    x2 = x1 + rng.normal(0, 0.01, n)
    x3 = rng.normal(0, 1, n)
    x4 = rng.normal(0, 1, n)
    return _frame([x1, x2, x3, x4], x3 + rng.normal(0, 0.1, n))


def make_interaction(n=1000, *, random_state=None):
    """A pure interaction: x1..x4 uniform on {-1, 1}, y = x1·x2 + x3 + e, e ~ N(0, 1).

    PFI gives x1, x2, x3 about equal importance; marginal SAGE splits the interaction's
    credit so that φ1 ≈ φ2 ≈ φ3 / 2.
    """
    n = check_int("n", n, min_value=1)
    rng = _rng(random_state)
    xs = [rng.choice([-1.0, 1.0], size=n) for _ in range(4)]
    return _frame(xs, xs[0] * xs[1] + xs[2] + rng.normal(0, 1, n))


def make_correlated_loco(n=1000, *, random_state=None):
    """LOCO's correlated-feature example: x1, x3 ~ N(0, 5), x2 = x1 + N(0, 0.1), y = x2 + x3 + N(0, 2).

    LOCO of x1 and x2 is about 0 (each takes the other's place), LOCO of x3 is large.
    """
    n = check_int("n", n, min_value=1)
    rng = _rng(random_state)
    x1 = rng.normal(0, 5, n)
    x3 = rng.normal(0, 5, n)
    x2 = x1 + rng.normal(0, 0.1, n)
    return _frame([x1, x2, x3], x2 + x3 + rng.normal(0, 2, n))


def make_chain(n=1000, *, random_state=None):
    """A causal chain: x1 = e1, x2 = x1 + e2, x3 = x2 + e3, y = x3 + e, all noise N(0, 1).

    Under conditional removal x1 and x2 carry information about y, but only x3 has a unique
    contribution.
    """
    n = check_int("n", n, min_value=1)
    rng = _rng(random_state)
    x1 = rng.normal(0, 1, n)
    x2 = x1 + rng.normal(0, 1, n)
    x3 = x2 + rng.normal(0, 1, n)
    return _frame([x1, x2, x3], x3 + rng.normal(0, 1, n))


def regional_function(X):
    """The noise-free function of :func:`make_regional`:
    f(x) = 0.2·x1 − 8·x2 + 8·x2·1(x1 > 0) + 16·x2·1(x3 = 0)."""
    X = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, 7)]) if not isinstance(X, pd.DataFrame) else X
    x1, x2, x3 = (X[c].to_numpy(dtype=float) for c in ("x1", "x2", "x3"))
    return 0.2 * x1 - 8 * x2 + 8 * x2 * (x1 > 0) + 16 * x2 * (x3 == 0)


def make_regional(n=1000, *, random_state=None):
    """REPID's example with heterogeneous effects of x2.

    x1, x2, x6 ~ U(-1, 1), x3, x4, x5 ~ Bernoulli(0.5),
    y = 0.2·x1 − 8·x2 + 8·x2·1(x1 > 0) + 16·x2·1(x3 = 0) + N(0, 1).
    The effect of x2 depends first on x3, then on x1 (threshold 0); x4, x5, x6 are noise.
    """
    n = check_int("n", n, min_value=1)
    rng = _rng(random_state)
    x1, x2 = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    x3, x4, x5 = (rng.binomial(1, 0.5, n).astype(float) for _ in range(3))
    x6 = rng.uniform(-1, 1, n)
    X, _ = _frame([x1, x2, x3, x4, x5, x6], np.zeros(n))
    return X, pd.Series(regional_function(X) + rng.normal(0, 1, n), name="y")


def make_pure_noise(n=1000, *, random_state=None):
    """The train-vs-test example: x1..x20 and y independent U(-10, 10).

    An overfitting model has large PFI on training data and none on test data.
    """
    n = check_int("n", n, min_value=1)
    rng = _rng(random_state)
    return _frame([rng.uniform(-10, 10, n) for _ in range(20)], rng.uniform(-10, 10, n))


#: The course's Poisson model table (Molnar, Interpretable ML, Table 5.3).
COFFEE_COEFFICIENTS = {"(Intercept)": -0.16, "stress": 0.12, "sleep": -0.15, "work[yes]": 0.80}


def make_coffee(n=200, *, random_state=None):
    """Daily coffees: counts from a Poisson GLM with the course's coefficients.

    stress ~ uniform integers 1..10, sleep ~ U(4, 10) hours, work ~ Bernoulli(0.5) as a
    categorical "no"/"yes", and
    coffees ~ Poisson(exp(−0.16 + 0.12·stress − 0.15·sleep + 0.80·1(work = yes))).

    Returns
    -------
    X : DataFrame with columns stress (int), sleep (float), work (categorical no/yes)
    y : Series ``coffees`` (int)
    """
    n = check_int("n", n, min_value=1)
    rng = _rng(random_state)
    stress = rng.integers(1, 11, n)
    sleep = rng.uniform(4, 10, n)
    work = rng.binomial(1, 0.5, n)
    c = COFFEE_COEFFICIENTS
    lam = np.exp(c["(Intercept)"] + c["stress"] * stress + c["sleep"] * sleep + c["work[yes]"] * work)
    X = pd.DataFrame({"stress": stress, "sleep": sleep,
                      "work": pd.Categorical(np.where(work == 1, "yes", "no"), categories=["no", "yes"])})
    return X, pd.Series(rng.poisson(lam), name="coffees")
