"""Assembling the report: data -> model -> the seven sections -> one HTML file."""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import datetime as _dt
import os
import time

import numpy as np

from ._blocks import Section, text
from ._config import IMPORTANCE_METHODS, ReportConfig, check_scheduler, feature_budget, input_paths, method_params
from ._context import ReportContext
from ._data import ReportInputError, load_dataset
from ._fit import (
    load_model_file,
    make_model,
    model_columns,
    ordered_split,
    performance,
    refit_learner,
    set_aside_rare,
    split,
    split_rows,
)
from ._render import render_html, write_atomic

__all__ = ["build_report", "run_importance", "prepare_context", "connect_scheduler", "check_inputs_exist",
           "planned_steps", "subsample_sentence", "layout"]


def check_inputs_exist(config):
    """Every input file of the run exists (checked before the output directory is created)."""
    for what, path in input_paths(config):
        if not os.path.exists(path):
            raise ReportInputError(f"The {what} {path!r} does not exist.")


def connect_scheduler(address, *, timeout=10.0):
    """A ``distributed.Client`` for ``tcp://HOST:PORT``; one clear error when it does not answer."""
    address = check_scheduler(address)
    try:
        from distributed import Client
    except ImportError:
        raise ReportInputError("'--scheduler' needs the 'distributed' package: pip install 'imlkit[dask]'.") from None
    try:
        return Client(address, timeout=f"{float(timeout)}s", set_as_default=True)
    except (OSError, TimeoutError, ValueError) as exc:
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ReportInputError(f"The Dask scheduler at {address} did not answer within {timeout:g} s: {msg}") from None


def _model_label(model, cfg):
    if cfg.model_file:
        return f"{type(model).__name__} (loaded from {os.path.basename(cfg.model_file)})"
    est = model.steps[-1][1] if hasattr(model, "steps") else model
    if not isinstance(cfg.model, str):
        how = "fitted, passed from Python" if _is_fitted(cfg.model) else "fitted by imlkit on the training rows"
        return f"{type(est).__name__} ({how})"
    if cfg.model in ("glm", "gam"):
        # "GLM (GLM)" says nothing: name the family (and a link other than the family's default)
        fam = getattr(est, "family_", None)
        name = getattr(fam, "name", None) or getattr(est, "family", None) or type(est).__name__
        return f"{cfg.model.upper()} ({name}, {fam.link_name} link)" if getattr(fam, "link_name", None) else \
            f"{cfg.model.upper()} ({name})"
    return {"gbm": "gradient boosting", "rf": "random forest",
            "rulefit": "RuleFit"}.get(cfg.model, cfg.model) + f" ({type(est).__name__})"


def _is_fitted(est):
    """Whether an estimator passed from Python is already fitted (scikit-learn's own check)."""
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    try:
        check_is_fitted(est)
        return True
    except NotFittedError:
        return False
    except TypeError:  # not a scikit-learn estimator (no fit method): only usable as it is
        return True


def _load(config, model_cols=None):
    """The Dataset of a run; ``config.data`` may be a path, a DataFrame or None (shipped data).

    ``model_cols``: the columns a fitted model was fitted on (its input, in its order): they are
    the features, passed on as given, and none of them is set aside.
    """
    features = config.features
    if model_cols is not None:
        if features is not None and set(map(str, features)) != set(model_cols):
            extra = [f for f in map(str, features) if f not in model_cols]
            lacking = [c for c in model_cols if c not in set(map(str, features))]
            raise ReportInputError(f"'--features' must be the columns the fitted model was fitted on: "
                                   f"{'it leaves out ' + str(lacking) if lacking else ''}"
                                   f"{'; ' if lacking and extra else ''}"
                                   f"{'the model does not take ' + str(extra) if extra else ''}.")
        features = tuple(model_cols)
    # load_dataset copies a DataFrame: the caller's frame is never modified
    ds = load_dataset(config.data, dataset=config.dataset, target=config.target, task=config.task, features=features,
                      test=config.test_data, as_given=model_cols or (), prepare=config.prepare,
                      categorical=config.categorical)
    # The table as read is not needed once its columns are prepared (section 1 reads only its
    # column names, and the missing-cell counts kept in ds.missing): keeping it would hold a
    # second full copy of the data for the whole run.
    ds.raw = ds.raw.iloc[:0].copy()
    return ds


def _label_key(v):
    """A class label compared by value: 6, 6.0, "6" and "6.0" are one class; True and "True" too."""
    if isinstance(v, (bool, np.bool_)):
        return ("s", str(bool(v)))
    try:
        f = float(str(v).strip())
        if np.isfinite(f):
            return ("n", f)
    except (TypeError, ValueError):
        pass
    return ("s", str(v).strip())


def _check_class(ctx, labels):
    """``--class``: the class whose probability sections 4-5 explain, checked against the classes.

    Matched by text first, then by value (``--class 6`` finds a class stored as 6.0 or "6").
    """
    wanted = ctx.config.target_class
    if wanted is None:
        return None
    if ctx.task != "classification":
        raise ReportInputError(f"'--class' applies to classification targets; {ctx.data.target!r} is a regression "
                               f"target.")
    names = [str(c) for c in labels]
    if str(wanted) in names:
        return labels[names.index(str(wanted))]
    keys = [_label_key(c) for c in labels]
    if keys.count(_label_key(wanted)) == 1:
        return labels[keys.index(_label_key(wanted))]
    raise ReportInputError(f"'--class' must be one of the classes of {ctx.data.target!r}: "
                           f"{', '.join(repr(n) for n in names)}; got {str(wanted)!r}.")


def _resolve_model(config):
    """``(estimator, fitted)``: the model file loaded, or the estimator passed (checked), or None for a name."""
    if config.model_file:
        return load_model_file(config.model_file, config.trust_model_file), True
    if isinstance(config.model, str):
        return None, False
    return config.model, _is_fitted(config.model)  # the config checked it has a predict method


def _align_classes(ctx):
    """Name the target's classes as the model does when they are the same value (a target stored as
    6.0 because of a missing value, a model fitted on the integer 6)."""
    known = getattr(ctx.model, "classes_", None)
    if ctx.task != "classification" or known is None:
        return
    objects = np.asarray(known).tolist()
    if not all(isinstance(c, str) for c in objects):
        # a model fitted on 0/1 integers (xgboost, a pickled LogisticRegression): the methods look each label up
        # in the model's classes_, so "1" read from the CSV must become the model's 1 -- as text, PFI, CFI, SAGE and
        # LOCO all failed ("y contains the label '1', which is not among the model's classes [0, 1]")
        by_key = {_label_key(c): c for c in objects}

        def as_model(y):
            return y.map(lambda v: by_key.get(_label_key(v), v)).astype(object)  # labels, never numbers

        _map_targets(ctx, as_model)
        return
    names = {_label_key(c): str(c) for c in known}

    def aligned(y):
        return y.map(lambda v: names.get(_label_key(v), v)).astype(str)

    if all(str(v) in names.values() for v in ctx.data.y.unique()):
        return
    _map_targets(ctx, aligned)


def _map_targets(ctx, fn):
    """Apply ``fn`` to every copy of the target the report holds: the data's, the test and training rows' (one
    object when they are the same rows) and the refit methods' rows."""
    same = ctx.y_train is ctx.y_test
    ctx.data.y, ctx.y_test = fn(ctx.data.y), fn(ctx.y_test)
    ctx.y_train = ctx.y_test if same else fn(ctx.y_train)
    if ctx.refit_rows is not None:
        X_tr, y_tr, X_te, y_te = ctx.refit_rows
        ctx.refit_rows = (X_tr, fn(y_tr), X_te, fn(y_te))


def _unknown_classes(ctx):
    """Set aside the evaluation rows of classes the fitted model does not know (a note says which)."""
    _align_classes(ctx)
    known = getattr(ctx.model, "classes_", None)
    if ctx.task != "classification" or known is None:
        return
    keys = {_label_key(c) for c in known}
    bad = ~ctx.y_test.map(lambda v: _label_key(v) in keys).to_numpy(dtype=bool)
    if not bad.any():
        return
    if bad.all():
        raise ReportInputError(f"None of the evaluation rows has a class the model knows "
                               f"({', '.join(map(str, known))}).")
    counts = ctx.y_test[bad].value_counts()
    named = ", ".join(f"{c!r} ({k} row{'s' if k != 1 else ''})" for c, k in counts.items())
    same = ctx.X_train is ctx.X_test
    ctx.X_test, ctx.y_test = ctx.X_test.loc[~bad].reset_index(drop=True), ctx.y_test.loc[~bad].reset_index(drop=True)
    if same:
        ctx.X_train, ctx.y_train = ctx.X_test, ctx.y_test
    ctx.data.notes.append(f"{int(bad.sum()):,} evaluation row(s) of class(es) the model does not know were set "
                          f"aside: {named}.")


def prepare_context(config, *, progress=None):
    """Load the data, split it, fit (or load) the model: the context every section works from.

    Where the model is scored (``ctx.evaluation``): on the held-out ``test_data`` when given;
    else a model imlkit fits is fitted on a split of the data and scored on the rest (seeded, or
    with ``split="ordered"`` the last rows held out); a fitted model with one table is scored on
    every row (imlkit cannot know which rows fitted it; the report says so), and the steps that
    fit models of their own (LOCO, LOFO, PIMP, the leak check) use such a split of the table
    (``ctx.refit_rows``).

    ``progress`` is a :class:`~imlkit.report._progress.Progress` (None: silent).
    """
    ctx = ReportContext(config=config, params=method_params(config.quick, n_refits=config.n_refits,
                                                            sage_orderings=config.sage_orderings,
                                                            n_null=config.n_null,
                                                            max_rows=config.max_rows, full=config.full,
                                                            scheduler=bool(config.scheduler)))
    ctx.params = dataclasses.replace(ctx.params, max_features=feature_budget(config.quick, config.max_features,
                                                                             config.full))
    ctx.progress_hook = progress
    if config.model_file:
        with ctx.step("load the model file", path=config.model_file):
            est, fitted = _resolve_model(config)
    else:
        est, fitted = _resolve_model(config)
    model_cols = model_columns(est) if fitted else None
    source = ("a pandas DataFrame" if config.data is not None and not isinstance(config.data, str)
              else config.data or f"shipped:{config.dataset}")
    test_source = None if config.test_data is None else (
        config.test_data if isinstance(config.test_data, str) else "a pandas DataFrame")
    with ctx.step("read and prepare the data", source=source, test_data=test_source, prepare=config.prepare,
                  **({"model_columns": len(model_cols)} if model_cols is not None else {})):
        ctx.data = _load(config, model_cols)
    ds = ctx.data
    ctx.evaluation = "test_data" if ds.n_train is not None else ("all_rows" if fitted else "split")
    stratified = ds.task == "classification"
    ordered = config.split == "ordered"
    if ctx.evaluation == "all_rows":
        with ctx.step("train/test split of the refits", test_size=config.test_size, split=config.split,
                      random_state=None if ordered else config.seed, stratified=stratified and not ordered):
            ctx.X_train = ctx.X_test = ds.X
            ctx.y_train = ctx.y_test = ds.y
            if ordered:
                X_tr, X_te, y_tr, y_te, notes = ordered_split(ds, config.test_size, where="the refits' split")
                ds.notes.extend(notes)
            else:
                Xr, yr, note = set_aside_rare(ds.X, ds.y, ds.task, config.test_size, where="the refits' split")
                if note:
                    ds.notes.append(note)
                X_tr, X_te, y_tr, y_te = split_rows(Xr, yr, ds.task, config.test_size, config.seed)
            ctx.refit_rows = (X_tr, y_tr, X_te, y_te)
    elif ctx.evaluation == "split" and ordered:
        with ctx.step("train/test split", test_size=config.test_size, split="ordered", random_state=None,
                      stratified=False):
            ctx.X_train, ctx.X_test, ctx.y_train, ctx.y_test, notes = ordered_split(ds, config.test_size)
            ds.notes.extend(notes)
    else:
        with ctx.step("train/test split" if ctx.evaluation == "split" else "the given training and test rows",
                      test_size=config.test_size if ctx.evaluation == "split" else None, random_state=config.seed,
                      stratified=stratified and ctx.evaluation == "split",
                      **({"split": "random"} if ctx.evaluation == "split" else {})):
            ctx.X_train, ctx.X_test, ctx.y_train, ctx.y_test = split(ds, config.test_size, config.seed)
    _check_class(ctx, sorted(ds.y.astype(str).unique()))  # before the fit: a wrong --class fails fast
    if fitted:
        ctx.model = est
        ctx.learner = refit_learner(est)  # a clone: the caller's estimator is never refitted
    elif est is not None:
        ctx.learner = refit_learner(est)
        if ctx.learner is None:
            raise ReportInputError(f"The {type(est).__name__} passed as 'model' is not fitted and cannot be "
                                   f"cloned; pass a fitted model.")
        with ctx.step(f"fit the model ({type(est).__name__})", estimator=repr(est)):
            ctx.model = refit_learner(est).fit(ctx.X_train, ctx.y_train)
    else:
        est = make_model(config.model, ctx.task, ctx.X_train, ctx.y_train, config.seed)
        ctx.learner = refit_learner(est)
        with ctx.step(f"fit the model ({config.model})", estimator=repr(est)):
            ctx.model = est.fit(ctx.X_train, ctx.y_train)
    ctx.model_label = _model_label(ctx.model, config)
    _unknown_classes(ctx)
    if ctx.evaluation == "all_rows":
        from ._shared import all_rows_warning

        ctx.alerts.append(all_rows_warning(ctx))
    from ._loss import model_loss

    ctx.loss = model_loss(ctx.task, ctx.model)
    try:
        ctx.model_check.performance = performance(ctx.model, ctx.X_test, ctx.y_test, ctx.task)
    except ReportInputError:
        raise
    except Exception as exc:  # a loaded model that does not fit the data is bad input
        raise ReportInputError(f"The model could not predict the evaluation rows: {type(exc).__name__}: "
                               f"{exc}") from None
    if ctx.task == "classification":
        ctx.target_class = _check_class(ctx, list(getattr(ctx.model, "classes_", ctx.data.y.unique())))
    return ctx


def run_importance(config, *, method):
    """Data, model and one importance method, as the report runs it (``imlkit importance``).

    Parameters
    ----------
    config : ReportConfig
        The data, model, seed and row budgets (never modified); ``config.sage_removals``
        chooses SAGE's removal(s), and only the first result is returned.
    method : {"pfi", "cfi", "loco", "lofo", "sage", "pimp"}
        One of ``IMPORTANCE_METHODS``.

    Returns
    -------
    ImportanceResult
    """
    from ._progress import Progress, resolve_mode
    from ._sec_importance import compute_importance

    if not isinstance(config, ReportConfig):
        raise TypeError(f"'config' must be a ReportConfig; got {type(config).__name__}.")
    if method not in IMPORTANCE_METHODS:
        raise ReportInputError(f"'method' must be one of {', '.join(repr(m) for m in IMPORTANCE_METHODS)}; "
                               f"got {method!r}.")
    config = dataclasses.replace(config, methods=(method,))
    progress = Progress(resolve_mode(config.progress))
    try:
        with _runtime(config), _quiet_warnings():
            ctx = prepare_context(config, progress=progress)
            # PFI and CFI score every feature here, as before the feature budget reached them: the
            # command prints their table without the report's sentence on the budget and screen
            ctx.params = dataclasses.replace(ctx.params, every_feature=True)
            if method in ("loco", "lofo", "pimp") and ctx.learner is None:
                raise ReportInputError(f"{method.upper()} refits the model, but {type(ctx.model).__name__} cannot be "
                                       f"cloned (it is not a scikit-learn estimator).")
            results = compute_importance(ctx, method)
    finally:
        progress.close()
    return next(iter(results.values()))


@contextlib.contextmanager
def _quiet_warnings():
    """Collect warnings (shown in the report's notes) instead of printing them.

    Yields a list of ``warnings.WarningMessage``; each has ``.step``, the report step that was
    running when it was raised (see :func:`_running_step`), so section 7 can say where it came from.
    """
    import warnings

    caught = []

    def record(message, category, filename, lineno, file=None, line=None):
        w = warnings.WarningMessage(message, category, filename, lineno, file, line)
        w.step = _running_step()
        caught.append(w)

    with warnings.catch_warnings():  # restores showwarning and the filters on exit
        warnings.simplefilter("always")
        warnings.showwarning = record
        yield caught


def _running_step():
    """The name of the report step running in this thread, read off the call stack (None: none found).

    The innermost :class:`ReportContext` on the stack (a ``ctx`` or ``self`` local) knows its
    open steps (log entries without seconds); without an open step, the innermost guarded part
    (``ReportContext.guard``'s ``what``: a section, a method, a figure) names it.
    """
    import sys

    frame, part = sys._getframe(2), None
    while frame is not None:
        local = frame.f_locals
        for name in ("ctx", "self"):
            obj = local.get(name)
            if isinstance(obj, ReportContext):
                running = [e.step for e in obj.log if e.seconds is None]
                if running:
                    return running[-1]
                if part is None and frame.f_code.co_name == "guard":
                    part = local.get("what")
        frame = frame.f_back
    return part


def _warning_notes(caught, limit=12):
    """Section 7's lines for the warnings of a run: one per kind, naming the step(s) that raised it.

    Repeats of one message are one line; messages that differ only in the feature they name (and its
    numbers) are one line listing the features (``_sec_importance.group_caveats``).
    """
    from ._sec_importance import group_caveats

    by_text = {}
    for w in caught:
        msg = f"{w.category.__name__}: {' '.join(str(w.message).split())}"
        step = getattr(w, "step", None) or "an unnamed step"
        steps = by_text.setdefault(msg, [])
        if step not in steps:
            steps.append(step)
    lines = group_caveats(by_text)
    notes = [f"Warning raised while computing {line}" for line in lines[:limit]]
    if len(lines) > limit:
        notes.append(f"... and {len(lines) - limit} more kinds of warnings.")
    return notes


def planned_steps(ctx):
    """About how many timed steps the run will have (the progress bar's total)."""
    n = len(ctx.log) + 4  # done so far; dependence overview, two baselines, leak check
    n += sum(ctx.methods(m) for m in ("pfi", "cfi", "loco", "lofo", "sage", "pimp"))
    if ctx.methods("effects"):
        n += 2 * ctx.params.effects.n_features
    n += 3 * ctx.methods("hstat") + 2 * ctx.methods("repid")  # H, H on each half of its rows, 2-D PD
    if ctx.methods("models"):
        n += 5 if ctx.task == "classification" else 4
    return n


def build_sections(ctx):
    """Sections 1-6 in two phases: compute every section, then the parts derived from them, then lay out.

    Sections 1-6 are built in order; the parts that need what came after them are computed only
    then, each from the finished outputs: the automatic reading (it closes section 3 but needs
    section 4's H-statistic) and the subsampling sentence of section 1 (known once every step has
    read its rows). :func:`layout` places them; no built section is changed afterwards.
    """
    from ._reading import reading_blocks
    from ._sec_alternatives import section_alternatives
    from ._sec_data import section_data
    from ._sec_effects import section_effects, section_regional
    from ._sec_importance import section_importance
    from ._sec_local import TITLE as LOCAL_TITLE
    from ._sec_local import section_local
    from ._sec_model import section_model

    sections = [ctx.guard_section("data", "1. Data", lambda: section_data(ctx)),
                ctx.guard_section("model", "2. Model and baselines", lambda: section_model(ctx)),
                ctx.guard_section("importance", "3. Feature importance", lambda: section_importance(ctx)),
                ctx.guard_section("effects", "4. Feature effects", lambda: section_effects(ctx)),
                ctx.guard_section("regional", "5. Regional effects", lambda: section_regional(ctx)),
                ctx.guard_section("local", LOCAL_TITLE, lambda: section_local(ctx)),
                ctx.guard_section("alternatives", "6. Interpretable alternatives", lambda: section_alternatives(ctx))]
    reading = ctx.guard("automatic reading", lambda: reading_blocks(ctx), kind="part")
    note = subsample_sentence(ctx)
    return layout(sections, reading=reading, subsample_note=note)


def layout(sections, *, reading=(), subsample_note=None):
    """The sections in reading order with the derived parts in place (new section records).

    ``reading`` (blocks) closes section 3 ("importance"); ``subsample_note`` (a sentence or
    None) goes among section 1's opening paragraphs, where the data are described.
    """
    out = []
    for s in sections:
        blocks = list(s["blocks"])
        if s["id"] == "data" and subsample_note:
            blocks.insert(min(2, len(blocks)), text(subsample_note))
        elif s["id"] == "importance":
            blocks += reading
        out.append(Section(s["id"], s["title"], blocks, intro=s["intro"]))
    return out


def subsample_sentence(ctx):
    """One sentence for section 1 when a row budget left rows out of some step; else None."""
    from ._config import ROW_BUDGETS

    cut = ctx.subsampled()
    if not cut:
        return None
    largest = max(cut, key=lambda u: u.available)
    names = []
    for u in cut:
        label = ROW_BUDGETS[u.step][0]
        if label not in names:
            names.append(label)
    outside = bool(ctx.config.model_file) or ctx.model is ctx.config.model
    fitted = "the model was fitted outside imlkit" if outside else "the model itself was fitted on all training rows"
    words = "rows" if ctx.evaluation == "all_rows" and largest.split in ("train", "test") else \
        _SPLIT_WORDS[largest.split]
    return (f"Large data were subsampled to keep the report's time bounded: {len(names)} step(s) "
            f"({', '.join(names)}) ran on a seeded{' stratified' if ctx.task == 'classification' else ''} random "
            f"subsample of the rows (e.g. {largest.used:,} of {largest.available:,} "
            f"{words}; {fitted}, and section 7 lists "
            f"every step's rows); --max-rows N changes the budgets and --full uses every row.")


_SPLIT_WORDS = {"train": "training rows", "test": "test rows", "all": "rows", "refit_train": "training rows of the "
                "refits' split", "refit_test": "test rows of the refits' split"}


def top_alerts(ctx):
    """The warning boxes at the very top: no better than a baseline, possible leaks, failed parts."""
    alerts = list(ctx.alerts)
    if ctx.failures:
        parts = "; ".join(f"{f.kind} {f.part!r} ({f.reason.rstrip('.')})" for f in ctx.failures)
        alerts.append(f"{len(ctx.failures)} part(s) of this report failed and are shown as warning boxes in their "
                      f"place; everything else was computed: {parts}.")
    return alerts


def _one_thread():
    """One thread for every BLAS/OpenMP library loaded now (threadpoolctl reaches only those)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1)


@contextlib.contextmanager
def _runtime(config):
    """One BLAS/OpenMP thread per process, and a Dask client when a scheduler is given."""
    from threadpoolctl import threadpool_limits

    with contextlib.ExitStack() as stack:
        # Gradient boosting's OpenMP threads spin-wait; on 2 shared cores they slow a fit
        # by 10-100x when joblib workers run beside them.
        stack.enter_context(threadpool_limits(limits=1))
        if config.scheduler:
            client = connect_scheduler(config.scheduler, timeout=config.scheduler_timeout)
            stack.callback(client.close)
        yield


def build_report(config=None, **options):
    """Build the HTML report and write it atomically to ``config.out/config.filename``.

    Works the same from the command line and from Python (a notebook)::

        from imlkit.report import build_report
        path = build_report(data=frame, target="y", model=fitted_estimator, quick=True, out="rep")

    Parameters
    ----------
    config : ReportConfig, optional
        Never modified: the run works on a copy.
    **options
        ReportConfig fields; with ``config`` they replace its values (in the copy). ``data``:
        a CSV/Parquet path or a pandas DataFrame; ``model``: "gbm", "rf", "glm", "gam",
        "rulefit" or an estimator (a fitted one is explained as it is, refits use a clone).

    Returns
    -------
    str : the report's path

    Notes
    -----
    Every section and every method inside one runs in its own guard
    (:meth:`ReportContext.guard`): a failing part becomes a warning box in its place, one line
    on stderr, and the rest of the report is written. ``strict=True`` makes any failure raise.
    """
    from .. import __version__
    from .._names import short_name
    from ._progress import Progress, resolve_mode
    from ._render import prepare_output
    from ._sec_provenance import section_provenance

    # One door: the config checks every option as it is made (ReportConfig.__post_init__), so a
    # bad option raises here, before any file is read or created.
    if config is None:
        config = ReportConfig(**options)
    elif not isinstance(config, ReportConfig):
        raise TypeError(f"'config' must be a ReportConfig; got {type(config).__name__}.")
    # the run's own copy (frozen; ``extra`` copied too: the caller's dict is never shared)
    config = dataclasses.replace(config, **{**options, "extra": copy.deepcopy(options.get("extra", config.extra))})
    # Before any work: every input exists, the report never overwrites one, and its directory is writable.
    check_inputs_exist(config)
    plan = prepare_output(config.out, config.filename, input_paths(config), option=config.option("out"))
    start = time.perf_counter()
    progress = Progress(resolve_mode(config.progress), total=3)
    try:
        try:
            with _runtime(config), _quiet_warnings() as caught:
                ctx = prepare_context(config, progress=progress)
                progress.set_total(planned_steps(ctx))
                # again: a library loaded with the model (a pickled xgboost or lightgbm brings its own OpenMP) was
                # not there when _runtime limited the threads, and ran with every core
                with _one_thread():
                    sections = build_sections(ctx)
                    ctx.notes += _warning_notes(caught)
                    sections.append(ctx.guard_section("provenance", "7. How it was made",
                                                      lambda: section_provenance(ctx, time.perf_counter() - start)))
        finally:
            progress.close()
        created = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        html = render_html(sections, title=f"Interpretation report: {short_name(ctx.data.target)} ({ctx.model_label})",
                           subtitle=f"{_rows_subtitle(ctx)}, {ctx.data.X.shape[1]} features, {ctx.task}",
                           version=__version__, created=created, alerts=top_alerts(ctx),
                           names=[*map(str, ctx.data.raw.columns), *map(str, ctx.data.X.columns)])
        return write_atomic(plan.path, html)
    except BaseException:  # no report (an error, Ctrl-C, SIGTERM): remove the directories this run created
        plan.discard()
        raise


def _rows_subtitle(ctx):
    """The header's source and rows: with test data both tables and their rows (the frames hold both)."""
    from ._sec_provenance import data_text

    return data_text(ctx) if ctx.evaluation == "test_data" else f"{ctx.data.source} — {len(ctx.data.X):,} rows"
