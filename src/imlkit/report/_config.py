"""What a report run is made of: its options and every method's parameters.

The parameters are chosen so that the default report (bike data, 70/30 split,
gradient boosting) finishes within three minutes on a 2-core machine and ``quick=True``
within one minute; every value is written into the report's "How it was made" section.
"""
from __future__ import annotations

import numbers
import os
from dataclasses import dataclass, field, fields, replace

import numpy as np

from ._data import SPLITS, ReportInputError

__all__ = ["ReportConfig", "IMPORTANCE_METHODS", "ALL_METHODS", "MODEL_NAMES", "TASKS", "DATASETS", "SPLITS",
           "check_categorical",
           "method_params", "row_budgets", "ROW_BUDGETS", "REFERENCE_ROWS", "MIN_MAX_ROWS", "MAX_SEED", "check_seed",
           "check_features", "check_methods", "check_scheduler", "check_max_rows", "check_rows_together", "option_flag",
           "input_paths", "feature_budget", "MAX_FEATURES", "MethodParams", "PfiParams", "CfiParams", "LocoParams",
           "LofoParams", "SageParams", "SageRunParams", "PimpParams", "EffectsParams", "HstatParams", "RepidParams",
           "ModelsParams"]

#: Importance methods of section 3, in the order they are shown.
IMPORTANCE_METHODS = ("pfi", "cfi", "loco", "lofo", "sage", "pimp")
#: Everything ``--methods`` accepts: the importance methods and the other sections.
ALL_METHODS = IMPORTANCE_METHODS + ("effects", "hstat", "repid", "shap", "models")
#: The report's default: every section, LOFO left out because LOCO already answers its question.
DEFAULT_METHODS = ("pfi", "cfi", "loco", "sage", "pimp", "effects", "hstat", "repid", "shap", "models")
MODEL_NAMES = ("gbm", "rf", "glm", "gam", "rulefit")
TASKS = ("auto", "regression", "classification")
#: The shipped data sets a report runs on without ``data`` (``--dataset``).
DATASETS = ("bike", "wage", "penguins")


@dataclass(kw_only=True, frozen=True)
class ReportConfig:
    """Options of one report run (the command line's options, as Python values).

    The config checks itself when it is made (every option, before any data are read) and is
    frozen: change a value with ``dataclasses.replace(config, seed=1)``, which checks again. A
    bad value raises :class:`~imlkit.report.ReportInputError` (an :class:`imlkit.ValidationError`)
    naming the option: ``'seed'`` from Python, ``'--seed'`` when ``command`` holds an ``imlkit``
    command line (the command line's options are then named as typed). ``methods`` may be given
    as text (``"pfi, CFI"``), ``sage_removals`` as one name; they are kept as tuples.

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

    ``split`` (``--split``): how the rows of ``data`` are split when no ``test_data`` is given --
    "random" (default; seeded, stratified for classification) or "ordered": the last
    ``ceil(test_size * n)`` rows, in the table's own order, are held out (a forecast's test for rows
    ordered in time; the table is not sorted). With a fitted model and one table it is the split of
    the refits and the leak check. ``categorical`` (``--categorical``): columns read as categories
    before anything else (names, or one comma-separated string), e.g. integer codes such as Auto's
    origin 1/2/3.

    ``max_rows`` (``--max-rows``) sets every step's row budget from one number and ``full``
    (``--full``) lifts the budgets so that every row is used (see :func:`row_budgets`); the
    model itself is always fitted on all training rows.

    Examples
    --------
    >>> ReportConfig(methods="PFI, loco").methods
    ('pfi', 'loco')
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
    #: ``--categorical``: columns read as categories (each value a level) before anything else.
    categorical: tuple = ()
    test_size: float = 0.3
    #: ``--split``: "random" (seeded, stratified for classification) or "ordered" (the last rows held out).
    split: str = "random"
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
    #: The command line that made the run ("imlkit report ..."; "" from Python): shown in the
    #: report, and errors then name the command line's options.
    command: str = ""
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.command, str):
            raise ReportInputError(f"'command' must be a string; got {type(self.command).__name__}.")
        for f in fields(self):
            check = _CHECKS.get(f.name)
            if check is not None:
                # frozen: the checked (normalised) value is set the way dataclasses set it
                object.__setattr__(self, f.name, check(getattr(self, f.name), self.option(f.name)))
        _check_together(self)

    @property
    def from_command_line(self):
        """Whether an ``imlkit`` command line made this config (its errors name the flags)."""
        return self.command.startswith("imlkit")

    def option(self, name):
        """How a message names option ``name``: ``'seed'`` from Python, ``'--seed'`` from the command line.

        Examples
        --------
        >>> ReportConfig().option("max_rows"), ReportConfig(command="imlkit report").option("max_rows")
        ('max_rows', '--max-rows')
        """
        return option_flag(name) if self.from_command_line else name


#: The command-line flag of the options whose flag is not ``--`` and the name with dashes.
_FLAGS = {"target_class": "--class", "prepare": "--no-prepare", "progress": "--quiet",
          "sage_removals": "--removal"}


def option_flag(name):
    """The command-line flag of the config's option ``name`` (``"max_rows"`` -> ``"--max-rows"``)."""
    return _FLAGS.get(name, "--" + name.replace("_", "-"))


# --------------------------------------------------------------------------- the option checks
# One function per kind of value; each takes the value and the option's name as a message shows
# it ('seed' or '--seed') and returns the value to keep. ``_CHECKS`` maps every option to its
# check: a new option is one more line there.

#: The largest seed: scikit-learn's ``random_state`` (numpy's legacy RandomState) takes
#: 0 <= seed < 2**32, and one seed drives the split, the model and every method.
MAX_SEED = 2**32 - 1


def _is_int(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def _int_at_least(low):
    """A check for None or an int >= ``low`` (``n_refits``, ``n_null``, ``sage_orderings``)."""

    def check(value, option):
        if value is None:
            return None
        if not _is_int(value) or value < low:
            raise ReportInputError(f"'{option}' must be an int >= {low}; got {value!r}.")
        return int(value)

    return check


def _flag(value, option):
    if not isinstance(value, (bool, np.bool_)):
        raise ReportInputError(f"'{option}' must be True or False; got {value!r}.")
    return bool(value)


def _one_of(allowed):
    def check(value, option):
        if not isinstance(value, str) or value not in allowed:
            raise ReportInputError(f"'{option}' must be one of {', '.join(repr(a) for a in allowed)}; got {value!r}.")
        return value

    return check


def _table(value, option):
    """A CSV/Parquet path, a DataFrame or None (the message of ``load_dataset``)."""
    import pandas as pd

    if value is None or isinstance(value, pd.DataFrame):
        return value
    if isinstance(value, (str, os.PathLike)):
        return value
    raise ReportInputError(f"'{option}' must be a CSV/Parquet path, a pandas DataFrame or None; got "
                           f"{type(value).__name__}.")


def _path_or_none(value, option):
    if value is None or (isinstance(value, (str, os.PathLike)) and os.fspath(value)):
        return value
    raise ReportInputError(f"'{option}' must be a file path or None; got {value!r}.")


def _name_or_none(value, option):
    if value is None or (isinstance(value, str) and value):
        return value
    raise ReportInputError(f"'{option}' must be a column name (text) or None; got {value!r}.")


def _model(value, option):
    if isinstance(value, str):
        if value not in MODEL_NAMES:
            raise ReportInputError(f"'{option}' must be one of {', '.join(repr(m) for m in MODEL_NAMES)} or an "
                                   f"estimator with a predict method; got {value!r}.")
        return value
    if not hasattr(value, "predict"):
        raise ReportInputError(f"'{option}' must be one of {', '.join(repr(m) for m in MODEL_NAMES)} or an "
                               f"estimator with a predict method; got a {type(value).__name__}.")
    return value


def check_methods(methods, option="--methods"):
    """``methods`` as a tuple of known names (comma-separated text or a sequence).

    Examples
    --------
    >>> check_methods("pfi, CFI,repid")
    ('pfi', 'cfi', 'repid')
    """
    if isinstance(methods, str):
        methods = [m.strip() for m in methods.split(",") if m.strip()]
    try:
        methods = tuple(m.lower() for m in methods)
    except (TypeError, AttributeError):
        raise ReportInputError(f"'{option}' must be method names (text or a sequence of strings); "
                               f"got {methods!r}.") from None
    if not methods:
        raise ReportInputError(f"'{option}' is empty; choose from {', '.join(ALL_METHODS)}.")
    for m in methods:
        if m not in ALL_METHODS:
            raise ReportInputError(f"Unknown method {m!r} in '{option}'; choose from {', '.join(ALL_METHODS)}.")
    return methods


def check_features(features, option="--features"):
    """``features`` (None or names) checked: each column named once.

    A repeated name would give the model the same column twice and each method two rows for
    one feature; it is a typing slip, so it is refused rather than silently dropped.

    Examples
    --------
    >>> check_features(("a", "b"))
    ('a', 'b')
    """
    if features is None:
        return None
    if isinstance(features, str):
        raise ReportInputError(f"'{option}' must be a sequence of column names, not one string; got {features!r}.")
    try:
        names = [str(f) for f in features]
    except TypeError:
        raise ReportInputError(f"'{option}' must be a sequence of column names; got {features!r}.") from None
    seen, repeated = set(), []
    for n in names:
        if n in seen and n not in repeated:
            repeated.append(n)
        seen.add(n)
    if repeated:
        raise ReportInputError(f"'{option}' names {', '.join(repr(r) for r in repeated)} more than once; "
                               f"give each column once.")
    return tuple(features)


def check_categorical(names, option="--categorical"):
    """``names`` (a sequence, or one comma-separated string) as a tuple of column names, each named once.

    Examples
    --------
    >>> check_categorical("origin, StoreID"), check_categorical(None)
    (('origin', 'StoreID'), ())
    """
    if names is None:
        return ()
    if isinstance(names, str):
        names = [n.strip() for n in names.split(",") if n.strip()]
        if not names:
            raise ReportInputError(f"'{option}' is empty; give comma-separated column names.")
    try:
        names = [str(n) for n in names]
    except TypeError:
        raise ReportInputError(f"'{option}' must be column names (a sequence or comma-separated text); got "
                               f"{names!r}.") from None
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ReportInputError(f"'{option}' names {', '.join(repr(r) for r in repeated)} more than once; "
                               f"give each column once.")
    return tuple(names)


def _test_size(value, option):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ReportInputError(f"'{option}' must be a number > 0 and < 1; got {value!r}.")
    return float(value)


def check_seed(seed, option="--seed"):
    """``seed`` as an int in ``[0, MAX_SEED]``; one clear error otherwise.

    Examples
    --------
    >>> check_seed(7)
    7
    """
    if not _is_int(seed) or not 0 <= int(seed) <= MAX_SEED:
        raise ReportInputError(f"'{option}' must be an int in [0, {MAX_SEED}] (numpy's and scikit-learn's seed "
                               f"range); got {seed!r}.")
    return int(seed)


def _n_jobs(value, option):
    # joblib's meaning: None one job (or the backend's), -1 every core, -2 all but one, ...; 0 is nothing
    if value is None:
        return None
    if not _is_int(value) or value == 0:
        raise ReportInputError(f"'{option}' must be -1 or an int >= 1; got {value!r}.")
    return int(value)


def check_scheduler(address, option="--scheduler"):
    """``tcp://HOST:PORT`` (or None): the address of a Dask scheduler, checked by its form only."""
    if address is None:
        return None
    if not isinstance(address, str) or "://" not in address:
        raise ReportInputError(f"'{option}' must look like tcp://HOST:PORT; got {address!r}.")
    return address


def _positive(value, option):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not value > 0:
        raise ReportInputError(f"'{option}' must be a number > 0; got {value!r}.")
    return value


def _directory(value, option):
    if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise ReportInputError(f"'{option}' must be a directory path; got {value!r}.")
    return value


def _file_name(value, option):
    if not isinstance(value, str) or not value or value in (".", "..") or os.sep in value or (
            os.altsep and os.altsep in value):
        raise ReportInputError(f"'{option}' must be a plain file name (no directories); got {value!r}.")
    return value


def _progress(value, option):
    if value is None or isinstance(value, (bool, np.bool_)) or (
            isinstance(value, str) and value in ("auto", "bar", "lines", "off")):
        return value
    raise ReportInputError(f"'{option}' must be True, False, 'auto', 'bar', 'lines' or 'off'; got {value!r}.")


def _removals(value, option):
    removals = (value,) if isinstance(value, str) else value
    try:
        removals = tuple(removals)
    except TypeError:
        removals = ()
    if not removals or any(r not in ("marginal", "conditional") for r in removals):
        raise ReportInputError(f"'{option}' must be 'marginal', 'conditional' or both; got {value!r}.")
    return removals


def check_max_rows(value, option="max_rows"):
    """None or a whole number >= ``MIN_MAX_ROWS`` (an int; a float such as 1e5 is taken when whole)."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or value != int(value) \
            or value < MIN_MAX_ROWS:
        raise ReportInputError(f"'{option}' must be an int >= {MIN_MAX_ROWS}; got {value!r}.")
    return value


def _dict(value, option):
    if not isinstance(value, dict):
        raise ReportInputError(f"'{option}' must be a dict; got {type(value).__name__}.")
    return value


def _any(value, option):
    return value


def _check_together(config):
    """The checks that read two options."""
    opt = config.option
    check_rows_together(config.max_rows, config.full, opt("max_rows"), opt("full"))
    if config.full and config.max_features is not None:
        raise ReportInputError(f"'{opt('max_features')}' and '{opt('full')}' cannot be used together: "
                               f"'{opt('full')}' gives every method every feature, '{opt('max_features')}' caps "
                               f"them; choose one.")
    if config.test_data is not None and config.data is None:
        raise ReportInputError("'test_data' (--test-data) needs 'data' (--data), the training rows, as well.")
    if config.split == "ordered" and config.test_data is not None:
        raise ReportInputError(f"'{opt('split')}' 'ordered' holds out the last rows of the data, and "
                               f"'{opt('test_data')}' gives the held-out rows: choose one.")
    if config.model_file and not config.trust_model_file:
        trust = opt("trust_model_file") + ("" if config.from_command_line else "=True")
        raise ReportInputError(f"Refusing to load {config.model_file!r}: unpickling a model file runs arbitrary "
                               f"code. Pass '{trust}' if you trust its origin.")


def check_rows_together(max_rows, full, max_rows_option="max_rows", full_option="full"):
    """``max_rows`` and ``full`` are never both given (one caps the rows, the other lifts every cap)."""
    if full and max_rows is not None:
        raise ReportInputError(f"'{max_rows_option}' and '{full_option}' cannot be used together: '{full_option}' "
                               f"uses every row, '{max_rows_option}' caps them; choose one.")


#: Every option's check, in the order of the fields (options without a line take any value).
_CHECKS = {
    "data": _table,
    "test_data": _table,
    "prepare": _flag,
    "dataset": _one_of(DATASETS),
    "target": _name_or_none,
    "task": _one_of(TASKS),
    "model": _model,
    "model_file": _path_or_none,
    "trust_model_file": _flag,
    "methods": check_methods,
    "features": check_features,
    "categorical": check_categorical,
    "test_size": _test_size,
    "split": _one_of(SPLITS),
    "seed": check_seed,
    "n_jobs": _n_jobs,
    "scheduler": check_scheduler,
    "scheduler_timeout": _positive,
    "out": _directory,
    "filename": _file_name,
    "quick": _flag,
    "progress": _progress,
    "strict": _flag,
    "target_class": _any,  # checked against the target's classes once the data are read
    "n_refits": _int_at_least(1),
    "sage_orderings": _int_at_least(4),
    "n_null": _int_at_least(1),
    "sage_removals": _removals,
    "max_rows": check_max_rows,
    "max_features": _int_at_least(1),
    "full": _flag,
    "extra": _dict,
}


def input_paths(config):
    """Every file a run reads (data, held-out data, model file): ``[(what, path), ...]``.

    The report's output is checked against these so that it can never overwrite an input.
    ``test_data`` is read when the config has it (a path; a DataFrame is no file).
    """
    out = []
    for what, value in (("data file", config.data), ("test data file", config.test_data),
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
    check_rows_together(max_rows, full)
    max_rows = check_max_rows(max_rows)
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


# --------------------------------------------------------------------------- every method's parameters
# One frozen dataclass per method, read by attribute (``ctx.params.sage.marginal.n_background``: a
# misspelt name is an AttributeError, not a KeyError deep in a section). The fields keep the order
# in which section 7 lists them; ``to_dict()`` is what the progress log and section 7 record.


class _Params:
    """``to_dict()`` for the parameter records: the fields in order, nested records as dicts."""

    def to_dict(self):
        """The parameters as a plain dict (field order; a nested record as a dict), as logged."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = value.to_dict() if isinstance(value, _Params) else value
        return out


@dataclass(frozen=True)
class PfiParams(_Params):
    """Section 3's PFI: ``n_repeats`` permutations per feature."""

    n_repeats: int


@dataclass(frozen=True)
class CfiParams(_Params):
    """Section 3's CFI: ``n_repeats`` conditional draws per feature."""

    n_repeats: int


@dataclass(frozen=True)
class LocoParams(_Params):
    """Section 3's LOCO: refits per feature, the test and the p-value adjustment."""

    n_refits: int
    test: str
    p_adjust: str | None


@dataclass(frozen=True)
class LofoParams(_Params):
    """Section 3's LOFO: the relation of the refit's loss to the full model's."""

    relation: str


@dataclass(frozen=True)
class SageRunParams(_Params):
    """One SAGE run (one removal): the arguments of :func:`imlkit.sage` the report sets."""

    n_background: int
    tolerance: float
    max_permutations: int
    batch_size: int


@dataclass(frozen=True)
class SageParams(_Params):
    """Section 3's SAGE: the rows it reads and one :class:`SageRunParams` per removal."""

    rows: int | None
    marginal: SageRunParams
    conditional: SageRunParams

    def run(self, removal):
        """The parameters of the run with ``removal`` ("marginal" or "conditional")."""
        return {"marginal": self.marginal, "conditional": self.conditional}[removal]


@dataclass(frozen=True)
class PimpParams(_Params):
    """Section 3's PIMP: the tested importance, null refits, repeats, null distribution, adjustment."""

    importance: str
    n_null: int
    n_repeats: int
    distribution: str
    p_adjust: str | None


@dataclass(frozen=True)
class EffectsParams(_Params):
    """Section 4's ICE/PD/ALE: how many top features, the grid, the ICE curves drawn, ALE's bins."""

    n_features: int
    grid: int
    ice_rows: int | None
    ale_bins: int


@dataclass(frozen=True)
class HstatParams(_Params):
    """Section 4's H-statistic: its rows and how many top pairs."""

    n_samples: int | None
    n_pairs: int


@dataclass(frozen=True)
class RepidParams(_Params):
    """Section 5's REPID: its rows and the tree's grid, depth, node size and improvement threshold."""

    rows: int | None
    grid: int
    max_depth: int
    min_node_size: int
    min_improvement: float


@dataclass(frozen=True)
class ModelsParams(_Params):
    """Section 6's interpretable models: how many RuleFit rules are listed."""

    rulefit_rules: int


@dataclass(frozen=True)
class MethodParams(_Params):
    """Every method's parameters of one report run (:func:`method_params`), read by attribute.

    ``rows`` is every step's row budget (:func:`row_budgets`: ``{step: {split: rows or None}}``),
    ``max_features`` the feature budget (:func:`feature_budget`; None: every feature) and
    ``every_feature`` makes PFI and CFI score every feature whatever the budget (``imlkit
    importance``). Frozen: change a value with ``dataclasses.replace``.

    Examples
    --------
    >>> p = method_params(True)
    >>> p.sage.marginal.n_background, p.pimp.n_null, p.rows["pfi"]["test"]
    (32, 10, 20000)
    """

    pfi: PfiParams
    cfi: CfiParams
    loco: LocoParams
    lofo: LofoParams
    sage: SageParams
    pimp: PimpParams
    effects: EffectsParams
    hstat: HstatParams
    repid: RepidParams
    models: ModelsParams
    rows: dict = field(default_factory=dict)
    max_features: int | None = None
    every_feature: bool = False


def method_params(quick, *, n_refits=None, sage_orderings=None, max_rows=None, full=False, scheduler=False,
                  n_null=None):
    """Every method's parameters for the full or the quick report: a :class:`MethodParams`.

    Every step reads at most its row budget (``ROW_BUDGETS``): the linear-cost steps and the
    refits are capped so that the report's time stops growing with n, and the methods whose cost
    grows faster than n (SAGE, H-statistic, REPID, the ICE curves drawn) use a fixed sample.
    ``n_refits`` (LOCO's refits per feature), ``sage_orderings`` (the most orderings either
    SAGE run may use) and ``n_null`` (PIMP's null refits) replace the defaults when given. ``.rows``
    holds every step's row budget (:func:`row_budgets` of ``max_rows``, ``full`` and ``scheduler``).
    """
    p = _params(quick)
    rows = row_budgets(quick, max_rows=max_rows, full=full, scheduler=scheduler)
    # The sample sizes the sections read from their own parameters follow the budgets.
    p = replace(p, rows=rows, sage=replace(p.sage, rows=rows["sage"]["test"]),
                effects=replace(p.effects, ice_rows=rows["ice"]["test"]),
                hstat=replace(p.hstat, n_samples=rows["hstat"]["test"]),
                repid=replace(p.repid, rows=rows["repid"]["test"]))
    if n_refits is not None:
        p = replace(p, loco=replace(p.loco, n_refits=_int_at_least(1)(n_refits, "n_refits")))
    if sage_orderings is not None:
        k = _int_at_least(4)(sage_orderings, "sage_orderings")
        p = replace(p, sage=replace(p.sage, marginal=replace(p.sage.marginal, max_permutations=k),
                                    conditional=replace(p.sage.conditional, max_permutations=k)))
    if n_null is not None:
        p = replace(p, pimp=replace(p.pimp, n_null=_int_at_least(1)(n_null, "n_null")))
    return p


def _params(quick):
    """The defaults of the full report (``quick=False``) or the quick one, before the budgets."""
    if quick:
        return MethodParams(
            pfi=PfiParams(n_repeats=5),
            cfi=CfiParams(n_repeats=5),
            loco=LocoParams(n_refits=1, test="auto", p_adjust="holm"),
            lofo=LofoParams(relation="difference"),
            sage=SageParams(rows=256,
                            marginal=SageRunParams(n_background=32, tolerance=0.05, max_permutations=1024,
                                                   batch_size=256),
                            conditional=SageRunParams(n_background=16, tolerance=0.1, max_permutations=64,
                                                      batch_size=64)),
            pimp=PimpParams(importance="pfi", n_null=10, n_repeats=2, distribution="auto", p_adjust="holm"),
            effects=EffectsParams(n_features=2, grid=15, ice_rows=150, ale_bins=15),
            hstat=HstatParams(n_samples=120, n_pairs=3),
            repid=RepidParams(rows=600, grid=15, max_depth=2, min_node_size=40, min_improvement=0.1),
            models=ModelsParams(rulefit_rules=8),
        )
    return MethodParams(
        pfi=PfiParams(n_repeats=10),
        cfi=CfiParams(n_repeats=10),
        loco=LocoParams(n_refits=1, test="auto", p_adjust="holm"),
        lofo=LofoParams(relation="difference"),
        sage=SageParams(rows=512,
                        marginal=SageRunParams(n_background=64, tolerance=0.05, max_permutations=2048, batch_size=256),
                        # Conditional removal grows a subgroup tree per coalition (2-3x marginal SAGE per
                        # ordering since the numba CART, bench/results/sage_cond.md): a budget of 384
                        # orderings keeps the default report's time, and says "not converged" when too few.
                        conditional=SageRunParams(n_background=32, tolerance=0.1, max_permutations=384,
                                                  batch_size=128)),
        pimp=PimpParams(importance="pfi", n_null=60, n_repeats=3, distribution="auto", p_adjust="holm"),
        effects=EffectsParams(n_features=3, grid=20, ice_rows=300, ale_bins=20),
        hstat=HstatParams(n_samples=300, n_pairs=5),
        repid=RepidParams(rows=2000, grid=20, max_depth=2, min_node_size=50, min_improvement=0.1),
        models=ModelsParams(rulefit_rules=10),
    )
