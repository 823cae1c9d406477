"""Assembling the report: data -> model -> the seven sections -> one HTML file."""
from __future__ import annotations

import contextlib
import datetime as _dt
import os
import time

from ._config import ALL_METHODS, ReportConfig, method_params
from ._context import ReportContext
from ._data import ReportInputError, load_dataset
from ._models import load_model_file, make_model, performance, refit_learner, split
from ._render import render_html, write_atomic

__all__ = ["build_report", "prepare_context", "connect_scheduler", "check_methods", "SECTION_NAMES"]

SECTION_NAMES = ("Data", "Model and baselines", "Feature importance", "Feature effects", "Regional effects",
                 "Interpretable alternatives", "How it was made")


def check_methods(methods):
    """``--methods`` as a tuple of known names (comma-separated text or a sequence).

    Examples
    --------
    >>> check_methods("pfi, CFI,repid")
    ('pfi', 'cfi', 'repid')
    """
    if isinstance(methods, str):
        methods = [m.strip() for m in methods.split(",") if m.strip()]
    methods = tuple(m.lower() for m in methods)
    if not methods:
        raise ReportInputError(f"'--methods' is empty; choose from {', '.join(ALL_METHODS)}.")
    for m in methods:
        if m not in ALL_METHODS:
            raise ReportInputError(f"Unknown method {m!r} in '--methods'; choose from {', '.join(ALL_METHODS)}.")
    return methods


def connect_scheduler(address, timeout):
    """A ``distributed.Client`` for ``tcp://HOST:PORT``; one clear error when it does not answer."""
    if not isinstance(address, str) or "://" not in address:
        raise ReportInputError(f"'--scheduler' must look like tcp://HOST:PORT; got {address!r}.")
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
    return {"gbm": "gradient boosting", "rf": "random forest", "glm": "GLM", "gam": "GAM",
            "rulefit": "RuleFit"}.get(cfg.model, cfg.model) + f" ({type(est).__name__})"


def prepare_context(config):
    """Load the data, split it, fit (or load) the model: the context every section works from."""
    ctx = ReportContext(config=config, params=method_params(config.quick))
    with ctx.step("read and prepare the data", source=config.data or f"shipped:{config.dataset}"):
        ctx.data = load_dataset(config.data, config.dataset, config.target, config.task, config.features)
    with ctx.step("train/test split", test_size=config.test_size, random_state=config.seed,
                  stratified=ctx.data.task == "classification"):
        ctx.X_train, ctx.X_test, ctx.y_train, ctx.y_test = split(ctx.data, config.test_size, config.seed)
    if config.model_file:
        with ctx.step("load the model file", path=config.model_file):
            ctx.model = load_model_file(config.model_file, config.trust_model_file)
        ctx.learner = refit_learner(ctx.model)
    else:
        est = make_model(config.model, ctx.task, ctx.X_train, ctx.y_train, config.seed)
        ctx.learner = refit_learner(est)
        with ctx.step(f"fit the model ({config.model})", estimator=repr(est)):
            ctx.model = est.fit(ctx.X_train, ctx.y_train)
    ctx.model_label = _model_label(ctx.model, config)
    from ..importance._common import default_loss

    ctx.loss = "squared_error" if ctx.task == "regression" else default_loss(ctx.model)
    if ctx.task == "classification" and ctx.loss == "squared_error":
        ctx.loss = "log_loss" if hasattr(ctx.model, "predict_proba") else "zero_one"
    try:
        ctx.performance[ctx.model_label] = performance(ctx.model, ctx.X_test, ctx.y_test, ctx.task)
    except ReportInputError:
        raise
    except Exception as exc:  # a loaded model that does not fit the data is bad input
        raise ReportInputError(f"The model could not predict the test data: {type(exc).__name__}: {exc}") from None
    return ctx


def importance_only(config, method):
    """Data, model and one importance method (``imlkit importance``); returns its ImportanceResult."""
    from ._sec_importance import compute_importance

    with _runtime(config), _quiet_warnings():
        ctx = prepare_context(config)
        if method in ("loco", "lofo", "pimp") and ctx.learner is None:
            raise ReportInputError(f"{method.upper()} refits the model, but {type(ctx.model).__name__} cannot be "
                                   f"cloned (it is not a scikit-learn estimator).")
        results = compute_importance(ctx, method)
    return next(iter(results.values()))


@contextlib.contextmanager
def _quiet_warnings():
    """Collect warnings (shown in the report's notes) instead of printing them."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def _warning_notes(caught, limit=12):
    seen = []
    for w in caught:
        msg = f"{w.category.__name__}: {' '.join(str(w.message).split())}"
        if msg not in seen:
            seen.append(msg)
    notes = [f"Warning raised while computing: {m}" for m in seen[:limit]]
    if len(seen) > limit:
        notes.append(f"... and {len(seen) - limit} more distinct warnings.")
    return notes


def _progress(config):
    """A bar over the report's steps on a terminal (the methods add their own bars below it)."""
    if not config.progress:
        return None, (lambda name: None)
    from tqdm.auto import tqdm

    bar = tqdm(total=None, desc="imlkit report", unit="step", leave=False)

    def hook(name):
        bar.set_description_str(f"imlkit report: {name}"[:70])
        bar.update(1)

    return bar, hook


def build_sections(ctx):
    """The seven sections, in order (section 3's automatic reading needs section 4's H-statistic)."""
    from ._reading import reading_blocks
    from ._sec_alternatives import section_alternatives
    from ._sec_data import section_data
    from ._sec_effects import section_effects, section_regional
    from ._sec_importance import section_importance
    from ._sec_model import section_model

    s1 = section_data(ctx)
    s2 = section_model(ctx)
    s3 = section_importance(ctx)
    s4 = section_effects(ctx)
    s5 = section_regional(ctx)
    s3["blocks"] += reading_blocks(ctx)
    s6 = section_alternatives(ctx)
    return [s1, s2, s3, s4, s5, s6]


@contextlib.contextmanager
def _runtime(config):
    """One BLAS/OpenMP thread per process, and a Dask client when a scheduler is given."""
    from threadpoolctl import threadpool_limits

    with contextlib.ExitStack() as stack:
        # Gradient boosting's OpenMP threads spin-wait; on 2 shared cores they slow a fit
        # by 10-100x when joblib workers run beside them.
        stack.enter_context(threadpool_limits(limits=1))
        if config.scheduler:
            client = connect_scheduler(config.scheduler, config.scheduler_timeout)
            stack.callback(client.close)
        yield


def build_report(config=None, **options):
    """Build the HTML report and write it atomically to ``config.out/config.filename``.

    Parameters
    ----------
    config : ReportConfig, optional
    **options
        ReportConfig fields (when ``config`` is None), e.g. ``quick=True, out="dir"``.

    Returns
    -------
    str : the report's path
    """
    from .. import __version__
    from ._sec_provenance import section_provenance

    config = config or ReportConfig(**options)
    config.methods = check_methods(config.methods)
    out_dir = os.path.abspath(config.out)
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise ReportInputError(f"'--out' {config.out!r} exists and is not a directory.")
    start = time.perf_counter()
    bar, hook = _progress(config)
    try:
        with _runtime(config), _quiet_warnings() as caught:
            ctx = prepare_context(config)
            ctx.progress_hook = hook
            sections = build_sections(ctx)
            ctx.notes += _warning_notes(caught)
            sections.append(section_provenance(ctx, total_seconds=time.perf_counter() - start))
    finally:
        if bar is not None:
            bar.close()
    created = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    html = render_html(sections, title=f"Interpretation report: {ctx.data.target} ({ctx.model_label})",
                       subtitle=f"{ctx.data.source} — {len(ctx.data.X):,} rows, {ctx.data.X.shape[1]} features, "
                                f"{ctx.task}", version=__version__, created=created)
    os.makedirs(out_dir, exist_ok=True)
    return write_atomic(os.path.join(out_dir, config.filename), html)
