"""ShapResult: per-row Shapley values of a prediction or of a loss."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._display import ResultDisplay
from .._select import feature_positions, is_feature_key, row_positions, top_positions, with_selection
from .._validation import ValidationError
from ..importance._questions import explain_method

__all__ = ["ShapResult"]

#: ``extra`` entries with one entry per explained row.
_PER_ROW_EXTRA = ("fx", "n_permutations", "converged")


@dataclass(frozen=True, repr=False)
class ShapResult(ResultDisplay):
    """Shapley values of each explained row.

    Attributes
    ----------
    method : str
        ``"shap_prediction"`` or ``"shap_loss"``.
    feature_names : tuple of str, length m
        The players (columns or groups), in X's column order with named groups first.
    values : ndarray, shape (n, m)
        φ_ij: the contribution of player j to row i's prediction (or to its loss reduction).
    base_values : ndarray, shape (n,)
        Prediction: E_b f(z_b) (the same for every row), so ``base_values + values.sum(1)``
        is the prediction. Loss: ℓ(y_i, E_b f(z_b)), so ``base_values − values.sum(1)`` is
        the row's loss ℓ(y_i, f(x_i)).
    data : DataFrame, shape (n, p)
        The explained rows.
    output : str
        What is explained (``"prediction"``, ``"P(class=1)"``, ``"logit P(class=1)"``,
        ``"loss squared_error"``).
    std : ndarray, shape (n, m)
        Standard errors of the permutation estimate (0 when exact).
    groups : dict
        ``{player: [columns]}``.
    params : dict
        The call's arguments.
    warnings : tuple of str
    extra : dict
        ``engine`` ("trees" or "predict"), ``exact``, ``n_permutations`` and ``converged``
        per row, ``n_background``, ``fx`` (the explained output of each row: prediction, or
        loss for ``shap_loss``).
    info : dict
        What happened: ``seconds``, ``n_rows`` (the explained rows; a slice's own count),
        ``engine`` (and ``engine_note``), ``background_rows`` (see :data:`imlkit._record.HAPPENED`).
    """

    method: str
    feature_names: tuple
    values: np.ndarray
    base_values: np.ndarray
    data: pd.DataFrame
    output: str
    std: np.ndarray
    groups: dict = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    warnings: tuple = ()
    extra: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    @property
    def features(self):
        """The players' names (alias of ``feature_names``)."""
        return self.feature_names

    __iter__ = None  # __getitem__ selects; it is no sequence protocol (iter(r) and `x in r` are TypeErrors)

    def __getitem__(self, key):
        """Some rows, some players, or both, as in shap's ``Explanation``.

        - ``s["temp"]``, ``s[["temp", "hum"]]``: those players (every row);
        - ``s[:5]``, ``s[3]``, ``s[[0, 4]]``, ``s[mask]`` (a boolean array over the rows: a
          cohort, e.g. ``s[X["season"] == "winter"]``): those rows (every player);
        - ``s[rows, players]``: both, e.g. ``s[:5, ["temp", "hum"]]`` or ``s[mask, "temp"]``.

        A :class:`ShapResult` whose ``values``/``std`` hold the full result's numbers at those
        rows and columns, with the rows of ``base_values``, ``data`` (every column: the plots
        colour by the feature values) and the per-row ``extra`` (``fx``, ``n_permutations``,
        ``converged``). One row stays a (1, m) result (``s[3].plot("waterfall")``). With some
        players only, ``base_values + values.sum(1)`` no longer adds up to the explained output
        (the other players' shares are left out). ``params["selection"]`` records what was taken.
        Unknown players raise :class:`imlkit.ValidationError` naming them and the available ones.
        """
        rows_key, players_key = slice(None), slice(None)
        if isinstance(key, tuple) and len(key) == 2 and not all(isinstance(k, str) for k in key):
            rows_key, players_key = key
        elif is_feature_key(key):
            players_key = key  # a name, or several (a list, or a tuple of names)
        else:
            rows_key = key
        what = f"this SHAP result ({len(self.values)} rows)"
        step = {}
        rows = row_positions(rows_key, len(self.values), what)
        if not isinstance(rows_key, slice) or rows.size != len(self.values):
            if rows.size == 0:
                raise ValidationError(f"The selection keeps no row of {what}; select at least one row.")
            step.update(rows=int(rows.size), row_positions=rows)
        cols = list(range(len(self.feature_names)))
        if not (isinstance(players_key, slice) and players_key == slice(None)):
            cols = feature_positions(players_key, self.feature_names, "this SHAP result")
            step["features"] = tuple(self.feature_names[j] for j in cols)
        return self._select(rows, cols, step)

    def top(self, k):
        """The ``k`` players of largest global importance, largest first: mean |φ_j| over the rows for
        prediction SHAP, mean φ_j (marginal SAGE) for loss SHAP -- the order of :meth:`importance`.

        A :class:`ShapResult` with every row and those players (see :meth:`__getitem__`).
        """
        pos = top_positions(self.importance().importance, k)
        by = "mean phi" if self.method == "shap_loss" else "mean |phi|"
        return self._select(np.arange(len(self.values)), pos, {"top": int(k), "by": by})

    def _select(self, rows, cols, step):
        extra = dict(self.extra)
        for name in _PER_ROW_EXTRA:
            if extra.get(name) is not None and np.ndim(extra[name]) >= 1:
                extra[name] = np.asarray(extra[name])[rows]
        names = tuple(self.feature_names[j] for j in cols)
        values = np.asarray(self.values)[np.ix_(rows, cols)]
        std = np.asarray(self.std)[np.ix_(rows, cols)]
        params = with_selection(self.params, step)
        info = {**self.info, "n_rows": int(len(rows))} if "n_rows" in self.info else self.info
        return replace(self, feature_names=names, values=values, std=std,
                       base_values=np.asarray(self.base_values)[rows], data=self.data.iloc[rows],
                       groups={n: self.groups[n] for n in names if n in self.groups}, params=params, extra=extra,
                       info=info)

    def to_frame(self):
        """One row per explained row, one column per player, and ``base_value``; the data's index."""
        frame = pd.DataFrame(self.values, columns=list(self.feature_names), index=self.data.index)
        frame["base_value"] = self.base_values
        return frame

    def importance(self):
        """The global summary of the local values as an :class:`imlkit.ImportanceResult`.

        Prediction SHAP: mean |φ_j| over the rows (method ``"shap_mean_abs"``; how much the
        predictions move with x_j). Loss SHAP: the mean of φ_j (method ``"shap_loss_mean"``),
        which is marginal SAGE on the same rows and background. ``std`` is the standard error
        of the mean over rows; the interval is the normal one at 95 %.
        """
        from ..importance import ImportanceResult

        if self.method == "shap_loss":
            per_row, method = self.values, "shap_loss_mean"
        else:
            per_row, method = np.abs(self.values), "shap_mean_abs"
        n = len(per_row)
        imp = per_row.mean(axis=0)
        se = per_row.std(axis=0, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(len(imp))
        loss = self.params.get("loss") or "prediction"
        return ImportanceResult(method=method, feature_names=self.feature_names, importance=imp, std=se,
                                ci_low=imp - 1.959964 * se, ci_high=imp + 1.959964 * se, loss=loss,
                                groups=dict(self.groups), params=dict(self.params, confidence_level=0.95),
                                extra={"default_plot": "bar"}, info=dict(self.info))

    def plot(self, kind="beeswarm", *, ax=None, **kwargs):
        """Draw the values; returns the matplotlib Axes.

        ``kind``: ``"beeswarm"`` (every row's φ per feature, coloured by the feature's value),
        ``"waterfall"`` (one row: ``row=i``), ``"bar"`` (mean |φ|, or mean φ for the loss),
        ``"dependence"`` (φ_j against x_j: ``feature=...``). See :mod:`imlkit.plotting`.
        """
        from ..plotting import plot_shap

        return plot_shap(self, kind=kind, ax=ax, **kwargs)

    def explain(self):
        """Which of the three questions the values' global summary answers, what the values rest on (the output
        explained, the rows, the background, exact or estimated), and caveats."""
        summary = {"shap_prediction": "shap_mean_abs", "shap_loss": "shap_loss_mean"}.get(self.method, self.method)
        return explain_method(summary, self.warnings, self.params) + "\n\n" + self._basis()

    def _basis(self):
        """The facts behind the values, from the result itself: a logit SHAP is on the log-odds (its base value is
        the mean log-odds, not the mean probability), an estimate is not exact, a slice of players no longer adds
        up to the output."""
        n = len(self.values)
        nb = self.extra.get("n_background")
        bg = f"{nb:,} background rows" if nb is not None else "the background rows"
        if self.method == "shap_loss":
            lines = [f"Explained: the loss of each of {n:,} rows ({self.output}); base value: the loss of the mean "
                     f"prediction over {bg}, so base value minus the sum of the values is the row's loss."]
        else:
            scale = (" (on the log-odds scale: the values add up to the log-odds, not to the probability)"
                     if str(self.output).startswith("logit") else "")
            lines = [f"Explained: {self.output} of {n:,} rows{scale}; base value: its mean over {bg}, so base value "
                     f"plus the sum of the values is each row's output."]
        if self.extra.get("exact"):
            lines.append("The values are exact (no sampling of orderings).")
        else:
            k = np.atleast_1d(np.asarray(self.extra.get("n_permutations", []), dtype=float))
            conv = self.extra.get("converged")
            told = (f"{int(np.sum(conv)):,} of {n:,} rows reached the tolerance; " if conv is not None else "")
            orders = (f"{int(k.min()):,} to {int(k.max()):,} orderings per row" if k.size and k.min() != k.max()
                      else f"{int(k.max()):,} orderings per row" if k.size else "sampled orderings")
            lines.append(f"The values are permutation estimates ({orders}; {told}their standard errors are in "
                         f"'std').")
        picked = [step.get("features") for step in self.params.get("selection", ()) if isinstance(step, dict)]
        if any(picked):
            lines.append("A selection of players: the values of the players left out are not here, so base value "
                         "and these values no longer add up to the output.")
        return "\n".join(lines)
