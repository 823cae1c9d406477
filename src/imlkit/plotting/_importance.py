"""Drawing of ImportanceResult: bars with interval whiskers, boxes over repeats."""
from __future__ import annotations

import numpy as np

from .._display import method_name
from .._validation import ValidationError, check_choice
from ._base import barh_figsize, category_ticks, get_ax

__all__ = ["plot_importance"]


def plot_importance(result, *, kind=None, ax=None, max_features=20, interval=None, **kwargs):
    """Draw an importance result.

    Parameters
    ----------
    result : ImportanceResult
    kind : {"bar", "box", "null", "convergence"}, optional
        ``"bar"``: point estimates with interval whiskers (default); ``"box"``: the
        distribution over repeats/refits; ``"null"``: PIMP's null distributions;
        ``"convergence"``: SAGE's running estimates.
    ax : matplotlib Axes, optional
    max_features : int
        Only the most important features are drawn.
    interval : {"quantile", "ci"}, optional
        The whiskers of ``kind="bar"``. ``"quantile"``: the 5% and 95% quantiles of the
        per-repeat importances (``to_frame()``'s ``q05``/``q95``), the spread of the
        importance over the permutations that the course draws; it does not shrink as
        ``n_repeats`` grows. ``"ci"``: the confidence interval of the estimate (``ci_low``/
        ``ci_high`` at ``params["confidence_level"]``), which does. Default: ``"quantile"``
        for the permutation methods (PFI, CFI and a PIMP of them), ``"ci"`` for the others
        (LOCO's and LOFO's tests, SAGE's standard errors); a result without the chosen
        interval falls back to the other one. The legend names the interval drawn.
    **kwargs
        Passed to the bars (``"bar"``), ``boxplot`` (``"box"``) or the panel functions.

    Returns
    -------
    matplotlib Axes (an array of Axes for ``"null"``)
    """
    kind = kind or result.extra.get("default_plot", "bar")
    if interval is not None and kind != "bar":
        raise ValidationError(f"'interval' applies to kind='bar' only; got kind={kind!r}.")
    if kind == "bar":
        return _bar(result, ax, max_features, interval, **kwargs)
    if kind == "box":
        return _box(result, ax, max_features, **kwargs)
    if kind == "null":
        from ._null import plot_null_distributions

        return plot_null_distributions(result, ax=ax, max_features=max_features, **kwargs)
    if kind == "convergence":
        from ._convergence import plot_convergence

        return plot_convergence(result, ax=ax, max_features=max_features, **kwargs)
    raise ValidationError(f"'kind' must be one of 'bar', 'box', 'null', 'convergence'; got {kind!r}.")


def _ordered(result, max_features):
    order = np.argsort(-np.nan_to_num(result.importance, nan=-np.inf), kind="stable")[:max_features]
    return order[::-1]  # largest on top in a horizontal chart


#: Methods whose repeats are permutations of the data (their spread is the course's error bar).
_PERMUTATION_METHODS = ("pfi", "cfi")


def _repeat_word(result):
    method = result.params.get("importance", result.method) if result.method == "pimp" else result.method
    if method in _PERMUTATION_METHODS:
        return "permutations"
    return "refits" if method in ("loco", "lofo") else "repeats"


def _has(low, high):
    return low is not None and np.isfinite(low).any() and np.isfinite(high).any()


def resolve_interval(result, interval=None):
    """``(kind, low, high, label)`` of the whiskers drawn by the bar chart (kind None: none)."""
    if interval is not None:
        check_choice("interval", interval, ("quantile", "ci"))
    q = result.quantiles
    q_low, q_high = (None, None) if q is None else (np.asarray(q[:, 0], float), np.asarray(q[:, 1], float))
    n_rep = 0 if result.repeats is None else np.shape(result.repeats)[1]
    has_q = _has(q_low, q_high) and n_rep > 1
    has_ci = _has(result.ci_low, result.ci_high)
    if interval is None:
        method = result.params.get("importance", result.method) if result.method == "pimp" else result.method
        interval = "quantile" if method in _PERMUTATION_METHODS else "ci"
    if interval == "quantile" and not has_q and has_ci:
        interval = "ci"
    elif interval == "ci" and not has_ci and has_q:
        interval = "quantile"
    if interval == "quantile" and has_q:
        return "quantile", q_low, q_high, f"5%–95% of the {n_rep} {_repeat_word(result)}"
    if interval == "ci" and has_ci:
        level = result.params.get("confidence_level", 0.95)
        return "ci", np.asarray(result.ci_low, float), np.asarray(result.ci_high, float), \
            f"{level * 100:g}% confidence interval"
    return None, None, None, None


def _bar(result, ax, max_features, interval=None, color="C0", **kwargs):
    order = _ordered(result, max_features)
    names = [str(result.feature_names[i]) for i in order]
    kind, low, high, label = resolve_interval(result, interval)
    ax = get_ax(ax, figsize=barh_figsize(names))
    pos = np.arange(len(order))
    imp = np.asarray(result.importance, dtype=float)[order]
    ax.barh(pos, np.nan_to_num(imp), color=color, label=_estimate_label(result), **kwargs)
    if kind is not None:
        lo, hi = low[order], high[order]
        ok = np.isfinite(lo) & np.isfinite(hi)
        # Whiskers drawn around their own midpoint: their ends are exactly the interval's,
        # also where the point estimate lies outside it (a skewed spread of few repeats).
        mid = (lo + hi) / 2
        ax.errorbar(mid[ok], pos[ok], xerr=((hi - lo) / 2)[ok], fmt="none", ecolor="black", capsize=3,
                    label=label)
    category_ticks(ax, pos, names, axis="y")
    ax.axvline(0 if result.params.get("relation") != "ratio" else 1, color="grey", lw=0.8)
    ax.set_xlabel("importance" + (" (ratio)" if result.params.get("relation") == "ratio" else ""))
    ax.set_title(f"{method_name(result.method)} ({result.loss})")
    ax.legend(loc="lower right", fontsize="small")
    return ax


def _estimate_label(result):
    """What a bar shows: the method's point estimate."""
    n = 0 if result.repeats is None else np.shape(result.repeats)[1]
    if _repeat_word(result) == "permutations" and n > 1:
        return f"mean over {n} permutations"
    if result.method in ("loco", "lofo") and result.params.get("aggregate"):
        if result.params.get("relation") == "ratio":
            return f"ratio of the {result.params['aggregate']} losses"
        return f"{result.params['aggregate']} of the loss differences"
    if result.method.startswith("sage"):
        return "SAGE value φ"
    return "importance"


def _box(result, ax, max_features, **kwargs):
    if result.repeats is None:
        raise ValidationError(f"kind='box' needs per-repeat importances; this {result.method} result has none.")
    order = _ordered(result, max_features)
    names = [str(result.feature_names[i]) for i in order]
    ax = get_ax(ax, figsize=barh_figsize(names))
    ax.boxplot([result.repeats[i] for i in order], orientation="horizontal", **kwargs)
    category_ticks(ax, np.arange(1, len(order) + 1), names, axis="y")
    ax.axvline(0 if result.params.get("relation") != "ratio" else 1, color="grey", lw=0.8)
    ax.set_xlabel(f"importance per {_repeat_word(result)[:-1]}")
    ax.set_title(f"{method_name(result.method)} ({result.loss})")
    return ax
