"""PIMP: a permutation test of feature importance against refits on a permuted target.

The null distribution of a feature's importance comes from models refitted on permuted
targets (no association between X and y, the features' mutual dependence kept); the
observed importance is compared with it (Altmann et al. 2010). The refits go through the
shared engine in ``_refit.py``: one task per refit, one SeedSequence child per task.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._losses import default_loss
from .._timing import Timer
from .._validation import ValidationError, check_choice, check_int, check_probability, resolve_features
from ._common import check_common
from ._inference import P_ADJUST, adjust_pvalues, best_null_distribution, null_pvalue
from ._refit import RefitJob, RefitProblem, check_groups, check_learner, check_refit_data, run_refits
from ._result import ImportanceResult

__all__ = ["pimp"]

IMPORTANCES = ("pfi", "cfi", "loco")
DISTRIBUTIONS = ("empirical", "normal", "lognormal", "gamma", "auto")


def pimp(learner, X_train, y_train, X_test, y_test, *, importance="pfi", n_null=100,
         distribution="auto", p_adjust="holm", alpha=0.05, loss=None, features=None,
         n_repeats=5, sampler="auto", confidence_level=0.95, max_rows=None, n_jobs=None,
         random_state=None, progress=False):
    """Permutation importance test (PIMP, Altmann et al. 2010) for any importance of a learner.

    Parameters
    ----------
    learner : unfitted estimator or zero-argument factory
        Cloned or called for every fit; ``random_state`` parameters that are None are drawn
        from ``random_state`` per refit.
    X_train : DataFrame or array, shape (n_train, p)
    y_train : array-like, shape (n_train,)
    X_test : DataFrame or array, shape (n_test, p)
    y_test : array-like, shape (n_test,)
        The importance is computed on the test data (the model fitted on the training data).
    importance : {"pfi", "cfi", "loco"} or callable
        The importance to test. A callable ``fn(model, X_test, y_test, random_state)`` returns
        an array of shape (m,) (one value per entry of ``features``) or an ImportanceResult;
        ``random_state`` is a SeedSequence. It must be picklable for process backends.
    n_null : int, default 100
        Refits on a permuted training target. The empirical p-value cannot go below
        1/(n_null + 1), so with Holm or Bonferroni over m features no feature using it can
        reach an adjusted p-value below m/(n_null + 1); a warning names ``n_null`` (and the
        value it needs, ⌈m/alpha⌉ − 1) when that exceeds ``alpha``.
    distribution : {"auto", "empirical", "normal", "lognormal", "gamma"}
        How P(null >= observed) is computed per feature (see Notes). ``"auto"`` (default):
        the parametric family that fits the null sample (so an overwhelming feature gets a
        tail probability, not the floor 1/(n_null + 1)); empirical only when none fits.
    p_adjust : {"holm", "bonferroni", None}
        Family-wise correction over the m features.
    alpha : float, default 0.05
        Level of the ``significant`` column of ``to_frame()`` (on the adjusted p-values).
    loss : str or callable, optional
        Default: log loss for classifiers with ``predict_proba``, else squared error
        (LOCO: the Brier score for classifiers, absolute error for regression).
    features : None, name, index, list or dict
    n_repeats : int, default 5
        Permutations per feature of PFI/CFI (observed and null).
    sampler : str or Sampler
        CFI's sampler (see :func:`imlkit.cfi`).
    confidence_level : float
        Of the observed importance's interval.
    max_rows, n_jobs, random_state, progress
        As in :func:`imlkit.pfi`; the refits (1 observed + ``n_null``) run in parallel.

    Returns
    -------
    ImportanceResult
        ``method="pimp"``, ``params["importance"]`` the tested method; importance, interval
        and repeats of the observed importance; ``p_value``, ``p_adjusted``;
        ``extra["null"]`` (m, n_null) the null importances, ``extra["distribution"]`` the
        family used per feature. ``plot(kind="null")`` draws the null histograms.

    Notes
    -----
    For b = 1..B: permute y_train, refit, compute the importance I_j^(b). With I_j^obs from the
    learner fitted on the real target:

    - empirical: p_j = (#{b: I_j^(b) >= I_j^obs} + 1) / (B + 1);
    - normal: p_j = 1 − Φ((I_j^obs − mean)/sd) over the null sample;
    - lognormal, gamma: fitted to the positive null values; with π₊ their fraction,
      p_j = π₊·S(I_j^obs) for I_j^obs > 0 (importances can be negative, these families cannot);
    - auto: the family with the largest Kolmogorov–Smirnov p-value (lognormal/gamma only
      when all null values are positive); empirical when none reaches 0.05.

    A parametric family that cannot be fitted (constant null sample) falls back to the
    empirical p-value with a warning.

    Why not empirical by default: with B = 100 null refits the smallest empirical p-value
    is 1/101, and Holm over m features multiplies the smallest p-value by m, so with 6 or
    more features nothing could ever be significant -- not even a feature whose observed
    importance is hundreds of null standard deviations away. A parametric null resolves
    that tail with the same refits; the empirical p-value needs B ≥ m/alpha − 1 refits
    (240 for m = 12, alpha = 0.05).

    References
    ----------
    Altmann, A., Toloşi, L., Sander, O. & Lengauer, T. (2010). Permutation importance: a
    corrected feature importance measure. Bioinformatics 26(10), 1340-1347.
    """
    params = dict(importance=importance if isinstance(importance, str) else getattr(importance, "__name__", "custom"),
                  n_null=n_null, distribution=distribution, p_adjust=p_adjust, alpha=alpha,
                  loss=loss if loss is None or isinstance(loss, str) else getattr(loss, "__name__", "custom"),
                  features=features, n_repeats=n_repeats, confidence_level=confidence_level,
                  max_rows=max_rows, n_jobs=n_jobs,
                  random_state=random_state if not isinstance(random_state, np.random.Generator) else "Generator")
    seed = check_common(n_repeats=n_repeats, confidence_level=confidence_level, n_jobs=n_jobs,
                        random_state=random_state, progress=progress)
    if not callable(importance):
        check_choice("importance", importance, IMPORTANCES)
    n_null = check_int("n_null", n_null, min_value=1)
    check_choice("distribution", distribution, DISTRIBUTIONS)
    check_choice("p_adjust", p_adjust, P_ADJUST)
    alpha = check_probability("alpha", alpha)
    if loss is None:
        loss = default_loss(check_learner(learner), "loco" if importance == "loco" else "pimp")
    template, Xtr, ytr, Xte, yte, loss_obj, as_frame = check_refit_data(
        learner, X_train, y_train, X_test, y_test, loss, max_rows)
    groups = resolve_features(features, Xtr.columns)
    if importance == "loco":
        check_groups(groups, Xtr.columns)
    params["loss"] = loss_obj.name
    names = list(groups)

    with Timer() as timer:
        problem = RefitProblem(learner=learner, X_train=Xtr, y_train=ytr, X_test=Xte, y_test=yte, loss=loss_obj,
                               as_frame=as_frame, max_rows=max_rows)
        seeds = seed.spawn(n_null + 1)
        observed_eval = _Evaluator(importance=importance, groups=groups, loss=loss_obj, n_repeats=n_repeats,
                                   sampler=sampler, confidence_level=confidence_level, keep_result=True)
        null_eval = replace(observed_eval, keep_result=False)
        jobs = [RefitJob("the model fitted on the real target", seed=seeds[0], evaluate=observed_eval)]
        jobs += [RefitJob(f"null refit {b}", seed=seeds[b + 1], permute_y=True, evaluate=null_eval)
                 for b in range(n_null)]
        out = run_refits(problem, jobs, n_jobs=n_jobs, progress=progress, desc="PIMP")
        obs_result = out[0]
        observed = np.asarray(obs_result.importance, dtype=float)
        null = np.column_stack([np.asarray(o, dtype=float) for o in out[1:]])   # (m, n_null)
        p, used, warns = _pvalues(null, observed, distribution, names)
        warns += _resolution_warnings(used, names, n_null, p_adjust, alpha)
        for w in warns:
            warnings.warn(w, stacklevel=2)
    params["seconds"] = timer.seconds
    return ImportanceResult(
        method="pimp", feature_names=tuple(names), importance=observed, std=obs_result.std,
        ci_low=obs_result.ci_low, ci_high=obs_result.ci_high, loss=loss_obj.name,
        repeats=obs_result.repeats, quantiles=obs_result.quantiles, p_value=p,
        p_adjusted=adjust_pvalues(p, method=p_adjust), baseline_loss=obs_result.baseline_loss,
        observation_importance=obs_result.observation_importance, groups=dict(groups), params=params,
        warnings=tuple(warns) + tuple(obs_result.warnings),
        extra={"null": null, "distribution": tuple(used)})


def _resolution_warnings(used, names, n_null, p_adjust, alpha):
    """A warning when the empirical p-values cannot reach ``alpha`` after the correction.

    An empirical p-value is at least 1/(B+1). Bonferroni multiplies it by m; Holm by at least
    the number of features left at its step, which for an empirical feature is at best the
    number of empirical features (all parametric ones rejected before it). Without a
    correction the floor is 1/(B+1) itself.
    """
    emp = [n for n, fam in zip(names, used) if fam == "empirical"]
    if not emp:
        return []
    m = len(names)
    factor = {"bonferroni": m, "holm": len(emp), None: 1}[p_adjust]
    floor = factor / (n_null + 1)
    if floor <= alpha:
        return []
    need = int(np.ceil(factor / alpha - 1e-9)) - 1  # B + 1 >= factor/alpha
    which = "every feature" if len(emp) == m else f"feature(s) {emp}"
    return [(f"With the empirical null p-value (k+1)/(n_null+1), n_null={n_null} and p_adjust={p_adjust!r}, "
             f"the smallest adjusted p-value {which} can reach is {factor}/{n_null + 1} = {floor:.3g} > "
             f"alpha={alpha}: nothing there can be significant, however large its importance. "
             f"Use n_null >= {need}, or a parametric null (distribution='auto' or 'normal').")]


def _pvalues(null, observed, distribution, names):
    p = np.empty(len(names))
    used, warns = [], []
    for j, name in enumerate(names):
        fam = best_null_distribution(null[j]) if distribution == "auto" else distribution
        p[j] = null_pvalue(null[j], observed[j], fam)
        if np.isnan(p[j]):
            warns.append(f"The {fam} distribution could not be fitted to the null importances of {name!r} "
                         f"(constant or too few positive values); the empirical p-value is used.")
            fam = "empirical"
            p[j] = null_pvalue(null[j], observed[j], fam)
        used.append(fam)
    return p, used, warns


@dataclass(frozen=True)
class _Observed:
    """The observed importance, trimmed to what PIMP reports (cheap to send back)."""

    importance: Any
    std: Any
    ci_low: Any
    ci_high: Any
    repeats: Any = None
    quantiles: Any = None
    baseline_loss: Any = None
    observation_importance: Any = None
    warnings: tuple = ()


@dataclass(frozen=True)
class _Evaluator:
    """Computes the tested importance of one fitted model (the engine's ``evaluate`` hook)."""

    importance: Any
    groups: dict
    loss: Any
    n_repeats: int
    sampler: Any
    confidence_level: float
    keep_result: bool

    def __call__(self, model, X_train, y_train, X_test, y_test, problem, seed):
        from ._loco import loco
        from ._perturbation import cfi, pfi

        def data(X):
            return X if problem.as_frame else X.to_numpy()

        kind = self.importance
        if kind == "pfi":
            res = pfi(model, data(X_test), y_test, loss=self.loss, features=self.groups,
                      n_repeats=self.n_repeats, confidence_level=self.confidence_level,
                      max_rows=problem.max_rows, n_jobs=1, random_state=seed)
        elif kind == "cfi":
            res = cfi(model, data(X_test), y_test, sampler=self.sampler, loss=self.loss, features=self.groups,
                      n_repeats=self.n_repeats, confidence_level=self.confidence_level,
                      max_rows=problem.max_rows, n_jobs=1, random_state=seed)
        elif kind == "loco":
            # The fitted model is not used: LOCO refits the learner itself (full and reduced).
            res = loco(problem.learner, data(X_train), y_train, data(X_test), y_test, loss=self.loss,
                       features=self.groups, test=None, confidence_level=self.confidence_level,
                       max_rows=problem.max_rows, n_jobs=1, random_state=seed)
        else:
            res = kind(model, data(X_test), y_test, seed)
        if hasattr(res, "importance"):
            values = np.asarray(res.importance, dtype=float)
        else:
            values = np.asarray(res, dtype=float)
            res = None
        m = len(self.groups)
        if values.shape != (m,):
            raise ValidationError(f"The importance callable must return {m} values (one per feature); "
                                  f"got shape {values.shape}.")
        if not self.keep_result:
            return values
        if res is None:
            nan = np.full(m, np.nan)
            return _Observed(importance=values, std=nan, ci_low=nan, ci_high=nan)
        return _Observed(importance=values, std=res.std, ci_low=res.ci_low, ci_high=res.ci_high,
                         repeats=res.repeats, quantiles=res.quantiles, baseline_loss=res.baseline_loss,
                         observation_importance=res.observation_importance, warnings=tuple(res.warnings))
