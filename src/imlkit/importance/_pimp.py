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

from .._display import p_is
from .._losses import default_loss
from .._options import (
    CONFIDENCE_LEVEL,
    FEATURES,
    LOSS,
    MAX_ROWS,
    N_JOBS,
    N_REPEATS,
    PROGRESS,
    RANDOM_STATE,
    Option,
    Spec,
    choice,
    flag,
    integer,
    name_record,
    probability,
)
from .._parallel import progress_bar
from .._timing import Timer
from .._validation import ValidationError, check_choice, check_X, resolve_features
from ..samplers import make_sampler
from ._common import with_test_classes
from ._inference import P_ADJUST, adjust_pvalues, best_null_distribution, null_pvalue
from ._refit import (
    RefitJob,
    RefitProblem,
    check_groups,
    check_learner,
    check_refit_data,
    given_full_fit,
    run_refits,
)
from ._result import ImportanceResult

__all__ = ["pimp", "PimpResult", "resolution", "MIN_PARAMETRIC_NULL", "SEQUENTIAL_BLOCK"]

IMPORTANCES = ("pfi", "cfi", "loco")
DISTRIBUTIONS = ("empirical", "normal", "lognormal", "gamma", "auto")
#: Fewest null refits from which a parametric tail is fitted: below, every feature uses the
#: empirical null (a tail fitted to 10 values would print p = 1e-135 for a value it cannot resolve).
MIN_PARAMETRIC_NULL = 30
#: Null refits between two looks of the sequential run (``sequential=True``). Fixed, not tied to
#: ``n_jobs``: where the run stops must not depend on how many workers ran it.
SEQUENTIAL_BLOCK = 10


def _check_importance(name, value, call):
    """A method's name, or a callable ``fn(model, X_test, y_test, random_state)`` (its output checked as it runs)."""
    return value if callable(value) else check_choice(name, value, IMPORTANCES)


#: PIMP's options, in the order they are checked and recorded (defaults: the signature).
SPEC = Spec(
    "pimp",
    Option("importance", _check_importance, "the importance tested: 'pfi', 'cfi', 'loco' or a callable",
           record=name_record),
    Option("n_null", integer(1), "refits of the learner on permuted targets (the null distribution)"),
    Option("distribution", choice(DISTRIBUTIONS), "the null distribution's p-value: empirical or a fitted family"),
    Option("p_adjust", choice(P_ADJUST), "the multiplicity correction of the p-values"),
    Option("alpha", probability(), "the level of the decisions (and of sequential stopping)"),
    LOSS, FEATURES, N_REPEATS,
    Option("sampler", None, "CFI's sampler; built by imlkit.cfi on each refit's data", record=False),
    CONFIDENCE_LEVEL, MAX_ROWS, N_JOBS, RANDOM_STATE, PROGRESS,
    Option("sequential", flag(), "stop refitting once every decision is settled"),
)


def pimp(learner, X_train, y_train, X_test, y_test, *, importance="pfi", n_null=100,
         distribution="auto", p_adjust="holm", alpha=0.05, loss=None, features=None,
         n_repeats=5, sampler="auto", confidence_level=0.95, max_rows=None, n_jobs=None,
         random_state=None, progress=False, sequential=False):
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
        1/(n_null + 1), so after the correction a feature using it cannot go below its
        ``p_floor`` (see Returns); a warning names ``n_null`` (and the value it needs) when
        some feature's floor exceeds ``alpha``. With fewer than ``MIN_PARAMETRIC_NULL`` (30)
        refits no parametric tail is fitted: every feature uses the empirical null.
    distribution : {"auto", "empirical", "normal", "lognormal", "gamma"}
        How P(null >= observed) is computed per feature (see Notes). ``"auto"`` (default):
        the parametric family that fits the null sample (so an overwhelming feature gets a
        tail probability, not the floor 1/(n_null + 1)); empirical only when none fits, and
        always with fewer than 30 refits (a parametric family asked for explicitly then falls
        back to the empirical null with a warning).
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
    sequential : bool, default False
        Stop refitting once every completion of the run to ``n_null`` refits would give the
        same decisions (curtailed sampling, see Notes). Only decisions taken on the empirical
        null can be settled that way (``distribution="empirical"``, or fewer than 30 refits);
        on a fitted tail the run always goes to ``n_null`` (the tail depends on every null
        value) and the result says so. The default keeps the full run: its p-values are those
        of ``n_null`` refits, which a stopped run only brackets. The report uses ``True``.

    Returns
    -------
    PimpResult
        An :class:`ImportanceResult` with ``method="pimp"``, ``params["importance"]`` the
        tested method (and ``n_null``, ``alpha``, ``p_adjust``); importance, interval and
        repeats of the observed importance; ``p_value``, ``p_adjusted``; ``extra["null"]``
        (m, n_null) the null importances, ``extra["distribution"]`` the family used per
        feature, ``extra["p_floor"]`` and ``extra["n_null_needed"]`` (m,) its resolution
        (:func:`resolution`), also the ``to_frame()`` columns ``p_floor`` and
        ``n_null_needed``. A feature with ``p_floor > alpha`` cannot be significant with these
        refits whatever its importance; when its observed importance also exceeds every null
        value (it is at the floor), ``explain()`` says "cannot tell with B null refits (at least
        N needed)" for it, never that there is no evidence.
        ``plot(kind="null")`` draws the null histograms.
        ``extra["sequential"]``: ``{"enabled", "n_null_run", "n_null_planned", "stopped",
        "reason"}`` -- how many null refits ran, of how many planned, and why the run stopped;
        ``extra["null"]`` then has ``n_null_run`` columns. ``extra["p_bounds"]`` (m, 2): the
        range the empirical p-value of the planned run could still take ([p, p] when it is
        known). ``params["n_null"]`` stays the planned number, and ``p_floor``,
        ``n_null_needed`` and ``cannot_tell`` refer to it (a stop is only taken when every
        completion gives the same floors as well).

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
    empirical p-value with a warning. With fewer than 30 null values no family is fitted at
    all: a tail fitted to 10 values extrapolates far beyond them (a normal fit once gave
    p = 1.8e-135), and the Kolmogorov–Smirnov screen cannot tell families apart on so few; the
    empirical p-value says honestly how far 10 refits can see (its ``p_floor``).

    Resolution: ``p_floor`` is the smallest adjusted p-value the feature's null could give in
    this run -- its raw floor (1/(B + 1) for the empirical null, 0 for a fitted tail) put in
    place of its p-value, the other features' p-values as they are, then corrected:
    ``None``: 1/(B + 1); ``"bonferroni"``: min(1, m/(B + 1)); ``"holm"``: min(1, max(E_L,
    (m − L)/(B + 1))) with L the number of other features whose p-value is below the floor
    (they come first in Holm's order) and E_L the largest Holm term (m − r + 1)·p_(r) among
    them -- at most m/(B + 1), reached when no other feature is below the floor.
    ``n_null_needed`` is the smallest B whose floor is <= ``alpha`` under the same rule (the
    other p-values held as they are; for a fitted tail, at most 30, from which tails are
    fitted); it is never above ⌈m/alpha⌉ − 1.

    Why not empirical by default: with B = 100 null refits the smallest empirical p-value
    is 1/101, and Holm over m features multiplies the smallest p-value by m, so with 6 or
    more features nothing could ever be significant -- not even a feature whose observed
    importance is hundreds of null standard deviations away. A parametric null resolves
    that tail with the same refits; the empirical p-value needs B ≥ m/alpha − 1 refits
    (240 for m = 12, alpha = 0.05).

    Sequential run (``sequential=True``): after l of the N planned null refits feature j has
    h_j null values >= its observed importance, so the empirical p-value of the full run lies
    in [(h_j + 1)/(N + 1), (h_j + N − l + 1)/(N + 1)] whatever the remaining refits give.
    Holm, Bonferroni and the uncorrected level are monotone in every p-value (an adjusted
    p-value never falls when any raw one rises), and so is each feature's ``p_floor``; so when
    the decisions at the lower bounds equal those at the upper bounds -- which features are
    rejected at ``alpha``, which have ``p_floor <= alpha``, and, for a feature whose floor is
    above ``alpha``, whether it is at the floor (h_j = 0, undecided until the end while h_j = 0)
    -- every completion gives the same decisions, and the run stops (curtailed sampling, in
    blocks of ``SEQUENTIAL_BLOCK`` refits; null refit k keeps its seed whether or not the run
    stops, so the numbers do not depend on ``n_jobs`` or the backend). The reported p-value
    is then (h_j + 1)/(l + 1), the empirical p-value of the refits run; it lies inside those
    bounds, so it gives the settled decisions. Settling a rejection needs almost every refit
    (its upper bound falls to alpha only near the end); the stop comes early for features
    that clearly do not matter and for runs that can reject nothing.

    A fitted tail (``distribution`` parametric and N >= 30) depends on every null value, and
    the remaining ones are unbounded: no prefix of the run bounds its p-values, and on real data
    the family itself changes as refits arrive (bike sharing, gradient boosting, one seeded run:
    ``season`` had a normal tail and adjusted p < 1e-4 after 30 and 40 refits, then no family
    passed the KS screen after 50 and 60, so the empirical null, adjusted p = 4/61 > 0.05).
    Stopping at 30 or 40 would have changed that decision, so the sequential run does not stop
    on a fitted tail; rather than switch such a run to the empirical null (which cannot reject
    anything there: Holm's floor is 12/61 with 12 features), it runs all ``n_null`` refits and
    ``extra["sequential"]["reason"]`` says why.

    References
    ----------
    Besag, J. & Clifford, P. (1991). Sequential Monte Carlo p-values. Biometrika 78(2), 301-304.

    Altmann, A., Toloşi, L., Sander, O. & Lengauer, T. (2010). Permutation importance: a
    corrected feature importance measure. Bioinformatics 26(10), 1340-1347.
    """
    call = SPEC.check(locals())
    params = SPEC.record(call)
    seed, n_null, alpha, sequential = call["seed"], call["n_null"], call["alpha"], call["sequential"]
    template = check_learner(learner)  # once: a factory learner is otherwise called only for its fits
    if loss is None:
        loss = default_loss(template, "loco" if importance == "loco" else "pimp")
    template, Xtr, ytr, Xte, yte, loss_obj, as_frame = check_refit_data(
        template, X_train, y_train, X_test, y_test, loss, max_rows)
    groups = resolve_features(features, Xtr.columns)
    if importance == "loco":
        check_groups(groups, Xtr.columns)
    params["loss"] = loss_obj.name
    names = list(groups)

    with Timer() as timer:
        problem = RefitProblem(learner=learner, X_train=Xtr, y_train=ytr, X_test=Xte, y_test=yte, loss=loss_obj,
                               as_frame=as_frame, max_rows=max_rows, template=template)
        seeds = seed.spawn(n_null + 1)
        if importance == "cfi":
            # CFI's sampler depends on the test rows only: fitted once here, not once per refit (a
            # SubgroupSampler fits a tree per feature, deterministically, and keeps them for the next call)
            sampler = make_sampler(sampler, check_X(Xte if as_frame else Xte.to_numpy(), "X_test")[0])
        observed_eval = _Evaluator(importance=importance, groups=groups, loss=loss_obj, n_repeats=n_repeats,
                                   sampler=sampler, confidence_level=confidence_level, keep_result=True)
        observed_job = RefitJob("the model fitted on the real target", seed=seeds[0], evaluate=observed_eval)
        empirical_plan = n_null < MIN_PARAMETRIC_NULL or distribution == "empirical"
        with progress_bar(n_null + 1, "PIMP", progress) as bar:
            # The observed model first: its PFI/CFI checked the engine for this learner on these rows,
            # and the null refits' evaluations reuse that verdict instead of checking 60 models again.
            given = given_full_fit(template, X_train, y_train, Xtr, ytr, as_frame)
            if given is not None:   # the model on the real target is that fit already (reuse_full_fit): not refitted
                X_tr, y_tr, X_te, y_te = problem.split(None)
                out = [observed_eval(with_test_classes(given, y_te), X_tr, y_tr, X_te, y_te, problem, seeds[0])]
            else:
                out = run_refits(problem, [observed_job], n_jobs=1, progress=False, desc="PIMP")
            bar.update(1)
            null_eval = replace(observed_eval, keep_result=False, refit_of=out[0].engine)
            jobs = [RefitJob(f"null refit {b}", seed=seeds[b + 1], permute_y=True, evaluate=null_eval)
                    for b in range(n_null)]
            if not sequential:
                out += _run_blocks(problem, jobs, n_jobs, bar, len(jobs))
                stop = dict(stopped=False, reason="full run (sequential=False)")
            else:
                out, stop = _run_sequential(problem, out, jobs, n_jobs, bar, empirical_plan, p_adjust, alpha)
        obs_result = out[0]
        observed = np.asarray(obs_result.importance, dtype=float)
        null = np.column_stack([np.asarray(o, dtype=float) for o in out[1:]])   # (m, n_null_run)
        n_run = null.shape[1]
        p, used, warns = _pvalues(null, observed, distribution, names)
        if n_run < n_null:   # stopped early: an empirical plan (see Notes); bounds of the planned run's p
            h = np.sum(null >= observed[:, None], axis=1)
            bounds = np.column_stack([(h + 1) / (n_null + 1), (h + n_null - n_run + 1) / (n_null + 1)])
        else:
            bounds = np.column_stack([p, p])
        p_floor, needed = resolution(p, used, n_null, p_adjust, alpha)
        beyond = np.sum(null >= observed[:, None], axis=1) == 0   # the observed value exceeds every null value
        warns += _resolution_warnings(names, p_floor, needed, n_null, p_adjust, alpha, beyond)
        for w in warns:
            warnings.warn(w, stacklevel=2)
    params.update(seconds=timer.seconds, n_rows=len(Xte))
    return PimpResult(
        method="pimp", feature_names=tuple(names), importance=observed, std=obs_result.std,
        ci_low=obs_result.ci_low, ci_high=obs_result.ci_high, loss=loss_obj.name,
        repeats=obs_result.repeats, quantiles=obs_result.quantiles, p_value=p,
        p_adjusted=adjust_pvalues(p, method=p_adjust), baseline_loss=obs_result.baseline_loss,
        observation_importance=obs_result.observation_importance, groups=dict(groups), params=params,
        warnings=tuple(warns) + tuple(obs_result.warnings),
        extra={"null": null, "distribution": tuple(used), "p_floor": p_floor, "n_null_needed": needed,
               "p_bounds": bounds,
               "sequential": dict(enabled=sequential, n_null_run=n_run, n_null_planned=n_null, **stop)})


def _run_blocks(problem, jobs, n_jobs, bar, size):
    """Results of ``jobs`` in job order, run ``size`` at a time (one refit at a time with one job, so the bar moves)."""
    out = []
    step = 1 if n_jobs == 1 else size
    for start in range(0, len(jobs), step):
        block = jobs[start:start + step]
        out += run_refits(problem, block, n_jobs=n_jobs, progress=False, desc="PIMP")
        bar.update(len(block))
    return out


def _run_sequential(problem, out, jobs, n_jobs, bar, empirical_plan, p_adjust, alpha):
    """Run the null refits ``jobs`` in blocks after ``out`` (the observed fit), stopping once the decisions are settled.

    Returns the results run so far (job order, the observed first) and ``{"stopped", "reason"}``.
    Each block is fixed jobs (seeds set beforehand), so the results and the stop are the same
    for any ``n_jobs`` and backend; the looks fall after 10, 20, ... null refits.
    """
    n_null = len(jobs)
    for start in range(0, n_null, SEQUENTIAL_BLOCK):
        out += _run_blocks(problem, jobs[start:start + SEQUENTIAL_BLOCK], n_jobs, bar, SEQUENTIAL_BLOCK)
        done = len(out) - 1
        if done == n_null:
            break
        if empirical_plan:
            observed = np.asarray(out[0].importance, dtype=float)
            null = np.column_stack([np.asarray(o, dtype=float) for o in out[1:]])
            if _settled(null, observed, n_null, p_adjust, alpha):
                return out, dict(stopped=True, reason=(
                    f"decisions settled after {done} of {n_null} null refits: every completion of the run "
                    f"gives the same features significant at alpha={alpha} and the same floors"))
    reason = ("all planned null refits run: the decisions on a fitted tail depend on every null value"
              if not empirical_plan else "all planned null refits run: the decisions were not settled earlier")
    return out, dict(stopped=False, reason=reason)


def _decisions(p, n_null, p_adjust, alpha):
    """What the report and ``explain`` decide from empirical p-values ``p`` of an N-refit run.

    Rows: rejected at ``alpha`` after the correction; ``p_floor <= alpha``. Both are monotone
    (non-increasing as any p-value rises), which is what lets bounds settle them.
    """
    rejected = adjust_pvalues(p, method=p_adjust) <= alpha
    floor, _ = resolution(p, ["empirical"] * len(p), n_null, p_adjust, alpha)
    return np.vstack([rejected, floor <= alpha])


def _settled(null, observed, n_null, p_adjust, alpha):
    """Whether every completion of an empirical run to ``n_null`` refits gives the decisions it would give now.

    ``null`` (m, l): the null importances so far. Each feature's final p-value lies between
    (h + 1)/(N + 1) and (h + N - l + 1)/(N + 1); the decisions are monotone in the p-values,
    so equal decisions at both ends hold for every p-value vector in between. A feature whose
    floor is above alpha is also told apart by being at the floor (h = 0): settled once h > 0.
    """
    done = null.shape[1]
    h = np.sum(null >= observed[:, None], axis=1)
    lo = (h + 1) / (n_null + 1)
    hi = (h + n_null - done + 1) / (n_null + 1)
    d_lo, d_hi = _decisions(lo, n_null, p_adjust, alpha), _decisions(hi, n_null, p_adjust, alpha)
    if not np.array_equal(d_lo, d_hi):
        return False
    stuck = ~d_lo[1]
    return not np.any(stuck & (h == 0))


def _holm_floor(others, m, floors):
    """Holm's adjusted p-value of one feature whose raw p-value is each of ``floors``.

    ``others``: the other features' p-values (finite), ``m`` the family size. The feature
    comes after the L others below its p-value; its adjusted value is the larger of their
    largest Holm term and its own, (m - L)·p (ties go either way: same value).
    """
    q = np.sort(np.asarray(others, dtype=float))
    terms = (m - np.arange(q.size)) * q              # (m - r + 1)·q_(r), r = 1..m-1
    before = np.concatenate([[0.0], np.maximum.accumulate(terms)]) if q.size else np.zeros(1)
    f = np.asarray(floors, dtype=float)
    L = np.searchsorted(q, f, side="left")
    return np.minimum(1.0, np.maximum(before[L], (m - L) * f))


def _adjusted_at(p, j, floors, p_adjust):
    """Feature j's adjusted p-value if its raw p-value were each of ``floors`` (others as in ``p``)."""
    ok = np.isfinite(p)
    m = int(ok.sum())
    f = np.asarray(floors, dtype=float)
    if p_adjust is None:
        return f
    if p_adjust == "bonferroni":
        return np.minimum(1.0, m * f)
    return _holm_floor(p[ok & (np.arange(p.size) != j)], m, f)


def resolution(p, distributions, n_null, p_adjust, alpha):
    """The smallest adjusted p-value each feature's null could give, and the refits it needs.

    Parameters
    ----------
    p : ndarray, shape (m,) -- raw PIMP p-values (NaN: left out of the correction)
    distributions : sequence of str, length m -- the null used per feature ("empirical" or a
        fitted family)
    n_null : int -- null refits B
    p_adjust : {"holm", "bonferroni", None}
    alpha : float

    Returns
    -------
    p_floor : ndarray, shape (m,)
        The feature's adjusted p-value had its raw p-value been its floor: 1/(B + 1) for the
        empirical null, 0 for a fitted tail (``pimp`` fits none below 30 refits), with the
        other p-values as they are (see :func:`pimp`, Notes). Monotone correction: no p-value
        the null can give adjusts lower.
    n_null_needed : ndarray, shape (m,)
        The smallest B with which that floor would be <= ``alpha`` (float; NaN where p is NaN).

    Examples
    --------
    Eleven features on the empirical null with 60 refits: Holm's floor is 11/61 for all,
    and 219 refits are needed (11/220 = 0.05).

    >>> f, n = resolution(np.full(11, 0.5), ["empirical"] * 11, 60, "holm", 0.05)
    >>> round(float(f[0]), 4), int(n[0])
    (0.1803, 219)
    """
    p = np.asarray(p, dtype=float)
    m = int(np.isfinite(p).sum())
    floor = np.full(p.size, np.nan)
    needed = np.full(p.size, np.nan)
    top = max(1, int(np.ceil(max(m, 1) / alpha - 1e-9)) - 1)   # m/(B+1) <= alpha from here on
    for j, fam in enumerate(distributions):
        if not np.isfinite(p[j]):
            continue
        raw = 1.0 / (n_null + 1) if fam == "empirical" else 0.0
        floor[j] = float(_adjusted_at(p, j, [raw], p_adjust)[0])
        emp = float(_fewest_refits(p, j, p_adjust, alpha, top))
        needed[j] = emp if fam == "empirical" else min(emp, float(MIN_PARAMETRIC_NULL))
    return floor, needed


def _fewest_refits(p, j, p_adjust, alpha, top):
    """The smallest B >= 1 whose empirical floor 1/(B + 1) adjusts to <= alpha for feature j (others as in p).

    Closed form per Holm position: with k other p-values below the floor (f in (q_(k), q_(k+1)]),
    the adjusted floor is max(E_k, (m - k)·f), so the largest admissible f in that range is
    min(q_(k+1), alpha/(m - k)) when E_k <= alpha; the largest over k gives the smallest B. The
    candidate is then checked with the correction itself (rounding), O(m) per feature.
    """
    ok = np.isfinite(p)
    m = int(ok.sum())
    if p_adjust is None or p_adjust == "bonferroni":
        c = 1 if p_adjust is None else m
        best = np.ceil(c / alpha - 1.0)
    else:
        q = np.sort(p[ok & (np.arange(p.size) != j)])
        k = np.arange(q.size + 1)
        E = np.concatenate([[0.0], np.maximum.accumulate((m - np.arange(q.size)) * q)])
        lo = np.concatenate([[0.0], q])
        hi = np.concatenate([q, [np.inf]])
        fstar = np.minimum(np.minimum(hi, alpha / (m - k)), 0.5)
        # fstar is 0 where the next other p-value is 0 (a fitted tail that underflowed): no floor 1/(B + 1) > 0
        # lies in (lo, 0], so that position admits no B (inf, then left out below), not a division by zero
        B = np.full(fstar.shape, np.inf)
        pos = fstar > 0
        B[pos] = np.maximum(1.0, np.ceil(1.0 / fstar[pos] - 1.0))
        valid = (E <= alpha) & (fstar > lo) & (1.0 / (B + 1.0) > lo)
        best = B[valid].min() if valid.any() else top
    # the same arithmetic as the correction decides the last unit (1/(B+1) is rounded)
    cand = np.arange(max(1, int(best) - 2), int(best) + 3)
    hit = np.flatnonzero(_adjusted_at(p, j, 1.0 / (cand + 1.0), p_adjust) <= alpha)
    if hit.size:
        return int(min(cand[hit[0]], top))
    Bs = np.arange(1, top + 1)   # not reached in practice: the plain scan
    hit = np.flatnonzero(_adjusted_at(p, j, 1.0 / (Bs + 1.0), p_adjust) <= alpha)
    return int(Bs[hit[0]]) if hit.size else top


def _resolution_warnings(names, p_floor, needed, n_null, p_adjust, alpha, beyond=None):
    """A warning when some features cannot reach ``alpha`` after the correction, however large their importance.

    "PIMP cannot tell" is said of the features whose observed importance exceeds every null value (``beyond``; all
    when not given): for one inside its null the refits do show where it lies (Caravan's PPERSONG, above 10 of 60
    null values, was "PIMP cannot tell with 60 null refits ... Use n_null >= 599").
    """
    stuck = [j for j in range(len(names)) if np.isfinite(p_floor[j]) and p_floor[j] > alpha]
    if not stuck:
        return []
    lo, hi = min(p_floor[j] for j in stuck), max(p_floor[j] for j in stuck)
    k = round(hi * (n_null + 1))
    value = f"{k}/{n_null + 1} = {hi:.3g}" if lo == hi and np.isclose(k / (n_null + 1), hi, rtol=1e-12, atol=0) \
        else (f"{hi:.3g}" if lo == hi else f"between {lo:.3g} and {hi:.3g}")
    which = "every feature" if len(stuck) == len(names) else f"feature(s) {[names[j] for j in stuck]}"
    at = [j for j in stuck if beyond is None or bool(beyond[j])]
    # the refits needed are advised for the features at the floor only: for one inside its null (anes96's logpopul,
    # observed PFI 0, was told "Use n_null >= 159") more refits lower the floor, not its own p-value
    need = int(max(needed[j] for j in at)) if at else None
    if len(at) == len(stuck):
        tell = f" (PIMP cannot tell with {n_null} null refits)"
    elif at:
        tell = (f" (PIMP cannot tell with {n_null} null refits for {[names[j] for j in at]}, whose observed "
                f"importance exceeds every null value; the others lie inside their null values)")
    else:
        tell = " (each of them lies inside its null values)"
    return [(f"With the empirical null p-value (k+1)/(n_null+1), n_null={n_null} and p_adjust={p_adjust!r}, "
             f"the smallest adjusted p-value {which} can reach is {value} > alpha={alpha}: nothing there can be "
             f"significant, however large its importance{tell}."
             + (f" Use n_null >= {need}, or a parametric null (distribution='auto' or 'normal', with n_null >= "
                f"{MIN_PARAMETRIC_NULL})." if need is not None else ""))]


def _pvalues(null, observed, distribution, names):
    p = np.empty(len(names))
    used, warns = [], []
    n_null = null.shape[1]
    if n_null < MIN_PARAMETRIC_NULL and distribution not in ("auto", "empirical"):
        warns.append(f"distribution={distribution!r} needs at least {MIN_PARAMETRIC_NULL} null refits to fit a "
                     f"tail; with n_null={n_null} the empirical p-value is used.")
    for j, name in enumerate(names):
        if n_null < MIN_PARAMETRIC_NULL:
            fam = "empirical"
        else:
            fam = best_null_distribution(null[j]) if distribution == "auto" else distribution
        p[j] = null_pvalue(null[j], observed[j], fam)
        if np.isnan(p[j]):
            warns.append(f"The {fam} distribution could not be fitted to the null importances of {name!r} "
                         f"(constant or too few positive values); the empirical p-value is used.")
            fam = "empirical"
            p[j] = null_pvalue(null[j], observed[j], fam)
        used.append(fam)
    return p, used, warns


@dataclass(frozen=True, repr=False)
class PimpResult(ImportanceResult):
    """PIMP's result: an :class:`ImportanceResult` that knows the resolution of its null.

    ``to_frame()`` adds ``p_floor`` (the smallest adjusted p-value the feature's null could
    give in this run) and ``n_null_needed`` (the fewest null refits whose floor is <= alpha);
    ``explain()`` names the features PIMP cannot tell about with its refits: those at the
    floor (observed importance above every null value) whose floor is above alpha
    (:meth:`cannot_tell`), and says when no feature could be significant at all
    (:meth:`rejects_nothing`).
    """

    def to_frame(self, *, sort=True):
        """As :meth:`ImportanceResult.to_frame`, plus the columns ``p_floor`` and ``n_null_needed``."""
        frame = super().to_frame(sort=False)
        if "p_floor" in self.extra:
            frame["p_floor"] = np.asarray(self.extra["p_floor"], dtype=float)
            # a whole number, as float so that a feature without a p-value can hold NaN
            frame["n_null_needed"] = np.asarray(self.extra["n_null_needed"], dtype=float)
        if sort:
            frame = frame.sort_values("importance", ascending=False, kind="stable")
        return frame

    def _stuck(self):
        """Indices of the features whose floor exceeds alpha (none of them could be significant)."""
        alpha = self.params.get("alpha", 0.05)
        floors = self.extra.get("p_floor")
        if floors is None:
            return []
        return [j for j in range(len(self.feature_names)) if np.isfinite(floors[j]) and floors[j] > alpha]

    def cannot_tell(self):
        """Features at the floor of their null that still cannot be significant: ``{feature: n_null_needed}``.

        At the floor: the observed importance exceeds every null value (the empirical p-value
        is its smallest, 1/(B + 1)); with ``p_floor > alpha`` PIMP cannot tell whether such a
        feature matters -- more refits could make it significant. In the input order.
        """
        B = self.params.get("n_null")
        if B is None or self.p_value is None:
            return {}
        needed = self.extra["n_null_needed"]
        return {self.feature_names[j]: int(needed[j]) for j in self._stuck()
                if self.p_value[j] <= (1.0 + 1e-9) / (B + 1)}

    def rejects_nothing(self):
        """Whether no feature could be significant with these refits (every ``p_floor`` above alpha)."""
        stuck = self._stuck()
        return bool(stuck) and len(stuck) == int(np.isfinite(self.extra["p_floor"]).sum())

    def explain(self):
        """:meth:`ImportanceResult.explain` and what the resolution of the null leaves open ("cannot tell ...")."""
        text = super().explain()
        B = self.params.get("n_null")
        alpha = self.params.get("alpha", 0.05)
        p_adjust = self.params.get("p_adjust")
        lines = []
        if self.rejects_nothing():
            need = int(np.nanmax(self.extra["n_null_needed"]))
            lines.append(f"With n_null={B} and p_adjust={p_adjust!r} over {len(self.feature_names)} features no "
                         f"feature can be significant at alpha={alpha}, whatever its importance (the smallest "
                         f"adjusted p-value any feature could reach is {np.nanmin(self.extra['p_floor']):.3g}): "
                         f"these p-values say nothing either way; at least {need} null refits are needed.")
        stuck = self.cannot_tell()
        names = list(self.feature_names)
        for f, need in stuck.items():
            j = names.index(f)
            lines.append(f"- {f}: cannot tell with {B} null refits (at least {need} needed): its observed importance "
                         f"exceeds all {B} null values, and the smallest adjusted p-value its null could give is "
                         f"{self.extra['p_floor'][j]:.3g} > alpha={alpha}.")
        lines += self._tail_lines()
        if not lines:
            return text
        return text + "\n\nResolution:\n" + "\n".join(lines)

    def _tail_lines(self):
        """Features whose p-value lies below what the refits resolve empirically (1/(B + 1)): a fitted tail set it."""
        B = len(self.extra["null"][0]) if self.extra.get("null") is not None and len(self.extra["null"]) else None
        fams = self.extra.get("distribution")
        if not B or fams is None or self.p_value is None:
            return []
        out = []
        for f, p, fam in zip(self.feature_names, self.p_value, fams):
            if fam != "empirical" and np.isfinite(p) and p < 1.0 / (B + 1):
                out.append(f"- {f}: p {p_is(p)} comes from a {fam} tail fitted to its {B} null importances: the "
                           f"refits alone resolve p down to 1/{B + 1} = {1.0 / (B + 1):.3g}, so how far below that "
                           f"it lies rests on the fitted family's shape beyond the null values, not on the refits.")
        return out


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
    #: the engine record of the observed PFI/CFI (``info``: engine, engine_note), or None
    engine: Any = None


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
    #: for the null refits: the observed model's engine record (its PFI/CFI's check is not repeated)
    refit_of: Any = None

    def __call__(self, model, X_train, y_train, X_test, y_test, problem, seed):
        from ..samplers import MarginalSampler
        from ._loco import loco
        from ._perturbation import PerturbationOptions, _perturbation_importance, cfi, pfi

        def data(X):
            return X if problem.as_frame else X.to_numpy()

        kind = self.importance
        if kind in ("pfi", "cfi") and self.refit_of is not None:
            # the same options as the public call below, the engine's check done once for the learner
            options = PerturbationOptions.checked(
                kind, sampler=MarginalSampler() if kind == "pfi" else self.sampler, X_fit=None, loss=self.loss,
                features=self.groups, n_repeats=self.n_repeats, relation="difference",
                confidence_level=self.confidence_level, max_rows=problem.max_rows, n_jobs=1, random_state=seed,
                progress=False, engine="auto")
            res = _perturbation_importance(model, data(X_test), y_test, options, refit_of=self.refit_of)
        elif kind == "pfi":
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
        engine = None
        if kind in ("pfi", "cfi"):
            engine = {k: res.info[k] for k in ("engine", "engine_note") if k in res.info}
        return _Observed(importance=values, std=res.std, ci_low=res.ci_low, ci_high=res.ci_high,
                         repeats=res.repeats, quantiles=res.quantiles, baseline_loss=res.baseline_loss,
                         observation_importance=res.observation_importance, warnings=tuple(res.warnings),
                         engine=engine)
