"""c-ICE heterogeneity: how differently the mean-centred ICE curves of a feature run.

A feature whose centred ICE curves all follow its centred PD has an effect that is the same
for every observation (no interaction with the other features); the spread of the curves
around the PD is the interaction-related heterogeneity that REPID splits up. Ranking the
features by it picks the feature whose regional effects are worth computing (the course:
"identify the feature with highly heterogeneous local effects").
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._display import ResultDisplay
from .._dtypes import has_levels
from .._options import (
    ENGINE,
    FEATURES,
    GRID_TYPE,
    MAX_ROWS,
    N_JOBS,
    N_SAMPLES,
    OUTPUT,
    PROGRESS,
    RANDOM_STATE,
    Option,
    Spec,
)
from .._parallel import parallel_map, rng_of
from .._timing import Timer
from .._validation import ValidationError, check_int, check_X, resolve_features
from ._grid import (
    ice_matrix,
    make_grid,
    make_predictor,
    output_precision,
    resolve_output,
    subsample_rows,
)
from ._repid import rounding_floor
from ._result import HeterogeneitySlicing

__all__ = ["ice_heterogeneity", "HeterogeneityResult", "centred_ice_heterogeneity"]


@dataclass(frozen=True, repr=False)
class HeterogeneityResult(HeterogeneitySlicing, ResultDisplay):
    """c-ICE heterogeneity of each feature.

    Attributes
    ----------
    feature_names : tuple of str
        In the order they were given (``to_frame()`` sorts).
    heterogeneity : ndarray, shape (p,)
        Mean squared deviation of the centred ICE curves from the centred PD (see
        :func:`ice_heterogeneity`); 0 for a constant feature.
    grid_sizes : ndarray of int, shape (p,)
        Grid points m_j each feature was evaluated at.
    n_samples : int
        Rows whose curves were used (the same rows for every feature).
    output : str
        Which model output the curves are of (``"prediction"``, ``"P(class=...)"``).
    params, extra : dict
        ``extra``: ``row_index``, ``constant``, ``rounding_floor`` (τ_j by feature), ``rounding_dtype``,
        ``rounding_eps``, ``at_rounding_floor`` and ``equal_up_to_rounding`` (see
        :func:`ice_heterogeneity`'s Notes).
    info : dict
        What happened: ``seconds``, ``n_rows`` (= ``n_samples``), ``engine`` (see
        :data:`imlkit._record.HAPPENED`).
    """

    feature_names: tuple
    heterogeneity: np.ndarray
    grid_sizes: np.ndarray
    n_samples: int
    output: str | None = None
    params: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)
    method: str = "ice_heterogeneity"
    info: dict = field(default_factory=dict)

    def to_frame(self):
        """DataFrame indexed by feature, columns ``heterogeneity, grid``, sorted descending
        (ties keep the given order)."""
        frame = pd.DataFrame({"heterogeneity": np.asarray(self.heterogeneity, dtype=float),
                              "grid": np.asarray(self.grid_sizes, dtype=int)},
                             index=pd.Index(self.feature_names, name="feature"))
        return frame.sort_values("heterogeneity", ascending=False, kind="stable")

    def explain(self):
        """What the c-ICE heterogeneity measures, the ranking with its numbers, and the features whose curves are
        equal up to rounding or constant."""
        from ._explain import explain_heterogeneity

        return explain_heterogeneity(self)

    def to_series(self):
        """The heterogeneity as a Series, sorted descending."""
        return self.to_frame()["heterogeneity"]

    @property
    def ranking(self):
        """Feature names, most heterogeneous first."""
        return tuple(self.to_frame().index)

    @property
    def top(self):
        """The most heterogeneous feature (the one REPID is worth running on)."""
        return self.ranking[0]


def centred_ice_heterogeneity(F):
    """Heterogeneity of an ICE matrix: mean over rows, grid points (and classes) of the squared
    deviation of the mean-centred curves from their mean.

    Parameters
    ----------
    F : ndarray, shape (n, m) or (n, m, C)
        Uncentred ICE curves, ``F[i, k] = f(x̃^(k), x_{i,-j})``.

    Returns
    -------
    float
    """
    F = np.asarray(F, dtype=float)
    if F.size == 0:
        return 0.0
    C = F - F.mean(axis=1, keepdims=True)          # c-ICE: each curve minus its own grid mean
    D = C - C.mean(axis=0, keepdims=True)          # minus the centred PD (mean over rows)
    return float(np.mean(D * D))


def _feature_task(predictor, Xs, name, values, column, eps):
    F = ice_matrix(predictor, Xs, name, values, column=column)
    return centred_ice_heterogeneity(F), rounding_floor(F, eps)


def _check_grid(name, grid, call):
    """Grid points per feature: an int >= 2 (a wrong type is a ValidationError here, as it always was)."""
    if isinstance(grid, bool) or not isinstance(grid, (int, np.integer)):
        raise ValidationError(f"'grid' must be an int >= 2; got {grid!r}.")
    return check_int(name, grid, min_value=2)


#: ice_heterogeneity's options, in the order they are recorded (defaults: the signature). They are
#: checked after X and ``features`` (recorded as given, a list as the resolved names).
SPEC = Spec(
    "ice_heterogeneity",
    FEATURES.but(doc="the features to rank (None: every column); no groups"),
    Option("grid", _check_grid, "grid points per feature"),
    GRID_TYPE, N_SAMPLES, OUTPUT, MAX_ROWS, N_JOBS, RANDOM_STATE, PROGRESS, ENGINE,
)


def ice_heterogeneity(model, X, features=None, *, grid=20, grid_type="quantile", n_samples=None, output=None,
                      max_rows=None, random_state=None, n_jobs=None, progress=False, engine="auto"):
    """Rank features by the heterogeneity of their mean-centred ICE curves (c-ICE).

    Parameters
    ----------
    model : fitted estimator or callable
        Anything with ``predict`` (or ``predict_proba`` for classifiers), or ``X -> ŷ``.
    X : DataFrame or array, shape (n, p)
    features : None, name, index or list
        Features to rank (default: all columns).
    grid : int, default 20
        Grid points per feature (quantiles of the observed values; all levels of a categorical
        and all values of a feature with at most ``grid`` distinct values), as :func:`imlkit.ice`.
    grid_type : {"quantile", "uniform"}
    n_samples : int, optional
        Draw this many rows (without replacement, with ``random_state``) once; every feature's
        curves are computed on the same rows. Default: all rows. The cost is n·m predictions
        per feature.
    output : None, "predict" or a class label
        As :func:`imlkit.ice`. For a multi-class model with ``output=None`` the mean below also
        runs over the classes (the curves of all class probabilities laid side by side, as REPID
        grows its tree).
    max_rows : int, optional
        At most this many rows per model call.
    random_state : None, int or Generator
        Only used to draw the ``n_samples`` rows.
    n_jobs : int, optional
        Features are spread over joblib workers; the result does not depend on it.
    progress : bool
    engine : {"auto", "trees", "predict"}
        As :func:`imlkit.ice`; ``info["engine"]`` records which ran.

    Returns
    -------
    HeterogeneityResult
        ``to_frame()`` is sorted by heterogeneity, descending; ``top`` is the first feature.

    Notes
    -----
    For feature j, grid x̃^(1..m) and rows i = 1..n, the mean-centred ICE curve (Goldstein et al.
    2015; the c-ICE of Herbinger et al. 2022) and the centred PD are

        ĉ_ik = f(x̃^(k), x_{i,-j}) − (1/m) Σ_l f(x̃^(l), x_{i,-j}),      c̄_k = (1/n) Σ_i ĉ_ik,

    and the heterogeneity is

        H_j = (1/(n·m)) Σ_i Σ_k (ĉ_ik − c̄_k)²  =  R_j(root) / (n·m),

    the mean over the grid of the (population) variance of the centred curves across rows,
    which is REPID's root risk R_j divided by n·m. Centring removes vertical shifts, so a
    feature that enters additively, f = g_j(x_j) + g_-j(x_-j), has H_j = 0 exactly: every
    centred curve equals the centred PD. H_j > 0 means x_j interacts with other features.
    H_j is in squared units of the output, so it also grows with the size of x_j's effect; it
    ranks features, it is not a share like the H-statistic. A constant feature gets 0.

    A model's predictions carry rounding, so an additive model's H_j is rounding noise, not 0: ~1e-30 for a
    float64 model, but ~1e-13 × f² for one that predicts in float32 (xgboost), which would rank its rounding
    as "the most heterogeneous" feature. Each feature's rounding floor is REPID's τ_j (see :func:`imlkit.repid`:
    max(1e-9 × the largest range of one of x_j's ICE curves, 64 ε max |f|), with ε the machine epsilon of the
    dtype the model predicts in, read from one extra prediction of two rows), and x_j's curves are equal up to
    rounding when sqrt(H_j) <= τ_j. ``extra["rounding_floor"]`` holds τ_j by feature,
    ``extra["rounding_dtype"]`` and ``extra["rounding_eps"]`` the dtype and ε used,
    ``extra["at_rounding_floor"]`` the features at or below their floor (their ranking orders rounding noise)
    and ``extra["equal_up_to_rounding"]`` whether every feature is (an additive model).

    References
    ----------
    Goldstein, Kapelner, Bleich & Pitkin (2015). Peeking inside the black box: visualizing
    statistical learning with plots of individual conditional expectation. JCGS 24(1).
    Herbinger, Bischl & Casalicchio (2022). REPID: Regional effect plots with implicit
    interaction detection. AISTATS, PMLR 151.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(200, 3))
    >>> h = ice_heterogeneity(lambda Z: Z[:, 0] + Z[:, 1] * Z[:, 2], X, grid=10)
    >>> h.top in ("x1", "x2"), round(float(h.to_frame().loc["x0", "heterogeneity"]), 12)
    (True, 0.0)
    """
    X, was_frame = check_X(X)
    if len(X) < 2:
        raise ValidationError("ice_heterogeneity needs at least 2 rows of X: one centred ICE curve differs from "
                              "their mean by 0; got 1 row.")
    feats = list(resolve_features(features, X.columns, allow_groups=False))
    if not feats:
        raise ValidationError("'features' must name at least one feature; got an empty list.")
    call = SPEC.check(locals())
    grid, n_samples, seed = call["grid"], call["n_samples"], call["seed"]
    kind, column, label, classes = resolve_output(model, output)
    predictor = make_predictor(model, kind, was_frame, max_rows)
    rows = subsample_rows(len(X), n_samples, rng_of(seed))
    Xs = X.iloc[rows].reset_index(drop=True)
    params = dict(SPEC.record(call),
                  features=features if features is None or isinstance(features, (str, int)) else list(feats))
    params.update(predictor.use_engine(Xs, engine, feats))
    dtype, eps = output_precision(predictor, Xs)

    grids, constant = {}, []
    for f in feats:
        s = Xs[f]
        if has_levels(s):
            distinct = s.dropna().nunique()
        else:
            v = s.to_numpy(dtype=float)
            distinct = np.unique(v[np.isfinite(v)]).size
        if distinct < 2:
            constant.append(f)  # one value: every centred curve is 0, no heterogeneity
            continue
        grids[f] = make_grid(s, grid, grid_type)[0]
    with Timer() as timer:
        todo = [f for f in feats if f in grids]
        tasks = [(predictor, Xs, f, grids[f], column, eps) for f in todo]
        done = dict(zip(todo, parallel_map(_feature_task, tasks, n_jobs=n_jobs, progress=progress,
                                           desc="c-ICE heterogeneity")))
    params.update(seconds=timer.seconds, n_rows=len(Xs))
    values = np.array([done[f][0] if f in done else 0.0 for f in feats], dtype=float)
    sizes = np.array([len(grids[f]) if f in grids else 1 for f in feats], dtype=int)
    floors = {f: done[f][1] if f in done else 0.0 for f in feats}
    at_floor = tuple(f for f, h in zip(feats, values) if np.sqrt(h) <= floors[f])
    extra = {"row_index": rows, "constant": tuple(constant), "rounding_floor": floors, "rounding_dtype": dtype,
             "rounding_eps": eps, "at_rounding_floor": at_floor,
             "equal_up_to_rounding": len(at_floor) == len(feats)}
    if column == "all":
        extra["classes"] = classes
    return HeterogeneityResult(feature_names=tuple(feats), heterogeneity=values, grid_sizes=sizes,
                               n_samples=len(Xs), output=label, params=params, extra=extra)
