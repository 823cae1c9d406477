"""LOCO and LOFO: refit the learner without a feature (or group) and compare test losses.

    Δ_j(i) = L(y_i, f_-j(x_i,-j)) − L(y_i, f(x_i)),      i in the test data
    LOCO_j = median_i Δ_j(i)        (regression: Lei et al. 2018)
    LOCO_j = mean_i Δ_j(i) = R_emp(f_-j) − R_emp(f)        (classification, aggregate-only scores)
    LOFO_j = e_j − e_orig  or  e_j / e_orig                (mean test losses)

Both are one function with different defaults; the refits run through the shared engine in
``_refit.py`` (features × refits × folds as independent tasks).
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .._losses import default_loss, require_pointwise
from .._model import is_classifier_model
from .._options import (
    CONFIDENCE_LEVEL,
    FEATURES,
    LOSS,
    MAX_ROWS,
    N_JOBS,
    PROGRESS,
    RANDOM_STATE,
    RELATION,
    Option,
    Spec,
    choice,
    integer,
)
from .._timing import Timer
from .._validation import check_int, resolve_features
from ._common import with_test_classes
from ._inference import (
    ALTERNATIVES,
    P_ADJUST,
    adjust_pvalues,
    hodges_lehmann,
    nadeau_bengio,
    repeat_quantiles,
    sign_test,
    significance_threshold,
    simultaneous_level,
    t_test,
    wilcoxon_test,
)
from ._refit import (
    RefitJob,
    RefitProblem,
    _seed_params,
    check_groups,
    check_learner,
    check_refit_data,
    evaluate_loss,
    given_full_fit,
    make_folds,
    refit_task,
    run_refits,
)
from ._result import ImportanceResult

__all__ = ["loco", "lofo", "RefitOptions"]

AGGREGATES = ("auto", "median", "mean", "pseudo_median")
#: How LOFO takes a feature away before relearning (the LOFO chapter's algorithm and its alternative).
VARIANTS = ("drop", "permuted_copy")
TESTS = ("auto", "wilcoxon", "sign", "t", None)
_TEST_FN = {"wilcoxon": wilcoxon_test, "sign": sign_test, "t": t_test}
#: The centre of Δ each test is about, and the test of each centre: one procedure gives the
#: point estimate, the interval (the test inverted) and the p-value.
_ESTIMAND = {"sign": "median", "t": "mean", "wilcoxon": "pseudo_median"}
_TEST_OF = {v: k for k, v in _ESTIMAND.items()}


def loco(learner, X_train, y_train, X_test=None, y_test=None, *, loss=None, features=None,
         aggregate="auto", test="auto", alternative="greater", p_adjust="holm",
         confidence_level=0.95, n_refits=1, cv=None, relation="difference", max_rows=None,
         n_jobs=None, random_state=None, progress=False):
    """Leave-one-covariate-out importance with distribution-free inference (Lei et al. 2018).

    Parameters
    ----------
    learner : unfitted estimator or zero-argument factory
        Cloned (``sklearn.base.clone``) or called for every fit. ``random_state`` parameters
        of the learner (also nested ones, ``model__random_state``) are drawn from
        ``random_state`` for each refit when they are None or when ``n_refits > 1``; the full
        and the reduced fits of one refit share the seed (common random numbers).
    X_train : DataFrame or array, shape (n_train, p)
    y_train : array-like, shape (n_train,)
    X_test : DataFrame or array, shape (n_test, p), optional
        Held-out data. Leave it (and ``y_test``) None and give ``cv`` for cross-validation.
    y_test : array-like, shape (n_test,), optional
    loss : str or callable, optional
        Default (None) by task: ``"absolute_error"`` for regression (Lei et al. use L1); for a
        classifier the Brier score ``Σ_c (p_c − 1{y=c})²`` on ``predict_proba`` -- a bounded
        pointwise probability loss, so the t-interval of its mean differences is reliable at
        moderate n (the log loss's differences are unbounded: one confident mistake dominates
        their mean and standard deviation) -- and ``"zero_one"`` for a classifier without
        ``predict_proba``. Scores (``"accuracy"``) are
        flipped so that larger = more important; aggregate-only scores (``"r2"``, any
        scikit-learn scorer name such as ``"roc_auc"``) need ``aggregate="mean"`` and
        ``test=None`` unless ``cv`` is given.
    features : None, name, index, list or dict
        A dict ``{"weather": ["temp", "atemp", "hum"]}`` leaves the group out together:
        the way to get the *shared* importance of correlated features, which each get
        LOCO ≈ 0 alone because the others take their place.
    aggregate : {"auto", "median", "mean", "pseudo_median"}
        The centre of Δ_j over the test observations: the median (the course's LOCO), the
        mean (R_emp(f_-j) − R_emp(f)) or the pseudo-median (Hodges–Lehmann estimate, the
        median of the Walsh averages). ``"auto"`` (default) decides by task: the median for
        regression (Lei et al. 2018), the mean for classification (a classifier as learner,
        or a probability or label loss) and for aggregate-only scores; see Notes for why.
        ``params["aggregate"]`` is the one used.
    test : {"auto", "sign", "t", "wilcoxon", None}
        The test of that centre; the interval is the same test inverted, so the point
        estimate, the interval and the p-value are one procedure. ``"auto"`` (default): the
        test of the aggregate -- sign test for the median, t for the mean, Wilcoxon
        signed-rank for the pseudo-median. An explicit test decides the estimand: with
        ``test="wilcoxon"`` the importance is the Hodges–Lehmann pseudo-median whatever the
        aggregate (a note in ``warnings`` says so when they differ). ``None``: no inference.
        With ``cv`` the Nadeau–Bengio corrected t over folds is used for any test.
    alternative : {"greater", "two-sided"}
        H0: the feature does not help (Δ centred at 0); "greater" tests that it does.
    p_adjust : {"holm", "bonferroni", None}
        Family-wise correction of the p-values over the m features (``p_adjusted``, from
        :func:`imlkit.importance._inference.adjust_pvalues`, the same as PIMP's):
        ``"holm"`` (default) Holm's step-down, ``"bonferroni"`` ``min(1, m·p)``.
        With either correction the intervals are simultaneous: every feature's interval is
        at level ``1 − (1 − confidence_level)/m`` (Bonferroni; ``info["interval_adjust"]``).
        With ``"bonferroni"`` the adjusted p-value is the p-value of that interval, so
        ``significant`` ⇔ the interval excludes 0 for every feature. Holm rejects whatever
        Bonferroni rejects and possibly more, but has no informative compatible simultaneous
        intervals (the bound of a rejected feature is 0 itself; Strassburger & Bretz 2008),
        so a feature can be significant by Holm while its Bonferroni-level interval holds 0:
        ``extra["holm_beyond_interval"]`` (m,) marks those features and a warning names them
        (shown by ``explain()``).
    confidence_level : float, default 0.95
        Level of the (simultaneous) intervals. A feature is significant (``to_frame()``
        column) iff ``p_adjusted <= params["alpha"]``, with α = ``(1 − level)/2`` for
        ``alternative="greater"`` (the one-sided test at 2.5% for level 0.95; with
        ``p_adjust="bonferroni"`` or None iff ``ci_low > 0``) and ``1 − level`` two-sided
        (iff the interval excludes 0; 1 for ``relation="ratio"``).
    n_refits : int, default 1
        Refits per feature with different learner seeds (stochastic learners). Δ is averaged
        over refits; ``std`` and ``repeats`` show the spread between refits.
    cv : int or splitter, optional
        K-fold cross-validation on ``X_train`` (shuffled with ``random_state``) or a
        scikit-learn splitter; importance is averaged over folds.
    relation : {"difference", "ratio"}
        ``agg(Δ_j)`` or ``agg(L_-j)/agg(L)`` (scores: ``agg(S)/agg(S_-j)``).
    max_rows : int, optional
        At most this many rows per predict call.
    n_jobs : int, optional
        Refits run in parallel with joblib (inside ``joblib.parallel_config(backend="dask")``
        on a Dask cluster with ``n_jobs=None``).
    random_state : None, int or numpy Generator
    progress : bool
        One progress bar over all refits.

    Returns
    -------
    ImportanceResult
        ``method="loco"``; ``importance`` (m,); ``observation_importance`` (m, n_test) holds
        Δ_j(i) averaged over refits (with ``cv``: (m, n_train), each row from the fold in
        which it was tested); ``repeats`` (m, n_refits) the per-refit importances;
        ``p_value``, ``p_adjusted`` when ``test`` is given; ``extra["fold_importance"]``
        (m, K) with ``cv``.

    Notes
    -----
    For each feature (group) j: f_-j is the learner fitted on the training data without the
    columns of j, Δ_j(i) = L(y_i, f_-j(x_i,-j)) − L(y_i, f(x_i)) on the test data, and
    LOCO_j = median_i Δ_j(i) (``aggregate="mean"``: LOCO_j = R_emp(f_-j) − R_emp(f)).
    Conditional on the training data the Δ_j(i) are i.i.d., so the sign test (median) is an
    exact finite-sample test of H0: the centre of Δ_j is <= 0, and the Wilcoxon test
    (pseudo-median) is exact for symmetric Δ. Following Lei et al. (2018), who test by
    inverting (Bonferroni-level) intervals for the median of Δ_j, each interval is the set of
    centres its test does not reject, and the p-value is that test at 0; hence, before the
    correction over features, ``p <= α`` ⇔ the interval excludes 0.

    The default estimand by task (``aggregate="auto"``). Regression: the median of Δ_j with
    the sign test, as Lei et al. (2018) and the course define LOCO. Classification: the mean,

        LOCO_j = E[ L(y, f_-j(x_-j)) − L(y, f(x)) | training data ] = R(f_-j) − R(f),

    estimated by the mean of Δ_j over the test rows with the paired t-test and its interval
    ``mean ± t_{n−1}·s/sqrt(n)`` -- the course's "mean instead of median" form, the risk
    difference of Williamson et al. (2023). The median does not work for a classifier: most
    test rows are predicted (almost) with certainty by both fits, so Δ_j(i) is exactly 0 for
    half the rows or more, and the median is then 0 whatever the other rows show (LOCO of a
    random forest on scikit-learn's breast cancer data is exactly 0 for all 30 features). The
    mean counts every row whose loss changed. With the (bounded) Brier score the Δ_j(i) lie in
    [−2, 2], so the t-interval is valid asymptotically (central limit theorem, conditional on
    the training data); its p-value is the t-test, so the interval and the unadjusted test
    agree. An explicit ``aggregate="median"`` with most Δ_j(i) = 0 gets a warning.

    A learner that selects columns by name or position (a ColumnTransformer listing columns,
    the usual scikit-learn Pipeline) cannot be refitted without a column it names, so its
    left-out columns are replaced by a constant (training median or most frequent level) in
    the training and test data instead of dropped; for trees and for linear models with an
    intercept this equals dropping them (see ``imlkit.importance._refit``).

    With cross-validation the K fold estimates share training data; the interval and p-value
    use the Nadeau–Bengio variance ``(1/K + n_test/n_train)·s²`` with K − 1 degrees of freedom.

    LOCO describes the *learner*: whether it needs access to x_j to reach its performance
    (the unique contribution of x_j). It does not say whether a fitted model uses x_j, nor
    whether x_j is associated with y (see ``explain()``).

    References
    ----------
    Lei, J., G'Sell, M., Rinaldo, A., Tibshirani, R. J. & Wasserman, L. (2018).
    Distribution-free predictive inference for regression. JASA 113(523), 1094-1111.
    Williamson, B. D., Gilbert, P. B., Simon, N. R. & Carone, M. (2023). A general framework
    for inference on algorithm-agnostic variable importance. JASA 118(543), 1645-1658.
    Holm, S. (1979). A simple sequentially rejective multiple test procedure. Scand. J. Statist. 6.
    Nadeau, C. & Bengio, Y. (2003). Inference for the generalization error. Mach. Learn. 52.
    Strassburger, K. & Bretz, F. (2008). Compatible simultaneous lower confidence bounds for
    the Holm procedure and other Bonferroni-based closed tests. Stat. Med. 27, 4914-4927.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2)); y = 3 * X[:, 0] + rng.normal(size=400)
    >>> r = loco(LinearRegression(), X[:300], y[:300], X[300:], y[300:], random_state=0)
    >>> bool(r.p_adjusted[0] < 0.01), bool(r.p_adjusted[1] > 0.05)
    (True, True)
    """
    options = RefitOptions.checked(
        "loco", loss=loss, features=features, aggregate=aggregate, test=test, alternative=alternative,
        p_adjust=p_adjust, confidence_level=confidence_level, n_refits=n_refits, cv=cv, relation=relation,
        max_rows=max_rows, n_jobs=n_jobs, random_state=random_state, progress=progress)
    return _refit_importance(learner, X_train, y_train, X_test, y_test, options)


def lofo(learner, X_train, y_train, X_test=None, y_test=None, *, loss=None, features=None,
         relation="difference", test=None, alternative="greater", p_adjust="holm",
         confidence_level=0.95, n_refits=1, cv=None, aggregate="mean", max_rows=None, n_jobs=None,
         random_state=None, progress=False, variant="drop"):
    """Leave-one-feature-out importance: LOCO with LOFO's defaults (mean test loss).

    Parameters
    ----------
    loss : str or callable, optional
        Default (None) by task: ``"squared_error"`` for regression, ``"log_loss"`` for a
        classifier with ``predict_proba`` (``"zero_one"`` without). Any scikit-learn scorer
        name (``"roc_auc"``, ``"balanced_accuracy"``, ...) is a data-set-level loss.
    relation : {"difference", "ratio"}
        ``LOFO_j = e_j − e_orig`` or ``e_j / e_orig``; for scores (``"accuracy"``, ``"r2"``)
        ``e_orig − e_j`` or ``e_orig / e_j`` so that larger = more important.
    test : {None, "t", "wilcoxon", "sign"}, default None
        Optional inference on the observation-wise differences (``"t"`` matches the mean).
    variant : {"drop", "permuted_copy"}, default "drop"
        How the feature is taken away before relearning. ``"drop"``: the learner is refitted
        without its columns (the chapter's algorithm; neutralised to a constant for a learner
        that selects columns by name, as :func:`loco`). ``"permuted_copy"``: its columns are
        replaced, in the training and in the test data, by a random permutation of their
        rows and the learner is refitted on as many columns as the full model (the chapter's
        alternative, "add a permuted version of the variable instead of dropping it, and then
        relearning a model"). The permutations are drawn from ``random_state``, one per
        feature, refit and fold (independent of ``n_jobs``); with ``n_refits > 1`` every refit
        draws new ones, so ``repeats`` and ``std`` show the permutation's randomness too.

    Other parameters and the result: as :func:`loco` (``method="lofo"``; ``params["variant"]``).

    Notes
    -----
    e_orig = (1/n_test) Σ_i L(y_i, f(x_i)) and e_j the same for the learner refitted without
    x_j. An exact copy of a feature makes both copies' LOFO ≈ 0 (each replaces the other);
    leave them out together with ``features={"temp": ["temp", "temp_copy"]}`` to see their
    shared importance. Negative values mean the learner does better without the feature.

    With ``variant="permuted_copy"`` e_j is the test loss of the learner refitted with x_j
    permuted (x̃_j, independent of y and of x_-j) in training and test data. Both models
    then have p inputs, so a learner whose behaviour depends on the number of columns (a
    random forest's ``max_features``, a penalty scaled by p) is compared like for like; the
    price is another source of randomness, the permutation itself (Molnar, LOFO chapter).
    The interpretation stays conditional: the learner can still rely on the other features,
    so an exact copy of a permuted feature again gets ≈ 0. For a learner that gives a
    useless column a weight near 0 (a linear model with n ≫ p) the two variants agree up
    to the cost of fitting that weight, of order σ²/n_train.

    References
    ----------
    Molnar, C. (2025). Interpretable Machine Learning, 3rd ed., chapter "LOFO".

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2)); y = 3 * X[:, 0] + rng.normal(size=400)
    >>> r = lofo(LinearRegression(), X[:300], y[:300], X[300:], y[300:], relation="ratio")
    >>> bool(r.importance[0] > 5), bool(abs(r.importance[1] - 1) < 0.05)
    (True, True)
    """
    options = RefitOptions.checked(
        "lofo", loss=loss, features=features, aggregate=aggregate, test=test, alternative=alternative,
        p_adjust=p_adjust, confidence_level=confidence_level, n_refits=n_refits, cv=cv, relation=relation,
        max_rows=max_rows, n_jobs=n_jobs, random_state=random_state, progress=progress, variant=variant)
    return _refit_importance(learner, X_train, y_train, X_test, y_test, options)


# --------------------------------------------------------------------------- validation
def _check_cv(name, cv, call):
    if cv is None or hasattr(cv, "split"):
        return cv
    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        return check_int("cv", cv, min_value=2)
    raise TypeError(f"'cv' must be None, an int >= 2 or a splitter with a split method; got {cv!r}.")


# --------------------------------------------------------------------------- computation
@dataclass(frozen=True)
class RefitOptions:
    """The options of one LOCO/LOFO call, checked once at the public entry point.

    :meth:`checked` validates them by the method's spec (:data:`SPECS`; ``n_refits`` and ``cv``
    normalised), draws the call's SeedSequence (``seed``) and records the arguments
    (``recorded``, the start of ``result.params``). The engine resolves ``test="auto"``
    and a test's estimand into a copy (:func:`dataclasses.replace`), never by mutation.

    Attributes
    ----------
    method : {"loco", "lofo"}
    loss, features, aggregate, test, alternative, p_adjust, confidence_level, n_refits, cv,
    relation, max_rows, n_jobs, random_state, progress, variant
        The public parameters (``n_refits`` an int, ``cv`` None, an int >= 2 or a splitter).
    seed : numpy.random.SeedSequence
    recorded : dict
    """

    method: str
    loss: Any
    features: Any
    aggregate: str
    test: str | None
    alternative: str
    p_adjust: str | None
    confidence_level: float
    n_refits: int
    cv: Any
    relation: str
    max_rows: int | None
    n_jobs: int | None
    random_state: Any
    progress: bool
    variant: str
    seed: np.random.SeedSequence
    recorded: dict = field(repr=False)

    @classmethod
    def checked(cls, method, **options):
        """Validate the options by :data:`SPEC` and draw the call's SeedSequence."""
        # LOCO takes a feature away by dropping it: it records variant="drop" as LOFO does
        options = {"variant": "drop", **options}
        call = {**options, **SPECS[method].check(options)}
        return cls(method=method, **call, recorded=SPECS["lofo"].record(call))


def _record_cv(cv):
    """A splitter is recorded by its repr (an int or None as given)."""
    return cv if cv is None or isinstance(cv, int) else repr(cv)


#: LOCO's and LOFO's options, in the order they are checked and recorded (defaults: the signatures).
SPECS = {"loco": Spec(
    "loco",
    LOSS, FEATURES,
    Option("aggregate", choice(AGGREGATES), "how the observation-wise differences are summarised ('auto': median "
           "for regression, mean for classification)"),
    Option("test", choice(TESTS), "the test of each feature's importance ('auto': the aggregate's own test)"),
    Option("alternative", choice(ALTERNATIVES), "the alternative of the tests"),
    Option("p_adjust", choice(P_ADJUST), "the multiplicity correction of the p-values (and the intervals)"),
    CONFIDENCE_LEVEL,
    Option("n_refits", integer(1), "refits of the learner per feature (and of the full model)"),
    Option("cv", _check_cv, "None (the given train/test split), an int >= 2 or a splitter: folds of X_train",
           record=_record_cv),
    RELATION, MAX_ROWS, N_JOBS, RANDOM_STATE, PROGRESS,
)}
SPECS["lofo"] = Spec("lofo", *SPECS["loco"], Option("variant", choice(VARIANTS), "how a feature is taken away "
                                                                                 "before relearning"))


def _refit_importance(learner, X_train, y_train, X_test, y_test, options):
    """The engine of LOCO and LOFO: the learner, its train/test data and a :class:`RefitOptions`."""
    params = dict(options.recorded)
    loss = options.loss
    # The learner checked once: every check below, and the problem's leave-out mode, read this
    # one unfitted instance (a factory learner is then called once more per fit, never per check).
    template = check_learner(learner)
    if loss is None:  # by task: see imlkit._losses.DEFAULT_LOSSES
        loss = default_loss(template, options.method)
    template, Xtr, ytr, Xte, yte, loss_obj, as_frame = check_refit_data(
        template, X_train, y_train, X_test, y_test, loss, options.max_rows, allow_cv=True, cv=options.cv)
    if options.aggregate == "auto":
        options = replace(options, aggregate=_auto_aggregate(template, loss_obj))
        params.update(aggregate=options.aggregate, aggregate_requested="auto")
    options, notes = _resolve_test(options, loss_obj)
    groups = resolve_features(options.features, Xtr.columns)
    check_groups(groups, Xtr.columns)
    params["loss"] = loss_obj.name
    params.update(test_used=options.test,
                  estimand=options.aggregate if options.cv is None else f"mean over folds of the {options.aggregate}",
                  alpha=significance_threshold(options.confidence_level, options.alternative))

    n_refits = options.n_refits
    with Timer() as timer:
        cv_seed, refit_root = options.seed.spawn(2)
        folds = make_folds(len(Xtr), options.cv, cv_seed) if options.cv is not None else None
        K = 1 if folds is None else len(folds)
        refit_seeds = refit_root.spawn(n_refits * K)
        permuted = options.variant == "permuted_copy"
        problem = RefitProblem(learner=learner, X_train=Xtr, y_train=ytr, X_test=Xte, y_test=yte, loss=loss_obj,
                               as_frame=as_frame, max_rows=options.max_rows, folds=folds, reseed=n_refits > 1,
                               leave_out="permute" if permuted else "auto", template=template)
        names = list(groups)
        # One permutation seed per (refit, fold, feature), from a third child of the root
        # (the first two, and so the drop variant's numbers, are unchanged).
        perm_seeds = options.seed.spawn(1)[0].spawn(n_refits * K * len(names)) if permuted else None
        jobs = _refit_jobs(groups, folds, n_refits, refit_seeds, perm_seeds)
        given = given_full_fit(template, X_train, y_train, Xtr, ytr, as_frame, options.n_refits, options.cv)
        if given is not None:   # the full model is that fit already (see reuse_full_fit): not refitted
            out = run_refits(problem, jobs[1:], n_jobs=options.n_jobs, progress=options.progress,
                             desc=options.method.upper())
            X_tr, y_tr, X_te, y_te = problem.split(None)
            out.insert(0, evaluate_loss(with_test_classes(given, y_te), X_tr, y_tr, X_te, y_te, problem))
        else:
            out = run_refits(problem, jobs, n_jobs=options.n_jobs, progress=options.progress,
                             desc=options.method.upper())
        # out[(r*K + k)*(m+1) + 0] is the full model, + 1 + j feature j
        m = len(names)
        cells = np.array(out, dtype=object).reshape(n_refits, K, m + 1, 2)
        stats_ = _summarise(cells, loss_obj, options, folds, len(Xtr), m)
    params["seconds"] = timer.seconds
    params["n_rows"] = len(Xtr) if folds is not None else len(Xte)   # with cv each training row is held out once
    params["inference"] = stats_.pop("inference")
    # Only where there are p-values and intervals to adjust (test=None has neither).
    adjusted = options.p_adjust is not None and len(groups) > 1 and stats_["p_adjusted"] is not None
    params["p_adjust_applied"] = options.p_adjust if adjusted else None
    params["interval_adjust"] = "bonferroni" if adjusted else None
    warns = list(notes)
    warns += _median_collapse_warning(stats_, options, names, _is_classification(template, loss_obj))
    warns += _holm_interval_warning(stats_, options, names, params["alpha"])
    if permuted and n_refits == 1:
        warns.append("variant='permuted_copy' drew one permutation per feature: the importance depends on it; "
                     "use n_refits > 1 to see its spread.")
    if n_refits == 1 and _seed_params(template):
        # a random_state parameter is no evidence that the fit uses it (LogisticRegression with lbfgs: the same
        # importances for random_state 0, 1 and 2); one more fit of the full model with another seed says
        warns += _stochastic_warning(problem, jobs[0], out[0], options.seed)
    return ImportanceResult(method=options.method, feature_names=tuple(names), loss=loss_obj.name,
                            groups=dict(groups), params=params, warnings=tuple(warns), **stats_)


def _stochastic_warning(problem, full_job, full_out, seed):
    """The note that one refit per feature of a stochastic learner is noisy -- when the learner is: the full model
    refitted with every ``random_state`` drawn anew (on the rows and fold of ``full_job``) gives other test losses
    than ``full_out`` (the full model's ``(pointwise, risk)``). A learner whose random_state is unused (lbfgs logistic
    regression, ordinary least squares) gives the very same losses and gets no note. A failed extra fit keeps the
    note, saying the learner has a random_state only."""
    other_seed = np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + (0x5EED,))
    other = refit_task(replace(problem, reseed=True), RefitJob("the full model with another seed", (),
                                                               full_job.fold, other_seed))
    tail = "refit-based importances are noisy; use n_refits > 1 to see their spread."
    if not isinstance(other, tuple):  # a failure: nothing measured
        return [f"The learner has a random_state and was refitted once per feature: if its fit is random, {tail}"]
    (p0, r0), (p1, r1) = full_out, other
    if p0 is not None and p1 is not None:
        differ = np.asarray(p0) != np.asarray(p1)
        if not differ.any():
            return []
        where = f"other losses on {differ.mean():.0%} of the test rows, mean {r1:.4g} instead of {r0:.4g}"
    elif r0 == r1:
        return []
    else:
        where = f"test loss {r1:.4g} instead of {r0:.4g}"
    return [f"The learner is stochastic (the full model refitted with another random_state gives {where}) and "
            f"was refitted once per feature: {tail}"]


def _refit_jobs(groups, folds, n_refits, refit_seeds, perm_seeds):
    """The fits in result order: for each refit r and fold k (one without ``folds``), the full
    model, then one per feature (group) left out; fit (r, k) has learner seed
    ``refit_seeds[r*K + k]`` and, for the permuted-copy variant (``perm_seeds`` not None), one
    permutation seed per feature."""
    names = list(groups)
    K = 1 if folds is None else len(folds)
    jobs = []
    for r in range(n_refits):
        for k in range(K):
            where = _where(r, k, n_refits, K)
            seed = refit_seeds[r * K + k]
            fold = None if folds is None else k
            jobs.append(RefitJob(f"the full model{where}", (), fold, seed))
            jobs += [RefitJob(f"feature {name!r}{where}", tuple(groups[name]), fold, seed,
                              permute_seed=None if perm_seeds is None else perm_seeds[(r * K + k) * len(names) + j])
                     for j, name in enumerate(names)]
    return jobs


def _is_classification(template, loss_obj):
    """A classifier as learner, or a loss that reads probabilities or labels."""
    return bool(is_classifier_model(template) or loss_obj.needs_proba or loss_obj.needs_labels)


def _auto_aggregate(template, loss_obj):
    """``aggregate="auto"``: the mean for classification and aggregate-only scores, else the median.

    A classifier's Δ_j(i) is exactly 0 on every row that both fits predict with certainty, so
    its median is 0 whenever those rows are half the test set (see :func:`loco`, Notes).
    """
    classification = _is_classification(template, loss_obj)
    return "mean" if classification or loss_obj.pointwise is None else "median"


def _median_collapse_warning(stats_, options, names, classification=False):
    """A note when the median of Δ_j is exactly 0 because many rows have Δ_j(i) = 0 exactly.

    Rows that both fits predict with the same loss (a classifier certain of them) pile up at
    0; with them and the other rows on both sides of 0, the median is 0 whatever those show.
    """
    obs = stats_.get("observation_importance")
    if options.aggregate != "median" or obs is None or options.relation != "difference":
        return []
    with np.errstate(invalid="ignore"):
        zeros = np.mean(obs == 0, axis=1)
    hit = [(n, z) for n, z, v in zip(names, zeros, stats_["importance"]) if v == 0 and z >= 0.1]
    if not hit:
        return []
    shown = ", ".join(repr(n) for n, _ in hit[:5]) + (f" and {len(hit) - 5} more" if len(hit) > 5 else "")
    low, high = min(z for _, z in hit), max(z for _, z in hit)
    share = f"{low:.0%}" if f"{low:.0%}" == f"{high:.0%}" else f"{low:.0%} to {high:.0%}"
    why = ("typical of a classifier predicting with certainty" if classification else
           "the reduced fit predicts those rows exactly as the full fit, e.g. a tree learner that never split "
           "on the feature")
    return [f"LOCO is exactly 0 for {shown}: the full and the reduced fit give the same loss on "
            f"{share} of the test rows ({why}), so the median of the loss differences is 0 whatever the other "
            f"rows show; aggregate='mean' estimates the change in risk R(f_-j) − R(f) instead."]


def _holm_interval_warning(stats_, options, names, alpha):
    """Holm's step-down can reject where the simultaneous (Bonferroni-level) interval still holds 0."""
    p_adj, low, high = stats_["p_adjusted"], stats_["ci_low"], stats_["ci_high"]
    if p_adj is None:
        return []
    null = 0.0 if options.relation == "difference" else 1.0
    with np.errstate(invalid="ignore"):
        excludes = low > null if options.alternative == "greater" else (low > null) | (high < null)
    beyond = (np.asarray(p_adj) <= alpha) & ~excludes
    stats_["extra"]["holm_beyond_interval"] = beyond
    if not beyond.any():
        return []
    hit = [repr(n) for n, b in zip(names, beyond) if b]
    return [f"Holm's step-down finds {', '.join(hit)} significant (p_adjusted <= {alpha:.3g}) although "
            f"{'its' if len(hit) == 1 else 'their'} simultaneous interval{'' if len(hit) == 1 else 's'} "
            f"(Bonferroni level; Holm has no simultaneous intervals of its own) "
            f"{'does' if len(hit) == 1 else 'do'} not exclude {null:g}: Holm has more power than the intervals; "
            f"p_adjust='bonferroni' makes 'significant' agree with the intervals."]


def _resolve_test(options, loss_obj):
    """``options`` with ``test="auto"`` resolved and ``aggregate`` set to the chosen test's estimand,
    and the notes that explain a change; refuses tests/aggregates an aggregate-only loss cannot give."""
    method, aggregate, test, cv = options.method, options.aggregate, options.test, options.cv
    notes = []
    if test == "auto":
        test = _TEST_OF[aggregate] if (loss_obj.pointwise is not None or cv is not None) else None
    elif test is not None and cv is None and _ESTIMAND[test] != aggregate:
        notes.append(f"test={test!r} is a test of the {_ESTIMAND[test].replace('_', '-')} of the loss differences, "
                     f"so the importance, its interval and its p-value are all about the "
                     f"{_ESTIMAND[test].replace('_', '-')} (not the {aggregate.replace('_', '-')}); use "
                     f"test='auto' for the {aggregate.replace('_', '-')}.")
        aggregate = _ESTIMAND[test]
    if loss_obj.pointwise is None:
        if aggregate != "mean":
            require_pointwise(loss_obj, f"{method.upper()} with aggregate={aggregate!r}",
                              "or use aggregate='mean' (with test=None)")
        if test is not None and cv is None:
            require_pointwise(loss_obj, f"{method.upper()} with test={test!r}", "or use test=None or cv=K")
    return replace(options, aggregate=aggregate, test=test), notes


def _where(r, k, R, K):
    parts = ([f"refit {r}"] if R > 1 else []) + ([f"fold {k}"] if K > 1 else [])
    return f" ({', '.join(parts)})" if parts else ""


def _agg(values, how, axis=-1):
    if how == "pseudo_median":
        return np.apply_along_axis(hodges_lehmann, axis, values)
    return np.median(values, axis=axis) if how == "median" else np.mean(values, axis=axis)


def _relate(reduced, full, sign, relation):
    """Importance from aggregated losses of the reduced and the full fit (arrays broadcast)."""
    if relation == "difference":
        return sign * (reduced - full)
    with np.errstate(divide="ignore", invalid="ignore"):
        return reduced / full if sign > 0 else full / reduced


def _ratio_of_difference(d, full, sign):
    """The ratio importance whose difference importance is ``d``, the baseline held fixed.

    Losses: (full + d)/full; scores (d = S − S_-j): S/(S − d). Both increase with d, so an
    interval for the difference maps to one for the ratio.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return (full + d) / full if sign > 0 else full / (full - d)


def _summarise(cells, loss, options, folds, n_train, m):
    """Importances, intervals and tests from the refits' losses.

    ``cells[r, k, c]`` = (pointwise losses or None, risk) of refit r, fold k, column c (0 = full);
    ``options`` is the call's :class:`RefitOptions` with ``test`` and ``aggregate`` resolved.
    Steps: each fold's importance (:func:`_fold_pointwise` from the pointwise losses, else
    :func:`_fold_aggregate` from the risks), the inference (:func:`_fold_inference` across folds,
    :func:`_split_inference` on one split), the importance of each test row
    (:func:`_observation_importance`).
    """
    R, K = cells.shape[:2]
    pointwise = cells[0, 0, 0, 0] is not None
    risks = cells[..., 1].astype(float)                       # (R, K, m+1)
    fold_imp = np.empty((m, K))                               # refit-averaged, per fold
    rep = np.zeros((m, R))                                    # fold-averaged, per refit
    delta_fold = []                                           # per fold: (m, n_k) refit-averaged Δ
    base = np.empty(K)
    for k in range(K):
        if pointwise:
            L = np.stack([np.stack(list(cells[r, k, :, 0])) for r in range(R)])   # (R, m+1, n_k)
            fold_imp[:, k], per_refit, base[k], delta = _fold_pointwise(L, loss.sign, options)
            delta_fold.append(delta)
        else:
            fold_imp[:, k], per_refit, base[k] = _fold_aggregate(risks[:, k], loss.sign, options)
        rep += per_refit.T / K                                                     # (m, R)
    if options.test is None:
        inference, p, low, high, hl = None, None, np.full(m, np.nan), np.full(m, np.nan), None
    elif K > 1:
        inference, p, low, high, hl = _fold_inference(fold_imp, folds, options, m)
    else:
        inference, p, low, high, hl = _split_inference(delta_fold[0], base[0], loss.sign, options, m)
    extra = {"baseline_refits": risks[:, :, 0]}
    if hl is not None:
        extra["hodges_lehmann"] = hl  # (m, 3): estimate, low, high of the pseudo-median of Δ
    if K > 1:
        extra["fold_importance"] = fold_imp
    return dict(importance=fold_imp.mean(axis=1), std=rep.std(axis=1, ddof=1) if R > 1 else np.full(m, np.nan),
                ci_low=low, ci_high=high, repeats=rep, quantiles=repeat_quantiles(rep), p_value=p,
                p_adjusted=None if p is None else adjust_pvalues(p, method=options.p_adjust),
                baseline_loss=float(risks[:, :, 0].mean()),
                observation_importance=_observation_importance(delta_fold, folds, n_train, m) if pointwise else None,
                extra=extra, inference=inference)


def _fold_pointwise(L, sign, options):
    """One fold from pointwise losses ``L`` (R, m+1, n_k) (column 0: the full fit).

    Returns the fold's importance (m,) (of the refit-averaged losses), each refit's (R, m), the
    full fit's aggregated loss, and the refit-averaged loss differences Δ (m, n_k).
    """
    aggregate, relation = options.aggregate, options.relation
    mean_L = L.mean(axis=0)
    delta = sign * (mean_L[1:] - mean_L[0])                                        # (m, n_k)
    if relation == "difference":
        fold = _agg(delta, aggregate)
        per_refit = _agg(sign * (L[:, 1:] - L[:, :1]), aggregate)                  # (R, m)
    else:
        fold = _relate(_agg(mean_L[1:], aggregate), _agg(mean_L[0], aggregate), sign, relation)
        per_refit = _relate(_agg(L[:, 1:], aggregate), _agg(L[:, :1], aggregate), sign, relation)
    return fold, per_refit, _agg(mean_L[0], aggregate), delta


def _fold_aggregate(rk, sign, options):
    """One fold from aggregate risks ``rk`` (R, m+1): (importance (m,), each refit's (R, m), the
    full fit's mean risk)."""
    relation = options.relation
    per_refit = _relate(rk[:, 1:], rk[:, :1], sign, relation)                      # (R, m)
    return _relate(rk[:, 1:].mean(0), rk[:, 0].mean(), sign, relation), per_refit, rk[:, 0].mean()


def _fold_inference(fold_imp, folds, options, m):
    """Nadeau and Bengio's corrected t-test over the folds' importances ``fold_imp`` (m, K), at the
    simultaneous level: (inference, p, low, high, None)."""
    null = 0.0 if options.relation == "difference" else 1.0
    level_j = simultaneous_level(options.confidence_level, m, options.p_adjust)
    frac = float(np.mean([len(te) / len(tr) for tr, te in folds]))
    p, low, high = np.empty(m), np.full(m, np.nan), np.full(m, np.nan)
    for j in range(m):
        p[j], lo, hi = nadeau_bengio(fold_imp[j] - null, frac, level_j, options.alternative)
        low[j], high[j] = lo + null, hi + null
    return "nadeau_bengio", p, low, high, None


def _split_inference(delta, full_agg, sign, options, m):
    """The test of the estimand on one split's loss differences ``delta`` (m, n) and its inversion
    (the interval) at the simultaneous level: (inference, p, low, high, Hodges-Lehmann (m, 3) or None).

    One procedure per feature: p_adjusted is the same interval's p-value, so significant <=> the
    interval excludes the null value. A ratio's interval is the difference's, mapped with the
    full fit's aggregated loss ``full_agg`` held fixed.
    """
    test, relation = options.test, options.relation
    level_j = simultaneous_level(options.confidence_level, m, options.p_adjust)
    fn = _TEST_FN[test]
    p, low, high = np.empty(m), np.full(m, np.nan), np.full(m, np.nan)
    hl = np.full((m, 3), np.nan)
    for j in range(m):
        d = delta[j]
        p[j], lo, hi = fn(d, level_j, options.alternative)
        if test == "wilcoxon":
            hl[j] = hodges_lehmann(d), lo, hi
        if relation == "difference":
            low[j], high[j] = lo, hi
        else:
            low[j], high[j] = _ratio_of_difference(lo, full_agg, sign), _ratio_of_difference(hi, full_agg, sign)
    return test, p, low, high, hl if test == "wilcoxon" else None


def _observation_importance(delta_fold, folds, n_train, m):
    """Each test row's loss difference (m, n): the one split's Δ, or with cross-validation each
    row's Δ from the fold that held it out (the mean when rows are held out more than once)."""
    if folds is None:
        return delta_fold[0]
    total = np.zeros((m, n_train))
    count = np.zeros(n_train)
    for (_tr, te), d in zip(folds, delta_fold):
        np.add.at(total.T, te, d.T)
        np.add.at(count, te, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / count
