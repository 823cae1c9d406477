"""PFI and CFI: one engine, two samplers.

Both replace the columns of a feature (or group) ``S`` in the evaluation data by draws from
a sampler and measure how much the loss grows:

    PFI_S = R(f, X̃_S) − R(f, X)    with X̃_S ~ P(X_S)          (marginal: a permutation)
    CFI_S = R(f, X̃_S) − R(f, X)    with X̃_S ~ P(X_S | X_-S)   (conditional)

For every feature the ``n_repeats`` perturbed copies of X are stacked and predicted in one
call, which is what makes imlkit faster than looping over repeats; when they exceed
``max_rows`` rows they are built and predicted in blocks of whole repeats, so memory stays
bounded whatever ``n_repeats × n`` is.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._dependence import MIN_ROWS_PER_REGRESSOR, adjusted_r2, dependence_r2
from .._options import (
    CONFIDENCE_LEVEL,
    ENGINE,
    FEATURES,
    LOSS,
    MAX_ROWS,
    N_JOBS,
    N_REPEATS,
    PROGRESS,
    RANDOM_STATE,
    RELATION,
    Option,
    Spec,
)
from .._parallel import parallel_map, spawn
from .._timing import Timer
from .._validation import ValidationError, check_same_columns, check_X, resolve_features
from ..samplers import MarginalSampler, make_sampler
from ._common import prepare
from ._inference import repeat_quantiles, t_interval
from ._result import ImportanceResult

__all__ = ["pfi", "cfi", "PerturbationOptions"]

#: R² of a feature from the others above which PFI warns about extrapolation.
DEPENDENCE_WARNING_R2 = 0.5


def pfi(model, X, y, *, loss=None, features=None, n_repeats=10, relation="difference",
        confidence_level=0.95, max_rows=None, n_jobs=None, random_state=None, progress=False, engine="auto"):
    """Permutation feature importance (Breiman 2001; Fisher, Rudin & Dominici 2019).

    Parameters
    ----------
    model : fitted estimator or callable
        Anything with ``predict`` (``predict_proba`` for probability losses) or ``X -> ŷ``.
    X : DataFrame or array, shape (n, p)
        Evaluation data, ideally held out (test) data.
    y : array-like, shape (n,)
    loss : str or callable, optional
        ``"squared_error"``, ``"absolute_error"``, ``"log_loss"``, ``"brier"``, ``"zero_one"``,
        scores ``"accuracy"``, ``"r2"``, any scikit-learn scorer name (``"roc_auc"``, ``"f1_macro"``, ...:
        a data-set-level loss, importance = drop in the score), or a pointwise callable ``(y, ŷ) -> (n,)``.
        Default: log loss for classifiers with ``predict_proba`` (``zero_one`` without), else squared error.
    features : None, name, index, list or dict
        Features to score; a dict ``{"weather": ["temp", "hum"]}`` permutes a group jointly.
    n_repeats : int, default 10
        Permutations per feature.
    relation : {"difference", "ratio"}
        ``R(perturbed) − R(original)`` or ``R(perturbed) / R(original)`` (scores: flipped so
        that larger is always more important).
    confidence_level : float, default 0.95
        Level of the t-interval for the mean over repeats.
    max_rows : int, optional
        At most this many rows per model call (default 1,000,000): a feature's ``n_repeats``
        perturbed copies of X are built and predicted in blocks of whole repeats, so peak memory
        is about ``max(max_rows, n)`` rows of X whatever ``n_repeats`` is. The replacement values
        are drawn before the split, so the result does not depend on ``max_rows``.
    n_jobs : int, optional
        Features are computed in parallel with joblib.
    random_state : None, int or numpy Generator
    progress : bool
        A progress bar over features.
    engine : {"auto", "trees", "predict"}
        ``"auto"``: a tree ensemble the tree engine supports is evaluated from its trees, after a
        check against the model's own predictions; ``"predict"``: always predict the stacked
        copies. ``info["engine"]`` records which ran. On the tree engine every copy's score is the
        row's own plus, tree by tree, its leaf's value minus the row's (all single features of a
        chunk in one pass over the trees; a group's copies walked one by one); trees that never
        split on the permuted feature add nothing for it: ``info["engine_skipped"]`` is the
        share of such (feature, tree) pairs, ``info["engine_skipped_by_feature"]`` that share per
        feature (a group of several columns: 0), and the unperturbed predictions come from the
        same walk of all trees.

    Returns
    -------
    ImportanceResult
        ``method="pfi"``; ``repeats`` has shape (m, n_repeats); ``observation_importance``
        (m, n) holds the observation-wise loss increases averaged over repeats;
        ``info["n_rows"]`` the number of rows evaluated (all of X).

    Notes
    -----
    For feature j and repeat r with permutation π_r,

        PFI_j^(r) = 1/n Σ_i L(y_i, f(x_{π_r(i), j}, x_{i,-j})) − 1/n Σ_i L(y_i, f(x_i)),

    and PFI_j is the mean over repeats. For a linear model f(x) = Σ β_j x_j with independent
    features and squared error, E[PFI_j] = 2 β_j² Var(x_j). The interval reflects only the
    permutation noise, not the sampling of the test data.

    PFI answers "does the model rely on x_j" one way only; with dependent features it
    extrapolates (see ``explain()``), and ``explain()`` warns when a feature's R² from the
    others exceeds 0.5.

    References
    ----------
    Breiman, L. (2001). Random forests. Machine Learning 45, 5-32.
    Fisher, Rudin & Dominici (2019). All models are wrong, but many are useful. JMLR 20(177).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 2)); y = 2 * X[:, 0] + rng.normal(size=2000) * 0.1
    >>> r = pfi(LinearRegression().fit(X, y), X, y, n_repeats=5, random_state=0)
    >>> round(float(r.importance[0]), 0)    # 2 * 2**2 * Var(x0)
    8.0
    """
    options = PerturbationOptions.checked(
        "pfi", sampler=MarginalSampler(), X_fit=None, loss=loss, features=features, n_repeats=n_repeats,
        relation=relation, confidence_level=confidence_level, max_rows=max_rows, n_jobs=n_jobs,
        random_state=random_state, progress=progress, engine=engine)
    return _perturbation_importance(model, X, y, options)


def cfi(model, X, y, *, sampler="auto", X_fit=None, loss=None, features=None, n_repeats=10,
        relation="difference", confidence_level=0.95, max_rows=None, n_jobs=None,
        random_state=None, progress=False, engine="auto"):
    """Conditional feature importance: replace x_S by draws from P(x_S | x_-S).

    Parameters
    ----------
    sampler : {"auto", "subgroup", "permutation", "gaussian", "marginal"} or Sampler
        ``"auto"`` (= ``"subgroup"``): the distribution-free cs-PFI sampler for every data
        type -- x_S is permuted within the leaves of a tree that predicts x_S from x_-S, so
        only observed values (and observed combinations of a group's columns) are drawn.
        ``"permutation"`` permutes within groups of binned values of the other features
        (the course's scheme). ``"gaussian"`` draws from the conditional of a multivariate
        normal: exact only for Gaussian data, continuous draws even for integer columns.
    X_fit : DataFrame or array, optional
        Data the sampler learns the dependence from (default: ``X`` itself, the values are
        then permuted within groups). Features only, same columns as ``X`` (the training rows'
        features, say: nothing of ``y`` enters the sampler). Rows of ``X`` then draw from the
        fitted rows of their group, with replacement. Give it when ``X`` is small, best as other
        rows than ``X``'s: a row of ``X`` among the fitted rows helps cut its own leaf and can
        draw its own value back, which shrinks CFI towards 0 (by about 1/leaf size, more with
        few rows: the 2-row leaves of 10 rows gave an independent feature a sixteenth of its
        PFI), while other rows' draws are honest (for a feature independent of the others CFI
        then equals PFI in expectation, whatever the leaf size). Below
        :data:`imlkit.samplers.MIN_LEAF_ROWS` rows per leaf (fewer than 40 fitted rows) with
        ``X``'s rows among the fitted ones the result carries a warning saying so.

    Other parameters, returns: as :func:`pfi` (``method="cfi"``); ``extra`` holds more (below).
        ``sampler_rows``: the rows the sampler was fitted on; for the subgroup sampler also
        ``sampler_leaf_rows``, the fewest rows its leaves hold, and ``sampler_shrinks``, whether
        the warning on small leaves was given.

    Notes
    -----
    CFI_j = R(f, (x̃_j, x_-j)) − R(f, x) with x̃_j ~ P(x_j | x_-j). Because the replacement
    values are realistic given the rest of the row, the model is not evaluated off the data
    manifold. If x_j ⊥ y | x_-j then (x̃_j, x_-j, y) has the same distribution as
    (x_j, x_-j, y), so E[CFI_j] = 0 for any model; CFI_j ≠ 0 therefore implies that x_j carries
    unique information about y given x_-j -- as far as the sampler draws from the true
    conditional. The default sampler approximates it by the subgroups of a tree; on the
    course's mixture example (X1 ~ N(0,1) or N(4,4) by X2 < 0.5, y depending on X2 only) it
    gives CFI(X1) ≈ 0 where the Gaussian sampler gives a third of PFI(X1).

    References
    ----------
    Strobl et al. (2008). Conditional variable importance for random forests. BMC Bioinf. 9.
    Molnar et al. (2023). Model-agnostic feature importance and effects with dependent
    features: a conditional subgroup approach. Data Min. Knowl. Disc.
    """
    options = PerturbationOptions.checked(
        "cfi", sampler=sampler, X_fit=X_fit, loss=loss, features=features, n_repeats=n_repeats,
        relation=relation, confidence_level=confidence_level, max_rows=max_rows, n_jobs=n_jobs,
        random_state=random_state, progress=progress, engine=engine)
    return _perturbation_importance(model, X, y, options)


@dataclass(frozen=True)
class PerturbationOptions:
    """The options of one PFI/CFI call, checked once at the public entry point.

    The public functions build it with :meth:`checked` (which validates the scalar options and
    turns ``random_state`` into the call's one SeedSequence, ``seed``) and hand it to the
    engine, which reads what it needs by name instead of through a long positional list.

    Attributes
    ----------
    method : {"pfi", "cfi"}
    sampler : str or Sampler
        As given (``make_sampler`` builds the fitted sampler from it and ``X_fit``).
    X_fit : DataFrame, array or None
    loss, features, n_repeats, relation, confidence_level, max_rows, n_jobs, random_state, progress, engine
        The public parameters, as given (``random_state`` is recorded, ``seed`` is used).
    seed : numpy.random.SeedSequence
    """

    method: str
    sampler: Any
    X_fit: Any
    loss: Any
    features: Any
    n_repeats: int
    relation: str
    confidence_level: float
    max_rows: int | None
    n_jobs: int | None
    random_state: Any
    progress: bool
    engine: str
    seed: np.random.SeedSequence

    @classmethod
    def checked(cls, method, **options):
        """Validate the options by the method's :class:`~imlkit._options.Spec` and draw the call's SeedSequence.

        Keywords the spec does not declare (PFI's fixed marginal sampler) are passed through as given.
        """
        return cls(method=method, **{**options, **SPECS[method].check(options)})

    def params(self):
        """The call's arguments as recorded in ``result.params`` (before the loss is resolved)."""
        return SPECS[self.method].record(vars(self))


#: PFI's and CFI's options, in the order they are checked and recorded (defaults: the signatures).
_SAMPLER = Option("sampler", None, "the conditional sampler (a name or a Sampler); built and checked on X_fit by "
                  "imlkit.samplers.make_sampler, recorded as the fitted sampler's repr", record=False)
_X_FIT = Option("X_fit", None, "data the sampler learns from (None: X); checked against X's columns", record=False)
_SHARED = (LOSS, FEATURES, N_REPEATS, RELATION, CONFIDENCE_LEVEL, MAX_ROWS, N_JOBS, RANDOM_STATE, PROGRESS, ENGINE)
SPECS = {"pfi": Spec("pfi", *_SHARED), "cfi": Spec("cfi", _SAMPLER, _X_FIT, *_SHARED)}


def _perturbation_importance(model, X, y, options, *, refit_of=None):
    """The engine of PFI and CFI: the model, the evaluation data and a :class:`PerturbationOptions`.

    ``refit_of`` (private, for PIMP's null refits): the engine record (``result.info``) of the
    PFI/CFI of a model of the same learner on the same X, whose engine passed its check. The
    refit then skips that check: on the tree engine its trees are read and evaluated without
    comparing them with its own predictions again (the check proved the reader for this learner
    and these rows; it was 30 % of a null model's PFI), off it the model is predicted as that
    one was. Only the importances matter there: no dependence caveats, no skipped shares.
    """
    method, n_repeats, relation, n_jobs = options.method, options.n_repeats, options.relation, options.n_jobs
    params = options.params()
    seed = options.seed
    X, y, loss_obj, predictor = prepare(model, X, y, options.loss, options.max_rows)
    if len(X) < 2 and (method == "pfi" or options.X_fit is None):
        # one row: a permutation (or a draw from X itself) puts every value back where it was
        raise ValidationError(f"{method.upper()} needs at least 2 rows of X: with 1 row every feature keeps its own "
                              f"value and every importance would be 0; got 1 row."
                              + (" (CFI can draw from a larger X_fit.)" if method == "cfi" else ""))
    groups = resolve_features(options.features, X.columns)
    if options.X_fit is None:
        fit_frame = X
    else:
        fit_frame, _ = check_X(options.X_fit, "X_fit")
        check_same_columns(X, fit_frame, "X", "X_fit")
    sampler_obj = make_sampler(options.sampler, fit_frame)
    perturbed = [c for cols in groups.values() for c in cols]
    if refit_of is None:
        params.update(loss=loss_obj.name, sampler=repr(sampler_obj),
                      **predictor.use_engine(X, options.engine, perturbed))
    else:
        params.update(loss=loss_obj.name, sampler=repr(sampler_obj), **predictor.reuse_engine(X, refit_of))

    # before the perturbations: its own temporaries (an n × q array) then never add to theirs
    warns = _dependence_warnings(X, groups) if method == "pfi" and refit_of is None else ()
    extra = {}
    if method == "cfi":
        extra = {"sampler_rows": len(sampler_obj.X_fit_)} if hasattr(sampler_obj, "X_fit_") else {}
        leaves = getattr(sampler_obj, "small_leaves_note", None)
        if leaves is not None:
            # leaves of fewer than MIN_LEAF_ROWS rows shrink CFI towards 0 (imlkit.samplers.MIN_LEAF_ROWS says why)
            extra["sampler_leaf_rows"] = sampler_obj.leaf_rows()
            # only where X's rows draw from their own leaves: rows that are not fitted rows draw honestly
            in_sample = options.X_fit is None or bool((sampler_obj._fitted_positions(X) >= 0).any())
            note = leaves("CFI") if in_sample else None
            extra["sampler_shrinks"] = note is not None   # what a reading may not call negligible or below 0
            if note is not None and refit_of is None:   # PIMP's null refits: its observed CFI said it once
                warns = tuple(warns) + (note,)
                warnings.warn(note, stacklevel=3)
    tree_engine = predictor.tree_engine
    if tree_engine is not None and refit_of is None:
        # the engine's hit rate: trees it need not walk because they never split on the feature
        shares = {name: tree_engine.skipped_share(X, cols) if len(cols) == 1 else 0.0 for name, cols in groups.items()}
        params["engine_skipped"] = float(np.mean(list(shares.values()))) if shares else 0.0
        params["engine_skipped_by_feature"] = shares

    with Timer() as timer:
        if tree_engine is not None:  # the same sums the perturbed copies start from (no second predict of X)
            base_pred = tree_engine.predict_plain(X)
        else:
            base_pred = predictor.predict(X, context="the unperturbed data")
        base_risk = loss_obj.aggregate(y, base_pred)
        base_point = loss_obj.pointwise(y, base_pred) if loss_obj.pointwise is not None else None
        if relation == "ratio" and base_risk == 0:
            raise ValidationError("relation='ratio' needs a non-zero baseline loss; the model's loss on X is 0. "
                                  "Use relation='difference'.")
        # One seed per feature, whatever the chunking: results do not depend on n_jobs.
        items = [(name, cols, s) for (name, cols), s in zip(groups.items(), spawn(seed, len(groups)))]
        chunks = _chunk(items, n_repeats * len(X), predictor.max_rows, n_jobs)
        tasks = [(predictor, X, y, loss_obj, chunk, sampler_obj, n_repeats, base_point) for chunk in chunks]
        out = [r for part in parallel_map(_perturb_chunk, tasks, n_jobs=n_jobs, progress=options.progress,
                                          desc=method.upper())
               for r in part]
    risks = np.array([o[0] for o in out])  # (m, r)
    sign = loss_obj.sign
    if relation == "difference":
        reps = sign * (risks - base_risk)
    else:
        reps = risks / base_risk if sign > 0 else base_risk / risks
    mean, std, low, high = t_interval(reps, options.confidence_level)
    obs = None if base_point is None else sign * np.array([o[1] for o in out])
    params["seconds"] = timer.seconds
    params["n_rows"] = len(X)
    return ImportanceResult(
        method=method, feature_names=tuple(groups), importance=mean, std=std, ci_low=low,
        ci_high=high, loss=loss_obj.name, repeats=reps, quantiles=repeat_quantiles(reps),
        baseline_loss=base_risk, observation_importance=obs, groups=dict(groups), params=params,
        warnings=warns, extra=extra)


def _chunk(items, rows_per_item, max_rows, n_jobs):
    """Group features so that each model call predicts as many stacked rows as allowed.

    Per-call overhead (validation, thread start-up) is what separates a perturbation method
    from the floor of one predict over all rows, so features share calls up to ``max_rows``;
    with several workers there are at least as many chunks as workers.
    """
    from joblib import effective_n_jobs

    per_chunk = max(1, max_rows // max(rows_per_item, 1))
    workers = 1 if n_jobs == 1 else max(1, effective_n_jobs(n_jobs))
    if workers > 1:
        per_chunk = min(per_chunk, -(-len(items) // workers))
    return [items[k:k + per_chunk] for k in range(0, len(items), per_chunk)]


def _perturb_chunk(predictor, X, y, loss, items, sampler, n_repeats, base_point):
    """Features of one chunk: ``n_repeats`` perturbed copies each, stacked into as few calls as allowed.

    The replacement values of a feature are drawn in one call to the sampler (so the numbers
    do not depend on ``max_rows``); the stacked copies of X -- p columns wide -- are built and
    predicted in blocks of whole repeats of at most ``predictor.max_rows`` rows, and each block
    is reduced to its per-repeat risks and summed pointwise losses before the next is built.

    Returns, per feature, the risk of each repeat, shape (r,), and the observation-wise loss
    increase averaged over repeats, shape (n,) (None for aggregate-only scores).
    """
    n = len(X)
    trees = predictor.tree_engine is not None
    # Whole features share one call when all their stacked rows fit (the per-call overhead is
    # what separates PFI from one predict over all rows); else each feature runs alone. On the
    # tree engine they share one pass over the trees (a chunk of one feature too: then every
    # feature's numbers come from the same sums whatever n_jobs cuts the features into; _chunk
    # puts several features in a chunk exactly when one feature's copies fit), and their draws
    # are rows of the sampler's data, not a frame per feature.
    together = (len(items) > 1 or trees) and len(items) * n_repeats * n <= predictor.max_rows
    drawn = [(name, cols, _draw(sampler, X, cols, n_repeats, seed, trees and together)) for name, cols, seed in items]
    if together:
        return _reduce_blocks(predictor.predict_perturbed_together(X, drawn, n_repeats), y, loss, base_point)
    out = []
    for name, cols, replacement in drawn:
        risks, total = [], None
        for pred in predictor.perturbed_blocks(X, cols, replacement, n_repeats,
                                               context=f"the data with feature(s) {name!r} perturbed"):
            block = pred.reshape((-1, n) + pred.shape[1:])
            del pred
            block_risks, total = _block_losses(loss, y, block, base_point, total)
            risks.append(block_risks)
            del block
        out.append((np.concatenate(risks), None if base_point is None else total / n_repeats - base_point))
    return out


def _draw(sampler, X, cols, n_repeats, seed, rows):
    """A feature's replacement values: the sampler's draws from the feature's own seed -- as drawn
    rows of its data (:meth:`~imlkit.samplers.Sampler.sample_rows`, no frame per feature) when
    ``rows`` and the sampler draws rows, else the frame of :meth:`~imlkit.samplers.Sampler.sample`.
    The same random numbers either way."""
    if rows:
        draws = sampler.sample_rows(X, cols, n_samples=n_repeats, rng=np.random.default_rng(seed))
        if draws is not None:
            return draws
    return sampler.sample(X, cols, n_samples=n_repeats, rng=np.random.default_rng(seed))


def _reduce_blocks(preds, y, loss, base_point):
    """Per feature: (risk of each repeat, mean pointwise loss increase) from its (r·n[, k]) predictions."""
    n = len(y)
    out = []
    for p in preds:
        block = p.reshape((-1, n) + p.shape[1:])
        risks, total = _block_losses(loss, y, block, base_point, None)
        out.append((risks, None if base_point is None else total / len(block) - base_point))
    return out


def _block_losses(loss, y, block, base_point, total):
    """Risks (r,) of a block of repeats (r, n[, k]) and ``total`` plus their pointwise losses.

    One repeat at a time: the temporaries of the loss are n values, not r·n (at 1e6 rows and
    5 repeats, 80 MB less at PFI's peak); the pointwise losses are added to ``total`` in
    repeat order, so the sum over all repeats is the same however they were split into blocks.
    """
    if base_point is None:  # an aggregate-only score
        return loss.aggregate_rows(y, block), None
    risks = np.empty(len(block))
    for q in range(len(block)):
        row = loss.pointwise_blocks(y, block[q:q + 1])  # (1, n)
        risks[q] = loss.aggregate_rows(y, block[q:q + 1])[0] if loss.aggregate_fn is not None else row.mean(axis=1)[0]
        if total is None:
            total = row[0]
        else:
            total += row[0]
    return risks, total


def _dependence_warnings(X, groups):
    """Caveats for features well explained by the others, by the adjusted R² on the rows given.

    The adjusted R² (see :func:`imlkit._dependence.adjusted_r2`) does not grow with the number of
    regressors on few rows; below ``MIN_ROWS_PER_REGRESSOR`` rows per regressor there is one note
    that the check was not made instead of a verdict.
    """
    raw = dependence_r2(X)
    r2 = adjusted_r2(raw)
    n, d = raw.attrs["n_rows"], raw.attrs["n_regressors"]
    if d and raw.notna().any() and r2.isna().all():
        return (f"The dependence between the features was not judged: {n} rows for {d} regressors (fewer than "
                f"{MIN_ROWS_PER_REGRESSOR} rows per regressor), where an R² from a linear fit mostly measures the "
                f"number of regressors. Judge it on more rows (the report's data section uses all rows).",)
    out = []
    for name, cols in groups.items():
        vals = [r2[c] for c in cols if np.isfinite(r2[c])]
        if vals and max(vals) > DEPENDENCE_WARNING_R2:
            out.append(f"Feature {name!r} is strongly dependent on the other features (adjusted R² = {max(vals):.2f} "
                       f"from a linear fit on the {n:,} rows given, {d} regressors): permuting it creates unrealistic "
                       "data points, so its PFI mixes the model's reliance with extrapolation. Use CFI or group it "
                       "with its correlates.")
    return tuple(out)
