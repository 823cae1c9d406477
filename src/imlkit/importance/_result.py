"""ImportanceResult: the one result type of every loss-based importance method."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._display import ResultDisplay
from ._questions import explain_method

__all__ = ["ImportanceResult"]


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
