"""ImportanceResult: the one result type of every loss-based importance method."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from .._display import ResultDisplay, method_name
from .._select import feature_positions, top_positions, with_selection
from ._questions import explain_method

__all__ = ["ImportanceResult"]

#: The fields with one entry per feature along their first axis.
_PER_FEATURE = ("importance", "std", "ci_low", "ci_high", "repeats", "quantiles", "p_value", "p_adjusted",
                "observation_importance")
#: ``extra`` entries with one entry per feature, and along which axis: PIMP's null importances
#: (m, n_null), family, floor and refits needed (m,); LOCO's per-fold importances (m, K),
#: Hodges-Lehmann (m, 3) and Holm flags (m,); SAGE's convergence trace (k, m). The other entries
#: describe the whole run (SAGE's coalition values, the baseline refits) and are kept as they are.
_PER_FEATURE_EXTRA = {"null": 0, "distribution": 0, "p_floor": 0, "n_null_needed": 0, "fold_importance": 0,
                      "hodges_lehmann": 0, "holm_beyond_interval": 0, "trace": 1, "trace_se": 1}


def _take(value, pos, axis):
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return type(value)(value[j] for j in pos)
    return np.take(np.asarray(value), pos, axis=axis)


@dataclass(frozen=True, repr=False)
class ImportanceResult(ResultDisplay):
    """Importance of features (or groups) for one model or learner.

    Attributes
    ----------
    method : str
        ``"pfi"``, ``"cfi"``, ``"loco"``, ``"lofo"``, ``"sage_marginal"``,
        ``"sage_conditional"``, ``"pimp"``.
    feature_names : tuple of str, length m
        Features or group names, in the order given.
    importance : ndarray, shape (m,)
        The point estimate (mean over repeats, median of Δ for LOCO, φ for SAGE, ...).
    std : ndarray, shape (m,)
        Standard deviation over repeats/refits (SAGE: standard error of φ).
    ci_low, ci_high : ndarray, shape (m,)
        Confidence interval at ``params["confidence_level"]`` (NaN where undefined).
    repeats : ndarray, shape (m, r), or None
        Per-repeat (per-refit) importances.
    quantiles : ndarray, shape (m, 2), or None
        5% and 95% quantiles over the repeats (the course's error bars).
    p_value, p_adjusted : ndarray, shape (m,), or None
        Tests (LOCO, PIMP), p-values after ``params["p_adjust"]``.
    baseline_loss : float or None
        Risk of the unperturbed model on the evaluation data (a score for score metrics).
    loss : str
    observation_importance : ndarray, shape (m, n), or None
        Observation-wise loss differences ``L(y_i, f(x̃_i)) - L(y_i, f(x_i))`` (mean over repeats).
    groups : dict
        ``{feature name: [columns]}``.
    params : dict
        The call's arguments (reproducibility).
    warnings : tuple of str
        Caveats found while computing (shown by :meth:`explain`).
    extra : dict
        Method-specific data (PIMP's null importances, SAGE's convergence trace, ...).
    info : dict
        What happened: ``seconds``, ``n_rows`` (rows evaluated), ``engine`` and ``engine_note``,
        LOCO's ``test_used``/``estimand``/``inference``/``p_adjust_applied`` (see
        :data:`imlkit._record.HAPPENED`).
    """

    method: str
    feature_names: tuple
    importance: np.ndarray
    std: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    loss: str
    repeats: np.ndarray | None = None
    quantiles: np.ndarray | None = None
    p_value: np.ndarray | None = None
    p_adjusted: np.ndarray | None = None
    baseline_loss: float | None = None
    observation_importance: np.ndarray | None = None
    groups: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    warnings: tuple = ()
    extra: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    __iter__ = None  # __getitem__ selects; it is no sequence protocol (iter(r) and `x in r` are TypeErrors)

    def __getitem__(self, key):
        """The result for some features: ``r["temp"]``, ``r[["temp", "hum"]]`` (in the order given).

        A result of the same type whose per-feature fields (``importance``, ``std``, the
        interval, ``repeats``, ``quantiles``, ``observation_importance``, the p-values and the
        per-feature ``extra``: PIMP's nulls and floors, LOCO's fold importances, SAGE's
        convergence trace) are the full result's entries for these features -- the numbers
        are not recomputed. So ``p_adjusted`` stays adjusted over all the features of the call,
        and SAGE values of a subset no longer sum to ``extra["v_all"]``. ``params`` gains
        ``"selection"``, the record of what was taken; ``info`` is the full run's. Unknown names raise
        :class:`imlkit.ValidationError` naming them and the available ones.
        """
        pos = feature_positions(key, self.feature_names, f"this {method_name(self.method)} result")
        return self._select(pos, {"features": tuple(self.feature_names[j] for j in pos)})

    def top(self, k):
        """The ``k`` most important features, largest ``importance`` first (the point estimate:
        mean over repeats for PFI/CFI, the aggregate of LOCO/LOFO, φ for SAGE; NaN last).

        A result of the same type, as :meth:`__getitem__`; ``k`` above the number of
        features keeps them all (sorted).
        """
        pos = top_positions(self.importance, k)
        return self._select(pos, {"top": int(k), "by": "importance"})

    def _select(self, pos, step):
        fields = {name: _take(getattr(self, name), pos, 0) for name in _PER_FEATURE}
        extra = dict(self.extra)
        for name, axis in _PER_FEATURE_EXTRA.items():
            if extra.get(name) is not None:
                extra[name] = _take(extra[name], pos, axis)
        names = tuple(self.feature_names[j] for j in pos)
        groups = {n: self.groups[n] for n in names if n in self.groups}
        return replace(self, feature_names=names, groups=groups, extra=extra,
                       params=with_selection(self.params, step), **fields)

    def to_frame(self, *, sort=True):
        """One row per feature: importance, std, ci_low, ci_high, q05, q95 [, p_value, p_adjusted, significant].

        Sorted by importance, largest first (``sort=False`` keeps the input order).
        """
        data: dict[str, Any] = {
            "importance": self.importance,
            "std": self.std,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
        }
        if self.quantiles is not None:
            data["q05"] = self.quantiles[:, 0]
            data["q95"] = self.quantiles[:, 1]
        if self.p_value is not None:
            data["p_value"] = self.p_value
        if self.p_adjusted is not None:
            data["p_adjusted"] = self.p_adjusted
            alpha = self.params.get("alpha", 0.05)
            data["significant"] = np.asarray(self.p_adjusted) <= alpha
        frame = pd.DataFrame(data, index=pd.Index(list(self.feature_names), name="feature"))
        if sort:
            frame = frame.sort_values("importance", ascending=False, kind="stable")
        return frame

    def plot(self, kind=None, *, ax=None, **kwargs):
        """Draw the result; returns the matplotlib Axes.

        ``kind``: ``"bar"`` (the point estimate with interval whiskers, the default), ``"box"``
        (the repeats), ``"null"`` (PIMP's null distributions), ``"convergence"`` (SAGE).
        ``interval="quantile"`` draws the 5%/95% quantiles of the per-repeat importances (the
        course's spread over permutations; the default for PFI and CFI), ``interval="ci"`` the
        confidence interval (the default for LOCO, LOFO and SAGE). See
        :func:`imlkit.plotting.plot_importance`.
        """
        from ..plotting import plot_importance

        return plot_importance(self, kind=kind, ax=ax, **kwargs)

    def explain(self):
        """Which interpretation question the method answers, which it does not, and caveats."""
        return explain_method(self.method, self.warnings, self.params)
