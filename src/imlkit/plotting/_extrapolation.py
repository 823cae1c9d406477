"""Drawing of the before/after-permutation extrapolation diagnostic (two hexbin panels)."""
from __future__ import annotations

import numpy as np

from .._validation import ValidationError, check_int
from ._base import new_figure, set_labels

__all__ = ["plot_extrapolation", "draw_extrapolation"]


def plot_extrapolation(X, feature, partner=None, *, random_state=None, ax=None, gridsize=30, cmap="viridis"):
    """Hexbins of a feature against its strongest correlate, before and after permuting it.

    The course's illustration of why permutation methods extrapolate: the left panel shows
    the observed pairs (x_j, x_k), the right panel the pairs PFI evaluates the model at, with
    x_j permuted and x_k unchanged.

    Parameters
    ----------
    X : DataFrame or array, shape (n, p)
    feature : str or int
        The numeric feature that is permuted (x axis).
    partner : str or int, optional
        The feature on the y axis; default: the other numeric column with the largest absolute
        Pearson correlation with ``feature`` (see
        :func:`imlkit.effects._extrapolation.strongest_correlate`).
    random_state : None, int or Generator
        The permutation.
    ax : sequence of two Axes, optional
        Where to draw; default: a new 1 × 2 figure.
    gridsize : int, default 30
        Hexagons along the x axis (matplotlib's ``hexbin``); both panels share it and the
        extent, so their cells are the same.
    cmap : str

    Returns
    -------
    ndarray of two matplotlib Axes
        ``[before, after]``. Rows where the feature or the partner is missing are left out.

    References
    ----------
    Hooker, Mentch & Zhou (2021). Unrestricted permutation forces extrapolation. Statistics
    and Computing 31(6).
    """
    from .._extrapolation import permutation_extrapolation

    data = permutation_extrapolation(X, feature, partner, random_state=random_state)
    return draw_extrapolation(data, ax=ax, gridsize=gridsize, cmap=cmap)


def draw_extrapolation(data, *, ax=None, gridsize=30, cmap="viridis"):
    """Draw a :class:`~imlkit.effects._extrapolation.PermutationExtrapolation` (see
    :func:`plot_extrapolation`); returns the two Axes."""
    gridsize = check_int("gridsize", gridsize, min_value=2)
    if ax is None:
        _, axes = new_figure((10, 4.2), 1, 2)
    else:
        axes = np.ravel(np.asarray(ax, dtype=object))
        if len(axes) != 2:
            raise ValidationError(f"'ax' must be two Axes (before, after); got {len(axes)}.")
    axes = np.asarray(list(axes), dtype=object)
    lo = min(data.x.min(), data.x_permuted.min())
    hi = max(data.x.max(), data.x_permuted.max())
    zlo, zhi = data.partner_values.min(), data.partner_values.max()
    # A constant range would give hexbin a zero-width extent.
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    if zhi <= zlo:
        zlo, zhi = zlo - 0.5, zhi + 0.5
    extent = (lo, hi, zlo, zhi)
    panels = ((data.x, f"before permuting {data.feature}", data.r_before),
              (data.x_permuted, f"after permuting {data.feature}", data.r_after))
    for a, (xv, title, r) in zip(axes, panels):
        hb = a.hexbin(xv, data.partner_values, gridsize=gridsize, extent=extent, mincnt=1, cmap=cmap)
        a.figure.colorbar(hb, ax=a, label="rows")
        a.set_xlim(lo, hi)
        a.set_ylim(zlo, zhi)
        set_labels(a, title=title, xlabel=str(data.feature), ylabel=str(data.partner))
        a.set_title(f"{a.get_title()}\nPearson r = {r:.2f}")
    return axes
