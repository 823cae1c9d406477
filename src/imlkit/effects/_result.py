"""EffectResult: the result of ICE, PD, ALE and a GAM's partial effects."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._display import ResultDisplay

__all__ = ["EffectResult"]


@dataclass(frozen=True, repr=False)
class EffectResult(ResultDisplay):
    """The effect of one feature (or a pair) on the prediction.

    Attributes
    ----------
    method : str
        ``"ice"``, ``"pd"``, ``"ale"``, ``"gam"`` (a GAM's partial effect), ...
    feature_names : tuple of str
        One feature, or two for a 2-D effect.
    grid : ndarray, shape (m,) -- or a tuple of two grids for 2-D
        The feature values at which the effect is evaluated (levels for categoricals).
    average : ndarray, shape (m,) -- or (m1, m2) for 2-D
        The average effect (PD, ALE, a GAM term).
    individual : ndarray, shape (n, m), or None
        ICE curves (centred when ``params["center"]`` is set).
    ci_low, ci_high : ndarray, shape (m,), or None
        A pointwise band (ALE's spread of local effects, a GAM's standard-error band).
    feature_values : ndarray, shape (n,), or None
        The observed values (a rug in plots).
    categorical : bool
        The feature is categorical (bars instead of lines).
    output : str or None
        Which output the effect is about ("prediction", "P(class=...)", "link").
    params : dict
    extra : dict
    """

    method: str
    feature_names: tuple
    grid: np.ndarray
    average: np.ndarray
    individual: np.ndarray | None = None
    ci_low: np.ndarray | None = None
    ci_high: np.ndarray | None = None
    feature_values: np.ndarray | None = None
    categorical: bool = False
    output: str | None = None
    params: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    @property
    def feature(self):
        """The (first) feature's name."""
        return self.feature_names[0]

    def to_frame(self):
        """One row per grid point: the feature value, ``average`` and the band if present.

        For a 2-D effect, one row per grid pair with both feature values.
        """
        if len(self.feature_names) == 2 and np.ndim(self.average) == 2:
            g1, g2 = self.grid
            a, b = np.meshgrid(np.asarray(g1), np.asarray(g2), indexing="ij")
            return pd.DataFrame({self.feature_names[0]: a.ravel(), self.feature_names[1]: b.ravel(),
                                 "average": np.asarray(self.average).ravel()})
        avg = np.asarray(self.average)
        if avg.ndim == 2:  # a multi-class effect: one column per class
            classes = self.extra.get("classes", range(avg.shape[1]))
            data = {self.feature_names[0]: np.asarray(self.grid)}
            data.update({f"average[{c}]": avg[:, k] for k, c in enumerate(classes)})
            return pd.DataFrame(data)
        data = {self.feature_names[0]: np.asarray(self.grid), "average": avg}
        if self.ci_low is not None:
            data["ci_low"] = self.ci_low
            data["ci_high"] = self.ci_high
        return pd.DataFrame(data)

    def individual_frame(self):
        """The ICE curves in long form: ``row, <feature>, value`` (one row per curve and grid point).

        ``row`` is the position of the curve's row in the data the effect was computed on.
        """
        if self.individual is None:
            from .._validation import ValidationError

            raise ValidationError(f"This {self.method!r} result has no individual curves; use ik.ice().")
        M = np.asarray(self.individual)
        if M.ndim != 2:
            from .._validation import ValidationError

            raise ValidationError("individual_frame() needs one output; pass 'output' to pick a class.")
        n, m = M.shape
        rows = self.extra.get("row_index")
        rows = np.arange(n) if rows is None else np.asarray(rows)
        return pd.DataFrame({"row": np.repeat(rows, m), self.feature_names[0]: np.tile(np.asarray(self.grid), n),
                             "value": M.ravel()})

    def plot(self, *, ax=None, **kwargs):
        """ICE lines with the average on top, a rug of observed values; bars for categoricals;
        a heat map for 2-D. Returns the matplotlib Axes."""
        from ..plotting import plot_effect

        return plot_effect(self, ax=ax, **kwargs)
