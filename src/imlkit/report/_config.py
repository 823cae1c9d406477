"""What a report run is made of: its options and every method's parameters.

The parameters are chosen so that the default report (bike data, 70/30 split,
gradient boosting) finishes within three minutes on a 2-core machine and ``quick=True``
within one minute; every value is written into the report's "How it was made" section.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["ReportConfig", "IMPORTANCE_METHODS", "ALL_METHODS", "MODEL_NAMES", "TASKS", "method_params",
           "row_budgets", "ROW_BUDGETS", "REFERENCE_ROWS", "MIN_MAX_ROWS", "MAX_SEED", "check_seed", "check_features",
           "input_paths", "feature_budget", "MAX_FEATURES"]

#: Importance methods of section 3, in the order they are shown.
IMPORTANCE_METHODS = ("pfi", "cfi", "loco", "lofo", "sage", "pimp")
#: Everything ``--methods`` accepts: the importance methods and the other sections.
ALL_METHODS = IMPORTANCE_METHODS + ("effects", "hstat", "repid", "shap", "models")
#: The report's default: every section, LOFO left out because LOCO already answers its question.
DEFAULT_METHODS = ("pfi", "cfi", "loco", "sage", "pimp", "effects", "hstat", "repid", "shap", "models")
MODEL_NAMES = ("gbm", "rf", "glm", "gam", "rulefit")
TASKS = ("auto", "regression", "classification")


@dataclass(kw_only=True)
class ReportConfig:
    """Options of one report run (the command line's options, as Python values).

    ``data`` is a path to a CSV/Parquet file, a pandas DataFrame, or None for the shipped data
    set ``dataset``. ``model`` is a name (gbm, rf, glm, gam, rulefit) or a scikit-learn style
    estimator: a fitted one is explained as it is (refits use a clone), an unfitted one is
    fitted on the training split. ``features`` are the columns the model uses (None: every
    column but the target).

    ``target_class`` (``--class``) is the class whose probability sections 4-5 explain.
    ``strict`` makes any failing part fatal; otherwise it becomes a warning box in the report.
    ``progress``: False (silent), True (a bar on a terminal, else one line per step on stderr),
    "bar" or "lines". ``n_refits`` (LOCO), ``sage_orderings`` (SAGE's maximum number of
    orderings) and ``n_null`` (PIMP's null refits) override the values of :func:`method_params`;
    ``sage_removals`` are the SAGE runs of section 3 ("marginal" and/or "conditional").
    ``extra`` is the caller's own; the report does not read it.

    ``test_data`` (``--test-data``): held-out evaluation rows (a path or a DataFrame with the
    columns of ``data``); ``data`` then holds the training rows. Without it a fitted model is
    scored on every row of ``data`` (the report says these rows may have fitted it), and a model
    imlkit fits is scored on a seeded split. ``prepare=False`` (``--no-prepare``) turns column
    preparation off: every column is used as given.

    ``max_rows`` (``--max-rows``) sets every step's row budget from one number and ``full``
    (``--full``) lifts the budgets so that every row is used (see :func:`row_budgets`); the
    model itself is always fitted on all training rows.
    """

    data: object = None
    test_data: object = None
    prepare: bool = True
    dataset: str = "bike"
    target: str | None = None
    task: str = "auto"
    model: object = "gbm"
    model_file: str | None = None
    trust_model_file: bool = False
    methods: tuple = DEFAULT_METHODS
    features: tuple | None = None
    test_size: float = 0.3
    seed: int = 0
    n_jobs: int | None = None
    scheduler: str | None = None
    scheduler_timeout: float = 10.0
    out: str = "imlkit-report"
    filename: str = "report.html"
    quick: bool = False
    progress: object = False
    strict: bool = False
    target_class: str | None = None
    n_refits: int | None = None
    sage_orderings: int | None = None
    #: PIMP's null refits (``--n-null``; default 60, ``--quick`` 10).
    n_null: int | None = None
    sage_removals: tuple = ("marginal", "conditional")
    max_rows: int | None = None
    #: ``--max-features``: the feature budget of SAGE, LOCO/LOFO, PIMP and the H-statistic (see
    #: :func:`feature_budget`); ``full`` lifts it too.
    max_features: int | None = None
    full: bool = False
    command: str = ""
    extra: dict = field(default_factory=dict)


#: The largest seed: scikit-learn's ``random_state`` (numpy's legacy RandomState) takes
#: 0 <= seed < 2**32, and one seed drives the split, the model and every method.
MAX_SEED = 2**32 - 1


def check_seed(seed, option="--seed"):
    """``seed`` as an int in ``[0, MAX_SEED]``; one clear error otherwise.

    Examples
    --------
    >>> check_seed(7)
    7
    """
    from .._validation import ValidationError

    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) <= MAX_SEED:
        raise ValidationError(f"'{option}' must be an int in [0, {MAX_SEED}] (numpy's and scikit-learn's seed "
                              f"range); got {seed!r}.")
    return int(seed)


def check_features(features, option="--features"):
    """``features`` (None or names) checked: each column named once.

    A repeated name would give the model the same column twice and each method two rows for
    one feature; it is a typing slip, so it is refused rather than silently dropped.

    Examples
    --------
    >>> check_features(("a", "b"))
    ('a', 'b')
    """
    from .._validation import ValidationError

    if features is None:
        return None
    if isinstance(features, str):
        raise ValidationError(f"'{option}' must be a sequence of column names, not one string; got {features!r}.")
    names = [str(f) for f in features]
    seen, repeated = set(), []
    for n in names:
        if n in seen and n not in repeated:
            repeated.append(n)
        seen.add(n)
    if repeated:
        raise ValidationError(f"'{option}' names {', '.join(repr(r) for r in repeated)} more than once; "
                              f"give each column once.")
    return tuple(features)


def input_paths(config):
    """Every file a run reads (data, held-out data, model file): ``[(what, path), ...]``.

    The report's output is checked against these so that it can never overwrite an input.
    ``test_data`` is read when the config has it (a path; a DataFrame is no file).
    """
    import os

    out = []
    for what, value in (("data file", config.data), ("test data file", getattr(config, "test_data", None)),
                        ("model file", config.model_file)):
        if isinstance(value, (str, os.PathLike)) and os.fspath(value):
            out.append((what, os.fspath(value)))
    return out


#: The largest budget of a mode (the default data budget): ``--max-rows N`` scales every
#: budget by ``N / REFERENCE_ROWS[mode]``.
REFERENCE_ROWS = {"full": 50_000, "quick": 20_000}
#: The smallest ``--max-rows`` accepted, and the fewest rows a scaled budget goes down to.
MIN_MAX_ROWS = 100
_FLOOR = 50
#: ``--scheduler``: the refit-based steps and the interpretable alternatives may use this many
#: times their budget (the cluster pays for the refits).
SCHEDULER_FACTOR = 4

#: Every step's row budget as a multiple of the mode's reference (``REFERENCE_ROWS``), per
#: part of the data it reads ("train", "test" or "all": the whole prepared table), and its kind:
#:
#: - "scale": cost linear in n (or a multiple of a fit); capped so that the report's time stops
#:   growing with n; ``--full`` lifts the cap; ``--scheduler`` raises it for the "refit" ones.
#: - "sample": a sample size of a method whose cost grows faster than n (SAGE, the ICE curves
#:   drawn, the H-statistic, REPID): an absolute number of rows (not a multiple); ``--full``
#:   keeps it, and ``--max-rows`` can only lower it.
#:
#: The model itself is always fitted on all training rows.
ROW_BUDGETS = {
    # step: (label, {split: multiple of the reference, or (full, quick) rows for a sample}, kind)
    "dependence": ("dependence overview", {"all": 4.0}, "scale"),
    "baselines": ("baselines", {"train": 2.0}, "scale"),
    "leak": ("leak check", {"train": 1.0, "test": 1.0}, "scale"),
    "pfi": ("PFI", {"test": 1.0}, "scale"),
    "cfi": ("CFI", {"test": 0.5}, "scale"),
    "loco": ("LOCO", {"train": 0.5, "test": 1.0}, "refit"),
    "lofo": ("LOFO", {"train": 0.5, "test": 1.0}, "refit"),
    "pimp": ("PIMP", {"train": 0.2, "test": 0.4}, "refit"),
    "ale": ("ALE", {"test": 1.0}, "scale"),
    "glm": ("GLM", {"train": 1.0}, "refit"),
    "gam": ("GAM", {"train": 0.5}, "refit"),
    "rulefit": ("RuleFit", {"train": 0.2}, "refit"),
    "tree": ("Decision tree", {"train": 1.0}, "refit"),
    "ripper": ("RIPPER", {"train": 0.1}, "refit"),
    "oner": ("OneR", {"train": 1.0}, "refit"),
    "sage": ("SAGE", {"test": (512, 256)}, "sample"),
    "ice": ("ICE curves", {"test": (300, 150)}, "sample"),
    "pd2": ("2-D PD", {"test": (300, 150)}, "sample"),
    "hstat": ("H-statistic", {"test": (300, 120)}, "sample"),
    "repid": ("REPID", {"test": (2000, 600)}, "sample"),
    "shap": ("SHAP", {"test": (1000, 300)}, "sample"),
}


def row_budgets(quick=False, *, max_rows=None, full=False, scheduler=False):
    """Every step's row budget: ``{step: {split: rows or None}}`` (None: every row).

    The budgets bound each step's cost as n grows: a step reads at most its budget of rows
    (a seeded, for classification stratified, subsample) and all rows when the data are
    smaller. Defaults are multiples of ``REFERENCE_ROWS`` (50,000 rows; ``quick`` 20,000).

    Parameters
    ----------
    quick : bool -- the quick report's (smaller) budgets
    max_rows : int, optional -- the largest budget becomes ``max_rows`` and every other one
        scales in proportion (never below 50 rows); sample sizes (SAGE, ICE, H, REPID) only shrink.
    full : bool -- every "scale"/"refit" budget lifted (None); sample sizes kept
    scheduler : bool -- refit-based steps and interpretable models get ``SCHEDULER_FACTOR`` times
        their budget

    Examples
    --------
    >>> b = row_budgets(quick=True)
    >>> b["pfi"]["test"], b["pimp"]["train"], b["sage"]["test"]
    (20000, 4000, 256)
    >>> row_budgets(max_rows=1000)["loco"], row_budgets(full=True)["pfi"]
    ({'train': 500, 'test': 1000}, {'test': None})
    """
    from .._validation import ValidationError

    if full and max_rows is not None:
        raise ValidationError("'max_rows' and 'full' cannot be used together: 'full' uses every row, "
                              "'max_rows' caps them; choose one.")
    if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, (int, float))
                                 or max_rows != int(max_rows) or max_rows < MIN_MAX_ROWS):
        raise ValidationError(f"'max_rows' must be an int >= {MIN_MAX_ROWS}; got {max_rows!r}.")
    ref = REFERENCE_ROWS["quick" if quick else "full"]
    factor = 1.0 if max_rows is None else int(max_rows) / ref
    out = {}
    for step, (_, splits, kind) in ROW_BUDGETS.items():
        out[step] = {}
        for split, mult in splits.items():
            if kind == "sample":
                n = mult[1] if quick else mult[0]
                out[step][split] = n if max_rows is None else max(min(_FLOOR, n), min(n, round(n * factor)))
            elif full:
                out[step][split] = None
            else:
                n = round(mult * ref * factor)
                n = max(_FLOOR, n)
                if scheduler and kind == "refit":
                    n *= SCHEDULER_FACTOR
                out[step][split] = n
    return out


#: The feature budget of the methods whose cost grows with the number of features (SAGE, LOCO/LOFO,
#: PIMP, the H-statistic): above it they run on the top features of a PFI screen plus one group of
#: all the others. (full report, quick report)
MAX_FEATURES = (30, 15)


def feature_budget(quick=False, max_features=None, full=False):
    """The feature budget of a run: an int, or None (every feature; ``full``).

    Examples
    --------
    >>> feature_budget(), feature_budget(True), feature_budget(max_features=8), feature_budget(full=True)
    (30, 15, 8, None)
    """
    from .._validation import ValidationError

    if max_features is None:
        return None if full else MAX_FEATURES[1 if quick else 0]
    if isinstance(max_features, bool) or not isinstance(max_features, (int, np.integer)) or max_features < 1:
        raise ValidationError(f"'max_features' must be an int >= 1; got {max_features!r}.")
    if full:
        raise ValidationError("'max_features' and 'full' cannot be used together: 'full' gives every method every "
                              "feature, 'max_features' caps them; choose one.")
    return int(max_features)


def method_params(quick, *, n_refits=None, sage_orderings=None, max_rows=None, full=False, scheduler=False,
                  n_null=None):
    """Every method's parameters for the full or the quick report.

    Every step reads at most its row budget (``ROW_BUDGETS``): the linear-cost steps and the
    refits are capped so that the report's time stops growing with n, and the methods whose cost
    grows faster than n (SAGE, H-statistic, REPID, the ICE curves drawn) use a fixed sample.
    ``n_refits`` (LOCO's refits per feature), ``sage_orderings`` (the most orderings either
    SAGE run may use) and ``n_null`` (PIMP's null refits) replace the defaults when given. ``params["rows"]``
    holds every step's row budget (:func:`row_budgets` of ``max_rows``, ``full`` and ``scheduler``).
    """
    params = _params(quick)
    params["rows"] = row_budgets(quick, max_rows=max_rows, full=full, scheduler=scheduler)
    # The sample sizes the sections read from their own parameters follow the budgets.
    params["sage"]["rows"] = params["rows"]["sage"]["test"]
    params["effects"]["ice_rows"] = params["rows"]["ice"]["test"]
    params["hstat"]["n_samples"] = params["rows"]["hstat"]["test"]
    params["repid"]["rows"] = params["rows"]["repid"]["test"]
    if n_refits is not None:
        params["loco"]["n_refits"] = int(n_refits)
    if sage_orderings is not None:
        for removal in ("marginal", "conditional"):
            params["sage"][removal]["max_permutations"] = int(sage_orderings)
    if n_null is not None:
        from .._validation import ValidationError

        if isinstance(n_null, bool) or not isinstance(n_null, (int, np.integer)) or n_null < 1:
            raise ValidationError(f"'n_null' must be an int >= 1; got {n_null!r}.")
        params["pimp"]["n_null"] = int(n_null)
    return params


def _params(quick):
    if quick:
        return dict(
            pfi=dict(n_repeats=5),
            cfi=dict(n_repeats=5),
            loco=dict(n_refits=1, test="auto", p_adjust="holm"),
            lofo=dict(relation="difference"),
            sage=dict(rows=256, marginal=dict(n_background=32, tolerance=0.05, max_permutations=1024, batch_size=256),
                      conditional=dict(n_background=16, tolerance=0.1, max_permutations=64, batch_size=64)),
            pimp=dict(importance="pfi", n_null=10, n_repeats=2, distribution="auto", p_adjust="holm"),
            effects=dict(n_features=2, grid=15, ice_rows=150, ale_bins=15),
            hstat=dict(n_samples=120, n_pairs=3),
            repid=dict(rows=600, grid=15, max_depth=2, min_node_size=40, min_improvement=0.1),
            models=dict(rulefit_rules=8),
        )
    return dict(
        pfi=dict(n_repeats=10),
        cfi=dict(n_repeats=10),
        loco=dict(n_refits=1, test="auto", p_adjust="holm"),
        lofo=dict(relation="difference"),
        sage=dict(rows=512, marginal=dict(n_background=64, tolerance=0.05, max_permutations=2048, batch_size=256),
                  # Conditional removal grows a subgroup tree per coalition (2-3x marginal SAGE per
                  # ordering since the numba CART, bench/results/sage_cond.md): a budget of 384
                  # orderings keeps the default report's time, and says "not converged" when too few.
                  conditional=dict(n_background=32, tolerance=0.1, max_permutations=384, batch_size=128)),
        pimp=dict(importance="pfi", n_null=60, n_repeats=3, distribution="auto", p_adjust="holm"),
        effects=dict(n_features=3, grid=20, ice_rows=300, ale_bins=20),
        hstat=dict(n_samples=300, n_pairs=5),
        repid=dict(rows=2000, grid=20, max_depth=2, min_node_size=50, min_improvement=0.1),
        models=dict(rulefit_rules=10),
    )
