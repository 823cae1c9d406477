"""Individual conditional expectation (ICE) curves and partial dependence (PD)."""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._options import (
    ENGINE,
    GRID_TYPE,
    MAX_ROWS,
    N_SAMPLES,
    OUTPUT,
    PROGRESS,
    RANDOM_STATE,
    SAMPLE_WEIGHT,
    Option,
    Spec,
    choice,
)
from .._parallel import rng_of
from .._timing import Timer
from .._validation import ValidationError, check_X, resolve_feature
from ._grid import check_sample_weight, ice_matrix, make_grid, make_predictor, resolve_output, subsample_rows
from ._result import EffectResult

__all__ = ["DEFAULT_N_SAMPLES", "ice", "partial_dependence", "EffectOptions"]

#: Rows ICE, PD and REPID use when ``n_samples=None``: all of them up to this many, else a
#: seeded subsample of this many. The cost is (rows × grid points) predictions, so without a cap
#: 5e5 rows and 20 points would be 1e7 predictions for one curve whose Monte Carlo error at
#: 10,000 rows is already 1% of the ICE curves' spread.
DEFAULT_N_SAMPLES = 10_000


def ice(model, X, feature, *, grid=20, center=None, grid_type="quantile", n_samples=None, sample_weight=None,
        output=None, max_rows=None, random_state=None, progress=False, engine="auto"):
    """Individual conditional expectation curves of one feature, with their mean (the PD).

    Parameters
    ----------
    model : fitted estimator or callable
        Anything with ``predict`` (or ``predict_proba`` for classifiers), or ``X -> ŷ``.
    X : DataFrame or array, shape (n, p)
    feature : str or int
    grid : int or array-like, default 20
        Number of grid points, or explicit values (levels for a categorical feature, which by
        default gets all its observed levels).
    center : {None, "mean", "first"}
        ``"mean"``: each curve minus its own mean over the grid (c-ICE, as REPID uses);
        ``"first"``: each curve minus its value at the first grid point (anchored).
    grid_type : {"quantile", "uniform"}
    n_samples : int, optional
        Rows to use, drawn without replacement *before* predicting. ``None`` (default): all rows
        when there are at most ``DEFAULT_N_SAMPLES`` = 10,000, else a subsample of 10,000 drawn
        with ``random_state`` (pass ``n_samples=len(X)`` for every row). ``info["n_rows"]``
        records the rows used.
    sample_weight : array-like, shape (n,), optional
        Weights of the rows in the average (PD).
    output : None, "predict" or a class label
        ``None``: ``predict`` for a regressor; P(positive class) for a binary classifier; every
        class of a multi-class classifier (a last axis over ``extra["classes"]``). A class
        label: P(class = label). ``"predict"``: the ``predict`` output (numeric). Same rule as
        ALE, the H-statistic and REPID; a two-feature PD of a multi-class model needs a class.
    max_rows : int, optional
        At most this many rows per model call.
    random_state : None, int or Generator
        Only used to draw the ``n_samples`` rows (so only when X has more rows than that).
    progress : bool
        A progress bar over prediction chunks (when ``max_rows`` splits the stack).
    engine : {"auto", "trees", "predict"}
        ``"auto"``: tree ensembles the tree engine supports (scikit-learn, LightGBM, XGBoost)
        are evaluated from their trees, one walk per tree and row for the whole grid, after a
        check against the model's own predictions; ``"predict"``: always the stacked predict.
        ``info["engine"]`` records which ran.

    Returns
    -------
    EffectResult
        ``method="ice"``; ``individual`` (n', m) holds the (centred) curves, ``average`` (m,) their
        weighted mean, ``extra["uncentered_average"]`` the PD before centring. For a multi-class
        model with ``output=None`` the last axis of ``individual`` and ``average`` runs over
        ``extra["classes"]``.

    Notes
    -----
    For grid values x̃^(1..m) and rows i = 1..n,

        ICE_i(x̃^(k)) = f(x̃^(k), x_{i,-j}),     PD(x̃^(k)) = Σ_i w_i ICE_i(x̃^(k)) / Σ_i w_i,

    evaluated from one stacked prediction of the n·m modified rows.

    References
    ----------
    Goldstein, Kapelner, Bleich & Pitkin (2015). Peeking inside the black box: visualizing
    statistical learning with plots of individual conditional expectation. JCGS 24(1).
    Friedman (2001). Greedy function approximation: a gradient boosting machine. Ann. Stat. 29(5).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.column_stack([np.linspace(0, 1, 50), np.linspace(1, 2, 50)])
    >>> e = ice(lambda Z: Z[:, 0] * Z[:, 1], X, 0, grid=[0.0, 1.0])
    >>> e.individual.shape, np.round(e.average, 2).tolist()
    ((50, 2), [0.0, 1.5])
    """
    options = EffectOptions.checked("ice", grid=grid, center=center, grid_type=grid_type, n_samples=n_samples,
                                    sample_weight=sample_weight, output=output, max_rows=max_rows,
                                    random_state=random_state, progress=progress, engine=engine)
    return _effect(model, X, [feature], options)


def partial_dependence(model, X, features, *, grid=20, grid_type="quantile", n_samples=None, sample_weight=None,
                       output=None, max_rows=None, random_state=None, progress=False, engine="auto"):
    """Partial dependence of one feature, or of a pair (a 2-D effect).

    Parameters
    ----------
    features : str, int, or a pair of them
        A pair gives the joint PD on the m1 × m2 grid of combinations.
    grid : int, array-like, or (for a pair) a pair of them
        For a pair: a tuple ``(grid_a, grid_b)`` or a list of two arrays gives each feature its
        own grid; an int or a list of numbers is shared by both.

    Other parameters: as :func:`ice`.

    Returns
    -------
    EffectResult
        ``method="pd"``; ``average`` has shape (m,) or (m1, m2) (``grid`` is then a pair of
        arrays); ``individual`` is None. A multi-class model with ``output=None`` adds a last
        axis over ``extra["classes"]`` to a one-feature PD.

    Notes
    -----
    PD_S(x_S) = Σ_i w_i f(x_S, x_{i,-S}) / Σ_i w_i (Friedman 2001), evaluated on the grid
    from one stacked prediction.

    References
    ----------
    Friedman (2001). Greedy function approximation: a gradient boosting machine. Ann. Stat. 29(5).
    """
    feats = [features] if isinstance(features, (str, numbers.Integral)) else list(features) \
        if isinstance(features, (list, tuple)) else None
    if feats is None or not 1 <= len(feats) <= 2:
        raise ValidationError(f"'features' must be one feature or a pair of features; got {features!r}.")
    options = EffectOptions.checked("pd", grid=grid, center=None, grid_type=grid_type, n_samples=n_samples,
                                    sample_weight=sample_weight, output=output, max_rows=max_rows,
                                    random_state=random_state, progress=progress, engine=engine)
    return _effect(model, X, feats, options)


@dataclass(frozen=True)
class EffectOptions:
    """The options of one ICE/PD call, checked once at the public entry point.

    :meth:`checked` validates what does not depend on the data by the method's spec
    (:data:`SPECS`) and draws the call's SeedSequence (``seed``); the engine checks what needs X
    (``sample_weight``, the grid, ``output``) and reads the rest by name.

    Attributes
    ----------
    method : {"ice", "pd"}
    grid, center, grid_type, n_samples, sample_weight, output, max_rows, random_state, progress, engine
        The public parameters (``n_samples`` checked: None or an int >= 1).
    seed : numpy.random.SeedSequence
    """

    method: str
    grid: Any
    center: str | None
    grid_type: str
    n_samples: int | None
    sample_weight: Any
    output: Any
    max_rows: int | None
    random_state: Any
    progress: bool
    engine: str
    seed: np.random.SeedSequence

    @classmethod
    def checked(cls, method, **options):
        """Validate the data-independent options by the method's spec and draw the call's SeedSequence.

        Keywords the spec does not declare (PD's ``center=None``) are passed through as given.
        """
        return cls(method=method, **{**options, **SPECS[method].check(options)})

    def params(self):
        """The call's arguments as recorded in ``result.params`` (PD records ``center=None`` as ICE does)."""
        return SPECS["ice"].record(vars(self))


def _record_grid(grid):
    """A grid size as given; explicit grid points are recorded as ``"explicit"``."""
    return grid if np.isscalar(grid) else "explicit"


_GRID = Option("grid", None, "grid points (an int) or the points themselves; checked against the feature by "
               "imlkit.effects._grid.make_grid", record=_record_grid)
_CENTER = Option("center", choice((None, "mean", "first")), "ICE: curves as they are, or minus their mean or their "
                 "value at the first grid point")
#: ICE's and PD's options, in the order they are checked and recorded (defaults: the signatures).
SPECS = {"ice": Spec("ice", _GRID, _CENTER, GRID_TYPE, N_SAMPLES, SAMPLE_WEIGHT, MAX_ROWS, OUTPUT, RANDOM_STATE,
                     PROGRESS, ENGINE)}
SPECS["pd"] = Spec("pd", *(o for o in SPECS["ice"] if o.name != "center"))


def _effect(model, X, feats, options):
    """The engine of ICE and PD: the model, the data, the feature(s) and an :class:`EffectOptions`."""
    method, grid, progress = options.method, options.grid, options.progress
    X, was_frame = check_X(X)
    names = [resolve_feature(f, X.columns, "features" if method == "pd" else "feature") for f in feats]
    if len(names) == 2 and names[0] == names[1]:
        raise ValidationError(f"'features' must be two different features; got {names[0]!r} twice.")
    w = check_sample_weight(options.sample_weight, len(X))
    # For a pair, a tuple gives each feature its own grid, and so does a list of two arrays (a list
    # of numbers is one grid shared by both: [ga, gb] is never raveled into one grid of both).
    per_feature = len(names) == 2 and isinstance(grid, (tuple, list)) and len(grid) == 2 and (
        isinstance(grid, tuple) or all(np.ndim(g) >= 1 for g in grid))
    grids = list(grid) if per_feature else [grid] * len(names)
    made = [make_grid(X[c], g, options.grid_type) for c, g in zip(names, grids)]
    kind, column, label, classes = resolve_output(model, options.output, allow_all=len(names) == 1)
    predictor = make_predictor(model, kind, was_frame, options.max_rows)
    params = options.params()

    n_samples = options.n_samples
    rows = subsample_rows(len(X), DEFAULT_N_SAMPLES if n_samples is None else n_samples, rng_of(options.seed))
    # every row in order (n_samples >= n): X itself, not a copy (1e6 rows: 100 MB saved)
    whole = len(rows) == len(X) and isinstance(X.index, pd.RangeIndex) and X.index.start == 0 \
        and X.index.step == 1
    Xs = X if whole else X.iloc[rows].reset_index(drop=True)
    params["n_rows"] = len(Xs)
    ws = None if w is None else w[rows]
    params.update(predictor.use_engine(Xs, options.engine, names))
    weights = np.full(len(Xs), 1.0 / len(Xs)) if ws is None else ws / ws.sum()
    with Timer() as timer:
        if len(names) == 1 and method == "pd":  # the average only: no n x m matrix of curves
            avg = predictor.pd_mean(Xs, names[0], made[0][0], weights, column=column, progress=progress)
        elif len(names) == 1:
            M = ice_matrix(predictor, Xs, names[0], made[0][0], column=column, progress=progress)
            avg = np.tensordot(weights, M, axes=(0, 0))
        else:
            avg = predictor.pd_average(Xs, names, [g for g, _ in made], weights, column=column, progress=progress)
    params["seconds"] = timer.seconds
    extra = {} if classes is None or column != "all" else {"classes": classes}
    if len(names) == 2:
        m1, m2 = len(made[0][0]), len(made[1][0])
        return EffectResult(method="pd", feature_names=tuple(names), grid=(made[0][0], made[1][0]),
                            average=avg.reshape(m1, m2), categorical=made[0][1] or made[1][1], output=label,
                            feature_values=None, params=params,
                            extra={**extra, "categorical": (made[0][1], made[1][1])})
    values = Xs[names[0]].to_numpy()
    if method == "pd":
        return EffectResult(method="pd", feature_names=tuple(names), grid=made[0][0], average=avg,
                            feature_values=values, categorical=made[0][1], output=label, params=params,
                            extra=extra)
    if options.center == "mean":
        M = M - M.mean(axis=1, keepdims=True)
    elif options.center == "first":
        M = M - M[:, :1]
    return EffectResult(method="ice", feature_names=tuple(names), grid=made[0][0],
                        average=np.tensordot(weights, M, axes=(0, 0)), individual=M, feature_values=values,
                        categorical=made[0][1], output=label, params=params,
                        extra={**extra, "uncentered_average": avg, "row_index": rows,
                               "sample_weight": ws})
