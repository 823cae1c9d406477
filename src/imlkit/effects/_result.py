"""EffectResult: the result of ICE, PD, ALE and a GAM's partial effects; how effect results are sliced.

Slicing (``r[key]``, ``r.top(k)``) means, per effect result:

- ICE (:class:`EffectResult` with curves): ``r[:5]``, ``r[mask]``, ``r[[0, 3]]`` keep some curves
  (a cohort); the average becomes the cohort's PD (the weighted mean of its curves). A name
  selects nothing new: the effect is of one feature (or a pair), so ``r["temp"]`` is the result
  itself and another name is an error saying how to get its effect.
- PD, ALE, a GAM term: no rows and one feature: only ``r["temp"]`` (itself).
- H-statistic: ``h["temp"]``, ``h[["temp", "hum"]]`` the features' overall H² and the pairs that
  involve them; ``h["temp", "hum"]`` (two names) or ``h[[("temp", "hum"), ...]]`` the pairs;
  ``h.top(k)`` the k features of largest overall H² and their pairs.
- c-ICE heterogeneity: ``h["temp"]``, ``h[["temp", "hum"]]`` (its ``top`` is the most
  heterogeneous feature, a property kept as it was).
- REPID: one feature's regional tree; only ``g["hr"]`` (itself).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .._display import ResultDisplay, method_name
from .._select import feature_positions, is_feature_key, row_positions, top_positions, with_selection
from .._validation import ValidationError

__all__ = ["EffectResult", "PairSlicing", "HeterogeneitySlicing", "OneFeatureSlicing"]

#: How to compute another feature's effect, by method (named in the errors of a one-feature result).
_ANOTHER = {"ice": "ik.ice(model, X, '<feature>')", "pd": "ik.partial_dependence(model, X, '<feature>')",
            "ale": "ik.ale(model, X, '<feature>')", "gam": "the GAM's partial_effect('<feature>')",
            "repid": "ik.repid(model, X, '<feature>')"}


def _own_features(result, key, how_else):
    """``key`` names exactly the result's feature(s): the result, with the selection recorded; else an error."""
    names = tuple(result.feature_names)
    what = f"this {method_name(result.method)} result"
    pos = feature_positions(key, names, what)
    if len(pos) != len(names):
        raise ValidationError(f"{what[0].upper()}{what[1:]} is the joint effect of {names!r}; it cannot be split into "
                              f"one feature's effect. {how_else}")
    return replace(result, params=with_selection(result.params, {"features": tuple(names[j] for j in pos)}))


class OneFeatureSlicing:
    """``r["feature"]`` on a result about one feature: the result itself; ``top`` does not apply."""

    __iter__ = None  # __getitem__ selects; it is no sequence protocol (iter(r) and `x in r` are TypeErrors)

    def _how_else(self):
        return f"Another feature's effect: {_ANOTHER.get(self.method, 'its own call')}."

    def __getitem__(self, key):
        """``r[own feature]``: the result itself (with the selection recorded); any other key is an error."""
        if is_feature_key(key) and not set([key] if isinstance(key, str) else key) <= set(self.feature_names):
            unknown = [k for k in ([key] if isinstance(key, str) else key) if k not in self.feature_names]
            raise ValidationError(f"This {method_name(self.method)} result is about {self.feature_names!r} only; "
                                  f"{unknown!r} not in it. {self._how_else()}")
        if not is_feature_key(key):
            raise ValidationError(f"This {method_name(self.method)} result is about {self.feature_names!r} and holds "
                                  f"no rows to select; r[{self.feature_names[0]!r}] is the only selection.")
        return _own_features(self, key, self._how_else())

    def top(self, k):
        """Not defined: the result is about one feature. Raises :class:`imlkit.ValidationError`."""
        raise ValidationError(f"top(k) ranks features; this {method_name(self.method)} result is about "
                              f"{self.feature_names!r} only. Rank features with ik.pfi, ik.h_statistic or "
                              f"ik.ice_heterogeneity.")


@dataclass(frozen=True, repr=False)
class EffectResult(OneFeatureSlicing, ResultDisplay):
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
        The call's arguments.
    extra : dict
    info : dict
        What happened: ``seconds``, ``n_rows``, ``engine``, ALE's ``n_bins``, a GAM term's
        ``edf`` and ``lambda`` (see :data:`imlkit._record.HAPPENED`).
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
    info: dict = field(default_factory=dict)

    @property
    def feature(self):
        """The (first) feature's name."""
        return self.feature_names[0]

    def __getitem__(self, key):
        """ICE curves of some rows (a cohort), or the result itself by its feature's name.

        ``r[:5]``, ``r[mask]`` (a boolean array over the curves), ``r[[0, 3]]``: a result of the
        same type with those rows of ``individual``, ``feature_values`` and ``extra``'s
        ``row_index``/``sample_weight``; ``average`` is recomputed as the cohort's PD, the
        (sample-weighted) mean of its curves -- for centred curves, of the centred curves; the
        uncentred average is kept only when the curves are not centred (it is then the same).
        ``r["temp"]`` (its own feature; both names of a 2-D PD) returns the result itself.
        PD, ALE and GAM effects hold no curves: a row key is an error. ``params["selection"]``
        records what was taken; ``info["n_rows"]`` is the cohort's number of curves.
        """
        if is_feature_key(key):
            return OneFeatureSlicing.__getitem__(self, key)
        what = f"this {method_name(self.method)} result"
        if self.individual is None:
            raise ValidationError(f"{what[0].upper()}{what[1:]} holds no individual curves to select rows from "
                                  f"(only r[{self.feature_names[0]!r}]); ik.ice() keeps them.")
        M = np.asarray(self.individual)
        rows = row_positions(key, M.shape[0], what)
        if rows.size == 0:
            raise ValidationError(f"The selection keeps no row of {what}; select at least one curve.")
        extra = dict(self.extra)
        weights = extra.get("sample_weight")
        if weights is not None:
            extra["sample_weight"] = np.asarray(weights)[rows]
        if extra.get("row_index") is not None:
            extra["row_index"] = np.asarray(extra["row_index"])[rows]
        w = np.full(rows.size, 1.0 / rows.size) if weights is None else \
            np.asarray(extra["sample_weight"], dtype=float) / np.sum(extra["sample_weight"])
        average = np.tensordot(w, M[rows], axes=(0, 0))
        if self.params.get("center") is None:
            extra["uncentered_average"] = average
        else:
            extra.pop("uncentered_average", None)  # the cohort's uncentred curves are not kept
        params = with_selection(self.params, {"rows": int(rows.size), "row_positions": rows})
        values = None if self.feature_values is None else np.asarray(self.feature_values)[rows]
        return replace(self, individual=M[rows], average=average, feature_values=values, extra=extra, params=params,
                       info={**self.info, "n_rows": int(rows.size)})

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

    def explain(self):
        """What the effect says, in sentences that carry their numbers: the method and the question it answers,
        the grid, the size of the effect (max − min of the average curve, in the output's units), its shape only
        where every step has one sign up to a tolerance, and for ICE how differently the rows' curves run."""
        from ._explain import explain_effect

        return explain_effect(self)

    def plot(self, *, ax=None, **kwargs):
        """ICE lines with the average on top, a rug of observed values; bars for categoricals;
        a heat map for 2-D. Returns the matplotlib Axes."""
        from ..plotting import plot_effect

        return plot_effect(self, ax=ax, **kwargs)


class FeatureSlicing:
    """``r["temp"]``, ``r[["temp", "hum"]]`` for a result with one value per feature (c-ICE heterogeneity).

    The class lists its per-feature fields in ``_per_feature`` (first axis one entry per feature).
    """

    __iter__ = None  # __getitem__ selects; it is no sequence protocol (iter(r) and `x in r` are TypeErrors)

    _per_feature = ()

    def __getitem__(self, key):
        """The result for some features, in the order given; the numbers are the full result's.

        Unknown names raise :class:`imlkit.ValidationError` naming them and the available
        ones; ``params["selection"]`` records what was taken.
        """
        pos = feature_positions(key, self.feature_names, f"this {method_name(self.method)} result")
        return self._select(pos, {"features": tuple(self.feature_names[j] for j in pos)})

    def _select(self, pos, step, **more):
        fields = {name: np.take(np.asarray(getattr(self, name)), pos, axis=0) for name in self._per_feature
                  if getattr(self, name) is not None}
        return replace(self, feature_names=tuple(self.feature_names[j] for j in pos),
                       params=with_selection(self.params, step), **fields, **more)


class PairSlicing(FeatureSlicing):
    """Slicing of the H-statistic: by feature (overall H² and the pairs involving it) or by pair."""

    _per_feature = ("overall", "overall_unnormalized", "overall_se")

    def __getitem__(self, key):
        """``h["temp"]``, ``h[["temp", "hum"]]``: those features' overall H² and every pair that involves
        one of them; ``h["temp", "hum"]`` or ``h[[("temp", "hum"), ...]]``: those pairs (either order)
        and the overall H² of their features that were computed.

        A result of the same type; the numbers are the full result's (the pair table keeps its
        order, largest H² first). Unknown features or pairs raise :class:`imlkit.ValidationError`
        naming the available ones.
        """
        what = f"this {method_name(self.method)} result"
        pairs = self._pair_keys(key)
        if pairs is None:
            pos = feature_positions(key, self.feature_names, what)
            names = {self.feature_names[j] for j in pos}
            keep = self.pairwise["feature_1"].isin(names) | self.pairwise["feature_2"].isin(names)
            return self._select(pos, {"features": tuple(self.feature_names[j] for j in pos)},
                                pairwise=self.pairwise[keep.to_numpy()].reset_index(drop=True))
        table = self.pairwise
        have = list(zip(table["feature_1"], table["feature_2"]))
        rows = []
        for a, b in pairs:
            hit = [i for i, (p, q) in enumerate(have) if {p, q} == {a, b}]
            if not hit:
                listed = ", ".join(f"({p!r}, {q!r})" for p, q in have[:30]) or "none"
                raise ValidationError(f"Unknown pair ({a!r}, {b!r}) in {what}; available pairs: {listed}.")
            rows.append(hit[0])
        rows = sorted(set(rows))  # the table's order (largest H² first)
        involved = {f for i in rows for f in have[i]}
        pos = [j for j, n in enumerate(self.feature_names) if n in involved]
        return self._select(pos, {"pairs": tuple(have[i] for i in rows)},
                            pairwise=table.iloc[rows].reset_index(drop=True))

    @staticmethod
    def _pair_keys(key):
        """The pairs a key names (a 2-tuple of names, or a list of them); None for a feature key."""
        if isinstance(key, tuple) and len(key) == 2 and all(isinstance(k, str) for k in key):
            return [key]
        if isinstance(key, list) and key and all(isinstance(k, tuple) for k in key):
            if not all(len(k) == 2 and all(isinstance(x, str) for x in k) for k in key):
                raise ValidationError(f"Pairs are given as 2-tuples of feature names; got {key!r}.")
            return key
        return None

    def top(self, k):
        """The ``k`` features of largest overall H² (largest first, NaN last) and the pairs that involve them."""
        pos = top_positions(self.overall, k)
        names = {self.feature_names[j] for j in pos}
        keep = self.pairwise["feature_1"].isin(names) | self.pairwise["feature_2"].isin(names)
        return self._select(pos, {"top": int(k), "by": "overall H2"},
                            pairwise=self.pairwise[keep.to_numpy()].reset_index(drop=True))


class HeterogeneitySlicing(FeatureSlicing):
    """c-ICE heterogeneity by feature: ``heterogeneity`` and ``grid_sizes`` follow the features."""

    _per_feature = ("heterogeneity", "grid_sizes")
