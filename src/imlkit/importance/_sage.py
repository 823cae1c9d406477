"""SAGE: Shapley values of the loss reduction, by permutation sampling or exactly.

The value function lives in :mod:`._sage_value`; this module turns it into Shapley values:

* the permutation estimator draws (observation, ordering) pairs in batches, adds the players
  one at a time and credits each with L(y_i, f_S(x_i)) − L(y_i, f_{S∪j}(x_i)) (conditional
  removal: f_S and f_{S∪j} from the same conditional-draw noise); the credits of
  one batch are predicted in stacked calls, batches run in parallel with one seed each, and a
  running (Welford/Chan) mean and covariance decides convergence after every batch;
* ``exact=True`` enumerates all 2^m coalitions with Shapley weights (m ≤ 12).

For marginal removal of a tree ensemble the game's f_S comes from the trees
(:mod:`._sage_trees`, ``engine="auto"``); the estimators do not know which engine answered.
"""
from __future__ import annotations

import contextlib
import math
import warnings
from dataclasses import dataclass

import joblib
import numpy as np
from scipy import stats

from .._options import (
    CONFIDENCE_LEVEL,
    ENGINE,
    FEATURES,
    LOSS,
    MAX_ROWS,
    N_JOBS,
    PROGRESS,
    RANDOM_STATE,
    Option,
    Spec,
    flag,
    number,
)
from .._parallel import parallel_map, progress_bar
from .._timing import Timer
from .._validation import ValidationError, check_int
from ..samplers import _MIN_CROSS_FIT_ROWS
from ._result import ImportanceResult
from ._sage_value import (
    BACKGROUND,
    N_BACKGROUND,
    REMOVAL,
    SAMPLER,
    GameOptions,
    build_game,
    engine_game,
    players_of_features,
    sage_value,
)

__all__ = ["sage", "sage_value", "RunningMoments"]

#: Players allowed for ``exact=True``: 2^12 coalitions, each predicted on all rows.
MAX_EXACT_PLAYERS = 12
#: Orderings after which an unconverged run stops when ``max_permutations=None``: a finite
#: budget (each ordering costs m predictions of ``n_background`` rows), so a run that cannot
#: reach the tolerance ends with a warning instead of running for hours.
DEFAULT_PERMUTATION_CAP = 10_000


class RunningMoments:
    """Running mean, variances and covariances with a control column, merged batch by batch.

    Tracks d columns z = (Δ_1, ..., Δ_m, D): means, the sums of squared deviations of every
    column and the co-moments of every column with the last one. Batches are merged with
    Chan et al.'s pairwise update (Welford's update for a batch), so the result does not
    depend (up to rounding) on how the samples were grouped into batches.

    With ``offset`` every row carries one more column after D: V, the known mean of D given
    what was drawn with that sample (marginal SAGE's fresh background: V = v(N) of its
    background). The control D − V then has mean 0, and the control-variate estimate takes
    mean(V) for the control's mean (so that Σ_j φ̂_j = mean(V) exactly).
    """

    def __init__(self, d, keep_rows=False, offset=False):
        self.offset = offset
        self.v_sum = 0.0
        self.n = 0
        self.mean = np.zeros(d)
        self.m2 = np.zeros(d)
        self.c = np.zeros(d)
        # The samples themselves, for the jackknife standard error of the control-variate estimate.
        self.rows = [] if keep_rows else None

    def update(self, z):
        """Add the rows of ``z`` (b, d)."""
        z = np.asarray(z, dtype=float)
        nb = len(z)
        if nb == 0:
            return
        if self.rows is not None:
            self.rows.append(z)
        if self.offset:
            self.v_sum += float(z[:, -1].sum())
            z = z[:, :-1]
        mb = z.mean(axis=0)
        dev = z - mb
        m2b = (dev ** 2).sum(axis=0)
        cb = (dev * dev[:, -1:]).sum(axis=0)
        n = self.n + nb
        delta = mb - self.mean
        w = self.n * nb / n
        self.mean = self.mean + delta * nb / n
        self.m2 = self.m2 + m2b + delta ** 2 * w
        self.c = self.c + cb + delta * delta[-1] * w
        self.n = n

    def estimate(self, control_mean=None):
        """Means of the first d−1 columns and their standard errors.

        With ``control_mean`` (the known mean of the last column) the regression estimator
        mean_j − c_j (mean_D − control_mean), c_j = Cov(z_j, D)/Var(D), is returned with the
        standard error of its residual; otherwise the plain mean and s/√n. With ``offset`` the
        control's mean is mean(V) (any ``control_mean`` given only switches the control on).
        """
        n = self.n
        if self.offset and control_mean is not None:
            control_mean = self.v_mean
        mean, m2 = self.mean[:-1], self.m2[:-1]
        if control_mean is None:
            resid = m2
            est = mean.copy()
        else:
            md = self.m2[-1]
            coef = self.c[:-1] / md if md > 0 else np.zeros_like(mean)
            est = mean - coef * (self.mean[-1] - control_mean)
            resid = np.maximum(m2 - coef * self.c[:-1], 0.0)
        se = np.sqrt(resid / (n - 1) / n) if n > 1 else np.full_like(mean, np.inf)
        if control_mean is not None and self.rows is not None and n > 2:
            se = self._jackknife_se(control_mean)
        return est, se

    def _jackknife_se(self, control_mean):
        """Delete-one jackknife standard error of the control-variate estimate.

        The residual formula treats the coefficient c_j as known. Estimated from few heavy-tailed
        samples (a loss with outliers, a few dozen orderings) it fits the sample: the residual
        variance is too small and the interval too short (95% intervals covered the exact
        value ~88% of the time at 64 orderings on ISLP Wage). The jackknife re-estimates c_j
        without each sample in turn (closed-form downdates of the moments, O(n·d)) and agrees
        with the residual formula as n grows.
        """
        z = np.concatenate(self.rows)
        n = len(z)
        control_i = control_mean
        if self.offset:
            # the control's mean without sample i: mean(V) downdated
            control_i = ((self.v_sum - z[:, -1]) / (n - 1))[:, None]
            z = z[:, :-1]
        dev = z - self.mean
        k = n / (n - 1)
        # Moments without sample i: means, Σ(D−D̄)² and Σ(z_j−z̄_j)(D−D̄) downdated.
        mean_i = self.mean - dev / (n - 1)
        md_i = self.m2[-1] - k * dev[:, -1] ** 2
        c_i = self.c[None, :-1] - k * dev[:, :-1] * dev[:, -1:]
        with np.errstate(divide="ignore", invalid="ignore"):
            coef = np.where(md_i[:, None] > 0, c_i / md_i[:, None], 0.0)
        est_i = mean_i[:, :-1] - coef * (mean_i[:, -1:] - control_i)
        return np.sqrt((n - 1) / n * ((est_i - est_i.mean(axis=0)) ** 2).sum(axis=0))

    @property
    def v_mean(self):
        """mean(V) over the samples (``offset``), else None."""
        return self.v_sum / self.n if self.offset and self.n else None


def _converged(phi, se, tolerance, v_all):
    """max SE ≤ tolerance × (max φ − min φ), with a scale that cannot collapse to zero.

    When all φ are (numerically) equal -- one player, symmetric players, a constant model --
    the gap is 0 and the rule never fires (the peer implementation then loops forever);
    the largest |φ| (or |v(N)|) is the scale instead. Returns (converged, ratio).
    """
    gap = float(np.max(phi) - np.min(phi)) if len(phi) else 0.0
    size = max(float(np.max(np.abs(phi))) if len(phi) else 0.0, abs(v_all))
    scale = gap if gap > 1e-9 * size else size
    max_se = float(np.max(se)) if len(se) else 0.0
    if scale <= 0:
        return max_se <= 0, (0.0 if max_se <= 0 else np.inf)
    return max_se <= tolerance * scale, max_se / scale


#: Relative spread of the rows' predictions below which the model counts as constant (rounding).
CONSTANT_RTOL = 1e-12


def _constant_model(game, rng):
    """``{"prediction", "checked", "note"}`` when the model predicts one value on every row and coalition
    checked, else None.

    A model constant on the rows (a boosted model that never split, on 14 rows) makes every
    credit rounding noise; the permutation estimator then spends its whole budget and reports
    "not converged" for values of 1e-15. The rows' predictions are free (``full_pred``); with
    several players the coalitions between none and all average hybrid rows, which need not be
    rows of the data, so they are predicted too -- every (row, coalition) pair when there are at
    most one batch's worth (256 orderings' pairs), else that many drawn at random. Only when all
    of them equal the rows' prediction is every v(S) 0, and with it every φ.
    """
    c = game.constant_prediction(CONSTANT_RTOL)
    if c is None:
        return None
    n, m = len(game.X), len(game.players)
    pairs = n * (2 ** m - 2) if m < 40 else np.inf
    checked = f"each of the {n:,} rows"
    if m > 1:
        budget = 256 * (m - 1)
        if pairs <= budget:
            codes = np.arange(1, 2 ** m - 1)
            masks = ((codes[:, None] >> np.arange(m)[None, :]) & 1).astype(bool)
            rows = np.repeat(np.arange(n), len(codes))
            masks = np.tile(masks, (n, 1))
        else:
            rows = rng.integers(0, n, size=budget)
            sizes = rng.integers(1, m, size=budget)
            order = rng.permuted(np.tile(np.arange(m), (budget, 1)), axis=1)
            rank = np.empty_like(order)
            rank[np.arange(budget)[:, None], order] = np.arange(m)[None, :]
            masks = rank < sizes[:, None]
        pred = _coalition_predictions(game, rows, masks, rng, np.arange(len(rows)), len(rows))
        if game.constant_prediction(CONSTANT_RTOL, more=pred) is None:
            return None
        checked += (f" and each of their {len(rows):,} coalitions of features between none and all"
                    if pairs <= budget else f" and {len(rows):,} of their coalitions of features, drawn at random")
    label = game.vote or np.asarray(c).dtype.kind not in "biufc"
    shown = (f"the label '{c}'" if label else
             f"the class probabilities ({', '.join(f'{v:.3g}' for v in np.ravel(c)[:6])}"
             f"{', ...' if np.size(c) > 6 else ''})" if np.ndim(c) else f"{float(c):.6g}")
    within = "" if label else f" (to a relative {CONSTANT_RTOL:g})"
    note = (f"Every value is 0 and no ordering was sampled: the model is constant on these rows -- it "
            f"predicts {shown} for {checked}{within}, so no feature changes the loss there.")
    return dict(prediction=c, checked=checked, note=note)


def _coalition_predictions(game, rows, masks, rng, keys, n_keys):
    """``game.coalition_predictions`` with common random numbers: pairs with the same key (0..n_keys-1)
    draw with the same noise. Games without draws (marginal, a SHAP row game) take the plain call
    and leave ``rng`` untouched."""
    common = getattr(game, "common_noise", None)
    noise = None if common is None else common(n_keys, rng)
    if noise is None:
        return game.coalition_predictions(rows, masks, rng)
    return game.coalition_predictions(rows, masks, rng, keys=keys, noise=noise)


def _sage_batch(game, n_samples, antithetic, seed):
    """Credits of ``n_samples`` (observation, ordering) pairs; returns z = (Δ_1..Δ_m, D), (b, m+1).

    With ``antithetic`` every ordering is paired with its reverse on the same observation and
    the pair's mean credit is one sample. A game with a fresh background per sample
    (``fresh_background``, marginal SAGE) draws B rows of X for every sample: its f_∅ is their
    mean prediction, its coalitions average them, and z gains a last column V = R(f_∅) − R(f) of
    that background (the known mean of D given the background; :class:`RunningMoments` ``offset``).
    """
    rng = np.random.default_rng(seed)
    n, m = len(game.X), len(game.players)
    rows = rng.integers(0, n, size=n_samples)  # iid draws: the standard error assumes them
    orders = rng.permuted(np.tile(np.arange(m), (n_samples, 1)), axis=1)
    if antithetic:
        rows = np.concatenate([rows, rows])
        orders = np.concatenate([orders, orders[:, ::-1]])
    s = len(rows)
    rank = np.empty_like(orders)
    rank[np.arange(s)[:, None], orders] = np.arange(m)[None, :]
    losses = np.empty((s, m + 1))
    losses[:, m] = game.pointwise_loss(rows, game.full_pred[rows])
    fresh = getattr(game, "fresh_background", 0)
    if fresh:
        # Coalitions 0..m-1 of every sample completed by its own background: f_∅ (coalition 0, the background's
        # mean prediction) comes from the same hybrid-row predictions as the others, so that a feature the
        # model does not use gets a credit of exactly 0 from the empty coalition too.
        backgrounds = game.draw_backgrounds(s, rng)
        masks = rank[:, None, :] < np.arange(0, m)[None, :, None]
        pair_rows = np.repeat(rows, m)
        loss, pred, corr = game.background_losses(pair_rows, masks.reshape(-1, m), np.repeat(np.arange(s), m),
                                                  backgrounds)
        losses[:, :m] = loss.reshape(s, m)
        empty = pred.reshape((s, m) + pred.shape[1:])[:, 0]
        empty_corr = corr.reshape(s, m)[:, 0]
    else:
        losses[:, 0] = game.pointwise_loss(rows, np.broadcast_to(game.empty_pred, (s,) + game.empty_pred.shape))
    if m > 1 and not fresh:
        # Coalition k of sample i holds the first k players of its ordering (k = 1..m-1).
        masks = rank[:, None, :] < np.arange(1, m)[None, :, None]
        pair_rows = np.repeat(rows, m - 1)
        # Common random numbers: all coalitions of a sample draw with the same noise, so a
        # player that does not change the conditional distribution gets a credit of exactly 0.
        pred = _coalition_predictions(game, pair_rows, masks.reshape(-1, m), rng, np.repeat(np.arange(s), m - 1), s)
        losses[:, 1:m] = game.pointwise_loss(pair_rows, pred).reshape(s, m - 1)
    deltas = losses[:, :-1] - losses[:, 1:]
    credit = np.empty((s, m))
    credit[np.arange(s)[:, None], orders] = deltas
    z = np.column_stack([credit, losses[:, 0] - losses[:, m]])
    if fresh:
        z = np.column_stack([z, game.risks_empty(empty) - empty_corr - game.risk_full()])
    if antithetic:
        z = (z[:n_samples] + z[n_samples:]) / 2
    return z


def _exact(game, rng):
    """Shapley values of v over all 2^m coalitions: φ_j = Σ_{S∌j} |S|!(m−|S|−1)!/m! (v(S∪j) − v(S)).

    All proper, non-empty coalitions of all rows go through one ``coalition_predictions`` call,
    so the model sees a few large stacked calls rather than 2^m small ones.
    """
    m = len(game.players)
    n = len(game.X)
    r_empty = game.risk_empty()
    values = np.zeros(2 ** m)
    bits = ((np.arange(2 ** m)[:, None] >> np.arange(m)[None, :]) & 1).astype(bool)
    values[-1] = r_empty - game.risk_full()
    mid = np.arange(1, 2 ** m - 1)
    if len(mid):
        rows = np.tile(np.arange(n), len(mid))
        # Every coalition of row i draws with row i's noise (common random numbers).
        pred = _coalition_predictions(game, rows, np.repeat(bits[mid], n, axis=0), rng, rows, n)
        values[mid] = r_empty - game.pointwise_loss(rows, pred).reshape(len(mid), n).mean(axis=1)
    size = bits.sum(axis=1)
    weight = np.array([math.factorial(s) * math.factorial(m - s - 1) / math.factorial(m) if s < m else 0.0
                       for s in range(m + 1)])
    phi = np.zeros(m)
    for j in range(m):
        without = np.flatnonzero(~bits[:, j])
        phi[j] = np.sum(weight[size[without]] * (values[without | (1 << j)] - values[without]))
    return phi, values


def _orderings(name, value, call):
    """At least one batch of orderings: 2, or 4 when antithetic (orderings come in pairs)."""
    unit = 2 if call["antithetic"] else 1
    return check_int(name, value, min_value=2 * unit, allow_none=name == "max_permutations")


#: SAGE's options, in the order they are checked and recorded (defaults: the signature).
SPEC = Spec(
    "sage",
    LOSS, FEATURES,
    REMOVAL, SAMPLER, N_BACKGROUND,
    Option("tolerance", number(0.0, low_inclusive=False), "stop once the largest standard error is this share "
           "of the range of the values"),
    Option("max_permutations", _orderings, "at most this many orderings (None: until converged)"),
    Option("antithetic", flag(), "each ordering with its reverse"),
    Option("exact", flag(), "enumerate every coalition instead of sampling orderings"),
    Option("batch_size", _orderings, "orderings per batch between convergence checks"),
    MAX_ROWS, N_JOBS, RANDOM_STATE, PROGRESS, CONFIDENCE_LEVEL,
    Option("control_variate", flag(), "the control variate v(all) of the permutation estimator"),
    BACKGROUND,
    ENGINE,
)


def sage(model, X, y, *, loss=None, features=None, removal="marginal", sampler=None, n_background=128,
         tolerance=0.05, max_permutations=None, antithetic=False, exact=False, batch_size=256,
         max_rows=None, n_jobs=None, random_state=None, progress=False, confidence_level=0.95,
         control_variate=True, background=None, engine="auto"):
    """Shapley additive global importance (SAGE), marginal or conditional.

    Parameters
    ----------
    model : fitted estimator or callable
        Anything with ``predict`` (``predict_proba`` for classifiers) or ``X -> ŷ``.
    X : DataFrame or array, shape (n, p)
        Evaluation data (ideally held out); φ explains the risk over its rows.
    y : array-like, shape (n,)
    loss : str or callable, optional
        ``"squared_error"``, ``"log_loss"``, ``"zero_one"``, ... (pointwise losses only: scorer
        names such as ``"roc_auc"`` are refused).
        Default: log loss for classifiers, else squared error. Classifiers are evaluated on
        probabilities; label losses take the class with the largest mean probability.
    features : None, list or dict
        The players: columns or groups (``{"weather": ["temp", "hum"]}``) that enter and
        leave coalitions together. Columns not named join as single players, so a feature's
        φ does not depend on which others you list; every player is reported, named ones first.
    removal : {"marginal", "conditional"}
        Dropped features are averaged over background rows of X (marginal) or over draws
        from P(X_-S | X_S) (conditional).
    sampler : str or Sampler, optional
        Conditional sampler; default ``"auto"``, the distribution-free subgroup sampler
        (:class:`imlkit.samplers.SubgroupSampler`; ``"gaussian"`` is exact only for Gaussian
        data). Conditional removal only. A name is fitted on ``X``; a fitted Sampler is used as
        it is, so the dependence can be learnt from more rows than ``X`` (``cfi``'s ``X_fit``):
        fit it on a frame of the same features whose first rows are ``X``'s (then the rest, the
        training rows' features, say; no target enters it), and rows of ``X`` draw as rows of
        that data do (cross-fitted from 20 fitted rows on, see Notes) at the cost of fitting on
        ``X`` alone. Below 20 fitted rows the rows of ``X`` among them draw from their own
        leaves of fewer than :data:`imlkit.samplers.MIN_LEAF_ROWS` rows, which shrinks the
        values towards 0 and can take them below it: the result then carries a warning saying
        so. ``extra`` holds ``sampler_rows`` (fitted rows), ``sampler_leaf_rows`` (the fewest
        rows of a leaf its draws come from) and ``sampler_shrinks`` (whether it warned).
    n_background : int, default 128
        B: background rows (marginal) or conditional draws per prediction. Marginal removal of
        several players draws B rows of X afresh for every ordering (every row when X has at
        most B), so that the standard errors cover the background's sampling (see Notes).
    tolerance : float, default 0.05
        Stop when the largest standard error ≤ tolerance × (max φ − min φ).
    max_permutations : int, optional
        Upper bound on the orderings (default: until convergence, at most 10,000; a run that
        stops there unconverged warns and keeps ``extra["converged"] = False``).
    antithetic : bool, default False
        Pair every ordering with its reverse on the same observation.
    exact : bool, default False
        Enumerate all 2^m coalitions (m ≤ 12) instead of sampling; the standard errors are 0
        and one background sample of B rows serves every coalition (its draw is the only
        remaining randomness, which the values do not measure).
    batch_size : int, default 256
        Orderings per batch: one stacked evaluation, one parallel task, one convergence check.
    max_rows : int, optional
        At most this many rows per model call.
    n_jobs : int, optional
        Batches run in parallel (joblib); the result is identical for every ``n_jobs``.
    random_state : None, int or numpy Generator
    progress : bool
        A bar of the estimated progress towards convergence.
    confidence_level : float, default 0.95
        Level of the normal interval φ ± z·SE.
    control_variate : bool, default True
        Use each observation's total loss reduction D_i = L(y_i, f_∅) − L(y_i, f(x_i)), whose
        mean over X is known exactly (given the sample's background, for marginal removal), as
        a control variate (see Notes). The estimate then satisfies Σ φ_j = v(N) exactly (the
        mean of the orderings' v(N) for marginal removal) and usually needs far fewer orderings.
    background : DataFrame or array, shape (B, p), optional
        Rows to marginalise over instead of ``n_background`` rows sampled from X. For marginal
        removal they are then the reference distribution of the removed features, and f_∅ is
        their mean prediction (see Notes).
    engine : {"auto", "trees", "predict"}
        Marginal removal only. ``"auto"``: for a tree ensemble the tree engine supports,
        f_S(x) = 1/B Σ_b f(x_S, b_S̄) comes from its trees (one walk per row, coalition and tree
        carries the background rows, and along an ordering only the trees that split on the
        added player are walked again) after a check against the model's own predictions;
        the numbers are those of the predict path up to rounding. ``"trees"`` insists (an
        error otherwise); ``"predict"`` predicts the B hybrid rows of every coalition.
        ``info["engine"]`` records which ran, ``info["engine_note"]`` why a tree model's
        trees were not used.

    Returns
    -------
    ImportanceResult
        ``method`` ``"sage_marginal"`` or ``"sage_conditional"``; ``importance`` φ (m,),
        ``std`` their standard errors, ``ci_low``/``ci_high`` the normal interval;
        ``baseline_loss`` R(f) the model's risk on X. ``extra``: ``n_permutations`` (orderings
        used), ``converged``, ``trace`` (k, m) running φ after each batch, ``trace_se`` (k, m),
        ``trace_n`` (k,) orderings after each batch, ``loss_empty`` R(f_∅), ``v_all``
        v(N) = R(f_∅) − R(f), the total the values sum to, ``empty`` where f_∅ came from
        (``"rows"``: the mean prediction over X; ``"background"``: over the background rows;
        ``"backgrounds"``: over each ordering's own background, ``loss_empty`` and ``v_all``
        then the means over the orderings; see Notes), ``background_per_ordering`` (whether
        marginal removal drew a fresh background for every ordering), ``loss_empty_rows`` and
        ``loss_empty_background`` (R of the rows' mean prediction and of the first background's),
        and for ``exact`` the value of every coalition (``values``, indexed by the bit mask of
        players).
        A model that predicts one value on every row and coalition checked (see Notes) gets
        φ = 0 with no ordering sampled, ``constant_prediction`` (that value), ``constant_checked``
        (what was predicted) and a warning saying so.

    Notes
    -----
    With v(S) = R(f_∅) − R(f_S) (:func:`sage_value`) the SAGE value of player j is

        φ_j = Σ_{S ⊆ N∖{j}} |S|! (m − |S| − 1)! / m! · (v(S ∪ {j}) − v(S))
            = E_τ [v(S_j^τ ∪ {j}) − v(S_j^τ)],

    the mean surplus of j over the players preceding it in a uniformly random ordering τ.
    The estimator samples pairs (i, τ) and averages Δ_ij = L(y_i, f_S(x_i)) − L(y_i, f_{S∪j}(x_i)),
    an unbiased estimate of φ_j. Along an ordering the credits telescope: Σ_j Δ_ij = D_i, whose
    mean over all rows is v(N). The control-variate estimate is
    φ̂_j = mean(Δ_j) − c_j (mean(D) − v(N)), c_j = Cov(Δ_j, D)/Var(D); since Σ_j c_j = 1,
    Σ_j φ̂_j = v(N). Its standard error is the delete-one jackknife over the samples (c_j
    re-estimated without each one), which, unlike the residual formula sd(Δ_j − c_j D)/√n that
    treats c_j as known, stays honest with few orderings and heavy-tailed losses; the two
    agree as n grows. Without the control variate it is sd(Δ_j)/√n. Efficiency:
    Σ_j φ_j = v(N) = R(f_∅) − R(f). (Marginal removal with a background per ordering: v(N) is
    replaced by the known V of each sample's background, and mean(V) by the mean over the
    samples; see "the background" below.)

    Conditional removal estimates f_S(x_i) = 1/B Σ_b f(x_i,S, x̃_b,-S) from B draws
    x̃_b ~ P(X_-S | X_S = x_i,S). All coalitions of one sample (i, τ) -- and, for ``exact``,
    all coalitions of row i -- use the same noise u_i1..u_iB (common random numbers), so
    Δ_ij = 0 exactly whenever adding j leaves the draws' distribution unchanged, and the
    variance of Δ_ij is that of a difference of correlated, not independent, averages. A
    column constant in X (and in the sampler's data) is kept in every coalition: conditioning
    on it changes nothing and its draw is the constant, so its φ is exactly 0 (the null
    player), as for marginal removal. The default subgroup sampler, fitted on X, draws row i's
    dropped values from rows of the other half of X in i's leaf (cross-fitted, see
    :class:`imlkit.samplers.SubgroupSampler`): row i's own dropped values never reach f_S(x_i),
    which would otherwise credit a pure-noise feature with the leaves' in-sample fit.

    The empty coalition. f_∅ = E[f(X)], the model's mean prediction (Covert et al. 2020). Its
    mean over the B background rows is an estimate with error variance Var f(X)/B, and a convex
    loss of it is biased upward (Jensen): by about Var f(X)/B for squared error, far more for the
    log loss of many classes (digits, 10 classes, B = 16: v(N) 3.31 where the mean over the rows
    gives 2.23), and v(N) = R(f_∅) − R(f), the total the values sum to, with it. Conditional
    removal, and marginal removal of a single player with a background drawn from X, therefore
    take

        f̂_∅ = 1/n Σ_i f(x_i)    (the mean probability vector for probabilities),

    the mean of the predictions on every row, which v(N) needs anyway (no extra model call). The
    values then sum, in every ordering, exactly to R(f̂_∅) − R(f), the loss of the model's mean
    prediction minus the model's loss on these rows, and a single player's value is exactly that
    total (no ordering and no background row enters it). The coalitions between none and all
    still average B background rows (marginal) or B conditional draws, so how the total is split
    among several players carries that sampling: conditional removal draws afresh for every
    sample, so its intervals cover it; marginal removal, below.

    Marginal removal of several players, the background. With one fixed sample of B rows for every
    ordering, every v(S) would be that sample's and the standard error would cover the orderings
    only -- while the background's own noise can be the larger (ISLP Auto, B = 32: acceleration
    −1.36 [−2.05, −0.67] with one seed, +0.40 [−0.08, 0.88] with another). The permutation
    estimator therefore draws B rows of X (without replacement) afresh for every (row, ordering)
    sample: the samples are i.i.d. over row, ordering and background and their standard error covers
    all three. The estimand is the game whose background is every row of X (f_S(x) the mean of
    f(x_S, z_S̄) over all rows z). A loss of a B-row mean is biased for it by the loss's curvature
    times the mean's variance (Jensen): for squared error and a linear model by κ β_j (Σβ)_j,
    κ = (n − B)/(B (n − 1)), Σ the covariance of X, about φ_j/B. For squared error and the Brier
    score each loss is therefore corrected by an unbiased estimate of that variance, (1 − B/n)
    s²_G/G from the means of G ≤ 8 groups of B/G of the rows (:meth:`SageGame.background_losses`),
    which makes φ̂ unbiased for the all-rows game; other losses keep the O(1/B) bias. When X has
    at most B rows every row is the background and nothing is drawn; ``exact=True`` and an
    explicit ``background`` keep one fixed background.

    Each sample's f̂_∅ = 1/B Σ_b f(b) is the mean prediction over its own background rows (predicted
    with its coalitions): it is the one f̂_∅ under which a feature the model does not use is a null
    player of every sample's game exactly (f̂_{S∪j} = f̂_S for every S, ∅ included, as the hybrid
    rows are the same), so its φ is exactly 0. With the rows' mean instead, such a feature would be
    credited (R(f̂_∅) − R(1/B Σ_b f(b)))/m instead of 0, a value of about −Var f(X)/(B m) that
    enough orderings separate from 0. Given a sample's background b, the mean of its D_i over the
    rows is known exactly, V = R(f̂_∅^b) − R(f), and the control variate uses D − V; the values sum
    exactly to the mean of V over the orderings, the loss of the backgrounds' mean predictions
    minus the model's (``v_all``, ``loss_empty``; for squared error and Brier, corrected as above,
    an unbiased estimate of the rows' total R(f̂_∅) − R(f) with f̂_∅ the mean over every row, which
    ``loss_empty_rows`` gives beside it). An explicit ``background`` is the reference distribution
    the caller chose: marginal removal keeps its mean prediction for f̂_∅, and φ is then the mean
    over rows of loss SHAP on it (:func:`imlkit.shap`, ``output="loss"``).

    A constant model. When the predictions on every row agree to a relative 1e-12 (of the
    target's sd or the largest absolute prediction; of 1 for probabilities) and so do the predictions of
    the coalitions between none and all on them (all pairs of rows and coalitions when there are
    at most 256·(m − 1), else as many drawn at random), every v(S) is 0 and so is every φ_j: the
    estimator stops at once (``n_permutations`` 0) instead of sampling rounding noise.

    Marginal SAGE: φ_j ≠ 0 only if the model uses x_j. Conditional SAGE: φ_j can be non-zero
    for a feature the model does not use but that carries information about y (see
    ``explain()``).

    References
    ----------
    Covert, Lundberg & Lee (2020). Understanding global feature contributions with additive
    importance measures. NeurIPS 33.
    Castro, Gómez & Tejada (2009). Polynomial calculation of the Shapley value based on
    sampling. Computers & Operations Research 36(5).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 3)); y = X[:, 0] + 0.5 * X[:, 1]
    >>> f = lambda A: A[:, 0] + 0.5 * A[:, 1]
    >>> r = sage(f, X, y, n_background=32, exact=True, random_state=0)
    >>> bool(np.isclose(r.importance.sum(), r.extra["v_all"]))
    True
    >>> r.importance.round(1).tolist()     # additive model: φ_j = β_j² Var(x_j)
    [1.0, 0.2, 0.0]
    """
    call = SPEC.check(locals())
    params = SPEC.record(call)
    seed, tolerance, batch_size = call["seed"], call["tolerance"], call["batch_size"]
    max_permutations, antithetic = call["max_permutations"], call["antithetic"]
    exact, control_variate = call["exact"], call["control_variate"]
    bg_seed, draw_seed, batch_root = seed.spawn(3)

    players_of = players_of_features(features)

    with Timer() as timer:
        game_options = GameOptions(loss=loss, removal=removal, sampler=sampler, n_background=n_background,
                                   background=background, max_rows=max_rows)
        game, players = build_game(model, X, y, players_of, game_options, bg_seed)
        # f_∅ = the model's mean prediction over every row where that keeps the null player (Notes, "The empty
        # coalition"); sage_value's v(S) is the same game only where it makes the same choice
        game.choose_empty(background is not None)
        # the permutation estimator's marginal game: B rows of X drawn afresh for every ordering (Notes)
        fresh = not exact and background is None and game.background_per_sample()
        game, engine_params = engine_game(model, game, engine)
        params.update(engine_params)
        m = len(players)
        if exact and m > MAX_EXACT_PLAYERS:
            raise ValidationError(f"'exact=True' enumerates 2^m coalitions and allows at most {MAX_EXACT_PLAYERS} "
                                  f"players; got {m}. Use the permutation estimator (exact=False) or group features.")
        r_empty, r_full = game.risk_empty(), game.risk_full()
        v_all = r_empty - r_full
        extra = dict(loss_empty=r_empty, v_all=v_all, empty=game.empty_source,
                     loss_empty_rows=game.risk_empty(game.rows_empty_pred()),
                     loss_empty_background=game.risk_empty(game.background_empty_pred), default_plot="bar",
                     background_per_ordering=bool(fresh))
        warns = []
        leaves = getattr(game.sampler, "small_leaves_note", None)
        if leaves is not None:
            # leaves of fewer than MIN_LEAF_ROWS rows shrink conditional SAGE towards 0 (and past it): see
            # imlkit.samplers.MIN_LEAF_ROWS; rows of the sampler's data draw from its cross-fitted halves' trees
            n_fit = len(game.sampler.X_fit_)
            cross = n_fit >= _MIN_CROSS_FIT_ROWS   # rows of the sampler's data then draw cross-fitted: honest
            extra.update(sampler_rows=n_fit, sampler_leaf_rows=game.sampler.leaf_rows(cross))
            in_sample = not cross and (game.sampler_fit_on_X or
                                       bool((game.sampler._fitted_positions(game.X) >= 0).any()))
            note = leaves("conditional SAGE") if in_sample else None
            extra["sampler_shrinks"] = note is not None   # what a reading may not call negligible or below 0
            if note is not None:
                warns.append(note)
                warnings.warn(note, stacklevel=2)
        constant = _constant_model(game, np.random.default_rng(draw_seed))
        if constant is not None:
            # Every f_S is the model's one prediction: v(S) = 0 for every coalition, φ = 0 exactly;
            # sampling orderings would only measure rounding (stackloss: 1024 orderings, "not converged").
            phi, se = np.zeros(m), np.zeros(m)
            extra.update(loss_empty=r_full, v_all=0.0, n_permutations=0, converged=True, ratio=0.0,
                         constant_prediction=constant["prediction"], constant_checked=constant["checked"])
            if exact:
                extra["values"] = np.zeros(2 ** m)
            warns.append(constant["note"])
            warnings.warn(warns[-1], stacklevel=2)
        elif exact:
            phi, values = _exact(game, np.random.default_rng(draw_seed))
            se = np.zeros(m)
            extra.update(values=values, n_permutations=0, converged=True)
        else:
            run_options = RunOptions(tolerance=tolerance, max_permutations=max_permutations, antithetic=antithetic,
                                     batch_size=batch_size, n_jobs=n_jobs, progress=progress,
                                     control_variate=control_variate, jackknife=True)
            phi, se, run = _estimate(game, run_options, batch_root, v_all)
            if fresh:
                # the total the values sum to: v(N) of the orderings' backgrounds, on average
                v_bg = run.pop("v_all_backgrounds")
                extra.update(v_all=v_bg, loss_empty=v_bg + r_full, empty="backgrounds")
            extra.update(run)
            if not run["converged"]:
                warns.append(f"SAGE did not converge within {run['n_permutations']} orderings: the largest "
                             f"standard error is {run['ratio']:.3g} x the range of the values (tolerance "
                             f"{tolerance}). Raise max_permutations or the tolerance.")
                warnings.warn(warns[-1], stacklevel=2)
    half = stats.norm.ppf(0.5 + confidence_level / 2) * se
    params.update(loss=game.loss.name, sampler=None if game.sampler is None else repr(game.sampler),
                  background_rows=game.n_draws, seconds=timer.seconds, n_rows=len(game.X))
    return ImportanceResult(
        method=f"sage_{removal}", feature_names=tuple(players), importance=phi, std=se,
        ci_low=phi - half, ci_high=phi + half, loss=game.loss.name, baseline_loss=r_full * game.loss.sign,
        groups=dict(players), params=params, warnings=tuple(warns), extra=extra)


@dataclass(frozen=True)
class RunOptions:
    """The permutation estimator's options, checked by :func:`sage` (the parameters of these names)."""

    tolerance: float
    max_permutations: int | None
    antithetic: bool
    batch_size: int
    n_jobs: int | None
    progress: bool
    control_variate: bool
    #: The control-variate estimate's standard error by the jackknife (SAGE) rather than the
    #: residual formula (SHAP's per-row runs keep the latter).
    jackknife: bool = False


def _estimate(game, options, batch_root, v_all):
    """The permutation estimator's loop; convergence is checked after every batch, in batch order.

    ``options`` is a :class:`RunOptions`; ``batch_root`` seeds the batches; ``v_all`` = v(all
    players), the control variate's known mean and the scale of the convergence criterion.

    Batches are dispatched in rounds of as many as there are workers, but each is merged and
    checked one at a time and the batches after the first converged one are dropped: the
    result is that of the sequential run for every ``n_jobs``.
    """
    tolerance, antithetic, batch_size = options.tolerance, options.antithetic, options.batch_size
    max_permutations, n_jobs, progress = options.max_permutations, options.n_jobs, options.progress
    m = len(game.players)
    unit = 2 if antithetic else 1
    control_mean = v_all if options.control_variate else None
    cap = DEFAULT_PERMUTATION_CAP if max_permutations is None else max_permutations
    workers = max(1, joblib.effective_n_jobs(n_jobs))
    fresh = bool(getattr(game, "fresh_background", 0))
    tracker = RunningMoments(m + 1, keep_rows=options.jackknife and control_mean is not None, offset=fresh)
    trace, trace_se, trace_n = [], [], []
    used, converged, ratio = 0, False, np.inf
    shown = 0
    with progress_bar(100, "SAGE", progress) as bar:
        while not converged and used < cap:
            sizes = []
            planned = used
            while len(sizes) < workers and planned < cap:
                k = min(batch_size, cap - planned) // unit * unit
                if k < unit:
                    break
                sizes.append(k)
                planned += k
            if not sizes:
                break
            seeds = batch_root.spawn(len(sizes))
            tasks = [(game, k // unit, antithetic, s) for k, s in zip(sizes, seeds)]
            # The tree game's kernel releases the GIL: threads share its arrays instead of copying
            # the game to worker processes (a backend chosen by the caller, e.g. Dask, still wins).
            hint = (joblib.parallel_config(prefer="threads") if getattr(game, "releases_gil", False)
                    else contextlib.nullcontext())
            with hint:
                results = parallel_map(_sage_batch, tasks, n_jobs=n_jobs)
            for k, z in zip(sizes, results):
                tracker.update(z)
                used += k
                phi, se = tracker.estimate(control_mean)
                trace.append(phi)
                trace_se.append(se)
                trace_n.append(used)
                converged, ratio = _converged(phi, se, tolerance, v_all)
                pct = 100 if converged else int(min(99, 100 * (tolerance / ratio) ** 2)) if ratio > 0 else 100
                if pct > shown:
                    bar.update(pct - shown)
                    shown = pct
                if converged:
                    break
    phi, se = tracker.estimate(control_mean)
    run = dict(n_permutations=used, converged=converged, ratio=ratio, trace=np.array(trace),
               trace_se=np.array(trace_se), trace_n=np.array(trace_n), default_plot="bar")
    if fresh:
        run["v_all_backgrounds"] = tracker.v_mean
    return phi, se, run
