"""The course's extrapolation diagnostic: a feature against its strongest correlate, before and
after permuting the feature.

Permuting x_j (PFI, marginal SAGE) keeps its marginal distribution but breaks its dependence on
the other features; where x_j and a partner x_k are strongly dependent, the permuted pairs
(x̃_j, x_k) fall where the data have no points, and the model is evaluated there. The two
scatters (drawn as hexbins by :func:`imlkit.plotting.plot_extrapolation`) show it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._dtypes import is_numeric_or_bool
from ._parallel import rng_of
from ._validation import ValidationError, as_seed_sequence, check_X, resolve_feature

__all__ = ["PermutationExtrapolation", "permutation_extrapolation", "strongest_correlate"]


def strongest_correlate(X, feature):
    """The numeric column with the largest absolute Pearson correlation with ``feature``.

    Each correlation uses the rows where both columns are observed; a column that is constant
    there (undefined r) is skipped; ties go to the first column in ``X``'s order.

    Parameters
    ----------
    X : DataFrame, shape (n, p)
    feature : str
        A numeric column of ``X``.

    Returns
    -------
    partner : str
    r : float
        The Pearson correlation of ``feature`` and ``partner`` (signed).
    """
    x = X[feature].to_numpy(dtype=float)
    best, best_r = None, np.nan
    for c in X.columns:
        if c == feature or not is_numeric_or_bool(X[c]):
            continue
        z = X[c].to_numpy(dtype=float)
        ok = np.isfinite(x) & np.isfinite(z)
        if ok.sum() < 3:
            continue
        r = _pearson(x[ok], z[ok])
        if np.isfinite(r) and (best is None or abs(r) > abs(best_r)):
            best, best_r = c, r
    if best is None:
        raise ValidationError(f"Feature {feature!r} has no numeric partner: no other numeric column of 'X' has a "
                              f"defined correlation with it (at least 3 complete rows, not constant).")
    return best, float(best_r)


def _pearson(a, b):
    a = a - a.mean()
    b = b - b.mean()
    den = np.sqrt(np.dot(a, a) * np.dot(b, b))
    return float(np.dot(a, b) / den) if den > 0 else np.nan


@dataclass(frozen=True, repr=False)
class PermutationExtrapolation:
    """A feature and its partner before and after permuting the feature.

    Attributes
    ----------
    feature, partner : str
    x : ndarray, shape (n,)
        The feature's values on the rows where both columns are observed.
    x_permuted : ndarray, shape (n,)
        A random permutation of ``x``.
    partner_values : ndarray, shape (n,)
        The partner's values on the same rows (unchanged by the permutation).
    r_before, r_after : float
        Pearson correlation of (x, partner) and of (x_permuted, partner).
    n_dropped : int
        Rows left out because the feature or the partner is missing there.
    params : dict
    """

    feature: str
    partner: str
    x: np.ndarray
    x_permuted: np.ndarray
    partner_values: np.ndarray
    r_before: float
    r_after: float
    n_dropped: int = 0
    params: dict = field(default_factory=dict)

    def __repr__(self):
        return (f"PermutationExtrapolation({self.feature!r} vs {self.partner!r}: r = {self.r_before:.3f} before, "
                f"{self.r_after:.3f} after permuting; {len(self.x):,} rows)")


def permutation_extrapolation(X, feature, partner=None, *, random_state=None):
    """The data of the before/after-permutation diagnostic.

    Parameters
    ----------
    X : DataFrame or array, shape (n, p)
    feature : str or int
        A numeric feature (the one PFI would permute).
    partner : str or int, optional
        The feature it is drawn against. Default: its strongest correlate, the other numeric
        column with the largest absolute Pearson correlation (:func:`strongest_correlate`).
    random_state : None, int or Generator
        The permutation.

    Returns
    -------
    PermutationExtrapolation

    Notes
    -----
    The rows where both columns are observed are kept; x̃_j is a uniformly random permutation
    of x_j over them, the partner is left as it is. Under the permutation x̃_j and x_k are
    independent, so r_after is of order 1/sqrt(n) whatever r_before was: every pair
    (x̃_j, x_k) with |x̃_j − E[x_j | x_k]| large is an input the data never showed the model
    (the course's example: x_2 = x_1 + ε, Var ε = 0.01, where the points leave the diagonal
    and fill the square).

    References
    ----------
    Hooker, Mentch & Zhou (2021). Unrestricted permutation forces extrapolation: variable
    importance requires at least one more model, or there is no free variable importance.
    Statistics and Computing 31(6).
    """
    X, _ = check_X(X)
    name = resolve_feature(feature, X.columns)
    if not is_numeric_or_bool(X[name]):
        raise ValidationError(f"'feature' must be a numeric column; {name!r} has dtype {X[name].dtype}.")
    if partner is None:
        other, _ = strongest_correlate(X, name)
        rule = "strongest |Pearson r|"
    else:
        other = resolve_feature(partner, X.columns, "partner")
        rule = "given"
        if other == name:
            raise ValidationError(f"'partner' must be another column than the feature {name!r}.")
        if not is_numeric_or_bool(X[other]):
            raise ValidationError(f"'partner' must be a numeric column; {other!r} has dtype {X[other].dtype}.")
    x = X[name].to_numpy(dtype=float)
    z = X[other].to_numpy(dtype=float)
    ok = np.isfinite(x) & np.isfinite(z)
    if ok.sum() < 2:
        raise ValidationError(f"Features {name!r} and {other!r} are both observed in fewer than 2 rows.")
    x, z = x[ok], z[ok]
    rng = rng_of(as_seed_sequence(random_state))
    xp = x[rng.permutation(len(x))]
    return PermutationExtrapolation(
        feature=name, partner=other, x=x, x_permuted=xp, partner_values=z, r_before=_pearson(x, z),
        r_after=_pearson(xp, z), n_dropped=int((~ok).sum()),
        params=dict(partner_rule=rule,
                    random_state=random_state if not isinstance(random_state, np.random.Generator) else "Generator"))
