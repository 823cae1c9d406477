"""Drawing of SAGE's convergence trace: running φ per player against the orderings used."""
from __future__ import annotations

import numpy as np

from .._display import method_name
from .._names import short_label
from .._validation import ValidationError
from ._base import get_ax

__all__ = ["plot_convergence"]


def plot_convergence(result, *, ax=None, max_features=10, n_se=1.0):
    """Running SAGE values with ±``n_se`` standard-error bands.

    Parameters
    ----------
    result : ImportanceResult
        A SAGE result from the permutation estimator (``extra["trace"]`` of shape (k, m),
        ``extra["trace_se"]`` (k, m), ``extra["trace_n"]`` (k,)).
    ax : matplotlib Axes, optional
    max_features : int, default 10
        Only the players with the largest final φ are drawn.
    n_se : float, default 1
        Half-width of the bands in standard errors.

    Returns
    -------
    matplotlib Axes
    """
    trace = result.extra.get("trace")
    if trace is None or len(trace) == 0:
        raise ValidationError(f"kind='convergence' needs a SAGE convergence trace; this {result.method} result has "
                              "none (exact=True or another method).")
    trace = np.asarray(trace, dtype=float)
    se = np.asarray(result.extra["trace_se"], dtype=float)
    n = np.asarray(result.extra.get("trace_n", np.arange(1, len(trace) + 1)))
    order = np.argsort(-result.importance, kind="stable")[:max_features]
    ax = get_ax(ax, figsize=(7, 4))
    for c, j in enumerate(order):
        color = f"C{c % 10}"
        ax.plot(n, trace[:, j], color=color, lw=1.5, label=short_label(result.feature_names[j]),
                marker="o" if len(n) < 3 else None)
        band = np.where(np.isfinite(se[:, j]), se[:, j], np.nan) * n_se
        ax.fill_between(n, trace[:, j] - band, trace[:, j] + band, color=color, alpha=0.2, lw=0)
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xlabel("orderings")
    ax.set_ylabel(f"running SAGE value ({result.loss})")
    status = "converged" if result.extra.get("converged") else "not converged"
    ax.set_title(f"{method_name(result.method)}: {result.extra.get('n_permutations', n[-1])} orderings, {status}")
    ax.legend(fontsize="small", loc="best")
    return ax
